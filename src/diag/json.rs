//! Diagnostics for machines: a JSON array, one object per diagnostic. The objects ([`Item`]) are
//! also what the CI formats (`sarif`, `gitlab`) are made from, so that every machine format
//! places and redacts a diagnostic the same way.

use super::{Diagnostic, Diagnostics, Severity};
use crate::diag::redact::Scrubber;
use crate::diag::source::Sources;
use serde::Serialize;
use serde_json::Value;

/// One diagnostic as machines get it: positions 1-based, every text scrubbed of secrets.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    /// The stable code (`E0204`), or `io` for a problem that is not in an input.
    pub code: String,
    pub name: String,
    pub severity: &'static str,
    pub message: String,
    /// The source's name as the user gave it (a path, `<stdin>`, `--set`).
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Where the span ends: the column after its last character.
    pub end_line: Option<usize>,
    pub end_column: Option<usize>,
    pub label: Option<String>,
    pub help: Option<String>,
    /// The file's path as read (its bytes, where `file` is a lossy name): what the CI formats'
    /// URIs encode.
    #[serde(skip)]
    pub path: Option<std::path::PathBuf>,
}

impl Item {
    /// A problem that is not in an input (an unreadable file, a broken template).
    pub fn io(message: &str) -> Item {
        Item {
            code: "io".to_string(),
            name: "io".to_string(),
            severity: Severity::Error.as_str(),
            message: message.to_string(),
            file: None,
            line: None,
            column: None,
            end_line: None,
            end_column: None,
            label: None,
            help: None,
            path: None,
        }
    }
}

/// The diagnostics as [`Item`]s, in order, each text through the sources' one scrubber.
pub fn items(diagnostics: &Diagnostics, sources: &Sources) -> Vec<Item> {
    let scrubber = sources.scrubber();
    diagnostics
        .items
        .iter()
        .map(|d| item(d, sources, &scrubber))
        .collect()
}

fn item(d: &Diagnostic, sources: &Sources, scrubber: &Scrubber) -> Item {
    // A span over a secret value ends nowhere: its width would tell the value's length.
    let (file, start, end) = match d.origin {
        Some(o) => (
            Some(sources.get(o.source).name.clone()),
            Some(sources.line_col(o.source, o.start)),
            (!covers_secret(sources, o)).then(|| sources.line_col(o.source, o.end)),
        ),
        None => (None, None, None),
    };
    Item {
        code: d.code.id().to_string(),
        name: d.code.name().to_string(),
        severity: d.severity().as_str(),
        message: scrubber.scrub(&d.message),
        file,
        line: start.map(|p| p.line),
        column: start.map(|p| p.column),
        end_line: end.map(|p| p.line),
        end_column: end.map(|p| p.column),
        label: d.label.as_deref().map(|l| scrubber.scrub(l)),
        help: (!d.help.is_empty()).then(|| scrubber.scrub(&d.help.join("\n"))),
        path: d.origin.and_then(|o| sources.get(o.source).path.clone()),
    }
}

/// True when the span of `origin` overlaps a secret value of its source.
fn covers_secret(sources: &Sources, origin: crate::diag::source::Origin) -> bool {
    let span = origin.span();
    (sources.get(origin.source).secret_ranges().iter())
        .any(|s| s.start < span.end && span.start < s.end)
}

/// The diagnostics as a JSON array (code, name, severity, message, file, line, column, end_line,
/// end_column, label, help).
pub fn to_json(diagnostics: &Diagnostics, sources: &Sources) -> Value {
    serde_json::to_value(items(diagnostics, sources)).unwrap_or_default()
}

/// A problem that is not in a profile (an unreadable file, a broken template), as an entry of
/// the same array: code and name `io`, no position.
pub fn io_entry(message: &str) -> Value {
    serde_json::to_value(Item::io(message)).unwrap_or_default()
}

/// The text `--format json` prints: the array of every entry, pretty, with a final newline.
pub fn array_text(entries: &[Value]) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(entries).unwrap_or_default()
    )
}
