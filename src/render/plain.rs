//! What the plain-Rust renderers of the built-in targets share. A built-in target whose template
//! the user has not replaced is written by plain Rust (no template compiled, no context
//! serialized: about a third of a one-target render's instructions); its template stays the
//! reference. `tests` below renders every example and fixture both ways, under every option, and
//! with hostile values, and fails on any byte that differs. A case a renderer does not expect
//! (a value the template would refuse) returns `None`, and the template renders it, errors and all.

use crate::templates::filters::dollar_escape;
use crate::templates::yaml_quote;
use std::borrow::Cow;

/// `value` as the YAML templates print `{{ value }}`: one double-quoted scalar.
pub(super) fn yaml(out: &mut String, value: &str) {
    yaml_quote::quote_into(out, value);
}

/// `value` as the YAML templates print `{{ value|dollar_escape }}`.
pub(super) fn yaml_dollars(out: &mut String, value: &str) {
    let escaped = if value.contains('$') {
        Cow::Owned(dollar_escape(value.to_string()))
    } else {
        Cow::Borrowed(value)
    };
    yaml(out, &escaped);
}

/// The finished YAML text with long lines folded, as `Templates::render` folds a YAML template's
/// output (no copy when every line is short, the common case).
pub(super) fn yaml_done(text: String) -> String {
    if text.split('\n').any(|line| line.len() > yaml_quote::WIDTH) {
        yaml_quote::fold_lines(&text)
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use crate::render::{EnvOptions, Input, Target, Templates, environment, format, targets};
    use std::path::{Path, PathBuf};

    /// Every target that has a plain-Rust renderer.
    fn plain_targets() -> Vec<Target> {
        (Target::VARIANTS.iter().copied())
            .filter(|target| target.row().plain.is_some())
            .collect()
    }

    /// Every profile of `examples/` and of the valid fixtures (`tests/schema-valid/`).
    fn profiles() -> Vec<PathBuf> {
        let mut out = Vec::new();
        for dir in ["examples", "tests/schema-valid"] {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "toml") {
                    out.push(path);
                }
            }
        }
        out.sort();
        assert!(out.len() >= 10, "{out:?}");
        out
    }

    /// The text of `target` from its template (the reference) and from plain Rust, or `None` when
    /// the check stage refuses the target for this profile.
    fn both_ways(
        target: Target,
        input: &Input,
        templates: &Templates,
    ) -> Option<(String, Option<String>)> {
        if crate::deployment::checks::target(&target.carrier(), input.resolved, input.env)
            .has_errors()
        {
            return None;
        }
        let (template, context) = crate::render::template_context(target, input)?;
        let reference = templates
            .render(template, context)
            .map(|text| crate::render::finish(template, text));
        let plain = (targets::row(target).plain?)(input);
        Some((reference.ok()?, plain))
    }

    /// Compares both ways for every plain target of the profile at `path`, under `options`, for
    /// stdout and for an output folder; returns how many texts were compared.
    fn compare(path: &Path, options: EnvOptions, templates: &Templates) -> usize {
        let mut sources = crate::diag::source::Sources::new();
        let checked = crate::pipeline::check_profile(path, &mut sources).unwrap();
        let Some(resolved) = checked.resolved else {
            return 0;
        };
        let Ok(env) = environment(&resolved, options) else {
            return 0;
        };
        let folder = std::env::temp_dir().join("svcgen-plain-out");
        let mut compared = 0;
        for folder in [None, Some(folder.as_path())] {
            let deployment = crate::deployment::Deployment::planned(
                &resolved,
                env.clone(),
                folder,
                options,
                None,
            );
            let input = Input::of(&deployment);
            for target in plain_targets() {
                let Some((reference, plain)) = both_ways(target, &input, templates) else {
                    continue;
                };
                // `None`: the template renders this case; `format` must then give its text.
                let plain = match plain {
                    Some(text) => text,
                    None => format(target, &input, templates).unwrap(),
                };
                assert_eq!(
                    plain,
                    reference,
                    "{target:?} of {} ({options:?}, folder {folder:?})",
                    path.display()
                );
                compared += 1;
            }
        }
        compared
    }

    /// Class 1 (plain Rust for the built-in targets): byte-identical to the templates on every
    /// example and fixture, with and without `--minimal`, `--include-secrets` and `--out-dir`.
    #[test]
    fn class1_plain_renderers_match_the_templates_on_every_example_and_fixture() {
        assert!(
            plain_targets().len() >= 3,
            "dotenv, compose, k8s-env at least"
        );
        let templates = Templates::load(None).unwrap();
        let mut compared = 0;
        for path in profiles() {
            for (minimal, include_secrets, copy_host_files) in [
                (false, false, false),
                (true, false, false),
                (false, true, false),
                (false, false, true),
                (true, true, true),
            ] {
                let options = EnvOptions {
                    minimal,
                    include_secrets,
                    copy_host_files,
                };
                compared += compare(&path, options, &templates);
            }
        }
        assert!(compared >= 100, "only {compared} texts compared");
    }

    /// Class 1: the same with hostile values in every quoting path (`$`, quotes, line breaks,
    /// control and line-separator characters, long values folded, a `#` after a blank).
    #[test]
    fn class1_plain_renderers_match_the_templates_on_hostile_values() {
        let values = [
            "a$b$$c $(X) ${Y}",
            "it's \"quoted\" \\ back\\",
            "line\nbreak\r\ttab",
            "\u{1}\u{7f}\u{85}\u{2028}\u{feff}",
            " lead and trail ",
            "x #comment",
            "#first",
            "'single",
            &"long value with spaces ".repeat(12),
            &"é$".repeat(70),
            "",
        ];
        let dir = tempfile::tempdir().unwrap();
        let example = std::fs::read_to_string("examples/b-consul-vault-sql.toml").unwrap();
        let templates = Templates::load(None).unwrap();
        let mut compared = 0;
        for (i, value) in values.iter().enumerate() {
            let literal = toml_edit::Value::from(*value).to_string();
            let text =
                format!("{example}\n[env]\nEXTRA_ONE = {literal}\nEXTRA_{i}_TWO = {literal}\n");
            let path = dir.path().join(format!("p{i}.toml"));
            std::fs::write(&path, text).unwrap();
            std::fs::create_dir_all(dir.path().join("files")).unwrap();
            compared += compare(&path, EnvOptions::default(), &templates);
        }
        assert!(compared >= values.len(), "only {compared} texts compared");
    }
}
