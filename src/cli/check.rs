//! `render --check`: report the stale files (found by `commands::stale`).

pub use crate::commands::stale::{Stale, check_files};

use crate::diag::Code;
use crate::diag::json::Item;
use std::io::Write;

/// The finding of a stale file for the CI formats, at its first line: which file, and what to
/// run (the diff itself is for people).
pub fn stale_item(stale: &Stale) -> Item {
    let code = Code::StaleOutput;
    let file = stale.path.display().to_string();
    Item {
        code: code.id().to_string(),
        name: code.name().to_string(),
        severity: code.severity().as_str(),
        // The file is the finding's location: the message names no path, so that it (and the
        // fingerprint made from it) is the same wherever the repository is checked out.
        message: "this file is stale: it differs from what svcgen renders now from its profile"
            .to_string(),
        file: Some(file),
        line: Some(1),
        column: Some(1),
        end_line: None,
        end_column: None,
        label: None,
        help: Some("render again without --check, and commit the result".to_string()),
        path: Some(stale.path.clone()),
    }
}

/// Prints the result of `--check` on stdout: each diff for people, or one JSON object
/// (`{"stale": [{"file", "diff"}]}`, empty when nothing is stale) for JSON; the CI formats
/// report stale files through the [`super::report::Reporter`] instead.
pub fn report_stale(stale: &[Stale], format: super::Format) {
    let text = match format {
        super::Format::Sarif | super::Format::Gitlab => return,
        super::Format::Human => stale.iter().map(|s| s.diff.as_str()).collect(),
        super::Format::Json => {
            let files: Vec<serde_json::Value> = stale
                .iter()
                .map(
                    |s| serde_json::json!({ "file": s.path.display().to_string(), "diff": s.diff }),
                )
                .collect();
            let report = serde_json::json!({ "stale": files });
            format!(
                "{}\n",
                serde_json::to_string_pretty(&report).unwrap_or_default()
            )
        }
    };
    let _ = std::io::stdout().write_all(text.as_bytes());
}
