//! The reference site and the playground, on the pure core: the WebAssembly module embedded in
//! `playground.html` answers exactly what the native binary prints, for every example and profile
//! fixture (a Node test, no browser), and the pages work from `file://` in headless Chromium
//! (typing, a diagnostic, each target, the reference).
//!
//! Both read the site `scripts/site.sh` built into `target/site` (scripts/test.sh builds it
//! first; `SVCGEN_SITE` names another folder). Without it, or without Node, Chromium or
//! playwright-core, they skip, and fail on CI.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The built site, or `None` (skipped) when it was not built.
fn site() -> Option<PathBuf> {
    let dir = std::env::var_os("SVCGEN_SITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| support::repo().join("target/site"));
    if dir.join("playground.html").is_file() && dir.join("index.html").is_file() {
        return Some(dir);
    }
    support::skip(
        &format!("the site ({})", dir.display()),
        "run scripts/site.sh target/site (scripts/test.sh does, and needs the wasm32-unknown-unknown target)",
    );
    None
}

/// Every profile of `examples/` and of the test fixtures, recursively, sorted.
fn profiles() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if entry.is_dir() {
                walk(&entry, out);
            } else if entry.extension().is_some_and(|x| x == "toml") {
                out.push(entry);
            }
        }
    }
    let mut out = Vec::new();
    walk(&support::repo().join("examples"), &mut out);
    walk(&support::repo().join("tests"), &mut out);
    out.sort();
    out
}

fn run_node(node: &Path, script: &Path, args: &[&std::ffi::OsStr], dir: &Path) {
    let output = Command::new(node)
        .arg(script)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{} failed ({}):\n{stdout}\n{stderr}",
        script.display(),
        output.status
    );
    eprintln!("{stdout}");
}

#[test]
fn pure_core_in_wasm_agrees_with_the_binary_on_every_example_and_fixture() {
    let (Some(node), Some(site)) = (support::tool("node"), site()) else {
        return;
    };
    let profiles = profiles();
    assert!(profiles.len() > 100, "fixtures not found: {profiles:?}");
    let binary = assert_cmd::cargo::cargo_bin("svcgen");
    let page = site.join("playground.html");
    let mut args = vec![page.as_os_str(), binary.as_os_str()];
    args.extend(profiles.iter().map(|p| p.as_os_str()));
    let repo = support::repo();
    run_node(&node, &repo.join("web/tests/compare.mjs"), &args, &repo);
}

#[test]
fn playground_and_reference_work_from_file_in_headless_chromium() {
    let (Some(node), Some(_chromium), Some(site)) =
        (support::tool("node"), support::tool("chromium"), site())
    else {
        return;
    };
    let e2e = support::repo().join("web/e2e");
    if !e2e.join("node_modules/playwright-core").is_dir() {
        support::skip(
            "playwright-core",
            "npm ci --prefix web/e2e (.ci/run does; it downloads no browser)",
        );
        return;
    }
    let binary = assert_cmd::cargo::cargo_bin("svcgen");
    let examples = support::repo().join("examples");
    let shots = support::repo().join("target/site-e2e");
    let args = [
        site.as_os_str(),
        binary.as_os_str(),
        examples.as_os_str(),
        shots.as_os_str(),
    ];
    run_node(&node, &e2e.join("playground.test.mjs"), &args, &e2e);
    assert!(shots.join("playground.png").is_file());
}
