//! What `render --check` says of a file on disk that differs from its rendering: a unified diff
//! (linear in memory, from the `similar` crate), differences of line endings and of the final
//! newline named as such (a diff of them would look empty), and secret values never shown.

use crate::diag::redact::{mask_named_lines, named_ranges};
use similar::{Algorithm, TextDiff};
#[cfg(feature = "host")]
use std::path::{Path, PathBuf};

/// The report for one file, or `None` when the file on disk is what would be written. `on_disk`
/// is `None` for a missing file. With `include_secrets`, a file whose rendering (or copy on disk)
/// holds a secret value is reported stale without any line of it: masking line by line cannot
/// follow a value folded over YAML continuation lines or a multi-line value.
pub fn report(
    path: &str,
    on_disk: Option<&str>,
    rendered: &str,
    include_secrets: bool,
) -> Option<String> {
    if on_disk == Some(rendered) {
        return None;
    }
    let holds_secret = |text: &str| !named_ranges(text).is_empty();
    if include_secrets && (holds_secret(rendered) || on_disk.is_some_and(holds_secret)) {
        return Some(format!("{path}: {SECRET_NOT_SHOWN}\n"));
    }
    let Some(old) = on_disk else {
        return Some(unified(path, "missing", "", &mask_named_lines(rendered)));
    };
    let mut out = String::new();
    let old_lf = old.replace("\r\n", "\n");
    if old_lf != old && !rendered.contains("\r\n") {
        out.push_str(&format!(
            "{path}: line endings differ: CRLF on disk, LF rendered\n"
        ));
    }
    if old_lf == rendered {
        return Some(out);
    }
    let (old_end, new_end) = (trailing_newlines(&old_lf), trailing_newlines(rendered));
    if old_lf.trim_end_matches('\n') == rendered.trim_end_matches('\n') {
        out.push_str(&format!(
            "{path}: only the final newline differs: {old_end} on disk, {new_end} rendered\n"
        ));
        return Some(out);
    }
    let (old_shown, new_shown) = (mask_named_lines(&old_lf), mask_named_lines(rendered));
    if old_shown == new_shown {
        out.push_str(&format!("{path}: a secret value differs (not shown)\n"));
        return Some(out);
    }
    out.push_str(&unified(path, "on disk", &old_shown, &new_shown));
    Some(out)
}

/// What `--check --include-secrets` says of a stale file holding a secret value.
pub const SECRET_NOT_SHOWN: &str = "stale; it holds secret values, so the difference is not shown";

fn trailing_newlines(text: &str) -> usize {
    text.len() - text.trim_end_matches('\n').len()
}

/// How long the diff of one file may search for the shortest edit script: Myers' algorithm is
/// linear for a few changes but quadratic when every line changed (a 25,000-line file took 3 s).
/// Past it the rest is shown as replaced, which is still a correct diff, only a longer one.
const DIFF_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// The most lines of one file's diff that are shown; the rest is counted, not printed.
const DIFF_LINES: usize = 10_000;

/// A unified diff with three lines of context, Myers' algorithm in linear space, its work bounded
/// ([`DIFF_TIME`]) and its length too ([`DIFF_LINES`]); when either cut it, the last line says so.
fn unified(path: &str, old_name: &str, old: &str, new: &str) -> String {
    // A clock only where there is one (the host build; `Instant::now` panics in the browser).
    let started = cfg!(feature = "host").then(std::time::Instant::now);
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(DIFF_TIME)
        .diff_lines(old, new);
    let cut_short = started.is_some_and(|t| t.elapsed() >= DIFF_TIME);
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{path} ({old_name})"),
            &format!("{path} (rendered)"),
        )
        .to_string();
    let mut shown = String::new();
    let mut lines = text.split_inclusive('\n');
    for line in lines.by_ref().take(DIFF_LINES) {
        shown.push_str(line);
    }
    let more = lines.count();
    if more > 0 {
        shown.push_str(&format!(
            "{path}: the diff was cut: {more} more line(s) not shown\n"
        ));
    }
    if cut_short {
        shown.push_str(&format!(
            "{path}: the diff was cut: its search stopped after {} ms, so it may show more \
             lines as changed than did\n",
            DIFF_TIME.as_millis()
        ));
    }
    shown
}

#[cfg(feature = "host")]
/// A file on disk that differs from its rendering, and what differs (see [`report`]).
pub struct Stale {
    pub path: PathBuf,
    pub diff: String,
}

#[cfg(feature = "host")]
/// Compares each file with its rendering; returns the stale ones with what differs of each. The
/// file on disk is read through the one bounded reader: a FIFO or `/dev/zero` named as the output
/// is stale, never read forever. With `include_secrets`, see [`report`].
pub fn check_files(
    files: &[(PathBuf, crate::output::Contents)],
    include_secrets: bool,
) -> Vec<Stale> {
    let mut stale = Vec::new();
    for (path, contents) in files {
        let text = match contents {
            crate::output::Contents::Text(text) => text,
            crate::output::Contents::Bytes(bytes)
            | crate::output::Contents::PrivateBytes(bytes) => {
                stale.extend(check_bytes(path, bytes));
                continue;
            }
        };
        let on_disk = match crate::profile::read_regular(path) {
            // The same bytes: up to date, without decoding the file or naming it for a diff.
            Ok(bytes) if bytes == text.as_bytes() => continue,
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
        if let Some(diff) = report(
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

#[cfg(feature = "host")]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changed_lines_with_context() {
        let diff = report("f", Some("a\nb\nc\nd\n"), "a\nb\nC\nd\n", false).unwrap();
        assert!(diff.contains("@@ -1,4 +1,4 @@"), "{diff}");
        assert!(diff.contains("-c\n+C\n"), "{diff}");
        assert!(diff.contains(" a\n b\n"), "{diff}");
    }

    #[test]
    fn a_missing_file_adds_everything() {
        let diff = report("f", None, "x\ny\n", false).unwrap();
        assert!(diff.contains("+x\n+y\n"), "{diff}");
    }

    #[test]
    fn line_endings_and_final_newline_are_named() {
        let crlf = report("f", Some("a\r\nb\r\n"), "a\nb\n", false).unwrap();
        assert_eq!(crlf, "f: line endings differ: CRLF on disk, LF rendered\n");
        let end = report("f", Some("a\nb"), "a\nb\n", false).unwrap();
        assert_eq!(
            end,
            "f: only the final newline differs: 0 on disk, 1 rendered\n"
        );
    }

    #[test]
    fn secret_values_are_never_shown() {
        let old = "A='1'\nCN_GOOGLE_SECRET_MANAGER_PASSPHRASE='old-s3cret'\n";
        let new = "A='2'\nCN_GOOGLE_SECRET_MANAGER_PASSPHRASE='new-s3cret'\n";
        let diff = report("f", Some(old), new, false).unwrap();
        assert!(!diff.contains("s3cret"), "{diff}");
        assert!(diff.contains("+A='2'"), "{diff}");
        let only = report("f", Some(old), &old.replace("old-", "new-"), false).unwrap();
        assert_eq!(only, "f: a secret value differs (not shown)\n");
    }

    #[test]
    fn with_include_secrets_a_file_holding_a_secret_shows_no_line() {
        let folded = "x:\n  CN_GOOGLE_SECRET_MANAGER_PASSPHRASE: \"abc\\\n    def-s3cret\"\n";
        for old in [None, Some("x: 1\n")] {
            let diff = report("f", old, folded, true).unwrap();
            assert_eq!(diff, format!("f: {SECRET_NOT_SHOWN}\n"));
        }
        assert!(
            report("f", Some("a\n"), "b\n", true)
                .unwrap()
                .contains("+b")
        );
    }

    /// A file written by an earlier `--include-secrets` run, checked without it: a value folded
    /// over continuation lines (a `.env`/ConfigMap key, a Kubernetes `env` item) is masked whole.
    #[test]
    fn a_folded_secret_on_disk_is_masked_whole() {
        let old =
            "x:\n  CN_GOOGLE_SECRET_MANAGER_PASSPHRASE: \"abc\\\n    def-s3cret\"\n  A: \"1\"\n";
        let new = "x:\n  A: \"2\"\n";
        let diff = report("f", Some(old), new, false).unwrap();
        assert!(!diff.contains("s3cret"), "{diff}");
        assert!(diff.contains("-  A: \"1\"\n+  A: \"2\"\n"), "{diff}");
        let k8s_old = "        - name: CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\n          value: \"abc\\\n            def-s3cret\"\n";
        let diff = report("f", Some(k8s_old), "x\n", false).unwrap();
        assert!(!diff.contains("s3cret"), "{diff}");
    }
}
