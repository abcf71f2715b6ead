//! The command-line conventions users expect: `-` for standard input and output, `validate`
//! failing wherever `render` would, usage errors for impossible combinations, `--check` as JSON,
//! near-only suggestions, `--color`, `-q` on every command, one man page per subcommand.

mod support;

use predicates::prelude::*;
use std::path::{Path, PathBuf};
use support::svcgen;

fn example() -> PathBuf {
    support::repo().join("examples/b-consul-vault-sql.toml")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const INVALID: &str = "edition = \"B\"\n[config]\nadapter = \"consol\"\n";

/// `svcgen validate ARGS -` with the invalid profile on stdin: exit 1 with its error at `<stdin>`.
fn validate_invalid_stdin(args: &[&str]) {
    svcgen()
        .arg("validate")
        .args(args)
        .arg("-")
        .write_stdin(INVALID)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("E0204").and(predicate::str::contains("--> <stdin>:3:11")),
        );
}

#[test]
fn a_dash_reads_the_profile_from_stdin_and_names_it_stdin() {
    let text = std::fs::read_to_string(example()).unwrap();
    let from_file = svcgen()
        .args(["render", "-t", "dotenv"])
        .arg(example())
        .output()
        .unwrap();
    let from_stdin = svcgen()
        .args(["render", "-", "-t", "dotenv"])
        .current_dir(support::repo().join("examples"))
        .write_stdin(text.clone())
        .output()
        .unwrap();
    assert!(from_stdin.status.success());
    assert_eq!(from_stdin.stdout, from_file.stdout);
    svcgen()
        .args(["validate", "-"])
        .current_dir(support::repo().join("examples"))
        .write_stdin(text)
        .assert()
        .success()
        .stderr(predicate::str::contains("<stdin>: valid"));
    validate_invalid_stdin(&[]);
}

#[test]
fn stdin_is_read_once_and_is_not_part_of_a_batch() {
    let dir = tempfile::tempdir().unwrap();
    svcgen()
        .args(["render", "-", "-f", "-"])
        .write_stdin("edition = \"B\"\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only once"));
    svcgen()
        .args(["render", "-"])
        .arg(example())
        .arg("--out-dir")
        .arg(dir.path())
        .write_stdin("edition = \"B\"\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not part of a batch"));
}

#[test]
fn dash_o_dash_is_stdout_for_render_and_generators() {
    let plain = svcgen()
        .args(["render", "-t", "compose"])
        .arg(example())
        .output()
        .unwrap();
    svcgen()
        .args(["render", "-t", "compose", "-o", "-"])
        .arg(example())
        .assert()
        .success()
        .stdout(String::from_utf8(plain.stdout).unwrap());
    let dir = tempfile::tempdir().unwrap();
    for command in [&["schema"][..], &["docs"], &["init"]] {
        svcgen()
            .args(command)
            .args(["-o", "-"])
            .current_dir(dir.path())
            .assert()
            .success()
            .stdout(predicate::str::is_empty().not());
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no file named -"
    );
    svcgen()
        .args(["render", "-o", "-", "--check"])
        .arg(example())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--check compares files on disk"));
}

#[test]
fn validate_fails_wherever_render_fails() {
    let dir = tempfile::tempdir().unwrap();
    // A secret that cannot be read, asked for: render and validate both exit 1 at its position.
    let profile = write(
        dir.path(),
        "p.toml",
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [google]\nproject_id = \"p\"\nsecret_manager_passphrase = { file = \"missing.txt\" }\n",
    );
    for command in ["render", "validate"] {
        svcgen()
            .arg(command)
            .arg(&profile)
            .arg("--include-secrets")
            .assert()
            .code(1)
            .stderr(predicate::str::contains("E0215").and(predicate::str::contains("p.toml:8:")));
    }
    // A template that fails while rendering fails validate too (with the same --templates).
    let templates = dir.path().join("templates");
    std::fs::create_dir(&templates).unwrap();
    write(&templates, "k8s.yaml.j2", "{{ no_such_variable }}\n");
    for command in ["render", "validate"] {
        let mut run = svcgen();
        run.arg(command)
            .arg(example())
            .arg("--templates")
            .arg(&templates);
        if command == "render" {
            run.arg("--out-dir").arg(dir.path().join("out"));
        }
        run.assert()
            .code(1)
            .stderr(predicate::str::contains("k8s.yaml.j2"));
    }
    assert!(!dir.path().join("out").exists(), "nothing is written");
}

#[test]
fn validate_checks_every_deployable_target_of_every_example() {
    for example in support::examples() {
        svcgen().arg("validate").arg(&example).assert().success();
        svcgen()
            .arg("render")
            .arg(&example)
            .arg("--out-dir")
            .arg(tempfile::tempdir().unwrap().path().join("o"))
            .assert()
            .success();
    }
}

#[test]
fn lint_refuses_a_profile_and_points_to_validate() {
    svcgen()
        .arg("lint")
        .arg(example())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("svcgen validate"));
}

#[test]
fn a_missing_templates_folder_is_a_usage_error() {
    for command in [&["render"][..], &["validate"]] {
        svcgen()
            .args(command)
            .arg(example())
            .args(["--templates", "/nonexistent/templates"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("/nonexistent/templates"));
    }
    svcgen()
        .args(["docs", "--templates", "/nonexistent/templates"])
        .assert()
        .code(2);
}

#[test]
fn out_dir_with_targets_writes_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    svcgen()
        .arg("render")
        .arg(example())
        .args(["-t", "compose,k8s", "--out-dir"])
        .arg(&out)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["docker-compose.yml", "k8s.yaml"]);
    svcgen()
        .arg("render")
        .arg(example())
        .args(["-t", "compose", "-t", "k8s"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out-dir"));
}

#[test]
fn check_with_json_reports_the_stale_files_and_their_diff_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    let env = out.join(".env");
    let text = std::fs::read_to_string(&env).unwrap();
    std::fs::write(&env, text.replace("=pgsql", "=mysql")).unwrap();
    let run = svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(&out)
        .args(["--check", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON on stdout");
    let stale = report["stale"].as_array().unwrap();
    assert_eq!(stale.len(), 1, "{report}");
    assert_eq!(stale[0]["file"], env.display().to_string());
    let diff = stale[0]["diff"].as_str().unwrap();
    assert!(diff.contains("-CN_SQL_DB_DIALECT=mysql") && diff.contains("+CN_SQL_DB_DIALECT=pgsql"));
    std::fs::write(&env, text).unwrap();
    let run = svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(&out)
        .args(["--check", "--format", "json"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(report, serde_json::json!({ "stale": [] }));
}

#[test]
fn a_target_tip_only_names_a_close_target() {
    svcgen()
        .arg("render")
        .arg(example())
        .args(["-t", "k8senv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean 'k8s-env'"));
    for far in ["docker", "helm", "yaml"] {
        svcgen()
            .arg("render")
            .arg(example())
            .args(["-t", far])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("possible values"))
            .stderr(predicate::str::contains("tip").not());
    }
}

#[test]
fn color_follows_the_flag_no_color_and_clicolor_force() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = svcgen();
        command.arg("validate").args(["-"]).args(args);
        command.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            command.env(k, v);
        }
        let out = command.write_stdin(INVALID).output().unwrap();
        String::from_utf8(out.stderr).unwrap().contains('\u{1b}')
    };
    assert!(!run(&[], &[]), "not a terminal: no color");
    assert!(run(&["--color", "always"], &[]));
    assert!(
        run(&["--color", "always"], &[("NO_COLOR", "1")]),
        "the flag wins"
    );
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!run(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!run(&[], &[("CLICOLOR_FORCE", "0")]));
    assert!(!run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
}

#[test]
fn quiet_is_accepted_by_every_command_and_leaves_only_errors() {
    let dir = tempfile::tempdir().unwrap();
    let commands: Vec<Vec<String>> = vec![
        vec!["validate".into(), example().display().to_string()],
        vec!["render".into(), example().display().to_string()],
        vec!["explain".into(), "CN_SQL_DB_DIALECT".into()],
        vec![
            "diff".into(),
            example().display().to_string(),
            example().display().to_string(),
        ],
        vec![
            "lint".into(),
            support::repo()
                .join("tests/lint/hybrid.env")
                .display()
                .to_string(),
        ],
        vec!["docs".into()],
        vec!["init".into()],
        vec!["schema".into()],
        vec!["completions".into(), "bash".into()],
        vec!["man".into()],
        vec![
            "migrate".into(),
            "--to".into(),
            "B".into(),
            support::repo()
                .join("examples/a-ldap-plugins.toml")
                .display()
                .to_string(),
            "--ldap-to".into(),
            "sql".into(),
        ],
    ];
    let subcommands = support::svcgen().arg("--help").output().unwrap();
    let help = String::from_utf8(subcommands.stdout).unwrap();
    for command in &commands {
        assert!(
            help.contains(&format!("  {} ", command[0])),
            "{} is a command",
            command[0]
        );
        let out = svcgen()
            .args(command)
            .arg("-q")
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_ne!(out.status.code(), Some(2), "{command:?} -q: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("warning")
                && !stderr.contains("changed:")
                && !stderr.contains("valid,"),
            "{command:?} -q prints only errors: {stderr}"
        );
    }
    validate_invalid_stdin(&["-q"]);
}

#[test]
fn summaries_go_to_stderr_and_stdout_holds_only_the_output() {
    let out = svcgen().arg("validate").arg(example()).output().unwrap();
    assert!(
        out.stdout.is_empty(),
        "validate prints nothing on stdout for people"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("valid"));
    let dir = tempfile::tempdir().unwrap();
    let examples = support::repo().join("examples");
    let out = svcgen()
        .arg("render")
        .arg(&examples)
        .arg("--out-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rendered"));
}

#[test]
fn man_writes_a_page_per_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    svcgen()
        .args(["man", "--out-dir"])
        .arg(dir.path())
        .assert()
        .success();
    let top = std::fs::read_to_string(dir.path().join("svcgen.1")).unwrap();
    for sub in [
        "validate", "render", "explain", "diff", "import", "lint", "migrate", "docs",
    ] {
        let page = dir.path().join(format!("svcgen-{sub}.1"));
        let text =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(
            text.contains(&format!("svcgen\\-{sub} \\-")),
            "{sub}: NAME section"
        );
        assert!(
            top.contains(&format!("svcgen\\-{sub}(1)")),
            "the top page refers to {sub}"
        );
    }
    let render = std::fs::read_to_string(dir.path().join("svcgen-render.1")).unwrap();
    assert!(
        render.contains("\\-\\-out\\-dir"),
        "the render page has its options"
    );
}

/// `-` is standard input for `import`, `lint` and `migrate` too (named `<stdin>`), and
/// `migrate --in-place -` is refused: there is no file to rewrite.
#[test]
fn import_lint_and_migrate_read_standard_input() {
    svcgen()
        .args(["import", "-", "--edition", "B"])
        .write_stdin("CN_CONFIG_ADAPTER=kubernetes\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("adapter = \"kubernetes\""));
    svcgen()
        .args(["lint", "-"])
        .write_stdin("CN_CONFIG_ADAPTER=consl\n")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("<stdin>:1:19"));
    let a_profile =
        std::fs::read_to_string(support::repo().join("examples/a-couchbase-google.toml")).unwrap();
    svcgen()
        .args(["migrate", "--to", "B", "-"])
        .write_stdin(a_profile.clone())
        .assert()
        .success()
        .stdout(predicate::str::contains("edition = \"B\""));
    svcgen()
        .args(["migrate", "--to", "B", "--in-place", "-"])
        .write_stdin(a_profile)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not standard input"));
}
