//! README's test command, `scripts/test.sh`, installs every project-local thing the tests need
//! before it runs them: rustup's wasm32 and musl targets (the playground and the image test) and
//! web/e2e's npm packages (the browser test), each only when missing or stale. Run here in a copy
//! of its files with stand-ins for rustup, npm and cargo that log their calls (no network, no
//! build), on a PATH that holds nothing else of the machine's tools.

use crate::support::repo;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The tools of the machine the script itself calls (the stand-ins replace the rest).
const SHELL_TOOLS: [&str; 14] = [
    "bash", "sh", "cat", "cmp", "cp", "dirname", "grep", "mkdir", "rm", "sort", "wc", "awk",
    "printf", "echo",
];

/// rustup: `target list --installed` prints the targets added so far (the host's at first),
/// `target add T` adds T. npm: `ci --prefix DIR` makes DIR/node_modules. cargo: succeeds.
const RUSTUP: &str = "#!/bin/sh\necho \"rustup $*\" >> \"$STUB_LOG\"\n\
    case \"$1 $2\" in\n\
    'target list') cat \"$STUB_STATE/targets\" ;;\n\
    'target add') echo \"$3\" >> \"$STUB_STATE/targets\" ;;\n\
    esac\n";
const NPM: &str = "#!/bin/sh\necho \"npm $*\" >> \"$STUB_LOG\"\nmkdir -p \"$3/node_modules\"\n";
const CARGO: &str = "#!/bin/sh\necho \"cargo $1\" >> \"$STUB_LOG\"\n";

struct Checkout {
    dir: tempfile::TempDir,
}

impl Checkout {
    /// The script's files in a fresh folder: scripts/, web/e2e's lock file, a venv already up
    /// to date (its set-up is not what is tested here), and stand-ins for `tools`.
    fn new(tools: &[(&str, &str)]) -> Checkout {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "scripts/test.sh",
            "scripts/site.sh",
            "scripts/requirements.txt",
            "web/e2e/package-lock.json",
            "tests/support/oidc/package-lock.json",
        ] {
            let to = root.join("repo").join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(repo().join(file), &to).unwrap();
        }
        let venv = root.join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        executable(&venv.join("bin/python"), "#!/bin/sh\n");
        std::fs::copy(
            repo().join("scripts/requirements.txt"),
            venv.join(".svcgen-requirements"),
        )
        .unwrap();
        let bin = root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        for tool in SHELL_TOOLS {
            if let Some(path) = which(tool) {
                std::os::unix::fs::symlink(path, bin.join(tool)).unwrap();
            }
        }
        for (name, script) in tools {
            executable(&bin.join(name), script);
        }
        std::fs::create_dir_all(root.join("state")).unwrap();
        std::fs::write(root.join("state/targets"), "x86_64-unknown-linux-gnu\n").unwrap();
        Checkout { dir }
    }

    fn run(&self, ci: bool) -> Output {
        let root = self.dir.path();
        let mut command = Command::new(root.join("repo/scripts/test.sh"));
        command
            .env_clear()
            .env("PATH", root.join("bin"))
            .env("HOME", root)
            .env("SVCGEN_VENV", root.join("venv"))
            .env("CARGO_TARGET_DIR", root.join("target"))
            .env("STUB_LOG", root.join("log"))
            .env("STUB_STATE", root.join("state"));
        if ci {
            command.env("CI", "true");
        }
        command.output().unwrap()
    }

    /// The stand-ins' calls so far, then forgotten.
    fn calls(&self) -> Vec<String> {
        let log = self.dir.path().join("log");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        text.lines().map(String::from).collect()
    }
}

fn executable(path: &Path, script: &str) {
    std::fs::write(path, script).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_test_command_adds_the_rust_targets_and_npm_packages_once() {
    let checkout = Checkout::new(&[("rustup", RUSTUP), ("npm", NPM), ("cargo", CARGO)]);
    let first = checkout.run(true);
    assert!(first.status.success(), "{}", stderr(&first));
    let calls = checkout.calls();
    for wanted in [
        "rustup target add wasm32-unknown-unknown",
        "rustup target add x86_64-unknown-linux-musl",
        "npm ci --prefix web/e2e --no-audit --no-fund",
        "cargo test",
    ] {
        assert!(calls.iter().any(|c| c == wanted), "{wanted}: {calls:?}");
    }
    let npm = calls.iter().position(|c| c.starts_with("npm ci"));
    let tests = calls.iter().position(|c| c == "cargo test");
    assert!(npm < tests, "set-up before the tests: {calls:?}");

    // Nothing changed: nothing is installed again.
    let again = checkout.run(true);
    assert!(again.status.success(), "{}", stderr(&again));
    let calls = checkout.calls();
    assert!(
        !calls
            .iter()
            .any(|c| c.starts_with("npm") || c.starts_with("rustup target add")),
        "{calls:?}"
    );

    // A changed lock file installs the npm packages again.
    let lock = checkout.dir.path().join("repo/web/e2e/package-lock.json");
    let mut text = std::fs::read_to_string(&lock).unwrap();
    text.push('\n');
    std::fs::write(&lock, text).unwrap();
    let changed = checkout.run(true);
    assert!(changed.status.success(), "{}", stderr(&changed));
    assert!(
        checkout.calls().iter().any(|c| c.starts_with("npm ci")),
        "npm ci after the lock file changed"
    );
}

#[test]
fn without_npm_the_test_command_fails_on_ci_and_says_so_elsewhere() {
    let checkout = Checkout::new(&[("rustup", RUSTUP), ("cargo", CARGO)]);
    let on_ci = checkout.run(true);
    assert!(!on_ci.status.success(), "CI=true without npm must fail");
    assert!(
        stderr(&on_ci).contains("error: no npm"),
        "{}",
        stderr(&on_ci)
    );
    assert!(
        !checkout.calls().iter().any(|c| c == "cargo test"),
        "no test run on CI after a failed set-up"
    );
    let laptop = checkout.run(false);
    assert!(laptop.status.success(), "{}", stderr(&laptop));
    assert!(
        stderr(&laptop).contains("note: no npm"),
        "{}",
        stderr(&laptop)
    );
    assert!(checkout.calls().iter().any(|c| c == "cargo test"));
}
