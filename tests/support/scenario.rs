//! A scenario builder for CLI tests, in the manner of `just`'s `Test`: files in a fresh folder,
//! the command's arguments (run in that folder), and what it must print and return.
//!
//! ```ignore
//! Test::new()
//!     .profile("edition = \"B\"\n[env]\nTZ = \"UTC\"\n")
//!     .args(["validate", "--quiet", "profile.toml"])
//!     .code(0)
//!     .stderr_lacks("W0306")
//!     .run();
//! ```

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The file name `profile` writes.
pub const PROFILE: &str = "profile.toml";

/// A profile whose Google secret passphrase comes from `reference` (`{ env = "NAME" }`,
/// `{ file = "PATH" }`): the passphrase is on line 8.
pub fn google_passphrase_profile(reference: &str) -> String {
    format!(
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [google]\nproject_id = \"p\"\nsecret_manager_passphrase = {reference}\n"
    )
}

/// The exit code a run must return.
#[derive(Clone, Copy)]
enum Code {
    Is(i32),
    IsNot(i32),
}

/// Which output stream a text expectation looks at.
#[derive(Clone, Copy, Debug)]
enum Stream {
    Stdout,
    Stderr,
}

/// A fragment a stream must have (`wanted`) or lack.
struct Fragment {
    stream: Stream,
    wanted: bool,
    text: String,
}

/// One run of svcgen and what is expected of it; [`Test::run`] checks every expectation.
pub struct Test {
    dir: tempfile::TempDir,
    current_dir: Option<PathBuf>,
    args: Vec<OsString>,
    env: Vec<(String, Option<String>)>,
    stdin: Option<Vec<u8>>,
    timeout: Option<Duration>,
    code: Code,
    stdout_is: Option<String>,
    stdout_starts: Option<String>,
    fragments: Vec<Fragment>,
    stderr_matches: Vec<String>,
}

impl Default for Test {
    fn default() -> Self {
        Self::new()
    }
}

impl Test {
    pub fn new() -> Test {
        Test::in_folder(tempfile::tempdir().expect("a temporary folder"))
    }

    /// A test that runs in the repository's root, where the examples' relative paths hold.
    pub fn in_repo() -> Test {
        Test::new().current_dir(super::repo())
    }

    /// A test that runs in `dir` (kept until the run's [`Ran`] is dropped).
    fn in_folder(dir: tempfile::TempDir) -> Test {
        Test {
            dir,
            current_dir: None,
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            timeout: None,
            code: Code::Is(0),
            stdout_is: None,
            stdout_starts: None,
            fragments: Vec::new(),
            stderr_matches: Vec::new(),
        }
    }

    /// The folder the test's files are written in (and the command runs in, unless
    /// [`Test::current_dir`] says otherwise).
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs the command in `dir` instead of the test's folder (e.g. the repository, for its
    /// relative example paths).
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Test {
        self.current_dir = Some(dir.into());
        self
    }

    /// Writes a file (relative to the test's folder), creating its parent folders.
    pub fn file(self, name: &str, text: &str) -> Test {
        let path = self.dir.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a parent folder");
        }
        std::fs::write(&path, text).expect("a written file");
        self
    }

    /// Writes the profile as [`PROFILE`].
    pub fn profile(self, text: &str) -> Test {
        self.file(PROFILE, text)
    }

    pub fn args<I, S>(mut self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// One argument, e.g. a path.
    pub fn arg(self, arg: impl AsRef<OsStr>) -> Test {
        self.args([arg])
    }

    /// Sets an environment variable of the command.
    pub fn env(mut self, name: &str, value: &str) -> Test {
        self.env.push((name.to_string(), Some(value.to_string())));
        self
    }

    /// Removes an environment variable from the command's environment.
    pub fn env_remove(mut self, name: &str) -> Test {
        self.env.push((name.to_string(), None));
        self
    }

    pub fn stdin(mut self, text: &str) -> Test {
        self.stdin = Some(text.as_bytes().to_vec());
        self
    }

    /// Kills the command after `seconds` (a run that blocks fails instead of hanging the suite).
    pub fn timeout(mut self, seconds: u64) -> Test {
        self.timeout = Some(Duration::from_secs(seconds));
        self
    }

    /// The exit code it must return (0 unless said otherwise).
    pub fn code(mut self, code: i32) -> Test {
        self.code = Code::Is(code);
        self
    }

    /// Any exit code but `code`.
    pub fn code_is_not(mut self, code: i32) -> Test {
        self.code = Code::IsNot(code);
        self
    }

    /// The whole of stdout.
    pub fn stdout_is(mut self, text: &str) -> Test {
        self.stdout_is = Some(text.to_string());
        self
    }

    pub fn stdout_has(self, text: &str) -> Test {
        self.fragment(Stream::Stdout, true, text)
    }

    pub fn stdout_lacks(self, text: &str) -> Test {
        self.fragment(Stream::Stdout, false, text)
    }

    pub fn stdout_starts_with(mut self, text: &str) -> Test {
        self.stdout_starts = Some(text.to_string());
        self
    }

    pub fn stderr_has(self, text: &str) -> Test {
        self.fragment(Stream::Stderr, true, text)
    }

    pub fn stderr_lacks(self, text: &str) -> Test {
        self.fragment(Stream::Stderr, false, text)
    }

    /// A fragment `stream` must have (`wanted`) or lack.
    fn fragment(mut self, stream: Stream, wanted: bool, text: &str) -> Test {
        self.fragments.push(Fragment {
            stream,
            wanted,
            text: text.to_string(),
        });
        self
    }

    /// A regular expression stderr must match.
    pub fn stderr_matches(mut self, pattern: &str) -> Test {
        self.stderr_matches.push(pattern.to_string());
        self
    }

    /// Runs the command in the test's folder, checks every expectation (the exit code is 0
    /// unless [`Test::code`] said otherwise) and hands back the output and the folder.
    pub fn run(self) -> Ran {
        let mut command = assert_cmd::Command::from_std(self.std_command());
        if let Some(stdin) = &self.stdin {
            command.write_stdin(stdin.clone());
        }
        if let Some(timeout) = self.timeout {
            command.timeout(timeout);
        }
        let output = command.output().expect("svcgen runs");
        self.check(output)
    }

    /// Starts the command without waiting for it (stdout and stderr piped, no stdin), e.g. to
    /// signal it or to hold a lock meanwhile; [`Running::finish`] waits and checks.
    pub fn spawn(self) -> Running {
        assert!(
            self.stdin.is_none() && self.timeout.is_none(),
            "not for a spawned run"
        );
        let child = self
            .std_command()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("svcgen starts");
        Running { child, test: self }
    }

    /// Checks every expectation against a finished run's output.
    fn check(self, output: Output) -> Ran {
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let context = format!(
            "svcgen {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            self.args
        );
        match self.code {
            Code::Is(code) => assert_eq!(output.status.code(), Some(code), "exit code\n{context}"),
            Code::IsNot(code) => {
                assert_ne!(output.status.code(), Some(code), "exit code\n{context}")
            }
        }
        if let Some(text) = &self.stdout_is {
            assert!(stdout == text.as_str(), "stdout is not {text:?}\n{context}");
        }
        if let Some(text) = &self.stdout_starts {
            assert!(
                stdout.starts_with(text.as_str()),
                "stdout does not start with {text:?}\n{context}"
            );
        }
        for fragment in &self.fragments {
            let (name, stream) = match fragment.stream {
                Stream::Stdout => ("stdout", &stdout),
                Stream::Stderr => ("stderr", &stderr),
            };
            let verb = if fragment.wanted { "lacks" } else { "has" };
            assert!(
                stream.contains(fragment.text.as_str()) == fragment.wanted,
                "{name} {verb} {:?}\n{context}",
                fragment.text
            );
        }
        for pattern in &self.stderr_matches {
            let regex = predicates::str::is_match(pattern).expect("a valid regular expression");
            assert!(
                predicates::Predicate::eval(&regex, &*stderr),
                "stderr does not match {pattern:?}\n{context}"
            );
        }
        Ran {
            dir: self.dir,
            output,
        }
    }

    /// The svcgen command with the test's folder, arguments and environment.
    fn std_command(&self) -> Command {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("svcgen"));
        command
            .current_dir(self.current_dir.as_deref().unwrap_or(self.dir.path()))
            .args(&self.args);
        for (name, value) in &self.env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        command
    }
}

/// A run started by [`Test::spawn`], not yet finished.
pub struct Running {
    child: Child,
    test: Test,
}

impl Running {
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// True while the command runs.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().expect("the run's status").is_none()
    }

    /// Kills the command (SIGKILL).
    pub fn kill(&mut self) {
        self.child.kill().expect("the run is killed");
    }

    /// Waits for the command to end and checks every expectation, as [`Test::run`] does.
    pub fn finish(self) -> Ran {
        let output = self.child.wait_with_output().expect("the run ends");
        self.test.check(output)
    }
}

/// A finished run: its output, and the folder it ran in (kept until this is dropped).
pub struct Ran {
    pub dir: tempfile::TempDir,
    pub output: Output,
}

impl Ran {
    /// A path in the test's folder.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The text of a file in the test's folder.
    pub fn read(&self, name: &str) -> String {
        let path = self.path(name);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The next run, in the same folder (with its files), expecting exit code 0 unless told.
    pub fn again(self) -> Test {
        Test::in_folder(self.dir)
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn stdout_json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.output.stdout).expect("JSON on stdout")
    }
}
