//! The CI configurations svcgen ships: `action.yml` (a composite GitHub Action),
//! `examples/ci/github-workflow.yml` (a workflow using it) and `examples/ci/gitlab-ci.yml` (a
//! GitLab job publishing the code-quality report). Each is validated by check-jsonschema with
//! its consumer's schema (the vendor schemas it ships, offline), a broken copy of each is
//! refused, and their shell scripts are run against a repository laid out as they expect,
//! with the svcgen under test on PATH.

use crate::support;

use serde_json::Value;
use std::path::Path;
use std::process::Command;
use support::repo;

/// (file, check-jsonschema's built-in schema, an edit that breaks it for that schema).
const CONFIGS: [(&str, &str, (&str, &str)); 3] = [
    (
        "action.yml",
        "vendor.github-actions",
        ("      shell: bash", "      shel: bash"),
    ),
    (
        "examples/ci/github-workflow.yml",
        "vendor.github-workflows",
        ("runs-on:", "run-on:"),
    ),
    (
        "examples/ci/gitlab-ci.yml",
        "vendor.gitlab-ci",
        ("  script:", "  scripts:"),
    ),
];

fn check_jsonschema(tool: &Path, schema: &str, file: &Path) -> (bool, String) {
    let output = Command::new(tool)
        .args(["--builtin-schema", schema])
        .arg(file)
        .output()
        .unwrap();
    let text = support::printed(&output);
    (output.status.success(), text)
}

#[test]
fn ci_configs_are_valid_for_github_actions_workflows_and_gitlab_ci() {
    let Some(tool) = support::tool("check-jsonschema") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (file, schema, (from, to)) in CONFIGS {
        let path = repo().join(file);
        let (ok, text) = check_jsonschema(&tool, schema, &path);
        assert!(ok, "{file} against {schema}: {text}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no `{from}`");
        let broken = dir.path().join(Path::new(file).file_name().unwrap());
        std::fs::write(&broken, text.replacen(from, to, 1)).unwrap();
        let (ok, text) = check_jsonschema(&tool, schema, &broken);
        assert!(!ok, "{file} with `{to}` passes {schema}: {text}");
    }
}

fn yaml(file: &str) -> Value {
    let text = std::fs::read_to_string(repo().join(file)).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// PATH with the svcgen under test first.
fn path_with_svcgen() -> std::ffi::OsString {
    let svcgen_dir = Path::new(env!("CARGO_BIN_EXE_svcgen")).parent().unwrap();
    std::env::join_paths(
        std::iter::once(svcgen_dir.to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap()
}

/// A checkout as the examples expect: `deploy/profiles/` with one profile, rendered into
/// `deploy/out/`.
fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let profiles = dir.path().join("deploy/profiles");
    std::fs::create_dir_all(&profiles).unwrap();
    // A profile a real deployment can start from: its adapters read no credential file and its
    // database is a service of its own (a Kubernetes one: the compose file cannot start its
    // kubernetes adapters, acknowledged, W0341).
    std::fs::write(
        profiles.join("prod.toml"),
        "edition = \"B\"\nallow = [\"kube-api-config\"]\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n",
    )
    .unwrap();
    let rendered = support::svcgen()
        .current_dir(dir.path())
        .args(["render", "deploy/profiles", "--out-dir", "deploy/out", "-q"])
        .output()
        .unwrap();
    assert!(rendered.status.success(), "{rendered:?}");
    dir
}

/// Runs the action's `check` step as the runner would: its script with its environment
/// (inputs given as the step maps them), `GITHUB_OUTPUT` a file. Returns (the outputs written,
/// the SARIF report).
fn run_check_step(dir: &Path, out_dir: &str) -> (String, Value) {
    let (outputs, sarif) = run_check_step_on(dir, "deploy/profiles\n", out_dir);
    let sarif = sarif.expect("a SARIF report");
    let sarif = serde_json::from_str(&sarif).unwrap_or_else(|e| panic!("{e}: {sarif}"));
    (outputs, sarif)
}

/// [`run_check_step`] with these profiles; the report is `None` when no file is left.
fn run_check_step_on(dir: &Path, profiles: &str, out_dir: &str) -> (String, Option<String>) {
    let action = yaml("action.yml");
    let steps = action["runs"]["steps"].as_array().unwrap();
    let step = steps
        .iter()
        .find(|s| s["id"] == "check")
        .expect("a step `check`");
    let env = step["env"].as_object().unwrap();
    let inputs = [
        ("profiles", profiles),
        ("out-dir", out_dir),
        ("deny-warnings", "true"),
        ("sarif-file", "report.sarif"),
    ];
    let github_output = dir.join("github-output");
    let _ = std::fs::remove_file(&github_output);
    let mut command = Command::new("bash");
    command
        .args(["-e", "-c", step["run"].as_str().unwrap()])
        .current_dir(dir)
        .env("PATH", path_with_svcgen())
        .env("GITHUB_OUTPUT", &github_output);
    for (name, value) in env {
        let expression = value.as_str().unwrap();
        let (_, value) = inputs
            .iter()
            .find(|(input, _)| expression == format!("${{{{ inputs.{input} }}}}"))
            .unwrap_or_else(|| panic!("{name}: {expression} is not an input"));
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "the step stops the job itself: {output:?}"
    );
    let sarif = std::fs::read_to_string(dir.join("report.sarif")).ok();
    (std::fs::read_to_string(github_output).unwrap(), sarif)
}

#[test]
fn action_check_step_leaves_no_empty_report_after_a_usage_error() {
    let dir = checkout();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let (outputs, sarif) = run_check_step_on(dir.path(), "empty\n", "");
    assert_eq!(outputs, "exit-code=2\n");
    assert_eq!(sarif, None);
}

fn rule_ids(sarif: &Value) -> Vec<String> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn action_check_step_writes_sarif_and_its_exit_code() {
    let dir = checkout();
    let (outputs, sarif) = run_check_step(dir.path(), "deploy/out");
    assert_eq!(outputs, "exit-code=0\n");
    assert_eq!(rule_ids(&sarif), Vec::<String>::new());
    std::fs::write(dir.path().join("deploy/out/prod/.env"), "stale\n").unwrap();
    let (outputs, sarif) = run_check_step(dir.path(), "deploy/out");
    assert_eq!(outputs, "exit-code=1\n");
    assert_eq!(rule_ids(&sarif), ["E0250"]);
    // Without out-dir, validate: the stale file is not looked at, a bad profile is.
    std::fs::write(
        dir.path().join("deploy/profiles/bad.toml"),
        "edition = \"C\"\n",
    )
    .unwrap();
    let (outputs, sarif) = run_check_step(dir.path(), "");
    assert_eq!(outputs, "exit-code=1\n");
    assert_eq!(rule_ids(&sarif), ["E0200"]);
}

#[test]
fn gitlab_job_script_writes_the_code_quality_report() {
    let job = yaml("examples/ci/gitlab-ci.yml")["svcgen"].clone();
    let report = job["artifacts"]["reports"]["codequality"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(job["artifacts"]["when"], "always");
    let script: Vec<String> = job["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    let run = |dir: &Path| -> (bool, Value) {
        let status = Command::new("bash")
            .args(["-e", "-c", &script.join("\n")])
            .current_dir(dir)
            .env("PATH", path_with_svcgen())
            .status()
            .unwrap();
        let text = std::fs::read_to_string(dir.join(&report)).unwrap();
        (status.success(), serde_json::from_str(&text).unwrap())
    };
    let dir = checkout();
    let (ok, issues) = run(dir.path());
    assert!(ok, "{issues}");
    assert_eq!(issues, Value::Array(Vec::new()));
    std::fs::write(dir.path().join("deploy/out/prod/.env"), "stale\n").unwrap();
    let (ok, issues) = run(dir.path());
    assert!(!ok);
    assert_eq!(issues[0]["check_name"], "E0250");
    assert_eq!(issues[0]["location"]["path"], "deploy/out/prod/.env");
}

/// The workflow example uses the action with inputs the action has.
#[test]
fn workflow_example_gives_the_action_only_its_inputs() {
    let action = yaml("action.yml");
    let workflow = yaml("examples/ci/github-workflow.yml");
    let inputs = action["inputs"].as_object().unwrap();
    let steps = workflow["jobs"]["svcgen"]["steps"].as_array().unwrap();
    let uses: Vec<&Value> = steps
        .iter()
        .filter(|s| s["uses"].as_str().is_some_and(|u| u.contains("/svcgen@")))
        .collect();
    assert_eq!(uses.len(), 1, "{workflow}");
    for (name, _) in uses[0]["with"].as_object().unwrap() {
        assert!(
            inputs.contains_key(name),
            "the action has no input `{name}`"
        );
    }
    for (name, input) in inputs {
        if input["required"] == true {
            assert!(uses[0]["with"].get(name).is_some(), "`{name}` is required");
        }
    }
    let permissions = &workflow["permissions"];
    assert_eq!(permissions["security-events"], "write");
}

/// Every action of another repository that the shipped CI files run is pinned by its full
/// commit SHA (a tag can be moved), with the tag it had in a comment; the placeholder of the
/// workflow example (`OWNER/svcgen`, the user's own pin) is the one exception.
#[test]
fn ci_files_pin_third_party_actions_by_commit() {
    let mut pinned = 0;
    for file in ["action.yml", "examples/ci/github-workflow.yml"] {
        let text = std::fs::read_to_string(crate::support::repo().join(file)).unwrap();
        for line in text.lines() {
            let Some(rest) = line
                .trim_start()
                .trim_start_matches("- ")
                .strip_prefix("uses:")
            else {
                continue;
            };
            let (action, comment) = rest.split_once('#').unwrap_or((rest, ""));
            let action = action.trim();
            if action.starts_with("./") || action.starts_with("OWNER/svcgen@") {
                continue;
            }
            let (_, reference) = action.split_once('@').expect("an action with a reference");
            assert!(
                reference.len() == 40 && reference.bytes().all(|b| b.is_ascii_hexdigit()),
                "{file}: `{action}` is not pinned by a full commit SHA"
            );
            assert!(
                comment.trim().starts_with('v'),
                "{file}: `{action}` names no tag in a comment"
            );
            pinned += 1;
        }
    }
    assert!(
        pinned >= 2,
        "the upload-sarif and checkout steps are checked"
    );
}
