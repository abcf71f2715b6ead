//! The command line as a user meets it: help, exit codes, files written or left alone, `--check`,
//! secrets, `explain`, templates, completions and the man page.

mod support;

use predicates::prelude::*;
use std::path::Path;
use support::scenario::{PROFILE, Test};
use support::svcgen;

const EXAMPLE: &str = "examples/b-consul-vault-sql.toml";

fn example() -> std::path::PathBuf {
    support::repo().join(EXAMPLE)
}

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const INVALID: &str = "edition = \"B\"\n[persistence]\ntype = \"postgres\"\n";

#[test]
fn every_command_has_help_with_examples() {
    for command in [
        "validate",
        "render",
        "explain",
        "schema",
        "completions",
        "man",
    ] {
        svcgen()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples:"));
    }
    svcgen()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Exit codes"));
}

#[test]
fn usage_errors_exit_2() {
    svcgen()
        .args(["render", EXAMPLE, "-t", "nope"])
        .assert()
        .code(2);
    svcgen().arg("frobnicate").assert().code(2);
}

#[test]
fn a_missing_profile_is_an_io_error_naming_the_path() {
    Test::new()
        .args(["validate", "does/not/exist.toml"])
        .code(2)
        .stderr_has("does/not/exist.toml")
        .run();
}

#[test]
fn render_o_writes_the_file_and_check_reports_drift_with_a_diff() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(".env");
    svcgen()
        .arg("render")
        .arg(example())
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("CN_SQL_DB_DIALECT=pgsql"));
    svcgen()
        .arg("render")
        .arg(example())
        .arg("-o")
        .arg(&out)
        .arg("--check")
        .assert()
        .success();
    std::fs::write(&out, written.replace("=pgsql", "=mysql")).unwrap();
    svcgen()
        .arg("render")
        .arg(example())
        .arg("-o")
        .arg(&out)
        .arg("--check")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("-CN_SQL_DB_DIALECT=mysql"))
        .stdout(predicate::str::contains("+CN_SQL_DB_DIALECT=pgsql"))
        .stderr(predicate::str::contains("stale"));
    assert!(
        std::fs::read_to_string(&out).unwrap().contains("=mysql\n"),
        "--check writes nothing"
    );
}

#[test]
fn out_dir_writes_every_target_and_check_covers_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // The example names host files: the base holds copies of the non-secret ones under files/.
    let mut expected: Vec<&str> = support::OUT_DIR_FILES.to_vec();
    expected.insert(3, "files");
    assert_eq!(names, expected);
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(&out)
        .arg("--check")
        .assert()
        .success();
    std::fs::remove_file(out.join("k8s.yaml")).unwrap();
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(&out)
        .arg("--check")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("+++ ").and(predicate::str::contains("k8s.yaml")));
}

#[test]
fn an_invalid_profile_writes_nothing_and_leaves_existing_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "bad.toml", INVALID);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let old = write(&out, ".env", "OLD=1\n");
    svcgen()
        .arg("render")
        .arg(&profile)
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "OLD=1\n");
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        1,
        "no other file, no temporary file"
    );
    svcgen()
        .arg("render")
        .arg(&profile)
        .arg("-o")
        .arg(&old)
        .assert()
        .code(1);
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "OLD=1\n");
}

#[test]
fn a_read_only_output_folder_is_an_io_error_with_no_partial_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // Others may pass through the folder: the render may run as an unprivileged user below.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.path().join("ro");
    std::fs::create_dir(&out).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o555)).unwrap();
    // The binary and profile are copied beside it, so `nobody` can reach them whatever the
    // permissions of the checkout.
    let binary = dir.path().join("svcgen");
    std::fs::copy(assert_cmd::cargo::cargo_bin("svcgen"), &binary).unwrap();
    let profile = dir.path().join("p.toml");
    // A profile without host files: copied alone, their absence would be the first error.
    std::fs::copy(
        support::repo().join("examples/b-google-spanner.toml"),
        &profile,
    )
    .unwrap();
    std::fs::set_permissions(&profile, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut command = std::process::Command::new(&binary);
    if std::fs::write(out.join("probe"), "x").is_ok() {
        // Root writes into read-only folders: run svcgen as `nobody`, for whom the mode holds.
        std::fs::remove_file(out.join("probe")).unwrap();
        let setpriv = std::path::Path::new("/usr/bin/setpriv");
        if !setpriv.exists() {
            assert!(
                !support::on_ci(),
                "CI runs as root and needs setpriv for this test"
            );
            support::record_skip("running as root without /usr/bin/setpriv");
            return;
        }
        command = std::process::Command::new(setpriv);
        command.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
        command.arg(&binary);
    }
    let output = command
        .arg("render")
        .arg(&profile)
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("ro"),
        "the error names the folder: {stderr}"
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
}

#[test]
fn secrets_are_withheld_unless_asked_and_read_from_their_reference() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(
        dir.path(),
        "p.toml",
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [google]\nproject_id = \"p\"\nsecret_manager_passphrase = { env = \"SVCGEN_TEST_PASSPHRASE\" }\n",
    );
    svcgen()
        .arg("render")
        .arg(&profile)
        .env("SVCGEN_TEST_PASSPHRASE", "hunter2")
        .assert()
        .success()
        .stdout(predicate::str::contains("hunter2").not())
        .stdout(predicate::str::contains("SVCGEN_TEST_PASSPHRASE"));
    svcgen()
        .arg("render")
        .arg(&profile)
        .arg("--include-secrets")
        .env("SVCGEN_TEST_PASSPHRASE", "hunter2")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "CN_GOOGLE_SECRET_MANAGER_PASSPHRASE=hunter2\n",
        ));
    svcgen()
        .arg("render")
        .arg(&profile)
        .arg("--include-secrets")
        .env_remove("SVCGEN_TEST_PASSPHRASE")
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("E0215")
                .and(predicate::str::contains("SVCGEN_TEST_PASSPHRASE")),
        );
    let file_profile = write(
        dir.path(),
        "f.toml",
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [google]\nproject_id = \"p\"\nsecret_manager_passphrase = { file = \"pass.txt\" }\n",
    );
    write(dir.path(), "pass.txt", "from-a-file\n");
    svcgen()
        .arg("render")
        .arg(&file_profile)
        .arg("--include-secrets")
        .assert()
        .success()
        .stdout(predicate::str::contains("=from-a-file\n"));
}

#[test]
fn json_diagnostics_deny_warnings_and_quiet() {
    let warn = "edition = \"B\"\n[env]\nTZ = \"UTC\"\n";
    let ran = Test::new()
        .profile(warn)
        .args(["validate", "--format", "json", PROFILE])
        .run();
    let json = ran.stdout_json();
    assert_eq!(json[0]["code"], "W0306");
    assert_eq!(json[0]["line"], 3);
    assert_eq!(json[0]["column"], 1);
    Test::new()
        .profile(warn)
        .args(["validate", "--deny-warnings", PROFILE])
        .code(1)
        .run();
    Test::new()
        .profile(warn)
        .args(["validate", "--quiet", PROFILE])
        .stderr_lacks("W0306")
        .run();
}

#[test]
fn human_diagnostics_have_no_color_off_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.toml", INVALID);
    svcgen()
        .arg("validate")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("\u{1b}[").not())
        .stderr(predicate::str::contains("bad.toml:3:8"))
        .stderr(predicate::str::contains(
            "allowed values: \"sql\", \"spanner\", \"couchbase\", \"hybrid\"",
        ));
}

#[test]
fn explain_finds_names_and_keys_and_suggests_near_ones() {
    svcgen()
        .args(["explain", "CN_SQL_DB_DIALECT"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("persistence.sql.dialect")
                .and(predicate::str::contains("mysql, pgsql")),
        );
    svcgen()
        .args(["explain", "persistence.type", "--edition", "A"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("ldap, couchbase, hybrid")
                .and(predicate::str::contains("sql, spanner").not()),
        );
    svcgen()
        .args(["explain", "admin_ui.auth_method"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "restart of the configuration API service",
        ));
    svcgen()
        .args(["explain", "CN_CONSUL_HOST"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "did you mean `CN_CONFIG_CONSUL_HOST`",
        ));
}

#[test]
fn output_is_byte_identical_across_runs() {
    let first = svcgen()
        .args(["render", "-t", "k8s", EXAMPLE])
        .current_dir(support::repo())
        .output()
        .unwrap();
    let second = svcgen()
        .args(["render", "-t", "k8s", EXAMPLE])
        .current_dir(support::repo())
        .output()
        .unwrap();
    assert!(first.status.success());
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn minimal_keeps_selectors_and_changed_values_only() {
    let out = svcgen()
        .args(["render", "--minimal", EXAMPLE])
        .current_dir(support::repo())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("CN_CONFIG_ADAPTER=consul"),
        "selectors stay even at their default"
    );
    assert!(text.contains("CN_SQL_DB_DIALECT=pgsql"));
    assert!(!text.contains("CN_WAIT_MAX_TIME"), "defaults are left out");
}

#[test]
fn user_templates_override_by_file_name_and_broken_ones_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "dotenv.env.j2",
        "{% for var in env %}{{ var.name|safe }}={{ var.value }}\n{% endfor %}",
    );
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--templates")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::starts_with("CN_CONFIG_ADAPTER=consul\n"));
    write(dir.path(), "dotenv.env.j2", "ok\n{% for var in %}\n");
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--templates")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("dotenv.env.j2:2"));
}

#[test]
fn schema_command_prints_the_checked_in_schema() {
    let checked_in =
        std::fs::read_to_string(support::repo().join("schemas/profile.schema.json")).unwrap();
    svcgen()
        .arg("schema")
        .assert()
        .success()
        .stdout(checked_in.clone());
    svcgen()
        .args(["render", "-t", "schema", EXAMPLE])
        .current_dir(support::repo())
        .assert()
        .success()
        .stdout(checked_in);
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        svcgen()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("render"));
    }
    svcgen()
        .arg("man")
        .assert()
        .success()
        .stdout(predicate::str::contains(".TH svcgen 1"));
}

#[test]
fn an_output_folder_that_cannot_be_created_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = write(dir.path(), "file", "not a folder");
    svcgen()
        .arg("render")
        .arg(example())
        .arg("--out-dir")
        .arg(blocker.join("out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot create the folder"));
    svcgen()
        .arg("render")
        .arg(example())
        .arg("-o")
        .arg(blocker.join("x.env"))
        .assert()
        .code(2);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_fifo_is_refused_instead_of_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("profile.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        support::skip("mkfifo", &support::how_to_get("mkfifo"));
        return;
    }
    svcgen()
        .arg("validate")
        .arg(&fifo)
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a regular file"));
}

#[test]
fn a_value_no_dotenv_spelling_suits_is_a_warning_naming_the_readers() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(
        dir.path(),
        "p.toml",
        "edition = \"B\"\n[env]\nPRICE = \"it's $5\"\n",
    );
    let warned = || {
        predicate::str::contains("W0327")
            .and(predicate::str::contains("p.toml:3:9"))
            .and(predicate::str::contains("python-dotenv"))
            .and(predicate::str::contains("docker run --env-file"))
    };
    svcgen()
        .arg("render")
        .arg(&profile)
        .assert()
        .success()
        .stdout(predicate::str::contains("PRICE=\"it's $$5\"\n"))
        .stderr(warned());
    svcgen()
        .arg("validate")
        .arg(&profile)
        .assert()
        .success()
        .stderr(warned());
    svcgen()
        .arg("render")
        .arg(&profile)
        .args(["-t", "dotenv", "--deny-warnings"])
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn import_then_render_gives_back_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    for example in support::examples() {
        let compose = svcgen()
            .args(["render", "-t", "compose"])
            .arg(&example)
            .output()
            .unwrap();
        let compose_file = write(
            dir.path(),
            "docker-compose.yml",
            &String::from_utf8(compose.stdout).unwrap(),
        );
        let profile = dir.path().join("imported.toml");
        svcgen()
            .arg("import")
            .arg(&compose_file)
            .arg("-o")
            .arg(&profile)
            .assert()
            .success();
        let again = svcgen()
            .args(["render", "-t", "dotenv"])
            .arg(&profile)
            .output()
            .unwrap();
        let original = svcgen()
            .args(["render", "-t", "dotenv"])
            .arg(&example)
            .output()
            .unwrap();
        assert!(
            again.status.success(),
            "{}: the imported profile renders",
            example.display()
        );
        let lines = |out: &[u8]| -> Vec<String> {
            String::from_utf8_lossy(out)
                .lines()
                .filter(|l| !l.starts_with('#'))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(
            lines(&again.stdout),
            lines(&original.stdout),
            "{}",
            example.display()
        );
    }
}

#[test]
fn lint_reports_at_the_line_in_the_linted_file() {
    let dir = tempfile::tempdir().unwrap();
    let env = write(
        dir.path(),
        "app.env",
        "CN_CONFIG_CONSUL_VERIFY=yes\nCN_HYBRID_MAPPING={\"default\": \"sql\",}\n",
    );
    svcgen()
        .arg("lint")
        .arg(&env)
        .args(["--edition", "B"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("app.env:1:25").and(predicate::str::contains("read as false")),
        )
        .stderr(predicate::str::contains("app.env:2:"));
    let clean = write(dir.path(), "clean.env", "CN_CONFIG_ADAPTER=consul\n");
    svcgen()
        .arg("lint")
        .arg(&clean)
        .args(["--edition", "B"])
        .assert()
        .success();
    svcgen()
        .arg("lint")
        .arg(dir.path().join("missing.env"))
        .assert()
        .code(2);
}

#[test]
fn migrate_prints_or_rewrites_in_place_and_needs_a_target_for_ldap() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(
        dir.path(),
        "a.toml",
        "# keep me\nedition = \"A\"\n[persistence]\ntype = \"ldap\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n",
    );
    svcgen()
        .args(["migrate", "--to", "B"])
        .arg(&profile)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("ldap"));
    svcgen()
        .args(["migrate", "--to", "B", "--ldap-to", "sql", "--in-place"])
        .arg(&profile)
        .assert()
        .success()
        .stderr(predicate::str::contains("changed:"));
    let text = std::fs::read_to_string(&profile).unwrap();
    assert!(text.starts_with("# keep me\n"), "comments kept:\n{text}");
    assert!(text.contains("base_url = \"https://auth.example.org\""));
    svcgen().arg("validate").arg(&profile).assert().success();
}

/// `diff` names the argument when a layer stack has an empty part (`a.toml+`).
#[test]
fn a_layer_stack_with_an_empty_part_is_a_usage_error() {
    let example = support::examples()[0].display().to_string();
    svcgen()
        .args(["diff", &format!("{example}+"), &example])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("+`: a layer stack names a file"));
}
