//! The pre-commit hooks of `.pre-commit-hooks.yaml`, run by pre-commit itself (pinned in
//! scripts/requirements.txt) from a temporary consumer repository holding a bad and a good
//! profile: `pre-commit try-repo` against this repository, as a user tries hooks before
//! adopting them.
//!
//! `svcgen-validate` (`language: rust`) is built by pre-commit with `cargo install` (minutes
//! the first time; its target folder is kept in `target/pre-commit` so that a second run
//! only rebuilds svcgen). The `-system` variants run the svcgen under test, put first on PATH.
//! `svcgen-check` takes its arguments from the consumer's configuration, which `try-repo`
//! cannot give: it runs through a configuration naming a repository that holds this
//! repository's `.pre-commit-hooks.yaml`.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::repo;

const BAD: &str = "edition = \"A\"\n[config]\nadapter = \"etcd\"\n";
const GOOD: &str = "edition = \"B\"\n";

/// The tools the hooks need: pre-commit and git.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let pre_commit = support::tool("pre-commit")?;
    let git = support::tool("git")?;
    Some((pre_commit, git))
}

fn git(git: &Path, dir: &Path, args: &[&str]) {
    let output = Command::new(git)
        .current_dir(dir)
        .args([
            "-c",
            "user.name=svcgen tests",
            "-c",
            "user.email=tests@svcgen.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A consumer repository: `profiles/bad.toml` and `profiles/good.toml`, added to git.
fn consumer(git_path: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("profiles")).unwrap();
    std::fs::write(dir.path().join("profiles/bad.toml"), BAD).unwrap();
    std::fs::write(dir.path().join("profiles/good.toml"), GOOD).unwrap();
    git(git_path, dir.path(), &["init", "-q"]);
    git(git_path, dir.path(), &["add", "."]);
    dir
}

/// Runs pre-commit in `dir` with its own home (no cache of the user's is read or written), the
/// svcgen under test first on PATH; returns its output, stdout and stderr joined.
fn pre_commit(pre_commit: &Path, dir: &Path, home: &Path, args: &[&str]) -> (Output, String) {
    let svcgen_dir = Path::new(env!("CARGO_BIN_EXE_svcgen")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(svcgen_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let output = Command::new(pre_commit)
        .current_dir(dir)
        .args(args)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home)
        .env("CARGO_TARGET_DIR", repo().join("target/pre-commit"))
        // pre-commit's `cargo install` builds the release profile; what the hooks do does not
        // depend on optimization, so the test builds it unoptimized (a third of the CPU time
        // on CI). Cargo's own profile settings, not a switch of svcgen's.
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        .env_remove("PRE_COMMIT_COLOR")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = support::printed(&output);
    (output, text)
}

/// Checks a failed run on both profiles: the bad one's error at its place, the good one valid.
fn assert_bad_fails_good_passes(output: &Output, text: &str) {
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("Failed"), "{text}");
    assert!(text.contains("error[E0204]"), "{text}");
    assert!(text.contains("profiles/bad.toml:3:11"), "{text}");
    assert!(text.contains("profiles/good.toml: valid"), "{text}");
}

#[test]
fn pre_commit_validate_hook_builds_svcgen_and_fails_on_the_bad_profile() {
    let Some((pre_commit_path, git_path)) = tools() else {
        return;
    };
    let dir = consumer(&git_path);
    let home = tempfile::tempdir().unwrap();
    let repo = repo();
    let (output, text) = pre_commit(
        &pre_commit_path,
        dir.path(),
        home.path(),
        &[
            "try-repo",
            repo.to_str().unwrap(),
            "svcgen-validate",
            "--all-files",
            "--verbose",
        ],
    );
    assert_bad_fails_good_passes(&output, &text);
    assert!(text.contains("svcgen validate"), "{text}");
}

#[test]
fn pre_commit_validate_system_hook_fails_on_the_bad_profile_only() {
    let Some((pre_commit_path, git_path)) = tools() else {
        return;
    };
    let dir = consumer(&git_path);
    let home = tempfile::tempdir().unwrap();
    let repo = repo();
    let try_repo = ["try-repo", repo.to_str().unwrap(), "svcgen-validate-system"];
    let all = [&try_repo[..], &["--all-files", "--verbose"]].concat();
    let (output, text) = pre_commit(&pre_commit_path, dir.path(), home.path(), &all);
    assert_bad_fails_good_passes(&output, &text);
    let good = [&try_repo[..], &["--files", "profiles/good.toml"]].concat();
    let (output, text) = pre_commit(&pre_commit_path, dir.path(), home.path(), &good);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("Passed"), "{text}");
}

#[test]
fn pre_commit_check_system_hook_fails_when_rendered_outputs_are_stale() {
    let Some((pre_commit_path, git_path)) = tools() else {
        return;
    };
    // A repository holding this repository's hook definitions, committed (pre-commit needs a rev).
    let hooks = tempfile::tempdir().unwrap();
    std::fs::copy(
        repo().join(".pre-commit-hooks.yaml"),
        hooks.path().join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    git(&git_path, hooks.path(), &["init", "-q"]);
    git(&git_path, hooks.path(), &["add", "."]);
    git(&git_path, hooks.path(), &["commit", "-q", "-m", "hooks"]);
    let rev = Command::new(&git_path)
        .current_dir(hooks.path())
        .args(["rev-parse", "HEAD"])
        .output()
        .unwrap();
    let rev = String::from_utf8_lossy(&rev.stdout).trim().to_string();

    let dir = consumer(&git_path);
    let config = format!(
        "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: svcgen-check-system\n        args: [profiles/good.toml, --out-dir, out]\n",
        hooks.path().display()
    );
    std::fs::write(dir.path().join(".pre-commit-config.yaml"), config).unwrap();
    let rendered = support::svcgen()
        .current_dir(dir.path())
        .args(["render", "profiles/good.toml", "--out-dir", "out", "-q"])
        .output()
        .unwrap();
    assert!(rendered.status.success());
    git(&git_path, dir.path(), &["add", "."]);
    let home = tempfile::tempdir().unwrap();
    let run = ["run", "--all-files", "--verbose"];
    let (output, text) = pre_commit(&pre_commit_path, dir.path(), home.path(), &run);
    assert_eq!(output.status.code(), Some(0), "fresh outputs: {text}");
    assert!(text.contains("Passed"), "{text}");

    let profile = dir.path().join("profiles/good.toml");
    std::fs::write(&profile, format!("{GOOD}[env]\nTZ = \"UTC\"\n")).unwrap();
    git(&git_path, dir.path(), &["add", "."]);
    let (output, text) = pre_commit(&pre_commit_path, dir.path(), home.path(), &run);
    assert_eq!(output.status.code(), Some(1), "stale outputs: {text}");
    assert!(text.contains("out/.env"), "{text}");
    assert!(text.contains("+TZ="), "{text}");
    assert!(text.contains("stale"), "{text}");
}
