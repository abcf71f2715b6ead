//! Temporary files removed on every exit: dropped on an error (tempfile), and removed by a signal
//! thread on every signal that ends a process by default and can be caught (SIGINT, SIGTERM,
//! SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, SIGXFSZ) before the process ends as the signal
//! would have ended it. What SIGKILL leaves behind, [`sweep`] removes on the next run into the
//! same output folder.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// Temporary files that exist now. The signal thread removes them holding this lock, and a file
/// is created and listed holding it too, so none is created unlisted while the process ends.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Starts the signal thread, once per process (only commands that write pay for it).
fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        use signal_hook::consts::{
            SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
        };
        let fatal = [
            SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ,
        ];
        let Ok(mut signals) = signal_hook::iterator::Signals::new(fatal) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("svcgen-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
                    for path in live.iter() {
                        let _ = std::fs::remove_file(path);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            });
    });
}

/// The prefix of every temporary file svcgen writes.
pub const TEMP_PREFIX: &str = ".svcgen-";

/// Removes temporary files a killed run left in `dir` and the folders below it (to the depth an
/// output folder has: `DIR/<profile>/files/<object>/`), never following a link. Called holding
/// the output folder's exclusive lock, so no live run is writing them.
pub fn sweep(dir: &Path, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let is_temp = entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX);
        if kind.is_file() && is_temp {
            let _ = std::fs::remove_file(entry.path());
        } else if kind.is_dir() && depth > 0 {
            sweep(&entry.path(), depth - 1);
        }
    }
}

/// A temporary file being written; removed when dropped unless persisted.
pub struct Temp {
    file: Option<tempfile::NamedTempFile>,
}

impl Temp {
    /// Creates a temporary file in `dir` with `mode` (the umask applies, as to any new file).
    pub fn create(dir: &Path, mode: u32) -> std::io::Result<Temp> {
        use std::os::unix::fs::PermissionsExt;
        install();
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        let file = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .permissions(std::fs::Permissions::from_mode(mode))
            .tempfile_in(dir)?;
        live.push(file.path().to_path_buf());
        Ok(Temp { file: Some(file) })
    }

    /// The open file, to write and set permissions on.
    pub fn file(&self) -> &std::fs::File {
        self.file
            .as_ref()
            .expect("a temporary file is there until persisted")
            .as_file()
    }

    /// Renames the file to `path` (atomically replacing it).
    pub fn persist(mut self, path: &Path) -> std::io::Result<()> {
        let file = self
            .file
            .take()
            .expect("a temporary file is persisted once");
        let temp = file.path().to_path_buf();
        let result = file.persist(path).map(|_| ()).map_err(|e| e.error);
        forget(&temp);
        result
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if let Some(file) = self.file.take() {
            let temp = file.path().to_path_buf();
            drop(file);
            forget(&temp);
        }
    }
}

fn forget(path: &Path) {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.retain(|p| p != path);
}

/// Test hook: with `SVCGEN_TEST_PAUSE_BEFORE_RENAME` set, a write waits (that many seconds) after
/// its temporary files are complete and before they are renamed, so that a test can signal it.
pub fn test_pause() {
    if let Some(secs) = std::env::var_os("SVCGEN_TEST_PAUSE_BEFORE_RENAME")
        .and_then(|v| v.to_str().and_then(|s| s.parse::<u64>().ok()))
    {
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}
