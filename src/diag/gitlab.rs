//! Diagnostics as a GitLab code-quality report: the JSON array the merge-request widget reads
//! (`artifacts: reports: codequality`), one issue per diagnostic.

use super::location::Finding;
use serde::Serialize;

/// One code-quality issue, with the fields GitLab reads.
#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: &'a str,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: usize,
}

/// The report: `description` is `CODE name: message`, `check_name` the code; a problem with no
/// file is placed at the report's own folder (`.`), line 1 (GitLab wants a path on every issue).
pub fn to_gitlab(findings: &[Finding]) -> serde_json::Value {
    let issues: Vec<Issue> = findings
        .iter()
        .map(|f| Issue {
            description: format!("{} {}: {}", f.item.code, f.item.name, f.item.message),
            check_name: &f.item.code,
            fingerprint: &f.fingerprint,
            severity: severity(f.item.severity),
            location: Location {
                path: f.place.path().unwrap_or_else(|| ".".to_string()),
                lines: Lines {
                    begin: f.item.line.unwrap_or(1),
                },
            },
        })
        .collect();
    serde_json::to_value(issues).unwrap_or_default()
}

/// GitLab's scale (info, minor, major, critical, blocker): an error (the profile cannot be
/// deployed as it is) is `critical`, a warning `minor`, a note `info`.
fn severity(severity: &str) -> &'static str {
    if severity == super::Severity::Error.as_str() {
        "critical"
    } else if severity == super::Severity::Note.as_str() {
        "info"
    } else {
        "minor"
    }
}
