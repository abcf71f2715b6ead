//! CLI tests of `svcgen validate` on the invalid profiles in `tests/invalid/`.
//!
//! Each fixture breaks one rule and starts with expectation headers:
//!
//! ```text
//! # expect: E0204 5:11 did you mean `pgsql`
//! ```
//!
//! `CODE LINE:COL FRAGMENT`: a diagnostic with that code, reported at that 1-based position, whose
//! message or help contains FRAGMENT (the rest of the line, compared literally). The diagnostics of
//! a fixture must be exactly its expectations, and the exit code follows from their severity.

use assert_cmd::Command;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const MIN_FIXTURES: usize = 45;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests").join("invalid")
}

/// Every `tests/invalid/*.toml`, sorted by file name.
fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("tests/invalid/ is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    files
}

fn svcgen() -> Command {
    Command::cargo_bin("svcgen").expect("the svcgen binary is built")
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Expectation {
    code: String,
    line: u64,
    column: u64,
    fragment: String,
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

/// Reads the `# expect:` lines of a fixture.
fn parse_expectations(text: &str) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("# expect:") else {
            continue;
        };
        let bad = |why: &str| format!("line {}: malformed expectation ({why}): {line}", index + 1);
        let mut parts = rest.trim_start().splitn(3, ' ');
        let code = parts
            .next()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| bad("no code"))?;
        let position = parts.next().ok_or_else(|| bad("no LINE:COL"))?;
        let fragment = parts
            .next()
            .filter(|f| !f.is_empty())
            .ok_or_else(|| bad("no fragment"))?;
        let (line_no, column) = position
            .split_once(':')
            .ok_or_else(|| bad("position is not LINE:COL"))?;
        let line_no = line_no.parse().map_err(|_| bad("LINE is not a number"))?;
        let column = column.parse().map_err(|_| bad("COL is not a number"))?;
        let valid_code = code.len() == 5
            && (code.starts_with('E') || code.starts_with('W'))
            && code[1..].chars().all(|c| c.is_ascii_digit());
        if !valid_code {
            return Err(bad("code is not E#### or W####"));
        }
        out.push(Expectation {
            code: code.to_string(),
            line: line_no,
            column,
            fragment: fragment.to_string(),
        });
    }
    if out.is_empty() {
        return Err("no `# expect:` lines".to_string());
    }
    Ok(out)
}

/// One reported diagnostic, as far as the expectations look at it.
#[derive(Debug)]
struct Reported {
    code: String,
    line: u64,
    column: u64,
    message: String,
    help: Option<String>,
    file: String,
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

fn parse_reported(stdout: &str) -> Result<Vec<Reported>, String> {
    let json: Value =
        serde_json::from_str(stdout).map_err(|e| format!("stdout is not JSON ({e}): {stdout}"))?;
    let items = json
        .as_array()
        .ok_or_else(|| format!("stdout is not a JSON array: {stdout}"))?;
    items
        .iter()
        .map(|item| {
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
                Some(Value::Null) => None,
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
        })
        .collect()
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

/// Checks one fixture; returns the problems found (empty when it passes).
fn check_fixture(path: &Path) -> Vec<String> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return vec![format!("cannot read the fixture: {e}")],
    };
    let expected = match parse_expectations(&text) {
        Ok(expected) => expected,
        Err(e) => return vec![e],
    };
    let output = svcgen()
        .arg("validate")
        .arg(path)
        .args(["--format", "json"])
        .output()
        .expect("svcgen runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reported = match parse_reported(&stdout) {
        Ok(reported) => reported,
        Err(e) => return vec![format!("{e}\nstderr: {stderr}")],
    };

    let mut problems = Vec::new();
    let assignment = assign(&expected, &reported);
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
        if !diag.file.ends_with(&name) {
            problems.push(format!(
                "`file` is {:?}, which does not end with {name:?}",
                diag.file
            ));
        }
    }
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
        let mut all = String::from("all reported diagnostics:");
        if reported.is_empty() {
            all.push_str(" (none)");
        }
        for diag in &reported {
            write!(all, "\n      {diag}").unwrap();
        }
        if !stderr.trim().is_empty() {
            write!(all, "\n    stderr: {}", stderr.trim()).unwrap();
        }
        problems.push(all);
    }
    problems
}

#[test]
fn every_invalid_profile_reports_exactly_its_expected_diagnostics() {
    let files = fixtures();
    assert!(
        files.len() >= MIN_FIXTURES,
        "expected at least {MIN_FIXTURES} fixtures in tests/invalid/, found {}",
        files.len()
    );
    let mut report = String::new();
    let mut failed = 0;
    for path in &files {
        let problems = check_fixture(path);
        if problems.is_empty() {
            continue;
        }
        failed += 1;
        let name = path.file_name().unwrap().to_string_lossy();
        writeln!(report, "\n{name}:").unwrap();
        if let Ok(text) = std::fs::read_to_string(path) {
            for line in text.lines().filter(|l| l.starts_with("# expect:")) {
                writeln!(report, "    {line}").unwrap();
            }
        }
        for problem in problems {
            writeln!(report, "  - {problem}").unwrap();
        }
    }
    if failed > 0 {
        panic!(
            "{failed} of {} invalid profiles failed:\n{report}",
            files.len()
        );
    }
}

#[test]
fn human_output_points_at_file_line_and_column_with_a_caret_and_help() {
    for name in [
        "enum-dialect-postgres.toml",
        "unknown-table-couchbase.toml",
        "sleep-above-max.toml",
    ] {
        let relative = format!("tests/invalid/{name}");
        let text = std::fs::read_to_string(manifest_dir().join(&relative)).unwrap();
        let first = parse_expectations(&text).unwrap().remove(0);
        let output = svcgen()
            .current_dir(manifest_dir())
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
    let reported = parse_reported(&String::from_utf8_lossy(&output.stdout)).unwrap();
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
