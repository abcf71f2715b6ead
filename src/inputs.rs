//! The files a command reads, by identity (device and inode), so that no output replaces one of
//! them, whatever its spelling (`./p.toml`, a hard link, a symbolic link).
//!
//! A value, not a process-wide registry: the command creates one, the places that read files
//! record into it (a profile's layers through its [`Sources`](crate::source::Sources), the
//! command line's files, templates, secret and host files at the edge), and the writers are
//! given it to refuse. Clones share one set, so the worker threads of a batch see each other's
//! inputs.

use std::collections::HashMap;
#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Every input of a command, by (device, inode), with the name it was read by.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    read: Arc<Mutex<HashMap<(u64, u64), PathBuf>>>,
}

impl Inputs {
    /// Notes that `path` is an input of this command. A path that cannot be read is not an
    /// input; its reader reports that.
    pub fn record(&self, path: &Path) {
        if let Ok(meta) = std::fs::metadata(path) {
            let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
            read.entry(identity(&meta))
                .or_insert_with(|| path.to_path_buf());
        }
    }

    /// An error when writing `path` would replace (or write into) one of the command's inputs.
    pub fn refuse(&self, path: &Path) -> Result<(), String> {
        match std::fs::metadata(path) {
            Ok(meta) => self.refuse_file(path, &meta),
            Err(_) => Ok(()),
        }
    }

    /// [`Inputs::refuse`] for a file whose metadata (links followed) is at hand. A recorded
    /// input that no longer has that identity (deleted since, its inode number reused) does not
    /// count.
    pub fn refuse_file(&self, path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
        let id = identity(meta);
        let read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        let Some(input) = read.get(&id) else {
            return Ok(());
        };
        let still = std::fs::metadata(input).is_ok_and(|m| identity(&m) == id);
        if still {
            Err(format!(
                "{}: is an input of this command ({}); refusing to write over it: choose another output",
                path.display(),
                input.display()
            ))
        } else {
            Ok(())
        }
    }
}

/// A file's identity: device and inode on unix. Elsewhere (the browser build, which has no file
/// system and so never records an input) every file has the same identity, which no recorded
/// input can match.
#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

#[cfg(test)]
mod tests {
    use super::Inputs;

    #[test]
    fn a_recorded_file_is_refused_by_any_spelling_and_clones_share_the_set() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "x").unwrap();
        std::fs::hard_link(&file, dir.path().join("link.toml")).unwrap();
        let inputs = Inputs::default();
        assert!(inputs.refuse(&file).is_ok());
        inputs.clone().record(&file);
        assert!(inputs.refuse(&dir.path().join("link.toml")).is_err());
        assert!(
            Inputs::default().refuse(&file).is_ok(),
            "another command's set"
        );
    }
}
