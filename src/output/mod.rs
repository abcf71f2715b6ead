//! Writing outputs, the one place svcgen writes files. Every write is atomic (a temporary file in
//! the same folder, then a rename), so a reader never sees a half-written file and a failed run
//! leaves the old file untouched. Before anything is written, every output is checked: it is not
//! one of the command's inputs (by device and inode), it lies inside the folder the user named,
//! and it is not a folder. A file whose content is already on disk is left alone (its
//! modification time kept). `--out-dir` folders are locked while written, so two runs never mix.
//! In an output folder no link is written through (two outputs would share one file): a link
//! where an output belongs, or a folder link on the way, is refused. svcgen keeps no file of its own
//! there; a SIGKILL can leave a temporary file (`.svcgen-…`), which [`leftovers`] names.

mod cleanup;
pub mod names;

pub use names::{batch_folder_name, folder_name_problem};

use crate::support::inputs::Inputs;
use cleanup::Temp;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// How hard a write tries to survive a power loss (it never leaves a half-written file either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Write and rename; the kernel writes back later (what every peer tool does).
    #[default]
    Rename,
    /// Also fsync each file before its rename, and each folder after (`render --fsync`).
    Fsync,
}

/// How a set of files is written.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions<'a> {
    /// The files hold secrets: new and replaced files are readable by their owner only (0600).
    pub private: bool,
    pub durability: Durability,
    /// The one write allowed over an input: `migrate --in-place` replacing its own profile.
    pub in_place: bool,
    /// The command's inputs, none of which a write may replace (`None`: the command read none).
    pub inputs: Option<&'a Inputs>,
    /// Files of an output folder this render no longer produces, each with what svcgen renders
    /// for it: removed in the same commit, each only if it still holds exactly that.
    pub remove: &'a [(PathBuf, String)],
}

/// What one output holds: text (every rendered target) or bytes (a host file copied into the
/// output folder, such as a plugin archive). Both are written alike; `--check` shows a diff of
/// text but only says that bytes differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    Text(String),
    Bytes(Vec<u8>),
    /// Bytes readable by their owner only (0600): a copy of a host file others cannot read.
    PrivateBytes(Vec<u8>),
}

impl AsRef<[u8]> for Contents {
    fn as_ref(&self) -> &[u8] {
        match self {
            Contents::Text(text) => text.as_bytes(),
            Contents::Bytes(bytes) | Contents::PrivateBytes(bytes) => bytes,
        }
    }
}

/// What a write did, file by file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    pub written: usize,
    /// Files whose content was already on disk: not rewritten.
    pub unchanged: usize,
    /// Outputs of an earlier render removed ([`WriteOptions::remove`]).
    pub removed: usize,
}

/// Writes `contents` to `path` atomically, fsynced: the single-file commands (`import -o`,
/// `migrate --in-place`, `schema -o`, ...) may replace a file written by hand. A replaced file
/// keeps its permissions; a new one gets 0666 less the umask, or 0600 when `private`.
pub fn write_atomic(
    path: &Path,
    contents: &str,
    private: bool,
    inputs: &Inputs,
) -> Result<(), String> {
    write_all_atomic(
        &[(path.to_path_buf(), contents.to_string())],
        private,
        inputs,
    )
}

/// Replaces `path`, the command's own input, with `contents` (`migrate --in-place`): like
/// [`write_atomic`], without refusing the input it replaces.
pub fn write_in_place(path: &Path, contents: &str) -> Result<(), String> {
    let options = WriteOptions {
        durability: Durability::Fsync,
        in_place: true,
        ..WriteOptions::default()
    };
    write_files(&[(path.to_path_buf(), contents.to_string())], None, options).map(|_| ())
}

/// Writes several files all or nothing, fsynced (see [`write_files`]).
pub fn write_all_atomic(
    files: &[(PathBuf, String)],
    private: bool,
    inputs: &Inputs,
) -> Result<(), String> {
    let options = WriteOptions {
        private,
        durability: Durability::Fsync,
        in_place: false,
        inputs: Some(inputs),
        remove: &[],
    };
    write_files(files, None, options).map(|_| ())
}

/// One output's contents, and whether it must be readable by its owner only whatever the
/// command's options say (a copy of a host file that is not readable by others).
pub trait Payload: AsRef<[u8]> {
    fn private(&self) -> bool {
        false
    }
}

impl Payload for String {}

impl Payload for Contents {
    fn private(&self) -> bool {
        matches!(self, Contents::PrivateBytes(_))
    }
}

/// What to do with one output.
enum Plan<'a> {
    Unchanged,
    /// `-o /dev/stdout`, a FIFO: written to as it is, never replaced by a file.
    Special(&'a Path, &'a [u8]),
    /// Written to a temporary file, then renamed over `dest` (the file a link points to).
    Stage(Box<Staged<'a>>),
}

/// A file to write in full beside its destination before the commit renames it into place.
struct Staged<'a> {
    dest: PathBuf,
    contents: &'a [u8],
    existing: Option<std::fs::Metadata>,
    options: WriteOptions<'a>,
}

/// Writes several files all or nothing: each is checked, then written in full to a temporary
/// file beside its destination, and only when all are ready are they renamed into place, in one
/// commit that a signal does not cut ([`commit`]). With `within` (an `--out-dir`, canonical),
/// every path must lie inside it with no link on the way or in its place, and missing folders
/// are created; without it, each path must resolve inside its own folder (a link leading
/// elsewhere is refused). Contents are text or bytes ([`Contents`]).
pub fn write_files<C: Payload>(
    files: &[(PathBuf, C)],
    within: Option<&Path>,
    options: WriteOptions<'_>,
) -> Result<Written, String> {
    // The folders checked (each, created on the way, is its own canonical path).
    let mut checked: Vec<&Path> = Vec::new();
    if let Some(root) = within {
        for (path, _) in files {
            let folder = folder_of(path);
            if !checked.contains(&folder) {
                names::create_inside(root, folder)?;
                checked.push(folder);
            }
        }
    }
    let mut done = Written::default();
    let mut staged = Vec::new();
    let mut special = Vec::new();
    for (path, contents) in files {
        let mut file_options = options;
        file_options.private |= contents.private();
        match plan(path, contents.as_ref(), within, file_options)? {
            Plan::Unchanged => done.unchanged += 1,
            Plan::Special(path, bytes) => special.push((path, bytes)),
            Plan::Stage(stage) => staged.push(*stage),
        }
    }
    done.written += staged.len();
    let removals = match within {
        Some(root) => removals(root, options)?,
        None => Vec::new(),
    };
    done.removed = removals.len();
    commit(&staged, &removals, options.durability)?;
    for (path, contents) in special {
        std::fs::write(path, contents)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        done.written += 1;
    }
    Ok(done)
}

/// The files to remove that are there and still hold what svcgen renders for them: each a
/// regular file (never a link or a folder) in a folder inside `root`, and none an input.
fn removals(root: &Path, options: WriteOptions<'_>) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for (path, text) in options.remove {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if !meta.file_type().is_file() || !holds(path, text.as_bytes()) {
            continue;
        }
        names::ensure_inside(root, folder_of(path))?;
        if let Some(inputs) = options.inputs {
            inputs
                .refuse_file(path, &meta)
                .map_err(|e| e.replace("refusing to write over it", "refusing to remove it"))?;
        }
        found.push(path.clone());
    }
    Ok(found)
}

/// Whether `path` is a regular file holding exactly `contents` (read only when the sizes agree).
pub fn holds(path: &Path, contents: &[u8]) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| same_content(path, &meta, contents))
}

/// The temporary files a killed run left in `folder` (`.svcgen-…`): named, never removed.
pub fn leftovers(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .as_encoded_bytes()
                .starts_with(cleanup::TEMP_PREFIX.as_bytes())
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// The commit: every temporary file is written in full first, then all are renamed into place
/// and the files to remove are removed, in one section a signal does not cut (it ends the
/// process after the section): the folder holds the old set or the new one. Only SIGKILL or a
/// power loss can stop it half-way; every file is still whole, and the next run rewrites what
/// differs (`--check` reports it).
fn commit(
    staged: &[Staged<'_>],
    removals: &[PathBuf],
    durability: Durability,
) -> Result<(), String> {
    let mut temps = Vec::with_capacity(staged.len());
    for stage in staged {
        temps.push(write_temp(stage)?);
    }
    if temps.is_empty() && removals.is_empty() {
        return Ok(());
    }
    cleanup::test_pause();
    let Some(_section) = cleanup::commit_section() else {
        return Err("ending on a signal: nothing was replaced".to_string());
    };
    for (temp, stage) in temps.into_iter().zip(staged) {
        temp.persist(&stage.dest)
            .map_err(|e| format!("{}: cannot write: {e}", stage.dest.display()))?;
        cleanup::test_commit_step();
    }
    for path in removals {
        std::fs::remove_file(path)
            .map_err(|e| format!("{}: cannot remove: {e}", path.display()))?;
    }
    if durability == Durability::Fsync {
        let mut folders: Vec<&Path> = staged.iter().map(|s| folder_of(&s.dest)).collect();
        folders.extend(removals.iter().map(|p| folder_of(p)));
        folders.sort();
        folders.dedup();
        for folder in folders {
            File::open(folder)
                .and_then(|f| f.sync_all())
                .map_err(|e| format!("{}: cannot sync the folder: {e}", folder.display()))?;
        }
    }
    Ok(())
}

/// Checks one output and decides its write. A symbolic link to a file is followed (the file it
/// points to is replaced, the link kept) only when its target lies inside `within`, or without
/// it inside the link's own folder (`migrate --in-place` follows the link it read through); a
/// link to a FIFO or device (`/dev/stdout`) is written to.
fn plan<'a>(
    path: &'a Path,
    contents: &'a [u8],
    within: Option<&Path>,
    options: WriteOptions<'a>,
) -> Result<Plan<'a>, String> {
    let (real, meta) = match std::fs::symlink_metadata(path) {
        // In an output folder no link is written through (two outputs would share one file):
        // refused, naming where it leads when that is outside.
        Ok(link) if link.file_type().is_symlink() && within.is_some() => {
            if let Some(root) = within {
                names::ensure_inside(root, path)?;
            }
            return Err(format!(
                "{}: is a link; svcgen writes no file through a link in its output folder: \
                 remove the link",
                path.display()
            ));
        }
        Ok(link) if link.file_type().is_symlink() => {
            let meta = std::fs::metadata(path).ok();
            let stream = meta.as_ref().is_some_and(|m| !m.is_file() && !m.is_dir());
            // `migrate --in-place` rewrites the very file it read through the same link.
            if !stream && !options.in_place {
                names::ensure_inside(&names::canonical_folder(folder_of(path))?, path)?;
            }
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            (real, meta)
        }
        Ok(meta) => (path.to_path_buf(), Some(meta)),
        Err(_) => (path.to_path_buf(), None),
    };
    let stage = |existing| Staged {
        dest: real.clone(),
        contents,
        existing,
        options,
    };
    let Some(meta) = meta else {
        if let Some(inputs) = options.inputs.filter(|_| !options.in_place) {
            // Not there, in an output folder's folder (its own canonical path): so is the file's.
            match within.is_some() {
                true => inputs.refuse_named_canonical(&real, &real)?,
                false => inputs.refuse_named(&real)?,
            }
        }
        return Ok(Plan::Stage(Box::new(stage(None))));
    };
    if let Some(inputs) = options.inputs.filter(|_| !options.in_place) {
        inputs.refuse_file(path, &meta)?;
    }
    if meta.is_dir() {
        return Err(format!(
            "{}: is a folder; cannot write a file there",
            path.display()
        ));
    }
    if !meta.is_file() {
        if within.is_some() {
            return Err(format!(
                "{}: is not a regular file (a FIFO, socket or device?); remove it",
                path.display()
            ));
        }
        return Ok(Plan::Special(path, contents));
    }
    if same_content(&real, &meta, contents) {
        keep_private(&real, &meta, options.private)?;
        return Ok(Plan::Unchanged);
    }
    Ok(Plan::Stage(Box::new(stage(Some(meta)))))
}

/// Whether the file on disk already holds exactly `contents` (read only when the sizes agree).
fn same_content(path: &Path, meta: &std::fs::Metadata, contents: &[u8]) -> bool {
    meta.len() == contents.len() as u64
        && crate::profile::read_regular(path).is_ok_and(|bytes| bytes == contents)
}

/// An unchanged file that must hold secrets is still made private (its content is not touched).
fn keep_private(path: &Path, meta: &std::fs::Metadata, private: bool) -> Result<(), String> {
    if private && meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("{}: cannot set permissions: {e}", path.display()))?;
    }
    Ok(())
}

pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The temporary file beside `stage.dest` holding its contents, with the permissions the
/// destination will have.
fn write_temp(stage: &Staged<'_>) -> Result<Temp, String> {
    let path = &stage.dest;
    let dir = folder_of(path);
    let options = stage.options;
    let mode = if options.private { 0o600 } else { 0o666 };
    let temp = Temp::create(dir, cleanup::TEMP_PREFIX, mode).map_err(|e| {
        format!(
            "{}: cannot create a file in {}: {}",
            path.display(),
            dir.display(),
            why_not_written(&e)
        )
    })?;
    let mut file = temp.file();
    if let (Some(meta), false) = (&stage.existing, options.private) {
        file.set_permissions(meta.permissions())
            .map_err(|e| format!("{}: cannot set permissions: {e}", path.display()))?;
    }
    file.write_all(stage.contents)
        .and_then(|()| match options.durability {
            Durability::Fsync => file.sync_all(),
            Durability::Rename => Ok(()),
        })
        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(temp)
}

/// Why a file could not be made, and what to do: the temporary file's name (`.svcgen-…`, which
/// tempfile adds to its errors) is never shown, as the user never asked for that file.
fn why_not_written(e: &std::io::Error) -> String {
    let text = e.to_string();
    // tempfile's errors end in ` at path "…/.svcgen-XXXX"`.
    let cause = text
        .split_once(" at path \"")
        .map_or(text.as_str(), |(cause, _)| cause)
        .to_string();
    let next = match e.kind() {
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            "the folder is not writable: fix its permissions, or write elsewhere"
        }
        std::io::ErrorKind::NotADirectory | std::io::ErrorKind::NotFound => {
            "name a path under an existing folder"
        }
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
            "the disk is full: free some space, or write elsewhere"
        }
        _ => return cause,
    };
    format!("{cause}; {next}")
}

/// The missing folders above `file`, created outermost first; returns them (to remove again).
/// Every `-o` does this (`render`, `import`, `migrate`, `docs`, `init`, `schema`), as
/// `--out-dir` creates its folder.
pub fn create_parents(file: &Path) -> Result<Vec<PathBuf>, String> {
    let mut missing = Vec::new();
    let mut folder = file.parent().filter(|p| !p.as_os_str().is_empty());
    while let Some(dir) = folder {
        if std::fs::symlink_metadata(dir).is_ok() {
            break;
        }
        missing.push(dir.to_path_buf());
        folder = dir.parent().filter(|p| !p.as_os_str().is_empty());
    }
    missing.reverse();
    for (i, dir) in missing.iter().enumerate() {
        if let Err(e) = std::fs::create_dir(dir) {
            remove_made(&missing[..i]);
            return Err(format!(
                "{}: cannot create the folder: {e}; create it, or write elsewhere with -o",
                crate::support::escape::one_line(&dir.display().to_string())
            ));
        }
    }
    Ok(missing)
}

/// Removes the folders [`create_parents`] made, innermost first (each only if still empty).
pub fn remove_made(made: &[PathBuf]) {
    for dir in made.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Takes a lock on the output folder `dir` (`try_lock`, else, saying so, waits with `lock` while
/// another run writes it). On a file system that cannot lock (`try_lock` failing otherwise) the
/// folder is used without the lock.
fn wait_for_lock(
    dir: &Path,
    try_lock: impl FnOnce() -> Result<(), std::fs::TryLockError>,
    lock: impl FnOnce() -> std::io::Result<()>,
) -> Result<(), String> {
    if let Err(std::fs::TryLockError::WouldBlock) = try_lock() {
        eprintln!(
            "note: {}: another svcgen run is writing into it; waiting for it to finish",
            dir.display()
        );
        lock().map_err(|e| format!("{}: cannot lock the folder: {e}", dir.display()))?;
    }
    Ok(())
}

/// A folder the user named for several outputs (`--out-dir`), created if needed and locked
/// (flock on the folder itself, no lock file left behind) for as long as this value lives.
pub struct OutDir {
    /// Its canonical path: every output must resolve inside it.
    pub root: PathBuf,
    _lock: File,
    /// The folders this run created to hold it (deepest first): removed again if the run ends
    /// with nothing written in them, so a failed run leaves no trace.
    created: Vec<PathBuf>,
}

impl Drop for OutDir {
    fn drop(&mut self) {
        // `remove_dir` removes only an empty folder: one that received a file stays.
        for folder in &self.created {
            if std::fs::remove_dir(folder).is_err() {
                break;
            }
        }
    }
}

impl OutDir {
    /// Creates and locks the folder; waits, saying so, while another run holds it.
    pub fn open(dir: &Path, inputs: &Inputs) -> Result<OutDir, String> {
        inputs.refuse(dir)?;
        inputs.refuse_inside(dir)?;
        let created: Vec<PathBuf> = dir
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .take_while(|a| std::fs::symlink_metadata(a).is_err())
            .map(Path::to_path_buf)
            .collect();
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "{}: cannot create the folder: {}",
                dir.display(),
                why_not_written(&e)
            )
        })?;
        let root = names::canonical_folder(dir)?;
        let lock = File::open(&root)
            .map_err(|e| format!("{}: cannot open the folder: {e}", dir.display()))?;
        wait_for_lock(dir, || lock.try_lock(), || lock.lock())?;
        Ok(OutDir {
            root,
            _lock: lock,
            created,
        })
    }

    /// A shared lock on an existing output folder, for `--check`: it reads the folder only while
    /// no run writes it, so it never compares a mix of two runs. `None` when there is no folder.
    pub fn read_lock(dir: &Path) -> Result<Option<File>, String> {
        let Ok(folder) = File::open(dir) else {
            return Ok(None);
        };
        wait_for_lock(dir, || folder.try_lock_shared(), || folder.lock_shared())?;
        Ok(Some(folder))
    }

    /// The folder one batch profile renders into (`name` from [`batch_folder_name`]), created and
    /// locked for as long as the returned handle lives: a run rendering into that folder as its
    /// own `--out-dir` meanwhile waits, so the two never mix their files.
    pub fn sub_folder(&self, name: &str) -> Result<(PathBuf, File), String> {
        if let Some(problem) = folder_name_problem(name) {
            return Err(format!("`{}`: {problem}", name.escape_debug()));
        }
        let path = self.root.join(name);
        match std::fs::create_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("{}: cannot create the folder: {e}", path.display())),
        }
        names::ensure_inside(&self.root, &path)?;
        let lock = File::open(&path)
            .map_err(|e| format!("{}: cannot open the folder: {e}", path.display()))?;
        wait_for_lock(&path, || lock.try_lock(), || lock.lock())?;
        Ok((path, lock))
    }
}
