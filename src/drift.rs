//! What `render --check` says of a file on disk that differs from its rendering: a unified diff
//! (linear in memory, from the `similar` crate), differences of line endings and of the final
//! newline named as such (a diff of them would look empty), and secret values never shown.

use crate::redact::mask_named_lines;
use similar::{Algorithm, TextDiff};

/// The report for one file, or `None` when the file on disk is what would be written. `on_disk`
/// is `None` for a missing file.
pub fn report(path: &str, on_disk: Option<&str>, rendered: &str) -> Option<String> {
    if on_disk == Some(rendered) {
        return None;
    }
    let Some(old) = on_disk else {
        return Some(unified(path, "missing", "", rendered));
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

fn trailing_newlines(text: &str) -> usize {
    text.len() - text.trim_end_matches('\n').len()
}

/// A unified diff with three lines of context. Myers' algorithm in linear space: a 25,000-line
/// file costs kilobytes, not the gigabytes of a table of every pair of lines.
fn unified(path: &str, old_name: &str, old: &str, new: &str) -> String {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_lines(old, new);
    diff.unified_diff()
        .context_radius(3)
        .header(
            &format!("{path} ({old_name})"),
            &format!("{path} (rendered)"),
        )
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_shows_changed_lines_with_context() {
        let diff = report("f", Some("a\nb\nc\nd\n"), "a\nb\nC\nd\n").unwrap();
        assert!(diff.contains("@@ -1,4 +1,4 @@"), "{diff}");
        assert!(diff.contains("-c\n+C\n"), "{diff}");
        assert!(diff.contains(" a\n b\n"), "{diff}");
    }

    #[test]
    fn a_missing_file_adds_everything() {
        let diff = report("f", None, "x\ny\n").unwrap();
        assert!(diff.contains("+x\n+y\n"), "{diff}");
    }

    #[test]
    fn line_endings_and_final_newline_are_named() {
        let crlf = report("f", Some("a\r\nb\r\n"), "a\nb\n").unwrap();
        assert_eq!(crlf, "f: line endings differ: CRLF on disk, LF rendered\n");
        let end = report("f", Some("a\nb"), "a\nb\n").unwrap();
        assert_eq!(
            end,
            "f: only the final newline differs: 0 on disk, 1 rendered\n"
        );
    }

    #[test]
    fn secret_values_are_never_shown() {
        let old = "A='1'\nCN_GOOGLE_SECRET_MANAGER_PASSPHRASE='old-s3cret'\n";
        let new = "A='2'\nCN_GOOGLE_SECRET_MANAGER_PASSPHRASE='new-s3cret'\n";
        let diff = report("f", Some(old), new).unwrap();
        assert!(!diff.contains("s3cret"), "{diff}");
        assert!(diff.contains("+A='2'"), "{diff}");
        let only = report("f", Some(old), &old.replace("old-", "new-")).unwrap();
        assert_eq!(only, "f: a secret value differs (not shown)\n");
    }
}
