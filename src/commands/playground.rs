//! The browser playground's answer for one profile text: what `svcgen validate - --format json`
//! prints and what `svcgen render - -t TARGET` prints for each target the page shows, through
//! the same library entry points as the command line (no second pipeline). Pure: no file
//! system, clock or thread, so it runs in WebAssembly (see `web/`).

use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::pipeline::check_text;
use crate::profile::STDIN_NAME;
use crate::render::{EnvOptions, Target, Templates, render_checked};
use serde_json::{Map, Value, json};
use std::path::Path;

/// The targets the playground shows, in its order.
pub const TARGETS: [Target; 4] = [Target::Dotenv, Target::Compose, Target::K8sEnv, Target::K8s];

/// Exit code of a valid run, of an invalid one, and of an input that cannot be read (as the
/// command line's).
const EXIT_OK: u8 = 0;
const EXIT_INVALID: u8 = 1;
const EXIT_IO: u8 = 2;

/// The answer as JSON: `validate` (the exact text `validate - --format json` prints) with its
/// `validate_exit`; `targets`, per target name, the `text` `render - -t NAME` prints (null when
/// it prints nothing) with its `exit`; `host_files`, the host paths whose checks were skipped
/// (the browser has no file system); `extends`, the bases it names, which it cannot read either:
/// only the text itself is checked, as an editor does (see `lsp`).
pub fn answer(text: &str, templates: &Templates) -> Value {
    if let Err(crate::profile::ReadError(why)) = crate::profile::check_stdin_size(text.len()) {
        return unreadable(&why);
    }
    let mut sources = Sources::new();
    // As `-` (standard input): named <stdin>, relative paths from the current folder.
    let checked = check_text(STDIN_NAME, text, Some(Path::new(".")), &mut sources);
    let crate::commands::validate::Report {
        diagnostics,
        template_errors: io,
    } = crate::commands::validate::report(&checked, false, templates, None);
    let mut targets = Map::new();
    let mut host_files = Vec::new();
    if let Some(resolved) = &checked.resolved {
        for target in TARGETS {
            targets.insert(
                target.name().to_string(),
                render_one(target, resolved, &checked.diagnostics, templates),
            );
        }
        host_files = resolved
            .deploy
            .files
            .iter()
            .filter_map(|f| f.host.clone())
            .collect();
    } else {
        for target in TARGETS {
            targets.insert(
                target.name().to_string(),
                json!({ "text": null, "exit": exit_code(&checked.diagnostics) }),
            );
        }
    }
    let mut entries: Vec<Value> = io.iter().map(|m| crate::diag::json::io_entry(m)).collect();
    if let Value::Array(items) = crate::diag::json::to_json(&diagnostics, &sources) {
        entries.extend(items);
    }
    // As validate's: a failed template is also an error diagnostic (`render_checked` adds it).
    let validate_exit = exit_code(&diagnostics);
    // The files this text is checked over natively: its `extends` bases, and the base its
    // `#:svcgen overlay-of` directive names; the browser can read neither.
    let bases: Vec<String> = crate::profile::extends_entries(text)
        .into_iter()
        .map(|(base, _)| base)
        .chain(crate::profile::overlay_of(text).map(|(base, _)| base))
        .collect();
    json!({
        "validate": crate::diag::json::array_text(&entries),
        "validate_exit": validate_exit,
        "targets": targets,
        "host_files": host_files,
        "extends": bases,
    })
}

/// The answer for text the command line would not read (too big): one io entry, nothing rendered.
fn unreadable(why: &str) -> Value {
    let targets: Map<String, Value> = TARGETS
        .iter()
        .map(|t| {
            (
                t.name().to_string(),
                json!({ "text": null, "exit": EXIT_IO }),
            )
        })
        .collect();
    json!({
        "validate": crate::diag::json::array_text(&[crate::diag::json::io_entry(why)]),
        "validate_exit": EXIT_IO,
        "targets": targets,
        "host_files": [],
        "extends": [],
    })
}

/// What `render - -t target` prints to stdout (host paths as written) and its exit code.
fn render_one(
    target: Target,
    resolved: &crate::resolve::Resolved,
    checked: &Diagnostics,
    templates: &Templates,
) -> Value {
    let rendered = render_checked(
        resolved,
        EnvOptions::default(),
        &[target],
        templates,
        None,
        None,
    );
    let failed = checked.has_errors()
        || rendered.diagnostics.has_errors()
        || !rendered.template_errors.is_empty();
    let text = rendered
        .files
        .into_iter()
        .find(|(t, _)| *t == target)
        .map(|(_, text)| text)
        .filter(|_| !failed);
    json!({ "text": text, "exit": if failed { EXIT_INVALID } else { EXIT_OK } })
}

/// 1 when there is an error, else 0 (no `--deny-warnings` in the playground).
fn exit_code(diagnostics: &Diagnostics) -> u8 {
    if diagnostics.has_errors() {
        EXIT_INVALID
    } else {
        EXIT_OK
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates() -> Templates {
        Templates::load(None).unwrap()
    }

    #[test]
    fn text_over_the_limit_is_refused_as_standard_input_is() {
        let big = "#".repeat(crate::profile::MAX_PROFILE_BYTES as usize + 1);
        let answer = answer(&big, &templates());
        assert_eq!(answer["validate_exit"], 2);
        let validate: Value = serde_json::from_str(answer["validate"].as_str().unwrap()).unwrap();
        assert_eq!(validate[0]["code"], "io");
        let message = validate[0]["message"].as_str().unwrap();
        assert!(message.contains("an input may have at most"), "{message}");
        assert!(answer["targets"]["dotenv"]["text"].is_null());
    }

    #[test]
    fn host_files_and_bases_are_named_for_the_page() {
        let text = std::fs::read_to_string("examples/a-ldap-plugins.toml").unwrap();
        let answer = answer(&text, &templates());
        // The example's two plugin archives, its AppRole files and its SSA file.
        assert_eq!(
            answer["host_files"].as_array().unwrap().len(),
            5,
            "{answer}"
        );
        assert!(answer["targets"]["compose"]["text"].is_string());
        let layered = answer_for_extends();
        assert_eq!(layered["extends"], json!(["base.toml"]));
    }

    fn answer_for_extends() -> Value {
        answer("extends = \"base.toml\"\nedition = \"B\"\n", &templates())
    }
}
