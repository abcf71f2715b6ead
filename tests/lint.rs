//! `lint` on the deployments in `tests/lint/` (`.env` files, compose files, ConfigMaps and a
//! Deployment): every rule reported at the file, line and column of the input.
//!
//! Each fixture ends with the expectation lines of `tests/support/expect.rs`, as in
//! `tests/invalid/`:
//!
//! ```text
//! # expect: W0313 7:40 `yes` is read as false by the container
//! ```
//!
//! `CODE LINE:COL FRAGMENT`: a diagnostic with that code at that 1-based position of the fixture,
//! whose message or help contains FRAGMENT. The diagnostics must be exactly the expectations. A
//! `# edition: A` line lints the fixture as that edition.

use crate::support;

use std::path::{Path, PathBuf};
use support::expect::{Fixture, Reported, check_fixtures, compare, listing, reported_from_json};
use svcgen::commands::lint::lint;
use svcgen::diag::source::Sources;
use svcgen::import::{ReadOptions, read_file};
use svcgen::model::Edition;

const MIN_FIXTURES: usize = 17;

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/lint")
        .expect("tests/lint/ is readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// The diagnostics of `lint` on a fixture, as the edition its `# edition:` line names.
fn run(path: &Path, fixture: &Fixture) -> Result<Vec<Reported>, String> {
    let edition = fixture.edition.as_deref().and_then(Edition::parse);
    let mut sources = Sources::new();
    let read = read_file(path, &ReadOptions::default(), &mut sources).unwrap();
    let diags = lint(&read, edition, &sources);
    reported_from_json(&svcgen::diag::json::to_json(&diags, &sources))
}

#[test]
fn every_fixture_reports_exactly_its_expectations() {
    check_fixtures(&fixtures(), MIN_FIXTURES, |path, fixture| {
        let reported = match run(path, fixture) {
            Ok(reported) => reported,
            Err(e) => return vec![e],
        };
        let shown = path.display().to_string();
        let mut problems = compare(&fixture.expect, &reported, |file| file == shown);
        if !problems.is_empty() {
            problems.push(listing(&reported, ""));
        }
        problems
    });
}

#[test]
fn every_rule_is_covered_on_each_kind_of_input() {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for path in fixtures() {
        let kind = match path.extension().and_then(|e| e.to_str()) {
            Some("env") => "env",
            Some("yml") => "compose",
            _ => "k8s",
        };
        for expectation in Fixture::read(&path).expect {
            seen.push((expectation.code, kind));
        }
    }
    let rules = [
        ("W0317", "unknown names"),
        ("E0204", "values outside the allowed set"),
        ("W0313", "non-canonical booleans"),
        ("W0314", "non-integer wait times"),
        ("E0221", "malformed hybrid JSON"),
        ("E0202", "edition mismatches"),
        ("W0315", "empty strings"),
    ];
    for (code, rule) in rules {
        for kind in ["env", "compose", "k8s"] {
            assert!(
                seen.iter().any(|(c, k)| c == code && *k == kind),
                "{rule} ({code}) has no {kind} fixture"
            );
        }
    }
}

#[test]
fn a_problem_in_an_env_file_points_into_that_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("base.env"),
        "CN_AUTH_BASE_URL=https://a.example\nCN_SQL_DB_DIALECT=postgres\n",
    )
    .unwrap();
    let compose = dir.path().join("compose.yml");
    std::fs::write(&compose, "services:\n  ui:\n    env_file: base.env\n").unwrap();
    let mut sources = Sources::new();
    let read = read_file(&compose, &ReadOptions::default(), &mut sources).unwrap();
    let diags = lint(&read, None, &sources);
    let json = svcgen::diag::json::to_json(&diags, &sources);
    let first = &json[0];
    assert_eq!(first["code"], "E0204");
    assert!(first["file"].as_str().unwrap().ends_with("base.env"));
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(2), Some(19))
    );
}

/// Without an edition, a variable an image of some edition reads is never
/// "not read by the container" (on main: W0316 "the container does not read it" for edition A's
/// SSA file); with edition B, whose image does not read it, it is.
#[test]
fn a_variable_some_edition_reads_is_not_called_unread_without_an_edition() {
    let lint = |args: &[&str]| {
        support::scenario::Test::new()
            .file("app.env", "GLUU_SSA_FILE=/x\n")
            .args(["lint", "app.env"])
            .args(args)
            .run()
    };
    let unknown = lint(&[]);
    assert!(
        unknown.stderr().contains("edition A's image reads it"),
        "{}",
        unknown.stderr()
    );
    assert!(
        !unknown.stderr().contains("does not read it"),
        "{}",
        unknown.stderr()
    );
    let b = lint(&["--edition", "B"]);
    assert!(b.stderr().contains("does not read it"), "{}", b.stderr());
}
