//! Temporary files removed on every exit: dropped on an error (tempfile), and removed by a signal
//! thread on every signal that ends a process by default and can be caught (SIGINT, SIGTERM,
//! SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU, SIGXFSZ) before the process ends as the signal
//! would have ended it. A commit (the renames that put a set of files in place) is never cut by
//! such a signal: the signal thread waits for it ([`commit_section`]), so the folder holds the old
//! set or the new one. SIGKILL cannot be caught: it may leave a temporary file, and a commit cut
//! part-way (each file whole, some new and some old), which the next run rewrites.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

/// Temporary files that exist now. The signal thread removes them holding this lock, and a file
/// is created and listed holding it too, so none is created unlisted while the process ends.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Held for the whole of a commit; the signal thread takes it before removing anything, so a
/// commit that has begun ends before the process does.
static COMMIT: Mutex<()> = Mutex::new(());

/// Set by the signal thread before it waits for [`COMMIT`]: no commit begins after it.
static ENDING: AtomicBool = AtomicBool::new(false);

/// The right to commit: `None` when the process is ending on a signal (nothing more may be put
/// in place). Hold it across every rename of one commit.
pub fn commit_section() -> Option<CommitSection> {
    let guard = COMMIT.lock().unwrap_or_else(|e| e.into_inner());
    (!ENDING.load(Ordering::SeqCst)).then_some(CommitSection(Some(guard)))
}

/// A commit in progress. When a signal arrived during it, ending it hands the process to the
/// signal thread, which ends it as the signal would: the thread that committed waits instead of
/// going on (and perhaps exiting 0 first, as if no signal had come).
pub struct CommitSection(Option<MutexGuard<'static, ()>>);

impl Drop for CommitSection {
    fn drop(&mut self) {
        drop(self.0.take());
        if ENDING.load(Ordering::SeqCst) {
            loop {
                std::thread::park();
            }
        }
    }
}

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
                    ENDING.store(true, Ordering::SeqCst);
                    let _commit = COMMIT.lock().unwrap_or_else(|e| e.into_inner());
                    let live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
                    for path in live.iter().rev() {
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

/// A temporary file being written; removed when dropped unless persisted.
pub struct Temp {
    file: Option<tempfile::NamedTempFile>,
}

impl Temp {
    /// Creates a temporary file in `dir` with `mode` (the umask applies, as to any new file),
    /// named `prefix` and random characters.
    pub fn create(dir: &Path, prefix: &str, mode: u32) -> std::io::Result<Temp> {
        use std::os::unix::fs::PermissionsExt;
        install();
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        let file = tempfile::Builder::new()
            .prefix(prefix)
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

/// Test hook (the `test-hooks` feature, off in every build but the tests'): with
/// `SVCGEN_TEST_COMMIT_STEP_MS` set, a commit waits that many milliseconds after each rename, so
/// that a test can signal it at many points of one commit.
pub fn test_commit_step() {
    #[cfg(feature = "test-hooks")]
    if let Some(ms) = std::env::var_os("SVCGEN_TEST_COMMIT_STEP_MS")
        .and_then(|v| v.to_str().and_then(|s| s.parse::<u64>().ok()))
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Test hook (the `test-hooks` feature): with `SVCGEN_TEST_PAUSE_BEFORE_RENAME` set, a write
/// waits (that many seconds) after its temporary files are complete and before they are
/// renamed, so that a test can signal it.
pub fn test_pause() {
    #[cfg(feature = "test-hooks")]
    if let Some(secs) = std::env::var_os("SVCGEN_TEST_PAUSE_BEFORE_RENAME")
        .and_then(|v| v.to_str().and_then(|s| s.parse::<u64>().ok()))
    {
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}
