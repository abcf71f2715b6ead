//! Helpers shared by the integration tests: paths, the svcgen command, external tools.
#![allow(dead_code)]

pub mod hostile;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// True on CI, where a missing external tool is a failure, not a skip.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The svcgen binary under test.
pub fn svcgen() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("svcgen").expect("the svcgen binary is built")
}

/// Every example profile, sorted.
pub fn examples() -> Vec<PathBuf> {
    toml_files(&repo().join("examples"))
}

/// The `.toml` files of a folder, sorted.
pub fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    out.sort();
    out
}

/// Finds an external tool: `$SVCGEN_VENV/bin`, then `<repo>/.venv/bin`, then PATH.
/// Returns `None` (after saying so) when it is missing, and panics on CI.
pub fn tool(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("SVCGEN_VENV") {
        dirs.push(Path::new(&venv).join("bin"));
    }
    dirs.push(repo().join(".venv/bin"));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    if let Some(found) = dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file()) {
        return Some(found);
    }
    if on_ci() {
        panic!("{name} is required on CI (CI=true) but was not found; run scripts/test.sh");
    }
    eprintln!("skipping: {name} not found (run scripts/test.sh to install the pinned validators)");
    None
}

/// A Python interpreter that can import `module` (the venv's first).
pub fn python_with(module: &str) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(venv) = std::env::var_os("SVCGEN_VENV") {
        candidates.push(Path::new(&venv).join("bin/python"));
    }
    candidates.push(repo().join(".venv/bin/python"));
    candidates.push(PathBuf::from("python3"));
    for python in candidates {
        let ok = Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(python);
        }
    }
    if on_ci() {
        panic!("python with `{module}` is required on CI (CI=true); run scripts/test.sh");
    }
    eprintln!("skipping: no python with `{module}` (run scripts/test.sh to install it)");
    None
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The names in a folder, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
