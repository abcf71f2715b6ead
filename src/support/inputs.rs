//! The files a command reads, by identity (device and inode), so that no output replaces one of
//! them, whatever its spelling (`./p.toml`, a hard link, a symbolic link); and by canonical
//! path, so that no output folder holds one (`--out-dir` is written as a whole) and no output
//! takes the place of a file the profile names that does not exist yet.
//!
//! A value, not a process-wide registry: the command creates one, the places that read files
//! record into it (a profile's layers through its [`Sources`](crate::diag::source::Sources), the
//! command line's files, templates, secret and host files at the edge), and the writers are
//! given it to refuse. Clones share one set, so the worker threads of a batch see each other's
//! inputs.

use std::collections::{BTreeMap, HashMap};
#[cfg(unix)]
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Every input of a command, by (device, inode), with the name it was read by.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    read: Arc<Mutex<HashMap<(u64, u64), PathBuf>>>,
    /// Every input and every file the profile names, by canonical path (its folder resolved
    /// when the file is not there), with the name it was given.
    /// (A map, not a list: a batch of thousands of profiles records thousands of files, and
    /// each record and each refusal is one look-up, not a scan.)
    named: Arc<Mutex<BTreeMap<PathBuf, PathBuf>>>,
    /// The output folders of a batch (canonical, with the name to show), all known before any
    /// profile is read: a profile whose input lies inside one is refused, whichever profile
    /// owns the folder and whenever it is written.
    fences: Arc<Option<Fence>>,
    /// What one profile read or named, in order (see [`Inputs::for_profile`]).
    log: Option<Arc<Mutex<Vec<Logged>>>>,
    /// The root found for each profile folder (with the `--root` given) of this command: the
    /// profiles of a batch share a few folders, whose root is looked for once per command
    /// (see [`Inputs::root_of`]).
    roots: Arc<Mutex<Roots>>,
}

/// Each root found: by the profile folder and the `--root` given, its folder.
type Roots = HashMap<(PathBuf, Option<PathBuf>), PathBuf>;

/// The output folders of a batch: `--out-dir` and its folders of the batch's profile names.
#[derive(Debug)]
struct Fence {
    /// `--out-dir`'s canonical path, and as given.
    root: PathBuf,
    shown: PathBuf,
    /// The folder names of the batch's profiles (a set: one look-up per input, whatever the
    /// size of the batch).
    names: std::collections::HashSet<std::ffi::OsString>,
}

impl Fence {
    /// The output folder (as given) that holds the canonical path `path`, if any: a profile's
    /// own when one does, else `--out-dir`.
    fn around(&self, path: &Path) -> Option<PathBuf> {
        let rest = path.strip_prefix(&self.root).ok()?;
        match rest.components().next() {
            Some(std::path::Component::Normal(name)) if self.names.contains(name) => {
                Some(self.shown.join(name))
            }
            _ => Some(self.shown.clone()),
        }
    }
}

/// One file a profile read or named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// As the profile (or command line) names it.
    pub path: PathBuf,
    /// Its canonical path (see [`canonical_path`]), when there is one.
    pub canonical: Option<PathBuf>,
    /// The batch output folder it lies inside (shown as given), if any: the profile is refused.
    pub fenced: Option<PathBuf>,
}

impl Inputs {
    /// The inputs of a batch whose profiles write into the folders `names` of `out_dir` (as
    /// given): each profile's inputs are checked against all of them, and against `out_dir`
    /// itself, as they are read ([`Inputs::fenced`]).
    pub fn with_fences(out_dir: &Path, names: impl IntoIterator<Item = String>) -> Inputs {
        let fence = canonical_path(out_dir).map(|root| Fence {
            root,
            shown: out_dir.to_path_buf(),
            names: names.into_iter().map(std::ffi::OsString::from).collect(),
        });
        Inputs {
            fences: Arc::new(fence),
            ..Inputs::default()
        }
    }

    /// A view of the same set for one profile, which also logs every file recorded through it
    /// (to find one inside a batch output folder) and keeps a file inside a batch output folder out of
    /// the shared set: that profile is refused, and its inputs must not refuse the others.
    pub fn for_profile(&self) -> Inputs {
        Inputs {
            log: Some(Arc::default()),
            ..self.clone()
        }
    }

    /// What this profile's view logged (empty for a command's own set).
    pub fn logged(&self) -> Vec<Logged> {
        self.log.as_ref().map_or_else(Vec::new, |log| {
            log.lock().unwrap_or_else(|e| e.into_inner()).clone()
        })
    }

    /// An error naming the first input of this profile that lies inside a batch output folder.
    pub fn fenced(&self) -> Result<(), String> {
        let logged = self.logged();
        match logged
            .iter()
            .find_map(|l| Some((&l.path, l.fenced.as_ref()?)))
        {
            Some((input, folder)) => Err(format!(
                "{}: lies inside {}, an output folder of this batch; refusing to read an input there (move it out of the output folders)",
                crate::support::escape::one_line(&input.display().to_string()),
                crate::support::escape::one_line(&folder.display().to_string())
            )),
            None => Ok(()),
        }
    }

    /// The root of the profiles in `folder` (with `given`, the `--root` named), as `find` finds
    /// it: found once per command and folder, then the same for every profile there.
    pub fn root_of(
        &self,
        folder: &Path,
        given: Option<&Path>,
        find: impl FnOnce() -> PathBuf,
    ) -> PathBuf {
        let key = (folder.to_path_buf(), given.map(Path::to_path_buf));
        let lock = || self.roots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        let found = find();
        lock().entry(key).or_insert(found).clone()
    }

    /// Notes that `path` is an input of this command: by identity when it exists, and by path.
    pub fn record(&self, path: &Path) {
        self.record_with(path, || std::fs::metadata(path).ok().map(|m| identity(&m)));
    }

    /// [`Inputs::record`] for a file just read, whose handle's metadata `meta` gives its
    /// identity (no second look-up of the path).
    pub fn record_read(&self, path: &Path, meta: &std::fs::Metadata) {
        self.record_with(path, || Some(identity(meta)));
    }

    fn record_with(&self, path: &Path, id: impl FnOnce() -> Option<(u64, u64)>) {
        // Resolved each time a path is recorded, never taken from an earlier record: whether a
        // read lands in an output folder of this run (the fences) depends on where its links
        // lead when it is read, and an earlier profile of the batch may have written there.
        let canonical = canonical_path(path);
        if let Some(log) = &self.log {
            let fenced =
                (self.fences.as_ref().as_ref()).and_then(|f| f.around(canonical.as_deref()?));
            let is_fenced = fenced.is_some();
            log.lock().unwrap_or_else(|e| e.into_inner()).push(Logged {
                path: path.to_path_buf(),
                canonical: canonical.clone(),
                fenced,
            });
            if is_fenced {
                return;
            }
        }
        if let Some(id) = id() {
            let mut read = self.read.lock().unwrap_or_else(|e| e.into_inner());
            read.entry(id).or_insert_with(|| path.to_path_buf());
        }
        if let Some(canonical) = canonical {
            let mut named = self.named.lock().unwrap_or_else(|e| e.into_inner());
            named.entry(canonical).or_insert_with(|| path.to_path_buf());
        }
    }

    /// An error when writing `path` would replace (or write into) one of the command's inputs,
    /// or create a file the profile names.
    pub fn refuse(&self, path: &Path) -> Result<(), String> {
        match std::fs::metadata(path) {
            Ok(meta) => self.refuse_file(path, &meta),
            Err(_) => self.refuse_named(path),
        }
    }

    /// An error when the folder `dir` is, or holds (at any depth), an input of this command or
    /// a file its profile names: `--out-dir` must be a folder of outputs only.
    pub fn refuse_inside(&self, dir: &Path) -> Result<(), String> {
        let Some(root) = canonical_path(dir) else {
            return Ok(());
        };
        let named = self.named.lock().unwrap_or_else(|e| e.into_inner());
        // Paths order component by component: those below `root` come right after it.
        let first = named.range(root.clone()..).next();
        match first.filter(|(canonical, _)| canonical.starts_with(&root)) {
            Some((_, input)) => Err(format!(
                "{}: refusing to write into this folder: {} is an input of this command (choose an output folder that holds no input)",
                dir.display(),
                input.display()
            )),
            None => Ok(()),
        }
    }

    /// An error when `path` (not there yet) is a file the profile names.
    pub fn refuse_named(&self, path: &Path) -> Result<(), String> {
        match canonical_path(path) {
            Some(canonical) => self.refuse_named_canonical(path, &canonical),
            None => Ok(()),
        }
    }

    /// [`Inputs::refuse_named`] for a path already known in its canonical form (`canonical`:
    /// inside an output folder, every folder on the way checked not to be a link).
    pub fn refuse_named_canonical(&self, path: &Path, canonical: &Path) -> Result<(), String> {
        let named = self.named.lock().unwrap_or_else(|e| e.into_inner());
        match named.get(canonical) {
            Some(input) => Err(format!(
                "{}: is an input of this command ({}); refusing to write over it: choose another output",
                path.display(),
                input.display()
            )),
            None => Ok(()),
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

/// `path` with every link resolved; when it does not exist, its nearest existing folder resolved
/// and the rest of its names kept (plain names only). `None` for a path with `..` below the part
/// that exists (nothing can be said of it without the folders).
pub fn canonical_path(path: &Path) -> Option<PathBuf> {
    // Always asked of the file system, never remembered: this answer decides whether a path is
    // inside the profile's root right before it is opened.
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

/// A file's identity: device and inode on unix. Elsewhere (the browser build, which has no file
/// system and so never records an input) every file has the same identity, which no recorded
/// input can match.
#[cfg(unix)]
pub fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
pub fn identity(_meta: &std::fs::Metadata) -> (u64, u64) {
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
