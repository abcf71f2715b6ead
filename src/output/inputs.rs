//! The files a command reads, by identity (device and inode), so that no output replaces one of
//! them, whatever its spelling (`./p.toml`, a hard link, a symbolic link).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every input of the running command, by (device, inode), with the name it was read by. A
/// process runs one command, so a process-wide set is exactly "the command's inputs", across the
/// threads of a batch.
static READ: Mutex<Option<HashMap<(u64, u64), PathBuf>>> = Mutex::new(None);

/// Notes that `path` is an input of this command. A path that cannot be read is not an input;
/// its reader reports that.
pub fn record(path: &Path) {
    if let Ok(meta) = std::fs::metadata(path) {
        let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
        read.get_or_insert_with(HashMap::new)
            .entry((meta.dev(), meta.ino()))
            .or_insert_with(|| path.to_path_buf());
    }
}

/// An error when writing `path` would replace (or write into) one of the command's inputs.
pub fn refuse_input(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(meta) => refuse_input_file(path, &meta),
        Err(_) => Ok(()),
    }
}

/// [`refuse_input`] for a file whose metadata (links followed) is at hand. A recorded input that
/// no longer has that identity (deleted since, its inode number reused) does not count.
pub fn refuse_input_file(path: &Path, meta: &std::fs::Metadata) -> Result<(), String> {
    let id = (meta.dev(), meta.ino());
    let read = READ.lock().unwrap_or_else(|e| e.into_inner());
    let Some(input) = read.as_ref().and_then(|r| r.get(&id)) else {
        return Ok(());
    };
    let still = std::fs::metadata(input).is_ok_and(|m| (m.dev(), m.ino()) == id);
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
