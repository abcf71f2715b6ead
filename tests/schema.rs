//! The editor JSON Schema: the checked-in file is fresh, it is valid draft-07, the external
//! validators (check-jsonschema, taplo) accept every valid profile and reject every profile of
//! `tests/invalid/` that has a `# schema-expect: KEY.PATH` line for that key, and svcgen agrees
//! (the format of those lines: tests/support/expect.rs).
//!
//! Regenerate the checked-in schema with `UPDATE_SCHEMA=1 cargo test --test integration schema::`.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::expect::Fixture;
use support::{repo, tool};

const SCHEMA: &str = "schemas/profile.schema.json";

/// The invalid profiles the schema must reject: the former `tests/schema-invalid/`.
const MIN_SCHEMA_INVALID: usize = 49;

fn schema_path() -> PathBuf {
    repo().join(SCHEMA)
}

/// The `.toml` files of a folder of the repository, sorted.
fn profiles(dir: &str) -> Vec<PathBuf> {
    support::toml_files(&repo().join(dir))
}

/// Every profile the schema must accept: the examples and the edge cases of `tests/schema-valid/`.
fn valid_profiles() -> Vec<PathBuf> {
    let mut out = profiles("examples");
    out.extend(profiles("tests/schema-valid"));
    out
}

/// The profiles of `tests/invalid/` the schema must reject, each with the key path it must be
/// rejected for (its `# schema-expect:` line).
fn schema_invalid_profiles() -> Vec<(PathBuf, String)> {
    profiles("tests/invalid")
        .into_iter()
        .filter_map(|p| Fixture::read(&p).schema_expect.map(|key| (p, key)))
        .collect()
}

/// The paths of [`schema_invalid_profiles`].
fn schema_invalid_paths() -> Vec<PathBuf> {
    schema_invalid_profiles()
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// The key path a profile of [`schema_invalid_profiles`] must be rejected for.
fn expected_key(profile: &Path) -> String {
    Fixture::read(profile)
        .schema_expect
        .unwrap_or_else(|| panic!("{}: no `# schema-expect:` line", profile.display()))
}

fn name(path: &Path) -> String {
    path.strip_prefix(repo())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn output_text(output: &Output) -> String {
    support::printed(output)
}

fn check_jsonschema(exe: &Path, profile: &Path) -> Output {
    Command::new(exe)
        .arg("--schemafile")
        .arg(schema_path())
        .arg(profile)
        .output()
        .expect("check-jsonschema runs")
}

fn taplo(exe: &Path, profile: &Path) -> Output {
    let url = format!("file://{}", schema_path().display());
    Command::new(exe)
        .args([
            "check",
            "--no-auto-config",
            "--colors",
            "never",
            "--schema",
            &url,
        ])
        .arg(profile)
        .output()
        .expect("taplo runs")
}

/// Runs `check` on every profile, a thread per profile, keeping the input order.
fn run_all(profiles: &[PathBuf], check: impl Fn(&Path) -> Output + Sync) -> Vec<(PathBuf, Output)> {
    std::thread::scope(|s| {
        let handles: Vec<_> = profiles.iter().map(|p| (p, s.spawn(|| check(p)))).collect();
        handles
            .into_iter()
            .map(|(p, h)| (p.clone(), h.join().expect("the check finishes")))
            .collect()
    })
}

/// One error of `taplo check`: its message and the line it points at.
struct TaploError {
    message: String,
    line: usize,
}

impl TaploError {
    /// True when the error names `key` or points at a line of the profile that has it.
    fn about(&self, profile: &Path, key: &str) -> bool {
        let text = std::fs::read_to_string(profile).expect("readable profile");
        let line = text.lines().nth(self.line.saturating_sub(1)).unwrap_or("");
        self.message.contains(key) || line.contains(key)
    }
}

/// The errors in taplo's output: `error: MESSAGE` followed by `┌─ FILE:LINE:COLUMN`.
fn taplo_errors(output: &str) -> Vec<TaploError> {
    let mut errors = Vec::new();
    let mut message: Option<&str> = None;
    for line in output.lines() {
        if let Some(m) = line.strip_prefix("error: ") {
            message = Some(m);
        } else if let (Some(m), Some((_, at))) = (message, line.split_once("┌─ ")) {
            let mut parts = at.rsplitn(3, ':');
            let (_column, row) = (parts.next(), parts.next());
            let line = row.and_then(|r| r.parse().ok()).unwrap_or(0);
            errors.push(TaploError {
                message: m.to_string(),
                line,
            });
            message = None;
        }
    }
    errors
}

/// The last segment of a key path (`port` of `config.consul.port`).
fn last_segment(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

#[test]
fn checked_in_schema_is_fresh() {
    let generated = svcgen::artifacts::schema::profile_schema_text();
    let path = schema_path();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).expect("schemas/profile.schema.json is writable");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{SCHEMA} is stale: it differs from what the spec model generates.\n\
         Regenerate it with:  UPDATE_SCHEMA=1 cargo test --test integration schema::\n\
         and commit the result."
    );
}

#[test]
fn schema_is_draft_07_and_deterministic() {
    let schema =
        serde_json::to_value(svcgen::artifacts::schema::profile_schema()).expect("serializes");
    assert_eq!(schema["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(
        svcgen::artifacts::schema::profile_schema_text(),
        svcgen::artifacts::schema::profile_schema_text()
    );
    assert!(
        !svcgen::artifacts::schema::profile_schema_text().contains("\"$ref\""),
        "the schema is self-contained"
    );
}

#[test]
fn every_key_of_the_model_is_in_the_schema_with_its_facts() {
    let schema =
        serde_json::to_value(svcgen::artifacts::schema::profile_schema()).expect("serializes");
    let model = svcgen::model::Model::get();
    for var in &model.vars {
        let pointer: String = var
            .key
            .split('.')
            .map(|s| format!("/properties/{s}"))
            .collect();
        let leaf = schema
            .pointer(&pointer)
            .unwrap_or_else(|| panic!("{} is not in the schema", var.key));
        let description = leaf["description"].as_str().unwrap_or_default();
        assert!(
            description.contains(&var.env),
            "{}: the description does not name {}",
            var.key,
            var.env
        );
        assert!(
            description.contains(&var.default.describe()),
            "{}: the description does not give the default",
            var.key
        );
        assert!(
            description.contains(var.editions[0].as_str()),
            "{}: the description does not give the editions",
            var.key
        );
        // Every table on the way is closed.
        let mut table = String::new();
        for segment in var
            .key
            .split('.')
            .collect::<Vec<_>>()
            .split_last()
            .expect("a key has a segment")
            .1
        {
            table.push_str(&format!("/properties/{segment}"));
            assert_eq!(
                schema.pointer(&format!("{table}/additionalProperties")),
                Some(&serde_json::json!(false)),
                "{table}"
            );
        }
    }
    assert_eq!(schema["additionalProperties"], false);
}

#[test]
fn schema_passes_the_metaschema() {
    let Some(exe) = tool("check-jsonschema") else {
        return;
    };
    let output = Command::new(exe)
        .arg("--check-metaschema")
        .arg(schema_path())
        .output()
        .expect("check-jsonschema runs");
    assert!(
        output.status.success(),
        "{SCHEMA} is not a valid JSON Schema:\n{}",
        output_text(&output)
    );
}

#[test]
fn valid_profiles_pass_check_jsonschema() {
    let Some(exe) = tool("check-jsonschema") else {
        return;
    };
    for (profile, output) in run_all(&valid_profiles(), |p| check_jsonschema(&exe, p)) {
        assert!(
            output.status.success(),
            "check-jsonschema rejects {}:\n{}",
            name(&profile),
            output_text(&output)
        );
    }
}

#[test]
fn valid_profiles_pass_taplo() {
    let Some(exe) = tool("taplo") else { return };
    for (profile, output) in run_all(&valid_profiles(), |p| taplo(&exe, p)) {
        assert!(
            output.status.success(),
            "taplo check rejects {}:\n{}",
            name(&profile),
            output_text(&output)
        );
    }
}

#[test]
fn valid_profiles_are_valid_for_svcgen() {
    for profile in valid_profiles() {
        let mut sources = svcgen::diag::source::Sources::new();
        let checked =
            svcgen::pipeline::check_profile(&profile, &mut sources).expect("readable profile");
        let errors: Vec<&String> = checked
            .diagnostics
            .items
            .iter()
            .filter(|d| d.is_error())
            .map(|d| &d.message)
            .collect();
        assert!(
            errors.is_empty(),
            "svcgen rejects {}: {errors:?}",
            name(&profile)
        );
    }
}

#[test]
fn there_are_enough_invalid_profiles() {
    let invalid = schema_invalid_profiles();
    assert!(
        invalid.len() >= MIN_SCHEMA_INVALID,
        "only {} profiles of tests/invalid have a `# schema-expect:` line",
        invalid.len()
    );
}

#[test]
fn invalid_profiles_are_rejected_by_check_jsonschema_for_their_key() {
    let Some(exe) = tool("check-jsonschema") else {
        return;
    };
    for (profile, output) in run_all(&schema_invalid_paths(), |p| check_jsonschema(&exe, p)) {
        let text = output_text(&output);
        let key = expected_key(&profile);
        assert!(
            !output.status.success(),
            "check-jsonschema accepts {}",
            name(&profile)
        );
        // An error at the key (`$.a.b: ...`), or at its table naming it (`$.a: 'b' was unexpected`).
        let (parent, last) = key
            .rsplit_once('.')
            .map_or(("$".to_string(), key.as_str()), |(p, l)| {
                (format!("$.{p}"), l)
            });
        let at_key = text.contains(&format!("::$.{key}"));
        let at_table =
            text.contains(&format!("::{parent}:")) && text.contains(&format!("'{last}'"));
        assert!(
            at_key || at_table,
            "check-jsonschema rejects {} but not for `{key}`:\n{text}",
            name(&profile)
        );
    }
}

#[test]
fn invalid_profiles_are_rejected_by_taplo_for_their_key() {
    let Some(exe) = tool("taplo") else { return };
    for (profile, output) in run_all(&schema_invalid_paths(), |p| taplo(&exe, p)) {
        let text = output_text(&output);
        let key = expected_key(&profile);
        assert!(
            !output.status.success(),
            "taplo check accepts {}:\n{text}",
            name(&profile)
        );
        assert!(
            taplo_errors(&text)
                .iter()
                .any(|e| e.about(&profile, last_segment(&key))),
            "taplo rejects {} but not for `{key}`:\n{text}",
            name(&profile)
        );
    }
}

#[test]
fn invalid_profiles_are_invalid_for_svcgen_too() {
    // The schema must never be stricter than `svcgen validate`.
    for profile in schema_invalid_paths() {
        let mut sources = svcgen::diag::source::Sources::new();
        let checked =
            svcgen::pipeline::check_profile(&profile, &mut sources).expect("readable profile");
        assert!(
            checked.diagnostics.has_errors(),
            "svcgen accepts {}, which the schema rejects",
            name(&profile)
        );
    }
}
