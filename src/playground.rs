//! The browser playground's answer for one profile text: what `svcgen validate - --format json`
//! prints and what `svcgen render - -t TARGET` prints for each target the page shows, through
//! the same library entry points as the command line (no second pipeline). Pure: no file
//! system, clock or thread, so it runs in WebAssembly (see `web/`).

use crate::diag::Diagnostics;
use crate::pipeline::check_text;
use crate::profile::STDIN_NAME;
use crate::render::{EnvOptions, Target, Templates, render_checked};
use crate::source::Sources;
use serde_json::{Map, Value, json};
use std::path::Path;

/// The targets the playground shows, in its order.
pub const TARGETS: [Target; 4] = [Target::Dotenv, Target::Compose, Target::K8sEnv, Target::K8s];

/// Exit code of a valid run, and of an invalid one (as the command line's).
const EXIT_OK: u8 = 0;
const EXIT_INVALID: u8 = 1;

/// The answer as JSON: `validate` (the exact text `validate - --format json` prints) with its
/// `validate_exit`; `targets`, per target name, the `text` `render - -t NAME` prints (null when
/// it prints nothing) with its `exit`; `host_files`, the host paths whose checks were skipped
/// (the browser has no file system); `extends`, the bases it names, which it cannot read either:
/// only the text itself is checked, as an editor does (see `lsp`).
pub fn answer(text: &str, templates: &Templates) -> Value {
    let mut sources = Sources::new();
    // As `-` (standard input): named <stdin>, relative paths from the current folder.
    let checked = check_text(STDIN_NAME, text, Some(Path::new(".")), &mut sources);
    let mut diagnostics = checked.diagnostics.clone();
    let mut io = Vec::new();
    let mut targets = Map::new();
    let mut host_files = Vec::new();
    if let Some(resolved) = &checked.resolved {
        let rendered = crate::validate::render_checks(resolved, false, templates);
        io.extend(crate::templates::messages(&rendered.template_errors));
        diagnostics.extend(rendered.diagnostics);
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
    let validate_exit = if io.is_empty() {
        exit_code(&diagnostics)
    } else {
        EXIT_INVALID
    };
    json!({
        "validate": crate::diag::json::array_text(&entries),
        "validate_exit": validate_exit,
        "targets": targets,
        "host_files": host_files,
        "extends": crate::profile::extends_entries(text).into_iter().map(|(base, _)| base).collect::<Vec<_>>(),
    })
}

/// What `render - -t target` prints to stdout (host paths as written) and its exit code.
fn render_one(
    target: Target,
    resolved: &crate::resolve::Resolved,
    checked: &Diagnostics,
    templates: &Templates,
) -> Value {
    let rendered = render_checked(resolved, EnvOptions::default(), &[target], templates, None);
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
