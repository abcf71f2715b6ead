//! CLI tests of `svcgen validate` on the invalid profiles in `tests/invalid/`.
//!
//! Each fixture breaks one rule and carries the header lines of `tests/support/expect.rs`:
//!
//! ```text
//! # expect: E0204 5:11 did you mean `pgsql`
//! # schema-expect: persistence.sql.dialect
//! ```
//!
//! `# expect: CODE LINE:COL FRAGMENT`: a diagnostic `svcgen validate` reports, with that code, at
//! that 1-based position, whose message or help contains FRAGMENT (the rest of the line, compared
//! literally). The diagnostics of a fixture must be exactly its expectations, and the exit code
//! follows from their severity. `# schema-expect: KEY.PATH`, on the fixtures the JSON Schema
//! must reject too: the key check-jsonschema and taplo reject it for (tests/schema.rs).

use crate::support;

use std::path::{Path, PathBuf};
use support::expect::{Fixture, check_fixtures, compare, listing, reported_from_stdout};
use support::{repo, svcgen};

/// The profiles of the former `tests/invalid/` (93) and `tests/schema-invalid/` (29 not
/// already there), merged.
const MIN_FIXTURES: usize = 122;

/// Every `tests/invalid/*.toml`, sorted by file name.
fn fixtures() -> Vec<PathBuf> {
    support::toml_files(&repo().join("tests/invalid"))
}

/// Checks one fixture; returns the problems found (empty when it passes).
fn check_fixture(path: &Path, fixture: &Fixture) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let output = svcgen()
        .arg("validate")
        .arg(path)
        .args(["--format", "json"])
        .output()
        .expect("svcgen runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reported = match reported_from_stdout(&stdout) {
        Ok(reported) => reported,
        Err(e) => return vec![format!("{e}\nstderr: {stderr}")],
    };
    let expected = &fixture.expect;
    let mut problems = compare(expected, &reported, |file| file.ends_with(&name));
    let want_code = if expected.iter().any(|e| e.code.starts_with('E')) {
        1
    } else {
        0
    };
    match output.status.code() {
        Some(code) if code == want_code => {}
        other => problems.push(format!("exit code {other:?}, expected {want_code}")),
    }
    if !problems.is_empty() {
        problems.push(listing(&reported, &stderr));
    }
    problems
}

#[test]
fn every_invalid_profile_reports_exactly_its_expected_diagnostics() {
    check_fixtures(&fixtures(), MIN_FIXTURES, check_fixture);
}

#[test]
fn human_output_points_at_file_line_and_column_with_a_caret_and_help() {
    for name in [
        "enum-dialect-postgres.toml",
        "unknown-table-couchbase.toml",
        "sleep-above-max.toml",
    ] {
        let relative = format!("tests/invalid/{name}");
        let first = Fixture::read(&repo().join(&relative)).expect.remove(0);
        let output = svcgen()
            .current_dir(repo())
            .arg("validate")
            .arg(&relative)
            .output()
            .expect("svcgen runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let location = format!("--> {relative}:{}:{}", first.line, first.column);
        assert!(
            stderr.contains(&location),
            "{name}: no `{location}` in stderr:\n{stderr}"
        );
        assert!(
            stderr
                .lines()
                .any(|l| l.contains('|')
                    && l.split_once('|').unwrap().1.trim_start().starts_with('^')),
            "{name}: no caret line in stderr:\n{stderr}"
        );
        assert!(
            stderr.contains("help:"),
            "{name}: no `help:` in stderr:\n{stderr}"
        );
    }
}

#[test]
fn invalid_utf8_is_a_syntax_error_with_a_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.toml");
    // `edition = "` is 11 bytes: the bad byte is the 12th character of line 1.
    std::fs::write(&path, b"edition = \"\xff\"\n").unwrap();
    let output = svcgen()
        .arg("validate")
        .arg(&path)
        .args(["--format", "json"])
        .output()
        .expect("svcgen runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let reported = reported_from_stdout(&String::from_utf8_lossy(&output.stdout)).unwrap();
    assert_eq!(reported.len(), 1, "{reported:?}");
    let diag = &reported[0];
    assert_eq!(diag.code, "E0100", "{diag}");
    assert_eq!((diag.line, diag.column), (1, 12), "{diag}");
    assert!(diag.message.contains("UTF-8"), "{diag}");
    assert!(diag.file.ends_with("latin1.toml"), "{diag:?}");
}

#[test]
fn a_directory_is_an_io_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("profile.toml");
    std::fs::create_dir(&path).unwrap();
    let output = svcgen()
        .arg("validate")
        .arg(&path)
        .output()
        .expect("svcgen runs");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&path.display().to_string()),
        "stderr does not name {}:\n{stderr}",
        path.display()
    );
}
