//! The repository stands on its own: a clone of the committed HEAD, alone in an empty temporary
//! folder (no shared folder beside it), passes the spec model test, and nothing in the tests,
//! sources or scripts reads outside the repository.

use crate::support;

use std::path::Path;
use std::process::Command;

/// The folders whose files may not point outside the repository.
const CHECKED: &[&str] = &["tests", "src", "scripts", ".ci", "benches", "build.rs"];

#[test]
fn a_clone_alone_in_an_empty_folder_passes_the_spec_model_test() {
    let Some(git) = support::tool("git") else {
        return;
    };
    if !support::repo().join(".git").exists() {
        support::skip("a git checkout", "run the tests from a git clone");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("svcgen");
    let status = Command::new(git)
        .args(["clone", "--quiet", "--no-hardlinks"])
        .arg(support::repo())
        .arg(&clone)
        .status()
        .unwrap();
    assert!(status.success(), "git clone of the repository failed");
    let beside: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(beside.len(), 1, "the clone is alone in its folder");
    assert!(!dir.path().join("shared").exists());

    // The outer build's intermediate artifacts are reused (`build-dir`): only svcgen itself is
    // rebuilt. A profile setting of svcgen alone gives the clone's units their own file names
    // (cargo's names do not depend on the source folder), and final artifacts go to their own
    // folder: the clone's build never replaces a binary the other tests run.
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| support::repo().join("target"));
    let build_dir = std::env::var_os("CARGO_BUILD_BUILD_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| target.clone());
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "test",
            "--offline",
            "--locked",
            "--test",
            "integration",
            "spec_model::",
        ])
        .args([
            "--config",
            "profile.dev.package.svcgen.debug=\"line-tables-only\"",
        ])
        .current_dir(&clone)
        .env("CARGO_TARGET_DIR", target.join("clone-check"))
        .env("CARGO_BUILD_BUILD_DIR", build_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the spec model test fails in a fresh clone:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("test result: ok") && !stdout.contains(" 0 passed"),
        "the spec model test ran in the clone:\n{stdout}"
    );
}

/// Every file under `path` (a file or a folder), recursively.
fn files(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        files(&entry.path(), out);
    }
}

#[test]
fn nothing_reads_the_shared_folder_beside_the_repository() {
    let mut all = Vec::new();
    for name in CHECKED {
        files(&support::repo().join(name), &mut all);
    }
    assert!(all.len() > 20, "the checked folders hold the code");
    let needle = ["..", "shared"].join("/");
    for file in all {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        assert!(
            !text.contains(&needle),
            "{} refers to {needle}, outside the repository",
            file.display()
        );
    }
}
