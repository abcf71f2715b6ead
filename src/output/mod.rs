//! Writing outputs, the one place svcgen writes files. Every write is atomic (a temporary file in
//! the same folder, then a rename), so a reader never sees a half-written file and a failed run
//! leaves the old file untouched. Before anything is written, every output is checked: it is not
//! one of the command's inputs (by device and inode), it lies inside the folder the user named,
//! and it is not a folder. A file whose content is already on disk is left alone (its
//! modification time kept). `--out-dir` folders are locked while written, so two runs never mix.

mod cleanup;
mod journal;
mod names;
pub mod record;

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
    /// Outputs of an earlier render into the folder that this one no longer produces (listed in
    /// the folder's `.svcgen-record`), removed in the same commit; only with an output folder.
    pub remove: &'a [PathBuf],
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
/// commit that a signal does not cut (and that the folder's commit record lets the next run
/// finish or undo after SIGKILL: see `journal`). With `within` (an `--out-dir`), every path (its
/// folder and, if it is a link, its target) must resolve inside that canonical folder, and
/// missing folders on the way are created (each checked to be inside); without it, each path
/// must resolve inside its own folder (a link leading elsewhere is refused). Contents are text
/// or bytes ([`Contents`]).
pub fn write_files<C: Payload>(
    files: &[(PathBuf, C)],
    within: Option<&Path>,
    options: WriteOptions<'_>,
) -> Result<Written, String> {
    // The folders checked, and whether each is its own canonical path.
    let mut checked: Vec<(&Path, bool)> = Vec::new();
    if let Some(root) = within {
        for (path, _) in files {
            let folder = folder_of(path);
            if !checked.iter().any(|(f, _)| *f == folder) {
                checked.push((folder, names::create_inside(root, folder)?));
            }
        }
    }
    let mut done = Written::default();
    let mut staged = Vec::new();
    let mut special = Vec::new();
    for (path, contents) in files {
        let mut file_options = options;
        file_options.private |= contents.private();
        let plain_folder = checked.contains(&(folder_of(path), true));
        match plan(path, contents.as_ref(), within, plain_folder, file_options)? {
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
    match within {
        Some(root) if !staged.is_empty() || !removals.is_empty() => {
            commit_journaled(root, &staged, &removals, options.durability)?
        }
        _ => commit_each(&staged, options.durability)?,
    }
    for (path, contents) in special {
        std::fs::write(path, contents)
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        done.written += 1;
    }
    Ok(done)
}

/// The outputs of an earlier render to remove that are there: each a file or a link (a folder is
/// left alone) in a folder inside `root`, and none an input of the command.
fn removals(root: &Path, options: WriteOptions<'_>) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    for path in options.remove {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if !(meta.file_type().is_file() || meta.file_type().is_symlink()) {
            continue;
        }
        names::ensure_inside(root, folder_of(path))?;
        if let (Some(inputs), true) = (options.inputs, meta.file_type().is_file()) {
            inputs
                .refuse_file(path, &meta)
                .map_err(|e| e.replace("refusing to write over it", "refusing to remove it"))?;
        }
        found.push(path.clone());
    }
    Ok(found)
}

/// The commit of an output folder: its record first, then the temporary files it names, then
/// the renames and removals (see `journal`).
fn commit_journaled(
    root: &Path,
    staged: &[Staged<'_>],
    removals: &[PathBuf],
    durability: Durability,
) -> Result<(), String> {
    let destinations: Vec<PathBuf> = staged.iter().map(|s| s.dest.clone()).collect();
    let durable = durability == Durability::Fsync;
    let journal = journal::Journal::begin(root, &destinations, removals, durable)?;
    let mut temps = Vec::with_capacity(staged.len());
    for (n, stage) in staged.iter().enumerate() {
        temps.push(write_temp(stage, Some(journal.temp_path(n)))?);
    }
    cleanup::test_pause();
    journal.commit(temps)
}

/// Files outside an output folder (`-o FILE`): each is replaced by one rename, which is whole.
fn commit_each(staged: &[Staged<'_>], durability: Durability) -> Result<(), String> {
    let mut temps = Vec::with_capacity(staged.len());
    for stage in staged {
        temps.push(write_temp(stage, None)?);
    }
    if !temps.is_empty() {
        cleanup::test_pause();
    }
    let Some(_section) = cleanup::commit_section() else {
        return Err("ending on a signal: nothing was replaced".to_string());
    };
    for (temp, stage) in temps.into_iter().zip(staged) {
        temp.persist(&stage.dest)
            .map_err(|e| format!("{}: cannot write: {e}", stage.dest.display()))?;
    }
    if durability == Durability::Fsync {
        let mut folders: Vec<&Path> = staged.iter().map(|s| folder_of(&s.dest)).collect();
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
/// `plain_folder`: the path's folder is its own canonical path (checked on the way).
fn plan<'a>(
    path: &'a Path,
    contents: &'a [u8],
    within: Option<&Path>,
    plain_folder: bool,
    options: WriteOptions<'a>,
) -> Result<Plan<'a>, String> {
    let (real, meta) = match std::fs::symlink_metadata(path) {
        Ok(link) if link.file_type().is_symlink() => {
            let meta = std::fs::metadata(path).ok();
            let stream = meta.as_ref().is_some_and(|m| !m.is_file() && !m.is_dir());
            // `migrate --in-place` rewrites the very file it read through the same link.
            if !stream && !options.in_place {
                match within {
                    Some(root) => names::ensure_inside(root, path)?,
                    None => names::ensure_inside(&names::canonical_folder(folder_of(path))?, path)?,
                }
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
            // Not there, in a folder that is its own canonical path: so is the file's path.
            match plain_folder {
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

pub(crate) fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The temporary file beside `stage.dest` holding its contents, with the permissions the
/// destination will have: named `name` (listed in a commit record), else a random name.
fn write_temp(stage: &Staged<'_>, name: Option<&Path>) -> Result<Temp, String> {
    let path = &stage.dest;
    let dir = folder_of(path);
    let options = stage.options;
    let mode = if options.private { 0o600 } else { 0o666 };
    let temp = match name.and_then(Path::file_name).and_then(|n| n.to_str()) {
        Some(name) => Temp::create_named(dir, name, mode),
        None => Temp::create(dir, cleanup::TEMP_PREFIX, mode),
    }
    .map_err(|e| {
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
        // Holding the lock, no other run writes here: a commit record is a killed run's.
        for note in journal::recover(&root) {
            eprintln!("{note}");
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.env");
        write_atomic(&path, "A=1\n", false, &Inputs::default()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        write_atomic(&path, "A=2\n", false, &Inputs::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "A=2\n");
        let secret = dir.path().join("s.env");
        write_atomic(&secret, "S=x\n", true, &Inputs::default()).unwrap();
        assert_eq!(mode(&secret), 0o600);
        write_atomic(&path, "A=3\n", true, &Inputs::default()).unwrap();
        assert_eq!(mode(&path), 0o600);

        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary file is left"
        );
    }

    #[test]
    fn bytes_are_written_into_new_folders_and_left_alone_when_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let root = names::canonical_folder(dir.path()).unwrap();
        let archive = vec![(
            root.join("files/plugins/a.zip"),
            Contents::Bytes(vec![0x50, 0x4b, 0, 0xff]),
        )];
        let options = WriteOptions::default();
        let first = write_files(&archive, Some(&root), options).unwrap();
        assert_eq!(first.written, 1);
        assert_eq!(std::fs::read(&archive[0].0).unwrap(), [0x50, 0x4b, 0, 0xff]);
        let again = write_files(&archive, Some(&root), options).unwrap();
        assert_eq!((again.written, again.unchanged), (0, 1));
        let outside = vec![(root.join("../x/a.zip"), Contents::Bytes(vec![1]))];
        assert!(write_files(&outside, Some(&root), options).is_err());
    }

    /// `--check` reads a folder only once the run writing it is done.
    #[test]
    fn a_read_lock_waits_for_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let writer = OutDir::open(dir.path(), &Inputs::default()).unwrap();
        let path = dir.path().to_path_buf();
        let reader = std::thread::spawn(move || OutDir::read_lock(&path).unwrap().is_some());
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            !reader.is_finished(),
            "it waits while the folder is written"
        );
        drop(writer);
        assert!(reader.join().unwrap(), "then it holds the folder");
    }

    /// A batch profile's folder `X/sub` is locked as a run into `X/sub` locks it, so
    /// the two take turns instead of mixing their files.
    #[test]
    fn a_batch_folder_waits_for_a_run_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let inner = OutDir::open(&dir.path().join("sub"), &Inputs::default()).unwrap();
        let outer = OutDir::open(dir.path(), &Inputs::default()).unwrap();
        let batch = std::thread::spawn(move || outer.sub_folder("sub").map(|(p, _)| p).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!batch.is_finished(), "it waits for the run into X/sub");
        drop(inner);
        assert!(batch.join().unwrap().ends_with("sub"));
    }

    #[test]
    fn special_files_are_written_to_and_links_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.env");
        std::fs::write(&target, "OLD\n").unwrap();
        let link = dir.path().join("link.env");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, "NEW\n", false, &Inputs::default()).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "NEW\n");
        write_atomic(Path::new("/dev/null"), "x", false, &Inputs::default()).unwrap();
        assert!(
            !std::fs::metadata("/dev/null").unwrap().is_file(),
            "/dev/null is not replaced"
        );
    }
}
