//! The CI formats of diagnostics: `--format sarif` (SARIF 2.1.0, for code scanning) and
//! `--format gitlab` (GitLab's code-quality report), from `validate`, `lint`, `render --check`
//! and `docs --check`.
//!
//! SARIF is checked against the OASIS SARIF 2.1.0 JSON schema vendored in `tests/sarif/` (with
//! its licence; where it came from: `tests/sarif/README.md`) by Python's `jsonschema`
//! (`Draft7Validator`, the schema's draft), and against `--format json` of the same run: one
//! result per diagnostic, at the same place, with the same exit code.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{repo, svcgen};

const FORMATS: [&str; 4] = ["human", "json", "sarif", "gitlab"];

/// Runs svcgen in `dir` with `args`; returns (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = svcgen().current_dir(dir).args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The JSON document a run printed on stdout.
fn stdout_json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let (code, stdout, stderr) = run_in(dir, args);
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("svcgen {args:?}: stdout is not JSON ({e}):\n{stdout}\n{stderr}")
    });
    (code, json)
}

/// Validates SARIF files with the vendored schema; `Err` lists every schema error.
fn schema_errors(python: &Path, files: &[PathBuf]) -> Result<(), String> {
    const SCRIPT: &str = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft7Validator(schema)
errors = []
for path in sys.argv[2:]:
    for e in validator.iter_errors(json.load(open(path))):
        errors.append(f"{path}: /{'/'.join(map(str, e.absolute_path))}: {e.message}")
print("\n".join(errors))
sys.exit(1 if errors else 0)
"#;
    let output = Command::new(python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(repo().join("tests/sarif/sarif-schema-2.1.0.json"))
        .args(files)
        .output()
        .unwrap();
    if output.status.success() {
        Ok(())
    } else {
        Err(support::printed(&output))
    }
}

/// A folder laid out as a repository (`.git`), with profiles in `profiles/`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("profiles")).unwrap();
    std::fs::create_dir_all(dir.path().join("deploy")).unwrap();
    // Two errors and a warning.
    let bad = "edition = \"A\"\n[config]\nadapter = \"etcd\"\nbogus = 1\n[env]\nMY_VAR = \"x\"\n";
    std::fs::write(dir.path().join("profiles/bad.toml"), bad).unwrap();
    // A valid profile with one warning (a variable outside the spec), for --deny-warnings.
    let example = std::fs::read_to_string(repo().join("examples/b-consul-vault-sql.toml")).unwrap();
    std::fs::write(
        dir.path().join("profiles/good.toml"),
        format!("{example}\n[env]\nTZ = \"Europe/Berlin\"\n"),
    )
    .unwrap();
    // The host files the example names, beside it as in examples/: a profile whose files are
    // missing is not good (its kustomize base cannot copy them).
    support::copy_tree(
        &repo().join("examples/files"),
        &dir.path().join("profiles/files"),
    );
    dir
}

/// Every kind of run that prints SARIF, in the repository of [`repository`], run from `deploy/`:
/// (arguments, SARIF).
fn sarif_runs(root: &Path) -> Vec<(Vec<String>, Value)> {
    let deploy = root.join("deploy");
    std::fs::write(deploy.join(".env"), "stale\n").unwrap();
    std::fs::write(deploy.join("reference.md"), "stale\n").unwrap();
    let lint_fixture = repo().join("tests/lint/booleans.yaml");
    let runs: Vec<Vec<String>> = [
        vec!["validate", "../profiles/bad.toml"],
        vec!["validate", "../profiles"],
        vec!["validate", "../profiles/good.toml", "--deny-warnings"],
        vec!["lint", lint_fixture.to_str().unwrap()],
        vec!["render", "../profiles/good.toml", "-o", ".env", "--check"],
        vec!["docs", "-o", "reference.md", "--check"],
    ]
    .into_iter()
    .map(|a| a.into_iter().map(str::to_string).collect())
    .collect();
    runs.into_iter()
        .map(|mut args| {
            args.extend(["--format".to_string(), "sarif".to_string()]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let (_, sarif) = stdout_json(&deploy, &refs);
            (args, sarif)
        })
        .collect()
}

#[test]
fn sarif_of_every_command_is_valid_against_the_oasis_schema() {
    let Some(python) = support::python_with("jsonschema") else {
        return;
    };
    let root = repository();
    let out = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, (args, sarif)) in sarif_runs(root.path()).into_iter().enumerate() {
        assert!(
            !sarif["runs"][0]["results"].as_array().unwrap().is_empty(),
            "svcgen {args:?}: no result to check"
        );
        let file = out.path().join(format!("{i}.sarif"));
        std::fs::write(&file, serde_json::to_string(&sarif).unwrap()).unwrap();
        files.push(file);
    }
    if let Err(errors) = schema_errors(&python, &files) {
        panic!("SARIF refused by the OASIS schema:\n{errors}");
    }
}

#[test]
fn sarif_schema_check_refuses_a_broken_log() {
    let Some(python) = support::python_with("jsonschema") else {
        return;
    };
    let root = repository();
    let (_, mut sarif) = stdout_json(
        &root.path().join("deploy"),
        &["validate", "../profiles/bad.toml", "--format", "sarif"],
    );
    let result = &mut sarif["runs"][0]["results"][0];
    result["level"] = Value::from("fatal");
    result["locations"][0]["physicalLocation"]["region"]["startLine"] = Value::from(0);
    let file = root.path().join("broken.sarif");
    std::fs::write(&file, serde_json::to_string(&sarif).unwrap()).unwrap();
    let errors = schema_errors(&python, &[file]).expect_err("a broken log is refused");
    assert!(
        errors.contains("'fatal'") && errors.contains("startLine"),
        "{errors}"
    );
}

#[test]
fn sarif_has_one_result_per_json_diagnostic_at_its_place_with_its_rule() {
    let root = repository();
    let deploy = root.path().join("deploy");
    for profile in ["../profiles/bad.toml", "../profiles"] {
        let (_, json) = stdout_json(&deploy, &["validate", profile, "--format", "json"]);
        let (_, sarif) = stdout_json(&deploy, &["validate", profile, "--format", "sarif"]);
        let run = &sarif["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let results = run["results"].as_array().unwrap();
        let items = json.as_array().unwrap();
        assert_eq!(results.len(), items.len(), "{profile}: {sarif:#}");
        assert!(items.len() >= 2, "{profile}: {json:#}");
        for (item, result) in items.iter().zip(results) {
            assert_eq!(result["ruleId"], item["code"]);
            let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], item["code"]);
            assert_eq!(rule["name"], item["name"]);
            assert_eq!(result["level"], item["severity"]);
            assert!(
                result["message"]["text"]
                    .as_str()
                    .unwrap()
                    .starts_with(item["message"].as_str().unwrap())
            );
            let location = &result["locations"][0]["physicalLocation"];
            let file = item["file"].as_str().unwrap().trim_start_matches("../");
            assert_eq!(location["artifactLocation"]["uri"], file);
            assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
            let region = &location["region"];
            for (sarif_key, json_key) in [
                ("startLine", "line"),
                ("startColumn", "column"),
                ("endLine", "end_line"),
                ("endColumn", "end_column"),
            ] {
                assert_eq!(region[sarif_key], item[json_key], "{sarif_key}: {result:#}");
            }
        }
    }
}

#[test]
fn sarif_lists_every_rule_with_a_name_a_description_and_its_docs_anchor() {
    let root = repository();
    let (_, sarif) = stdout_json(
        &root.path().join("deploy"),
        &["validate", "../profiles/bad.toml", "--format", "sarif"],
    );
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let page = std::fs::read_to_string(repo().join("docs/diagnostics.md")).unwrap();
    assert!(rules.len() >= 50, "{}", rules.len());
    for rule in rules {
        let (id, name) = (rule["id"].as_str().unwrap(), rule["name"].as_str().unwrap());
        let description = rule["shortDescription"]["text"].as_str().unwrap();
        assert!(description.len() > 10, "{rule}");
        let anchor = format!("#{}-{}", id.to_lowercase(), name);
        let uri = rule["helpUri"].as_str().unwrap();
        assert!(
            uri.starts_with("https://") && uri.ends_with(&format!("docs/diagnostics.md{anchor}")),
            "{uri}"
        );
        assert!(
            page.contains(&format!("\n## {id} {name}\n")),
            "docs/diagnostics.md lacks {id} {name}"
        );
        let level = rule["defaultConfiguration"]["level"].as_str().unwrap();
        let expected = match id.as_bytes()[0] {
            b'W' => "warning",
            b'N' => "note",
            _ => "error",
        };
        assert_eq!(level, expected, "{id}");
    }
}

/// docs/diagnostics.md is the code table for people (`svcgen::diag::rules::page`, the rules of
/// SARIF: the test above checks each rule has its heading): checked in, and fresh
/// (`UPDATE_DOCS=1 cargo test --test integration ci_formats::` writes it again).
#[test]
fn diagnostics_page_lists_every_rule_of_sarif() {
    let page = svcgen::diag::rules::page();
    let path = repo().join("docs/diagnostics.md");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &page).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == page,
        "docs/diagnostics.md is stale: UPDATE_DOCS=1 cargo test --test integration ci_formats::"
    );
}

#[test]
fn sarif_and_gitlab_exit_as_json_does() {
    let root = repository();
    let deploy = root.path().join("deploy");
    std::fs::write(deploy.join(".env"), "stale\n").unwrap();
    let cases: [(&[&str], i32); 6] = [
        (&["validate", "../profiles/good.toml"], 0),
        (&["validate", "../profiles/good.toml", "--deny-warnings"], 1),
        (&["validate", "../profiles/bad.toml"], 1),
        (&["validate", "../profiles/missing.toml"], 2),
        (
            &["render", "../profiles/good.toml", "-o", ".env", "--check"],
            1,
        ),
        (&["docs", "-o", "nothing.md", "--check"], 1),
    ];
    for (args, expected) in cases {
        for format in FORMATS {
            let mut all = args.to_vec();
            all.extend(["--format", format]);
            let (code, stdout, stderr) = run_in(&deploy, &all);
            assert_eq!(code, expected, "svcgen {all:?}:\n{stdout}\n{stderr}");
        }
    }
}

#[test]
fn sarif_places_files_relative_to_the_repository_root_and_is_the_same_wherever_it_is_checked_out() {
    let args = ["validate", "../profiles", "--format", "sarif"];
    let one = repository();
    let two = repository();
    let nested = two.path().join("deploy/inner");
    std::fs::create_dir_all(&nested).unwrap();
    let (_, first, _) = run_in(&one.path().join("deploy"), &args);
    let (_, second, _) = run_in(&two.path().join("deploy"), &args);
    assert_eq!(
        first, second,
        "the same repository elsewhere gives another SARIF"
    );
    let sarif: Value = serde_json::from_str(&first).unwrap();
    let mut prints = fingerprints(&sarif);
    let count = prints.len();
    prints.sort();
    prints.dedup();
    assert_eq!(prints.len(), count, "fingerprints are unique");
    // Named from another folder of the repository, the file is still `profiles/bad.toml`.
    let (_, third, _) = run_in(
        &nested,
        &["validate", "../../profiles", "--format", "sarif"],
    );
    assert_eq!(first, third);
    // A line added above the problems moves their regions, not their fingerprints.
    let bad = one.path().join("profiles/bad.toml");
    let text = std::fs::read_to_string(&bad).unwrap();
    std::fs::write(&bad, format!("# a new first line\n{text}")).unwrap();
    let (_, moved) = stdout_json(&one.path().join("deploy"), &args);
    let moved_prints = fingerprints(&moved);
    let mut sorted = moved_prints.clone();
    sorted.sort();
    assert_eq!(sorted, prints);
    assert_ne!(moved, sarif);
}

#[test]
fn sarif_and_gitlab_report_stale_outputs_of_render_and_docs_check() {
    let root = repository();
    let deploy = root.path().join("deploy");
    std::fs::write(deploy.join(".env"), "stale\n").unwrap();
    std::fs::write(deploy.join("reference.md"), "stale\n").unwrap();
    for args in [
        &["render", "../profiles/good.toml", "-o", ".env", "--check"][..],
        &["docs", "-o", "reference.md", "--check"][..],
    ] {
        let file = if args[0] == "docs" {
            "reference.md"
        } else {
            ".env"
        };
        let mut sarif_args = args.to_vec();
        sarif_args.extend(["--format", "sarif"]);
        let (code, sarif) = stdout_json(&deploy, &sarif_args);
        assert_eq!(code, 1);
        let results: Vec<&Value> = sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["ruleId"] == "E0250")
            .collect();
        assert_eq!(results.len(), 1, "{sarif:#}");
        let location = &results[0]["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"]["uri"],
            format!("deploy/{file}")
        );
        assert_eq!(location["region"]["startLine"], 1);
        let mut gitlab_args = args.to_vec();
        gitlab_args.extend(["--format", "gitlab"]);
        let (code, gitlab) = stdout_json(&deploy, &gitlab_args);
        assert_eq!(code, 1);
        let stale: Vec<&Value> = gitlab
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["check_name"] == "E0250")
            .collect();
        assert_eq!(stale.len(), 1, "{gitlab:#}");
        assert_eq!(stale[0]["location"]["path"], format!("deploy/{file}"));
    }
    // Fresh outputs: no result, exit 0.
    run_in(&deploy, &["render", "../profiles/good.toml", "-o", ".env"]);
    let (code, sarif) = stdout_json(
        &deploy,
        &[
            "render",
            "../profiles/good.toml",
            "-o",
            ".env",
            "--check",
            "--format",
            "sarif",
        ],
    );
    assert_eq!(code, 0);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().all(|r| r["ruleId"] != "E0250"), "{sarif:#}");
}

#[test]
fn gitlab_code_quality_has_every_field_the_widget_reads() {
    let root = repository();
    let deploy = root.path().join("deploy");
    let (_, json) = stdout_json(&deploy, &["validate", "../profiles", "--format", "json"]);
    let (code, gitlab) = stdout_json(&deploy, &["validate", "../profiles", "--format", "gitlab"]);
    assert_eq!(code, 1);
    let issues = gitlab.as_array().unwrap();
    let items = json.as_array().unwrap();
    assert_eq!(issues.len(), items.len());
    let mut fingerprints = std::collections::HashSet::new();
    for (issue, item) in issues.iter().zip(items) {
        let description = issue["description"].as_str().unwrap();
        assert!(
            description.contains(item["message"].as_str().unwrap()),
            "{issue}"
        );
        assert_eq!(issue["check_name"], item["code"]);
        let severity = issue["severity"].as_str().unwrap();
        let expected = if item["severity"] == "error" {
            "critical"
        } else {
            "minor"
        };
        assert_eq!(severity, expected);
        assert!(fingerprints.insert(issue["fingerprint"].as_str().unwrap().to_string()));
        let file = item["file"].as_str().unwrap().trim_start_matches("../");
        assert_eq!(issue["location"]["path"], file);
        assert_eq!(issue["location"]["lines"]["begin"], item["line"]);
    }
}

#[test]
fn sarif_and_gitlab_mask_secrets_as_json_does() {
    let secret = "Hunter2-sarif-Secret";
    let root = repository();
    let text = format!(
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [google]\nproject_id = \"p\"\nsecret_manager_passphrase = \"{secret}\"\nbogus = \"{secret}\"\n"
    );
    std::fs::write(root.path().join("profiles/secret.toml"), text).unwrap();
    for format in FORMATS {
        let (code, stdout, stderr) = run_in(
            &root.path().join("deploy"),
            &["validate", "../profiles/secret.toml", "--format", format],
        );
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(
            stdout.contains("bogus") || stderr.contains("bogus"),
            "{format}: {stdout}{stderr}"
        );
        assert!(
            !stdout.contains(secret) && !stderr.contains(secret),
            "{format}:\n{stdout}\n{stderr}"
        );
    }
}

#[test]
fn sarif_of_stdin_and_set_has_no_file_location() {
    let root = repository();
    let output = svcgen()
        .current_dir(root.path())
        .args(["validate", "-", "--set", "bogus=1", "--format", "sarif"])
        .write_stdin("edition = \"B\"\nnope = 1\n")
        .output()
        .unwrap();
    let sarif: Value = serde_json::from_slice(&output.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(results.len() >= 2, "{sarif:#}");
    for result in results {
        assert!(result.get("locations").is_none(), "{result}");
    }
}

#[test]
fn sarif_notifies_problems_outside_the_inputs_and_marks_the_run_failed() {
    let root = repository();
    let (code, sarif) = stdout_json(
        &root.path().join("deploy"),
        &["validate", "../profiles/missing.toml", "--format", "sarif"],
    );
    assert_eq!(code, 2);
    let invocation = &sarif["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false);
    let note = invocation["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(note.contains("missing.toml"), "{note}");
}

#[test]
fn diff_refuses_the_ci_formats() {
    let root = repository();
    for format in ["sarif", "gitlab"] {
        let (code, _, stderr) = run_in(
            &root.path().join("profiles"),
            &["diff", "good.toml", "good.toml", "--format", format],
        );
        assert_eq!(code, 2);
        assert!(
            stderr.contains("--format human or --format json"),
            "{stderr}"
        );
    }
}

/// The svcgen fingerprint of every result of a SARIF log, in its order.
fn fingerprints(sarif: &Value) -> Vec<&str> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["svcgenFingerprint/v1"]
                .as_str()
                .unwrap()
        })
        .collect()
}
