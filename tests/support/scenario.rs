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

use std::path::{Path, PathBuf};
use std::process::Output;

/// The file name `profile` writes.
pub const PROFILE: &str = "profile.toml";

/// One run of svcgen and what is expected of it; [`Test::run`] checks every expectation.
pub struct Test {
    dir: tempfile::TempDir,
    args: Vec<String>,
    stdin: Option<String>,
    code: Option<i32>,
    stdout_has: Vec<String>,
    stderr_has: Vec<String>,
    stderr_lacks: Vec<String>,
}

impl Default for Test {
    fn default() -> Self {
        Self::new()
    }
}

impl Test {
    pub fn new() -> Test {
        Test {
            dir: tempfile::tempdir().expect("a temporary folder"),
            args: Vec::new(),
            stdin: None,
            code: None,
            stdout_has: Vec::new(),
            stderr_has: Vec::new(),
            stderr_lacks: Vec::new(),
        }
    }

    /// The folder the command runs in.
    pub fn path(&self) -> &Path {
        self.dir.path()
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
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn stdin(mut self, text: &str) -> Test {
        self.stdin = Some(text.to_string());
        self
    }

    /// The exit code it must return (0 unless said otherwise).
    pub fn code(mut self, code: i32) -> Test {
        self.code = Some(code);
        self
    }

    pub fn stdout_has(mut self, text: &str) -> Test {
        self.stdout_has.push(text.to_string());
        self
    }

    pub fn stderr_has(mut self, text: &str) -> Test {
        self.stderr_has.push(text.to_string());
        self
    }

    pub fn stderr_lacks(mut self, text: &str) -> Test {
        self.stderr_lacks.push(text.to_string());
        self
    }

    /// Runs the command in the test's folder, checks every expectation (the exit code is 0
    /// unless [`Test::code`] said otherwise) and hands back the output and the folder.
    pub fn run(self) -> Ran {
        let mut command = super::svcgen();
        command.current_dir(self.dir.path()).args(&self.args);
        if let Some(stdin) = &self.stdin {
            command.write_stdin(stdin.as_bytes());
        }
        let output = command.output().expect("svcgen runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let context = format!(
            "svcgen {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            self.args
        );
        assert_eq!(
            output.status.code(),
            Some(self.code.unwrap_or(0)),
            "exit code\n{context}"
        );
        for text in &self.stdout_has {
            assert!(
                stdout.contains(text.as_str()),
                "stdout lacks {text:?}\n{context}"
            );
        }
        for text in &self.stderr_has {
            assert!(
                stderr.contains(text.as_str()),
                "stderr lacks {text:?}\n{context}"
            );
        }
        for text in &self.stderr_lacks {
            assert!(
                !stderr.contains(text.as_str()),
                "stderr has {text:?}\n{context}"
            );
        }
        Ran {
            dir: self.dir,
            output,
        }
    }
}

/// A finished run: its output, and the folder it ran in (kept until this is dropped).
pub struct Ran {
    pub dir: tempfile::TempDir,
    pub output: Output,
}

impl Ran {
    /// A path in the folder the command ran in.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn stdout_json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.output.stdout).expect("JSON on stdout")
    }
}
