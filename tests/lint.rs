//! `lint` on the deployments in `tests/lint/` (`.env` files, compose files, ConfigMaps and a
//! Deployment): every rule reported at the file, line and column of the input.
//!
//! Each fixture ends with expectation comments, as in `tests/invalid/`:
//!
//! ```text
//! # expect: W0313 7:40 `yes` is read as false by the container
//! ```
//!
//! `CODE LINE:COL FRAGMENT`: a diagnostic with that code at that 1-based position of the fixture,
//! whose message or help contains FRAGMENT. The diagnostics must be exactly the expectations. A
//! `# edition: A` line lints the fixture as that edition.

mod support;

use std::path::{Path, PathBuf};
use svcgen::import::{ReadOptions, read_file};
use svcgen::lint::lint;
use svcgen::model::Edition;
use svcgen::source::Sources;

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

#[derive(Debug, PartialEq)]
struct Found {
    code: String,
    file: String,
    line: u64,
    column: u64,
    text: String,
}

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}:{}:{} {}",
            self.code, self.file, self.line, self.column, self.text
        )
    }
}

fn run(path: &Path) -> Vec<Found> {
    let text = std::fs::read_to_string(path).unwrap();
    let edition = text
        .lines()
        .find_map(|l| l.strip_prefix("# edition: "))
        .and_then(|e| Edition::parse(e.trim()));
    let mut sources = Sources::new();
    let read = read_file(path, &ReadOptions::default(), &mut sources).unwrap();
    let diags = lint(&read, edition, &sources);
    let json = svcgen::diag::json::to_json(&diags, &sources);
    json.as_array()
        .unwrap()
        .iter()
        .map(|d| Found {
            code: d["code"].as_str().unwrap().to_string(),
            file: d["file"].as_str().unwrap_or("-").to_string(),
            line: d["line"].as_u64().unwrap_or(0),
            column: d["column"].as_u64().unwrap_or(0),
            text: format!(
                "{} | {}",
                d["message"].as_str().unwrap(),
                d["help"].as_str().unwrap_or("")
            ),
        })
        .collect()
}

/// (code, line, column, fragment) of each `# expect:` line.
fn expectations(path: &Path) -> Vec<(String, u64, u64, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .map(|rest| {
            let mut parts = rest.splitn(3, ' ');
            let code = parts.next().unwrap().to_string();
            let (line, column) = parts.next().unwrap().split_once(':').unwrap();
            let fragment = parts.next().unwrap_or_default().to_string();
            (
                code,
                line.parse().unwrap(),
                column.parse().unwrap(),
                fragment,
            )
        })
        .collect()
}

#[test]
fn every_fixture_reports_exactly_its_expectations() {
    let files = fixtures();
    assert!(files.len() >= MIN_FIXTURES, "only {} fixtures", files.len());
    let mut failures = String::new();
    for path in &files {
        let found = run(path);
        let expected = expectations(path);
        let shown = path.display().to_string();
        let matches = |e: &(String, u64, u64, String), f: &Found| {
            f.code == e.0
                && f.line == e.1
                && f.column == e.2
                && f.text.contains(&e.3)
                && f.file == shown
        };
        let missing: Vec<_> = expected
            .iter()
            .filter(|e| !found.iter().any(|f| matches(e, f)))
            .collect();
        let extra: Vec<_> = found
            .iter()
            .filter(|f| !expected.iter().any(|e| matches(e, f)))
            .collect();
        if expected.is_empty() || !missing.is_empty() || !extra.is_empty() {
            failures.push_str(&format!("\n{shown}:\n"));
            for e in missing {
                failures.push_str(&format!("  missing: {} {}:{} {}\n", e.0, e.1, e.2, e.3));
            }
            for f in extra {
                failures.push_str(&format!("  unexpected: {f}\n"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
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
        for (code, ..) in expectations(&path) {
            seen.push((code, kind));
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
