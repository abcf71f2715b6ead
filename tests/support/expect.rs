//! The one fixture format of the diagnostics tests, and its one reader and comparison.
//!
//! A fixture (an invalid profile of `tests/invalid/`, a deployment of `tests/lint/`) carries its
//! expectations in comment lines anywhere in the file:
//!
//! ```text
//! # expect: E0204 5:11 did you mean `pgsql`
//! # schema-expect: persistence.sql.dialect
//! # edition: A
//! ```
//!
//! - `# expect: CODE LINE:COL FRAGMENT`: a diagnostic with that code (`E####` or `W####`),
//!   reported at that 1-based position of the fixture, whose message or help contains FRAGMENT
//!   (the rest of the line, compared literally). The diagnostics must be exactly the expectations:
//!   every fixture has at least one.
//! - `# schema-expect: KEY.PATH` (profiles only): the JSON Schema must reject the profile for that
//!   key (tests/schema.rs checks it with check-jsonschema and taplo).
//! - `# edition: A` (lint inputs only): the input is linted as that edition.

use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One `# expect:` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expectation {
    pub code: String,
    pub line: u64,
    pub column: u64,
    pub fragment: String,
}

impl std::fmt::Display for Expectation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}:{} {}",
            self.code, self.line, self.column, self.fragment
        )
    }
}

/// The expectation lines of one fixture.
#[derive(Debug, Clone, Default)]
pub struct Fixture {
    pub expect: Vec<Expectation>,
    /// The key of `# schema-expect:`, when the JSON Schema must reject the fixture.
    pub schema_expect: Option<String>,
    /// The edition of `# edition:`, when the fixture names one.
    pub edition: Option<String>,
}

impl Fixture {
    /// Reads the fixture at `path`; panics (naming the file) on a malformed or missing
    /// `# expect:` line.
    pub fn read(path: &Path) -> Fixture {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{}: cannot read the fixture: {e}", path.display()));
        Fixture::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Reads the expectation lines of a fixture's text.
    pub fn parse(text: &str) -> Result<Fixture, String> {
        let mut fixture = Fixture::default();
        for (index, line) in text.lines().enumerate() {
            let bad = |why: &str| format!("line {}: malformed header ({why}): {line}", index + 1);
            if let Some(rest) = line.strip_prefix("# expect:") {
                fixture
                    .expect
                    .push(parse_expectation(rest).map_err(|e| bad(&e))?);
            } else if let Some(key) = line.strip_prefix("# schema-expect:") {
                let key = key.trim();
                if key.is_empty() || fixture.schema_expect.is_some() {
                    return Err(bad("one key, once"));
                }
                fixture.schema_expect = Some(key.to_string());
            } else if let Some(edition) = line.strip_prefix("# edition:") {
                fixture.edition = Some(edition.trim().to_string());
            }
        }
        if fixture.expect.is_empty() {
            return Err("no `# expect:` lines".to_string());
        }
        Ok(fixture)
    }
}

/// `CODE LINE:COL FRAGMENT`, the rest of an `# expect:` line.
fn parse_expectation(rest: &str) -> Result<Expectation, String> {
    let mut parts = rest.trim_start().splitn(3, ' ');
    let code = parts.next().filter(|c| !c.is_empty()).ok_or("no code")?;
    let position = parts.next().ok_or("no LINE:COL")?;
    let fragment = parts
        .next()
        .filter(|f| !f.is_empty())
        .ok_or("no fragment")?;
    let (line, column) = position.split_once(':').ok_or("position is not LINE:COL")?;
    let line = line.parse().map_err(|_| "LINE is not a number")?;
    let column = column.parse().map_err(|_| "COL is not a number")?;
    let valid_code = code.len() == 5
        && (code.starts_with('E') || code.starts_with('W'))
        && code[1..].chars().all(|c| c.is_ascii_digit());
    if !valid_code {
        return Err("code is not E#### or W####".to_string());
    }
    Ok(Expectation {
        code: code.to_string(),
        line,
        column,
        fragment: fragment.to_string(),
    })
}

/// One reported diagnostic, as far as the expectations look at it.
#[derive(Debug)]
pub struct Reported {
    pub code: String,
    pub line: u64,
    pub column: u64,
    pub message: String,
    pub help: Option<String>,
    pub file: String,
}

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}:{} {}",
            self.code, self.line, self.column, self.message
        )?;
        if let Some(help) = &self.help {
            write!(f, " [help: {}]", help.replace('\n', " / "))?;
        }
        Ok(())
    }
}

/// The diagnostics of `--format json` (or of `svcgen::diag::json::to_json`).
pub fn reported_from_json(json: &Value) -> Result<Vec<Reported>, String> {
    let items = json
        .as_array()
        .ok_or_else(|| format!("not a JSON array: {json}"))?;
    items.iter().map(reported_item).collect()
}

/// The diagnostics of `--format json` printed on stdout.
pub fn reported_from_stdout(stdout: &str) -> Result<Vec<Reported>, String> {
    let json: Value =
        serde_json::from_str(stdout).map_err(|e| format!("stdout is not JSON ({e}): {stdout}"))?;
    reported_from_json(&json)
}

fn reported_item(item: &Value) -> Result<Reported, String> {
    let text = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("diagnostic without a string `{key}`: {item}"))
    };
    let number = |key: &str| {
        item.get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("diagnostic without a numeric `{key}`: {item}"))
    };
    let help = match item.get("help") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        _ => {
            return Err(format!(
                "diagnostic whose `help` is neither a string nor null: {item}"
            ));
        }
    };
    Ok(Reported {
        code: text("code")?,
        line: number("line")?,
        column: number("column")?,
        message: text("message")?,
        help,
        file: text("file")?,
    })
}

fn matches(expected: &Expectation, reported: &Reported) -> bool {
    expected.code == reported.code
        && expected.line == reported.line
        && expected.column == reported.column
        && (reported.message.contains(&expected.fragment)
            || reported
                .help
                .as_deref()
                .is_some_and(|h| h.contains(&expected.fragment)))
}

/// Pairs each expectation with a distinct diagnostic (bipartite matching, so that two
/// expectations that could match the same diagnostic do not steal from each other).
/// Returns, per expectation, the index of its diagnostic.
fn assign(expected: &[Expectation], reported: &[Reported]) -> Vec<Option<usize>> {
    fn augment(
        e: usize,
        expected: &[Expectation],
        reported: &[Reported],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for r in 0..reported.len() {
            if seen[r] || !matches(&expected[e], &reported[r]) {
                continue;
            }
            seen[r] = true;
            if owner[r].is_none_or(|other| augment(other, expected, reported, seen, owner)) {
                owner[r] = Some(e);
                return true;
            }
        }
        false
    }
    let mut owner: Vec<Option<usize>> = vec![None; reported.len()];
    for e in 0..expected.len() {
        let mut seen = vec![false; reported.len()];
        augment(e, expected, reported, &mut seen, &mut owner);
    }
    let mut result = vec![None; expected.len()];
    for (r, e) in owner.iter().enumerate() {
        if let Some(e) = e {
            result[*e] = Some(r);
        }
    }
    result
}

/// The differences between what a fixture expects and what was reported (empty when they are
/// the same): every expectation matched by a distinct diagnostic, no other diagnostic, and each
/// diagnostic's `file` accepted by `file_ok`.
pub fn compare(
    expected: &[Expectation],
    reported: &[Reported],
    file_ok: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    let assignment = assign(expected, reported);
    for (e, r) in expected.iter().zip(&assignment) {
        if r.is_none() {
            problems.push(format!("expected, not reported: {e}"));
        }
    }
    if reported.len() != expected.len() {
        problems.push(format!(
            "{} diagnostic(s) reported, {} expected",
            reported.len(),
            expected.len()
        ));
    }
    for (index, diag) in reported.iter().enumerate() {
        if !assignment.contains(&Some(index)) {
            problems.push(format!("reported, not expected: {diag}"));
        }
        if !file_ok(&diag.file) {
            problems.push(format!("`file` is {:?}, not this fixture", diag.file));
        }
    }
    problems
}

/// Every reported diagnostic (and the stderr, if any), to show under a failing fixture.
pub fn listing(reported: &[Reported], stderr: &str) -> String {
    let mut all = String::from("all reported diagnostics:");
    if reported.is_empty() {
        all.push_str(" (none)");
    }
    for diag in reported {
        write!(all, "\n      {diag}").unwrap();
    }
    if !stderr.trim().is_empty() {
        write!(all, "\n    stderr: {}", stderr.trim()).unwrap();
    }
    all
}

/// Checks every fixture with `check` (which returns its problems, empty when it passes) and
/// panics with one report naming each failing fixture, its `# expect:` lines and its problems.
/// `at_least` guards against a folder that lost its fixtures.
pub fn check_fixtures(
    files: &[PathBuf],
    at_least: usize,
    check: impl Fn(&Path, &Fixture) -> Vec<String>,
) {
    assert!(
        files.len() >= at_least,
        "expected at least {at_least} fixtures, found {}",
        files.len()
    );
    let mut report = String::new();
    let mut failed = 0;
    for path in files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let problems = match Fixture::parse(&text) {
            Ok(fixture) => check(path, &fixture),
            Err(e) => vec![e],
        };
        if problems.is_empty() {
            continue;
        }
        failed += 1;
        writeln!(report, "\n{}:", path.display()).unwrap();
        for line in text.lines().filter(|l| l.starts_with("# expect:")) {
            writeln!(report, "    {line}").unwrap();
        }
        for problem in problems {
            writeln!(report, "  - {problem}").unwrap();
        }
    }
    assert!(
        failed == 0,
        "{failed} of {} fixtures failed:\n{report}",
        files.len()
    );
}
