//! Diagnostics for machines: a JSON array, one object per diagnostic.

use super::Diagnostics;
use crate::source::Sources;
use serde_json::{Value, json};

/// The diagnostics as a JSON array (code, name, severity, message, file, line, column, end_line,
/// end_column, label, help).
pub fn to_json(diagnostics: &Diagnostics, sources: &Sources) -> Value {
    let scrubber = sources.scrubber();
    let items = diagnostics
        .items
        .iter()
        .map(|d| {
            let (file, start, end) = match d.origin {
                Some(o) => (
                    Some(sources.get(o.source).name.clone()),
                    Some(sources.line_col(o.source, o.start)),
                    Some(sources.line_col(o.source, o.end)),
                ),
                None => (None, None, None),
            };
            json!({
                "code": d.code.id(),
                "name": d.code.name(),
                "severity": d.severity().as_str(),
                "message": scrubber.scrub(&d.message),
                "file": file,
                "line": start.map(|p| p.line),
                "column": start.map(|p| p.column),
                "end_line": end.map(|p| p.line),
                "end_column": end.map(|p| p.column),
                "label": d.label.as_deref().map(|l| scrubber.scrub(l)),
                "help": if d.help.is_empty() { Value::Null } else { Value::from(scrubber.scrub(&d.help.join("\n"))) },
            })
        })
        .collect();
    Value::Array(items)
}

/// A problem that is not in a profile (an unreadable file, a broken template), as an entry of
/// the same array: code and name `io`, no position.
pub fn io_entry(message: &str) -> Value {
    json!({
        "code": "io",
        "name": "io",
        "severity": "error",
        "message": message,
        "file": null,
        "line": null,
        "column": null,
        "end_line": null,
        "end_column": null,
        "label": null,
        "help": null,
    })
}

/// The text `--format json` prints: the array of every entry, pretty, with a final newline.
pub fn array_text(entries: &[Value]) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(entries).unwrap_or_default()
    )
}
