//! The commit record of an output folder: what makes a set of files appear whole or not at all,
//! even when the run is killed, and what lets svcgen remove only what it wrote.
//!
//! Before a run creates any temporary file in an `--out-dir`, it writes a record in the folder's
//! root, `.svcgen-run-<id>`, listing each temporary file it will create (`.svcgen-<id>-<n>`,
//! beside its destination) and the file it will replace. When every temporary file is complete,
//! the record is renamed `.svcgen-commit-<id>` (one atomic step: from here the new set wins),
//! the temporary files are renamed into place, and the record is removed. A signal that can be
//! caught never cuts this short (see `cleanup::commit_section`); SIGKILL or a power loss can,
//! and the next run into the folder, holding its lock, finishes the job from the record:
//!
//! - a `.svcgen-run-` record: the commit never began; its temporary files are removed (the old
//!   set stays);
//! - a `.svcgen-commit-` record: the commit began; every temporary file still there is renamed
//!   into place (the new set wins).
//!
//! A commit may also remove outputs svcgen wrote earlier and no longer renders (listed in the
//! folder's `.svcgen-record`, see `record`): the commit record names each (a line of one path),
//! and they are removed after the renames, or by the next run when the commit had begun.
//!
//! Nothing else is ever removed: a file is touched only when a record names it, and a record
//! names only files called `.svcgen-<its id>-<n>` below the folder (a user's `.svcgen-notes`
//! stays), and outputs the folder's own record listed. Records are read in the folder's root only, never in a folder below it (which may be
//! another run's output folder).

use super::cleanup::{self, Temp};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// The first line of every record; a file without it is not svcgen's and is left alone.
const MAGIC: &str = "svcgen commit record v1";
/// The last line of a complete record.
const END: &str = "end";
/// The name of a record whose commit has not begun, then of one whose commit has.
const RUN_PREFIX: &str = ".svcgen-run-";
const COMMIT_PREFIX: &str = ".svcgen-commit-";

/// One planned commit: its record, written, and the temporary file of each destination.
pub struct Journal {
    root: PathBuf,
    id: String,
    record: Temp,
    /// (temporary file, destination), both absolute, below `root`.
    entries: Vec<(PathBuf, PathBuf)>,
    /// Outputs of an earlier render to remove, absolute, below `root`.
    removals: Vec<PathBuf>,
    durable: bool,
}

impl Journal {
    /// Writes the record of a commit replacing `destinations` and removing `removals` (absolute
    /// paths inside `root`, the output folder's canonical path) in `root`, before any temporary
    /// file exists.
    pub fn begin(
        root: &Path,
        destinations: &[PathBuf],
        removals: &[PathBuf],
        durable: bool,
    ) -> Result<Journal, String> {
        let record = Temp::create(root, RUN_PREFIX, 0o600)
            .map_err(|e| format!("{}: cannot create a file: {e}", root.display()))?;
        let id = record
            .path()
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(RUN_PREFIX))
            .unwrap_or_default()
            .to_string();
        let mut entries = Vec::with_capacity(destinations.len());
        let mut text = format!("{MAGIC}\n");
        for (n, dest) in destinations.iter().enumerate() {
            let temp = super::folder_of(dest).join(format!(".svcgen-{id}-{n}"));
            let line = serde_json::to_string(&[relative(root, &temp)?, relative(root, dest)?])
                .map_err(|e| format!("{}: {e}", dest.display()))?;
            text.push_str(&line);
            text.push('\n');
            entries.push((temp, dest.clone()));
        }
        for gone in removals {
            let line = serde_json::to_string(&[relative(root, gone)?])
                .map_err(|e| format!("{}: {e}", gone.display()))?;
            text.push_str(&line);
            text.push('\n');
        }
        text.push_str(END);
        text.push('\n');
        let mut file = record.file();
        file.write_all(text.as_bytes())
            .and_then(|()| if durable { file.sync_all() } else { Ok(()) })
            .map_err(|e| format!("{}: cannot write: {e}", record.path().display()))?;
        Ok(Journal {
            root: root.to_path_buf(),
            id,
            record,
            entries,
            removals: removals.to_vec(),
            durable,
        })
    }

    /// The temporary file the record names for the `n`th destination.
    pub fn temp_path(&self, n: usize) -> &Path {
        &self.entries[n].0
    }

    /// Puts every temporary file in place (`temps[n]` is the `n`th destination's), as one commit
    /// that a catchable signal does not interrupt. An error on the way leaves the files renamed
    /// so far in place and removes the rest, and says so.
    pub fn commit(self, temps: Vec<Temp>) -> Result<(), String> {
        let Some(_section) = cleanup::commit_section() else {
            return Err("ending on a signal: nothing was replaced".to_string());
        };
        let committed = self.root.join(format!("{COMMIT_PREFIX}{}", self.id));
        self.record
            .persist(&committed)
            .map_err(|e| format!("{}: cannot write: {e}", committed.display()))?;
        if self.durable {
            sync_folder(&self.root)?;
        }
        let mut result = Ok(());
        for (temp, (_, dest)) in temps.into_iter().zip(&self.entries) {
            if result.is_ok() {
                result = temp.persist(dest).map_err(|e| {
                    format!(
                        "{}: cannot write: {e} (the files before it were replaced)",
                        dest.display()
                    )
                });
                cleanup::test_commit_step();
            }
        }
        if result.is_ok() {
            for gone in &self.removals {
                result = remove_output(gone).map_err(|e| {
                    format!(
                        "{}: cannot remove: {e} (the new files were written)",
                        gone.display()
                    )
                });
                if result.is_err() {
                    break;
                }
            }
        }
        if self.durable {
            for dest in self.entries.iter().map(|(_, d)| d).chain(&self.removals) {
                sync_folder(super::folder_of(dest))?;
            }
        }
        let _ = std::fs::remove_file(&committed);
        result
    }
}

/// Removes an output of an earlier render: a file, or a link (never what it points to); a
/// folder or a path no longer there is left as it is.
fn remove_output(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() || meta.file_type().is_symlink() => {
            std::fs::remove_file(path)
        }
        _ => Ok(()),
    }
}

fn sync_folder(folder: &Path) -> Result<(), String> {
    std::fs::File::open(folder)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("{}: cannot sync the folder: {e}", folder.display()))
}

/// `path` relative to `root`, as text for the record.
fn relative(root: &Path, path: &Path) -> Result<String, String> {
    path.strip_prefix(root)
        .ok()
        .and_then(|rest| rest.to_str())
        .map(str::to_string)
        .ok_or_else(|| {
            format!(
                "{}: not a UTF-8 path inside {}; refusing to write there",
                path.display(),
                root.display()
            )
        })
}

/// What a killed run left in the output folder `root`: finishes or undoes each commit its record
/// names (see the module documentation). Called holding the folder's exclusive lock. Returns one
/// note per record acted on.
pub fn recover(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    let mut records: Vec<(PathBuf, String, bool)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let (id, committed) = match name.strip_prefix(COMMIT_PREFIX) {
                Some(id) => (id.to_string(), true),
                None => (name.strip_prefix(RUN_PREFIX)?.to_string(), false),
            };
            Some((e.path(), id, committed))
        })
        .collect();
    records.sort();
    for (record, id, committed) in records {
        let Some((pairs, removals)) = read_record(root, &record, &id) else {
            continue;
        };
        let mut done = 0;
        if committed {
            for gone in &removals {
                let inside = super::names::ensure_inside(root, super::folder_of(gone)).is_ok();
                done += usize::from(inside && remove_output(gone).is_ok());
            }
        }
        for (temp, dest) in &pairs {
            let is_file = std::fs::symlink_metadata(temp).is_ok_and(|m| m.file_type().is_file());
            if !is_file {
                continue;
            }
            let acted = if committed {
                super::names::ensure_inside(root, dest).is_ok()
                    && std::fs::rename(temp, dest).is_ok()
            } else {
                std::fs::remove_file(temp).is_ok()
            };
            done += usize::from(acted);
        }
        let _ = std::fs::remove_file(&record);
        notes.push(if committed {
            format!(
                "note: {}: a run was stopped while putting its files in place; finished it ({done} file(s))",
                root.display()
            )
        } else {
            format!(
                "note: {}: removed the {done} temporary file(s) of a run that was stopped before writing",
                root.display()
            )
        });
    }
    notes
}

/// The (temporary file, destination) pairs of a record and the outputs it removes, or `None`
/// when the file is not one of svcgen's records. A record cut short while it was written (no end line) names nothing: its
/// run had created no temporary file yet. Each pair must stay below `root`, and each temporary
/// file must carry the record's own id, so no record can name a file svcgen did not create.
type Entries = (Vec<(PathBuf, PathBuf)>, Vec<PathBuf>);

fn read_record(root: &Path, record: &Path, id: &str) -> Option<Entries> {
    let bytes = crate::profile::read_regular(record).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return None;
    }
    let mut pairs = Vec::new();
    let mut removals = Vec::new();
    for line in lines {
        if line == END {
            return Some((pairs, removals));
        }
        if let Ok([gone]) = serde_json::from_str::<[String; 1]>(line) {
            removals.push(plain_below(root, &gone)?);
            continue;
        }
        let [temp, dest]: [String; 2] = serde_json::from_str(line).ok()?;
        let (temp, dest) = (plain_below(root, &temp)?, plain_below(root, &dest)?);
        let own = temp
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!(".svcgen-{id}-")));
        if !own || super::folder_of(&temp) != super::folder_of(&dest) {
            return None;
        }
        pairs.push((temp, dest));
    }
    Some((Vec::new(), Vec::new()))
}

/// `root/relative` when `relative` is made of plain names only (no `..`, not absolute).
fn plain_below(root: &Path, relative: &str) -> Option<PathBuf> {
    let rest = Path::new(relative);
    let plain = rest.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && !relative.is_empty()).then(|| root.join(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }

    /// A commit cut by SIGKILL, as its record and temporary files are left on disk.
    fn left_behind(root: &Path, committed: bool) {
        std::fs::create_dir(root.join("sub")).unwrap();
        for (name, old) in [("a", "old a"), ("sub/b", "old b")] {
            std::fs::write(root.join(name), old).unwrap();
        }
        std::fs::write(root.join(".svcgen-x1-0"), "new a").unwrap();
        std::fs::write(root.join("sub/.svcgen-x1-1"), "new b").unwrap();
        let prefix = if committed { COMMIT_PREFIX } else { RUN_PREFIX };
        std::fs::write(
            root.join(format!("{prefix}x1")),
            format!("{MAGIC}\n[\".svcgen-x1-0\",\"a\"]\n[\"sub/.svcgen-x1-1\",\"sub/b\"]\n{END}\n"),
        )
        .unwrap();
        // A user's files that merely look like svcgen's.
        std::fs::write(root.join(".svcgen-notes"), "mine").unwrap();
        std::fs::write(root.join("sub/.svcgen-x2-0"), "mine too").unwrap();
    }

    #[test]
    fn a_commit_cut_by_sigkill_before_it_began_is_rolled_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        left_behind(&root, false);
        assert_eq!(recover(&root).len(), 1);
        assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "old a");
        assert_eq!(
            std::fs::read_to_string(root.join("sub/b")).unwrap(),
            "old b"
        );
        assert_eq!(names(&root), [".svcgen-notes", "a", "sub"]);
        assert_eq!(names(&root.join("sub")), [".svcgen-x2-0", "b"]);
    }

    #[test]
    fn a_commit_cut_by_sigkill_after_it_began_is_rolled_forward() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        left_behind(&root, true);
        // The first file was already renamed when the run was killed.
        std::fs::rename(root.join(".svcgen-x1-0"), root.join("a")).unwrap();
        assert_eq!(recover(&root).len(), 1);
        assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "new a");
        assert_eq!(
            std::fs::read_to_string(root.join("sub/b")).unwrap(),
            "new b"
        );
        assert_eq!(names(&root), [".svcgen-notes", "a", "sub"]);
        assert_eq!(names(&root.join("sub")), [".svcgen-x2-0", "b"]);
    }

    /// An output the commit removes (no longer rendered) goes only once the commit has begun.
    #[test]
    fn a_removal_is_done_by_a_begun_commit_only() {
        for committed in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let root = std::fs::canonicalize(dir.path()).unwrap();
            std::fs::write(root.join("k8s.yaml"), "old").unwrap();
            let prefix = if committed { COMMIT_PREFIX } else { RUN_PREFIX };
            std::fs::write(
                root.join(format!("{prefix}x1")),
                format!("{MAGIC}\n[\"k8s.yaml\"]\n{END}\n"),
            )
            .unwrap();
            assert_eq!(recover(&root).len(), 1);
            assert_eq!(root.join("k8s.yaml").exists(), !committed, "{prefix}");
            assert!(names(&root).iter().all(|n| !n.starts_with(prefix)));
        }
    }

    #[test]
    fn a_record_cannot_name_a_file_svcgen_did_not_create() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("keep"), "mine").unwrap();
        std::fs::write(root.join(".svcgen-y-0"), "mine").unwrap();
        for body in [
            format!("{MAGIC}\n[\"keep\",\"x\"]\n{END}\n"),
            format!("{MAGIC}\n[\"../keep\",\"x\"]\n{END}\n"),
            format!("{MAGIC}\n[\".svcgen-y-0\",\"x\"]\n{END}\n"),
            "not a record\n".to_string(),
        ] {
            std::fs::write(root.join(".svcgen-run-z"), &body).unwrap();
            recover(&root);
            let _ = std::fs::remove_file(root.join(".svcgen-run-z"));
        }
        assert_eq!(names(&root), [".svcgen-y-0", "keep"]);
        std::fs::write(root.join(".svcgen-commit-q"), "user text\n").unwrap();
        assert!(recover(&root).is_empty(), "not a record: left alone");
        assert!(root.join(".svcgen-commit-q").exists());
    }
}
