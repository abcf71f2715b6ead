//! The files a command reads, by identity (device and inode), so that no output replaces one of
//! them, whatever its spelling (`./p.toml`, a hard link, a symbolic link); and by canonical
//! path, so that no output folder holds one (`--out-dir` is swept and written as a whole) and no
//! output takes the place of a file the profile names that does not exist yet.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Every input of the running command, by (device, inode), with the name it was read by. A
/// process runs one command, so a process-wide set is exactly "the command's inputs", across the
/// threads of a batch.
static READ: Mutex<Option<HashMap<(u64, u64), PathBuf>>> = Mutex::new(None);

/// Every input and every file the profile names, by canonical path (its folder resolved when
/// the file is not there), with the name it was given.
static NAMED: Mutex<Vec<(PathBuf, PathBuf)>> = Mutex::new(Vec::new());

/// Notes that `path` is an input of this command (by identity when it exists, and by path).
pub fn record(path: &Path) {
    if let Ok(meta) = std::fs::metadata(path) {
        let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
        read.get_or_insert_with(HashMap::new)
            .entry((meta.dev(), meta.ino()))
            .or_insert_with(|| path.to_path_buf());
    }
    if let Some(canonical) = canonical_path(path) {
        let mut named = NAMED.lock().unwrap_or_else(|e| e.into_inner());
        if !named.iter().any(|(c, _)| *c == canonical) {
            named.push((canonical, path.to_path_buf()));
        }
    }
}

/// `path` with every link resolved; when it does not exist, its nearest existing folder resolved
/// and the rest of its names kept (plain names only). `None` for a path with `..` below the part
/// that exists (nothing can be said of it without the folders).
pub fn canonical_path(path: &Path) -> Option<PathBuf> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Some(real);
    }
    let mut missing = Vec::new();
    let mut at = path;
    loop {
        let name = at.file_name()?;
        if !matches!(
            at.components().next_back(),
            Some(std::path::Component::Normal(_))
        ) {
            return None;
        }
        missing.push(name);
        at = match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if let Ok(real) = std::fs::canonicalize(at) {
            return Some(missing.iter().rev().fold(real, |acc, n| acc.join(n)));
        }
    }
}

/// An error when the folder `dir` is, or holds (at any depth), an input of this command or a
/// file its profile names: `--out-dir` must be a folder of outputs only.
pub fn refuse_inside(dir: &Path) -> Result<(), String> {
    let Some(root) = canonical_path(dir) else {
        return Ok(());
    };
    let named = NAMED.lock().unwrap_or_else(|e| e.into_inner());
    match named
        .iter()
        .find(|(canonical, _)| canonical.starts_with(&root))
    {
        Some((_, input)) => Err(format!(
            "{}: refusing to write into this folder: {} is an input of this command (choose an output folder that holds no input)",
            dir.display(),
            input.display()
        )),
        None => Ok(()),
    }
}

/// An error when writing `path` would replace (or write into) one of the command's inputs, or
/// create a file the profile names.
pub fn refuse_input(path: &Path) -> Result<(), String> {
    match std::fs::metadata(path) {
        Ok(meta) => refuse_input_file(path, &meta),
        Err(_) => refuse_named(path),
    }
}

/// An error when `path` (not there yet) is a file the profile names.
pub fn refuse_named(path: &Path) -> Result<(), String> {
    let Some(canonical) = canonical_path(path) else {
        return Ok(());
    };
    let named = NAMED.lock().unwrap_or_else(|e| e.into_inner());
    match named.iter().find(|(c, _)| *c == canonical) {
        Some((_, input)) => Err(format!(
            "{}: is an input of this command ({}); refusing to write over it: choose another output",
            path.display(),
            input.display()
        )),
        None => Ok(()),
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
