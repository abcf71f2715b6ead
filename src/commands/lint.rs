//! `lint`: the spec model's checks on an environment as it is deployed today (a `.env` file, a
//! compose service, a ConfigMap or a workload), reported at the line and column of that file.
//!
//! The container reads its environment leniently and silently: a boolean other than `true`-like
//! words is false, a non-integer wait time falls back to its default, a misspelled name is
//! ignored. Lint says so for each, with the reading `import` uses, then checks the values read as
//! a profile's (wrong types, allowed values, plain http, sleep above max time, required values),
//! with resolve's one wording for each.

use crate::diag::source::Sources;
use crate::diag::{Code, Diagnostics};
use crate::import::{Read, analyze, profile_check};
use crate::model::Edition;

/// Every problem of what `read` found, for `edition` or the edition its variables decide.
pub fn lint(read: &Read, edition: Option<Edition>, sources: &Sources) -> Diagnostics {
    // The image's tag names the edition when none is given (`--edition` wins over it).
    let edition = edition.or_else(|| {
        (read.deploy.image.as_ref())
            .and_then(|(image, _)| crate::import::edition::edition_of_image(image))
    });
    let analysis = analyze(&read.entries, edition, sources, true);
    let mut diags = read.diagnostics.clone();
    // An edition the variables leave open is not a problem of the file.
    diags.extend(Diagnostics {
        items: analysis
            .diagnostics
            .items
            .iter()
            .filter(|d| d.code != Code::Edition)
            .cloned()
            .collect(),
    });
    let (resolved, found) = profile_check(read, &analysis, sources);
    diags.extend(found);
    if let Some(resolved) = &resolved {
        let complete = !crate::import::reading_failed(read, &analysis);
        diags.extend(super::lint_workload::check(
            read, resolved, sources, complete,
        ));
    }
    crate::import::in_variable_names(&mut diags, analysis.read_as);
    diags.sort();
    diags
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ReadOptions, read_text};

    /// The codes and 1-based lines of what `lint` reports on a `.env` text, as edition B.
    fn reported(text: &str) -> Vec<(Code, usize)> {
        let mut sources = Sources::new();
        let read = read_text(".env", text, &ReadOptions::default(), &mut sources);
        let diags = lint(&read, Some(Edition::B), &sources);
        let line = |d: &crate::diag::Diagnostic| {
            let at = d.origin.expect("at a place");
            sources.line_col(at.source, at.start).line
        };
        diags.items.iter().map(|d| (d.code, line(d))).collect()
    }

    /// A value that is one placeholder as a whole comes from the shell: reported once, whether
    /// the variable is the spec's or not; a placeholder inside a value is kept as literal text.
    #[test]
    fn a_placeholder_is_reported_once() {
        let spec_var = crate::model::Model::get()
            .vars_of(Edition::B)
            .find(|v| v.ty == crate::model::VarType::String && !v.secret && !v.required)
            .expect("a string variable");
        let text = format!(
            "{}=${{FROM_SHELL}}\nMY_APP_FLAG=${{FLAG}}\nMY_APP_URL=a$B\n",
            spec_var.env
        );
        let placeholders: Vec<usize> = reported(&text)
            .into_iter()
            .filter(|(code, _)| *code == Code::Placeholder)
            .map(|(_, line)| line)
            .collect();
        assert_eq!(placeholders, [1, 2, 3]);
    }

    /// A setting whose group depends on a value that could not be read (the mapping is not
    /// JSON) is not said to have no effect: only the value's own error is reported.
    #[test]
    fn no_effect_is_not_claimed_when_a_selector_could_not_be_read() {
        let broken =
            "CN_PERSISTENCE_TYPE=hybrid\nCN_HYBRID_MAPPING={\"default\":\nCN_SQL_DB_HOST=db\n";
        assert_eq!(reported(broken), [(Code::HybridJson, 2)]);
        // The same setting with a mapping that names no SQL backend has no effect.
        let read = r#"CN_PERSISTENCE_TYPE=hybrid
CN_HYBRID_MAPPING={"default":"couchbase","user":"couchbase","site":"couchbase","cache":"couchbase","token":"couchbase","session":"couchbase"}
CN_SQL_DB_HOST=db
"#;
        assert!(
            reported(read).contains(&(Code::NotApplied, 3)),
            "{:?}",
            reported(read)
        );
    }
}
