//! `render --check`: compare each file on disk with its rendering and report the stale ones.

use crate::diag::Code;
use crate::diag::json::Item;
use crate::output::Contents;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A file on disk that differs from its rendering, and what differs (see [`crate::commands::drift`]).
pub struct Stale {
    path: PathBuf,
    diff: String,
}

/// Compares each file with its rendering; returns the stale ones with what differs of each. The
/// file on disk is read through the one bounded reader: a FIFO or `/dev/zero` named as the output
/// is stale, never read forever. With `include_secrets`, see [`crate::commands::drift::report`].
pub fn check_files(files: &[(PathBuf, Contents)], include_secrets: bool) -> Vec<Stale> {
    let mut stale = Vec::new();
    for (path, contents) in files {
        let text = match contents {
            Contents::Text(text) => text,
            Contents::Bytes(bytes) | Contents::PrivateBytes(bytes) => {
                stale.extend(check_bytes(path, bytes));
                continue;
            }
        };
        let on_disk = match crate::profile::read_regular(path) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(crate::profile::ReadError(why)) if path.exists() => {
                stale.push(Stale {
                    path: path.clone(),
                    diff: format!("{why}: it is not what would be written\n"),
                });
                continue;
            }
            Err(_) => None,
        };
        if let Some(diff) = crate::commands::drift::report(
            &path.display().to_string(),
            on_disk.as_deref(),
            text,
            include_secrets,
        ) {
            stale.push(Stale {
                path: path.clone(),
                diff,
            });
        }
    }
    stale
}

/// Files svcgen wrote earlier that this render no longer produces (see `render`): each is stale,
/// as the render removes it.
pub fn extra_files(paths: &[PathBuf]) -> Vec<Stale> {
    paths
        .iter()
        .map(|path| Stale {
            path: path.clone(),
            diff: format!(
                "{}: svcgen wrote it earlier and no longer renders it; a render removes it\n",
                path.display()
            ),
        })
        .collect()
}

/// A copied file (maybe binary, maybe a secret) compared byte-wise: what differs is never shown.
fn check_bytes(path: &Path, bytes: &[u8]) -> Option<Stale> {
    let why = match crate::profile::read_regular(path) {
        Ok(on_disk) if on_disk == bytes => return None,
        Ok(_) => "binary file differs (its source changed)".to_string(),
        Err(_) if !path.exists() => "missing".to_string(),
        Err(crate::profile::ReadError(why)) => format!("{why}: it is not what would be written"),
    };
    Some(Stale {
        path: path.to_path_buf(),
        diff: format!("{}: {why}\n", path.display()),
    })
}

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
