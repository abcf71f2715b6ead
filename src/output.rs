//! Writing outputs: atomically (a temporary file in the same folder, then a rename), so that a
//! reader never sees a half-written file and a failed run leaves the old file untouched.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Writes `contents` to `path` atomically. A replaced file keeps its permissions; a new one is
/// readable by all (0644), or by its owner only (0600) when `private` (it holds secrets).
pub fn write_atomic(path: &Path, contents: &str, private: bool) -> Result<(), String> {
    write_all_atomic(&[(path.to_path_buf(), contents.to_string())], private)
}

/// Writes several files all or nothing: every file is first written in full to a temporary file
/// beside its destination, and only when all of them are ready are they renamed into place.
pub fn write_all_atomic(files: &[(PathBuf, String)], private: bool) -> Result<(), String> {
    let mut staged = Vec::with_capacity(files.len());
    let mut special = Vec::new();
    for (path, contents) in files {
        match std::fs::metadata(path) {
            // `-o /dev/stdout`, a FIFO: written to as they are, never replaced by a file.
            Ok(meta) if !meta.is_file() && !meta.is_dir() => special.push((path, contents)),
            // A symbolic link to a file: the file it points to is replaced, the link kept.
            Ok(meta) if meta.is_file() => {
                let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
                staged.push((stage(&real, contents, private)?, real));
            }
            _ => staged.push((stage(path, contents, private)?, path.clone())),
        }
    }
    for (file, path) in staged {
        file.persist(&path)
            .map_err(|e| format!("{}: cannot write: {}", path.display(), e.error))?;
    }
    for (path, contents) in special {
        std::fs::write(path, contents)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    }
    Ok(())
}

/// A temporary file beside `path` holding `contents`, with the permissions `path` will have.
fn stage(path: &Path, contents: &str, private: bool) -> Result<tempfile::NamedTempFile, String> {
    if path.is_dir() {
        return Err(format!(
            "{}: is a folder; cannot write a file there",
            path.display()
        ));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".svcgen-")
        .tempfile_in(dir)
        .map_err(|e| {
            format!(
                "{}: cannot create a file in {}: {e}",
                path.display(),
                dir.display()
            )
        })?;
    let permissions = match std::fs::metadata(path) {
        Ok(meta) if !private => meta.permissions(),
        _ => std::fs::Permissions::from_mode(if private { 0o600 } else { 0o644 }),
    };
    file.as_file()
        .set_permissions(permissions)
        .map_err(|e| format!("{}: cannot set permissions: {e}", path.display()))?;
    file.write_all(contents.as_bytes())
        .and_then(|()| file.as_file().sync_all())
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(file)
}

/// A unified diff of `old` (on disk) against `new` (what would be written), for `--check`.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let ops = diff_ops(&old_lines, &new_lines);
    let mut out = format!("--- {path} (on disk)\n+++ {path} (rendered)\n");
    // Hunks with three lines of context.
    let mut i = 0;
    while i < ops.len() {
        if matches!(ops[i], Op::Same(..)) {
            i += 1;
            continue;
        }
        let start = i.saturating_sub(3);
        let mut end = i;
        let mut quiet: usize = 0;
        while end < ops.len() && quiet <= 6 {
            if matches!(ops[end], Op::Same(..)) {
                quiet += 1
            } else {
                quiet = 0
            }
            end += 1;
        }
        let end = (end - quiet.saturating_sub(3)).min(ops.len());
        let (old_start, new_start) = ops[start].positions();
        let old_count = ops[start..end]
            .iter()
            .filter(|o| !matches!(o, Op::Add(..)))
            .count();
        let new_count = ops[start..end]
            .iter()
            .filter(|o| !matches!(o, Op::Del(..)))
            .count();
        out.push_str(&format!(
            "@@ -{},{old_count} +{},{new_count} @@\n",
            old_start + 1,
            new_start + 1
        ));
        for op in &ops[start..end] {
            match op {
                Op::Same(o, _) => out.push_str(&format!(" {}\n", old_lines[*o])),
                Op::Del(o, _) => out.push_str(&format!("-{}\n", old_lines[*o])),
                Op::Add(_, n) => out.push_str(&format!("+{}\n", new_lines[*n])),
            }
        }
        i = end;
    }
    out
}

/// One line of an edit script, with the old and new line numbers it stands at.
#[derive(Debug, Clone, Copy)]
enum Op {
    Same(usize, usize),
    Del(usize, usize),
    Add(usize, usize),
}

impl Op {
    fn positions(self) -> (usize, usize) {
        match self {
            Op::Same(o, n) | Op::Del(o, n) | Op::Add(o, n) => (o, n),
        }
    }
}

/// A longest-common-subsequence edit script; outputs are small (hundreds of lines).
fn diff_ops(old: &[&str], new: &[&str]) -> Vec<Op> {
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            ops.push(Op::Same(i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(Op::Del(i, j));
            i += 1;
        } else {
            ops.push(Op::Add(i, j));
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.env");
        write_atomic(&path, "A=1\n", false).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        write_atomic(&path, "A=2\n", false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "A=2\n");
        let secret = dir.path().join("s.env");
        write_atomic(&secret, "S=x\n", true).unwrap();
        assert_eq!(mode(&secret), 0o600);
        write_atomic(&path, "A=3\n", true).unwrap();
        assert_eq!(mode(&path), 0o600);

        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary file is left"
        );
    }

    #[test]
    fn special_files_are_written_to_and_links_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.env");
        std::fs::write(&target, "OLD\n").unwrap();
        let link = dir.path().join("link.env");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, "NEW\n", false).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "NEW\n");
        write_atomic(Path::new("/dev/null"), "x", false).unwrap();
        assert!(
            !std::fs::metadata("/dev/null").unwrap().is_file(),
            "/dev/null is not replaced"
        );
    }

    #[test]
    fn diff_shows_changed_lines_with_context() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nb\nC\nd\n";
        let diff = unified_diff("f", old, new);
        assert!(diff.contains("@@ -1,4 +1,4 @@"), "{diff}");
        assert!(diff.contains("-c\n+C\n"), "{diff}");
        assert!(diff.contains(" a\n b\n"), "{diff}");
    }

    #[test]
    fn diff_of_an_empty_file_adds_everything() {
        let diff = unified_diff("f", "", "x\ny\n");
        assert!(diff.contains("+x\n+y\n"), "{diff}");
    }
}
