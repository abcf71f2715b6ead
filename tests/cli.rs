//! The command line as a user meets it: help, exit codes, files written or left alone, `--check`,
//! secrets, `explain`, templates, completions and the man page.

use crate::support;

use support::scenario::{PROFILE, Test, google_passphrase_profile};

const EXAMPLE: &str = "examples/b-consul-vault-sql.toml";

fn example() -> std::path::PathBuf {
    support::repo().join(EXAMPLE)
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
        Test::new()
            .args([command, "--help"])
            .stdout_has("Examples:")
            .run();
    }
    Test::new().arg("--help").stdout_has("Exit codes").run();
}

#[test]
fn usage_errors_exit_2() {
    Test::in_repo()
        .args(["render", EXAMPLE, "-t", "nope"])
        .code(2)
        .run();
    Test::new().arg("frobnicate").code(2).run();
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
fn render_o_writes_the_file_and_check_reports_it_stale_with_a_diff() {
    let render = |test: Test, args: &[&str]| test.arg("render").arg(example()).args(args);
    let ran = render(Test::new(), &["-o", ".env"]).stdout_is("").run();
    let written = ran.read(".env");
    assert!(written.contains("CN_SQL_DB_DIALECT=pgsql"));
    let ran = render(ran.again(), &["-o", ".env", "--check"]).run();
    std::fs::write(ran.path(".env"), written.replace("=pgsql", "=mysql")).unwrap();
    let ran = render(ran.again(), &["-o", ".env", "--check"])
        .code(1)
        .stdout_has("-CN_SQL_DB_DIALECT=mysql")
        .stdout_has("+CN_SQL_DB_DIALECT=pgsql")
        .stderr_has("stale")
        .run();
    assert!(
        ran.read(".env").contains("=mysql\n"),
        "--check writes nothing"
    );
}

#[test]
fn out_dir_writes_every_target_and_check_covers_them_all() {
    let render = |test: Test, args: &[&str]| test.arg("render").arg(example()).args(args);
    let ran = render(Test::new(), &["--out-dir", "out"]).run();
    // The example names host files: the base holds copies of the non-secret ones under files/.
    let mut expected: Vec<&str> = support::OUT_DIR_FILES.to_vec();
    expected.insert(3, "files");
    assert_eq!(support::file_names(&ran.path("out")), expected);
    let ran = render(ran.again(), &["--out-dir", "out", "--check"]).run();
    std::fs::remove_file(ran.path("out/k8s.yaml")).unwrap();
    render(ran.again(), &["--out-dir", "out", "--check"])
        .code(1)
        .stdout_has("+++ ")
        .stdout_has("k8s.yaml")
        .run();
}

#[test]
fn an_invalid_profile_writes_nothing_and_leaves_existing_files_alone() {
    let ran = Test::new()
        .file("bad.toml", INVALID)
        .file("out/.env", "OLD=1\n")
        .args(["render", "bad.toml", "--out-dir", "out"])
        .code(1)
        .run();
    assert_eq!(ran.read("out/.env"), "OLD=1\n");
    assert_eq!(
        std::fs::read_dir(ran.path("out")).unwrap().count(),
        1,
        "no other file, no temporary file"
    );
    let ran = ran
        .again()
        .args(["render", "bad.toml", "-o", "out/.env"])
        .code(1)
        .run();
    assert_eq!(ran.read("out/.env"), "OLD=1\n");
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
            support::record_skip(
                "running as root without /usr/bin/setpriv: run the tests as a non-root user, or install util-linux (Debian: apt-get install util-linux)",
            );
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
    let from_env = google_passphrase_profile("{ env = \"SVCGEN_TEST_PASSPHRASE\" }");
    let ran = Test::new()
        .file("p.toml", &from_env)
        .args(["render", "p.toml"])
        .env("SVCGEN_TEST_PASSPHRASE", "hunter2")
        .stdout_lacks("hunter2")
        .stdout_has("SVCGEN_TEST_PASSPHRASE")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--include-secrets"])
        .env("SVCGEN_TEST_PASSPHRASE", "hunter2")
        .stdout_has("CN_GOOGLE_SECRET_MANAGER_PASSPHRASE=hunter2\n")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--include-secrets"])
        .env_remove("SVCGEN_TEST_PASSPHRASE")
        .code(1)
        .stderr_has("E0215")
        .stderr_has("SVCGEN_TEST_PASSPHRASE")
        .run();
    ran.again()
        .file(
            "f.toml",
            &google_passphrase_profile("{ file = \"pass.txt\" }"),
        )
        .file("pass.txt", "from-a-file\n")
        .args(["render", "f.toml", "--include-secrets"])
        .stdout_has("=from-a-file\n")
        .run();
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
    Test::new()
        .file("bad.toml", INVALID)
        .args(["validate", "bad.toml"])
        .code(1)
        .stderr_lacks("\u{1b}[")
        .stderr_has("bad.toml:3:8")
        .stderr_has("allowed values: \"sql\", \"spanner\", \"couchbase\", \"hybrid\"")
        .run();
}

#[test]
fn explain_finds_names_and_keys_and_suggests_near_ones() {
    Test::new()
        .args(["explain", "CN_SQL_DB_DIALECT"])
        .stdout_has("persistence.sql.dialect")
        .stdout_has("mysql, pgsql")
        .run();
    Test::new()
        .args(["explain", "persistence.type", "--edition", "A"])
        .stdout_has("ldap, couchbase, hybrid")
        .stdout_lacks("sql, spanner")
        .run();
    Test::new()
        .args(["explain", "admin_ui.auth_method"])
        .stdout_has("restart of the configuration API service")
        .run();
    Test::new()
        .args(["explain", "CN_CONSUL_HOST"])
        .code(1)
        .stderr_has("did you mean `CN_CONFIG_CONSUL_HOST`")
        .run();
}

#[test]
fn output_is_byte_identical_across_runs() {
    let render = || Test::in_repo().args(["render", "-t", "k8s", EXAMPLE]).run();
    assert_eq!(render().output.stdout, render().output.stdout);
}

#[test]
fn minimal_keeps_selectors_and_changed_values_only() {
    Test::in_repo()
        .args(["render", "--minimal", EXAMPLE])
        // Selectors stay even at their default; defaults are left out.
        .stdout_has("CN_CONFIG_ADAPTER=consul")
        .stdout_has("CN_SQL_DB_DIALECT=pgsql")
        .stdout_lacks("CN_WAIT_MAX_TIME")
        .run();
}

#[test]
fn user_templates_override_by_file_name_and_broken_ones_name_file_line_and_column() {
    let render = |test: Test| test.arg("render").arg(example()).args(["--templates", "."]);
    let ran = render(Test::new().file(
        "dotenv.env.j2",
        "{% for var in env %}{{ var.name|safe }}={{ var.value }}\n{% endfor %}",
    ))
    .stdout_starts_with("CN_CONFIG_ADAPTER=consul\n")
    .run();
    render(ran.again().file("dotenv.env.j2", "ok\n{% for var in %}\n"))
        .code(1)
        .stderr_has("dotenv.env.j2:2:15: unexpected end of block")
        .run();
}

#[test]
fn schema_command_prints_the_checked_in_schema() {
    let checked_in =
        std::fs::read_to_string(support::repo().join("schemas/profile.schema.json")).unwrap();
    Test::new().arg("schema").stdout_is(&checked_in).run();
    Test::in_repo()
        .args(["render", "-t", "schema", EXAMPLE])
        .stdout_is(&checked_in)
        .run();
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        Test::new()
            .args(["completions", shell])
            .stdout_has("render")
            .run();
    }
    Test::new().arg("man").stdout_has(".TH svcgen 1").run();
}

#[test]
fn an_output_folder_that_cannot_be_created_is_an_io_error() {
    let render = |test: Test, args: &[&str]| test.arg("render").arg(example()).args(args);
    let ran = render(
        Test::new().file("file", "not a folder"),
        &["--out-dir", "file/out"],
    )
    .code(2)
    .stderr_has("cannot create the folder")
    .run();
    let ran = render(ran.again(), &["-o", "file/x.env"]).code(2).run();
    assert_eq!(std::fs::read_dir(ran.dir.path()).unwrap().count(), 1);
}

#[test]
fn a_fifo_is_refused_instead_of_blocking() {
    let test = Test::new();
    if !support::mkfifo(&test.path().join(PROFILE)) {
        return;
    }
    test.args(["validate", PROFILE])
        .timeout(20)
        .code(2)
        .stderr_has("not a regular file")
        .run();
}

#[test]
fn a_value_no_dotenv_spelling_suits_is_a_warning_naming_the_readers() {
    let warned = |test: Test| {
        test.stderr_has("W0327")
            .stderr_has("p.toml:3:9")
            .stderr_has("python-dotenv")
            .stderr_has("docker run --env-file")
    };
    let ran = warned(
        Test::new()
            .file("p.toml", "edition = \"B\"\n[env]\nPRICE = \"it's $5\"\n")
            .args(["render", "p.toml"])
            .stdout_has("PRICE=\"it's $$5\"\n"),
    )
    .run();
    let ran = warned(ran.again().args(["validate", "p.toml"])).run();
    ran.again()
        .args(["render", "p.toml", "-t", "dotenv", "--deny-warnings"])
        .code(1)
        .stdout_is("")
        .run();
}

#[test]
fn import_then_render_gives_back_the_environment() {
    let dotenv_lines = |profile: &std::path::Path| -> Vec<String> {
        let ran = Test::new()
            .args(["render", "-t", "dotenv"])
            .arg(profile)
            .run();
        ran.stdout()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::to_string)
            .collect()
    };
    for example in support::examples() {
        let compose = Test::new()
            .args(["render", "-t", "compose"])
            .arg(&example)
            .run();
        let compose_text = compose.stdout();
        let imported = compose
            .again()
            .file("docker-compose.yml", &compose_text)
            .args(["import", "docker-compose.yml", "-o", "imported.toml"])
            .run();
        assert_eq!(
            dotenv_lines(&imported.path("imported.toml")),
            dotenv_lines(&example),
            "{}",
            example.display()
        );
    }
}

#[test]
fn lint_reports_at_the_line_in_the_linted_file() {
    let ran = Test::new()
        .file(
            "app.env",
            "CN_CONFIG_CONSUL_VERIFY=yes\nCN_HYBRID_MAPPING={\"default\": \"sql\",}\n",
        )
        .args(["lint", "app.env", "--edition", "B"])
        .code(1)
        .stderr_has("app.env:1:25")
        .stderr_has("read as false")
        .stderr_has("app.env:2:")
        .run();
    let ran = ran
        .again()
        .file("clean.env", "CN_CONFIG_ADAPTER=consul\n")
        .args(["lint", "clean.env", "--edition", "B"])
        .run();
    ran.again().args(["lint", "missing.env"]).code(2).run();
}

#[test]
fn migrate_prints_or_rewrites_in_place_and_needs_a_target_for_ldap() {
    let ran = Test::new()
        .file(
            "a.toml",
            "# keep me\nedition = \"A\"\n[persistence]\ntype = \"ldap\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n",
        )
        .args(["migrate", "--to", "B", "a.toml"])
        .code(1)
        .stderr_has("ldap")
        .run();
    let ran = ran
        .again()
        .args([
            "migrate",
            "--to",
            "B",
            "--ldap-to",
            "sql",
            "--in-place",
            "a.toml",
        ])
        .stderr_has("changed:")
        .run();
    let text = ran.read("a.toml");
    assert!(text.starts_with("# keep me\n"), "comments kept:\n{text}");
    assert!(text.contains("base_url = \"https://auth.example.org\""));
    ran.again().args(["validate", "a.toml"]).run();
}

/// `diff` names the argument when a layer stack has an empty part (`a.toml+`).
#[test]
fn a_layer_stack_with_an_empty_part_is_a_usage_error() {
    let example = support::examples()[0].display().to_string();
    Test::new()
        .args(["diff", &format!("{example}+"), &example])
        .code(2)
        .stderr_has("+`: a layer stack names a file")
        .run();
}
