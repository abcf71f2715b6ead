//! Import reads what docker compose reads. `extends` within the file is
//! followed as compose merges it; `extends` from another file and a top-level `include` are
//! refused with an error naming them, never ignored; an env_file of `format: raw` is read raw.
//! Compared with the real Docker Compose v2.

use crate::support;

use std::path::Path;
use support::scenario::Test;

/// The environment docker compose gives the service `app` of `file`, `$$` read as `$`.
fn compose_environment(compose: &Path, file: &Path) -> Vec<(String, String)> {
    let model = support::compose_config_json(compose, file, &[]);
    let env = model["services"]["app"]["environment"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    env.into_iter()
        .map(|(k, v)| (k, v.as_str().unwrap_or_default().replace("$$", "$")))
        .collect()
}

/// The `[env]` table of the profile `svcgen import` writes for `file` (run in `dir`).
fn imported_environment(dir: &Path, file: &str, service: Option<&str>) -> Vec<(String, String)> {
    let mut command = support::svcgen();
    command
        .current_dir(dir)
        .args(["import", "--edition", "B", "--keep-defaults", file]);
    if let Some(service) = service {
        command.args(["--service", service]);
    }
    let ran = command.output().unwrap();
    assert!(ran.status.success(), "{ran:?}");
    let profile: toml::Table = toml::from_str(&String::from_utf8_lossy(&ran.stdout)).unwrap();
    profile
        .get("env")
        .and_then(|e| e.as_table())
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

const BASE_SERVICE: &str =
    "  base:\n    image: x\n    environment:\n      X_FROM_BASE: \"from base\"\n";

/// `extends` into another file and a top-level `include` are refused, naming them.
/// Imports `compose.yml` in `dir` (its `service`) and checks the environment is `expected`, and
/// the one Docker Compose v2 reads from the same file.
fn assert_imported_as_compose_reads(
    dir: &Path,
    service: Option<&str>,
    expected: &[(&str, &str)],
    alike: &str,
) {
    let mut imported = imported_environment(dir, "compose.yml", service);
    imported.sort();
    let mut expected: Vec<(String, String)> = expected
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    expected.sort();
    assert_eq!(imported, expected);
    if let Some(compose) = support::docker_compose_v2() {
        let mut read = compose_environment(&compose, &dir.join("compose.yml"));
        read.sort();
        assert_eq!(imported, read, "{alike}");
    }
}

#[test]
fn extends_from_another_file_and_include_are_refused_naming_them() {
    let cases = [
        (
            "services:\n  app:\n    extends:\n      file: base.yml\n      service: base\n    environment:\n      X_OWN: \"1\"\n",
            "base.yml",
        ),
        (
            "include:\n  - base.yml\nservices:\n  app:\n    image: x\n    environment:\n      X_OWN: \"1\"\n",
            "include",
        ),
    ];
    for (compose_file, named) in cases {
        let test = Test::new()
            .file("base.yml", &format!("services:\n{BASE_SERVICE}"))
            .file("compose.yml", compose_file);
        let dir = test.path().to_path_buf();
        if named == "base.yml"
            && let Some(compose) = support::docker_compose_v2()
        {
            // What the import would miss: compose gives the service the base's variable.
            let env = compose_environment(&compose, &dir.join("compose.yml"));
            assert!(
                env.iter()
                    .any(|(k, v)| k == "X_FROM_BASE" && v == "from base"),
                "{env:?}"
            );
        }
        test.args([
            "import",
            "--edition",
            "B",
            "--service",
            "app",
            "compose.yml",
        ])
        .code(1)
        .stderr_has(named)
        .stderr_has("does not follow")
        .stdout_is("")
        .run();
    }
}

/// `extends` within the file is followed as compose merges it: the env_files of the whole chain
/// (the root-most base first, a file listed again read once), then its environments, a later one
/// winning, over every env_file. Compared with the real Docker Compose v2.
#[test]
fn extends_in_the_same_file_is_followed_as_compose_merges_it() {
    let compose_file = r#"services:
  root:
    image: x
    environment: [X_A=root, X_R=root]
  base:
    image: x
    extends: root
    env_file: base.env
    environment:
      X_A: base_env
      X_B: base_env
  app:
    extends:
      service: base
    env_file: [child.env, base.env]
    environment:
      X_B: child_env
"#;
    let test = Test::new()
        .file("base.env", "X_C=base_file\nX_A=base_file\nX_E=base_file\n")
        .file(
            "child.env",
            "X_C=child_file\nX_D=child_file\nX_A=child_file\n",
        )
        .file("compose.yml", compose_file);
    let dir = test.path().to_path_buf();
    assert_imported_as_compose_reads(
        &dir,
        Some("app"),
        &[
            ("X_A", "base_env"),
            ("X_B", "child_env"),
            ("X_C", "child_file"),
            ("X_D", "child_file"),
            ("X_E", "base_file"),
            ("X_R", "root"),
        ],
        "svcgen and docker compose merge `extends` alike",
    );
    for (compose_file, problem) in [
        (
            "services:\n  app:\n    image: x\n    extends: app\n",
            "cycle",
        ),
        (
            "services:\n  app:\n    image: x\n    extends: nowhere\n",
            "nowhere",
        ),
    ] {
        Test::new()
            .file("compose.yml", compose_file)
            .args(["import", "--edition", "B", "compose.yml"])
            .code(1)
            .stderr_has(problem)
            .run();
    }
}

#[test]
fn a_raw_env_file_is_read_as_docker_compose_reads_it() {
    let raw = "X_QUOTED=\"quoted $HOME\"\nX_HASH=x # not a comment\n# a comment\n   # another\n\
               X_BRACES=${X:-d}\n\n  X_LEFT=trailing \nX_SINGLE=it's\nX_EQUALS=a=b\n\
               X_ESCAPES=\\n\\t\r\nX_EMPTY=\nX_TAB=v\t\n";
    let test = Test::new().file("raw.env", raw).file(
        "compose.yml",
        "services:\n  app:\n    image: x\n    env_file:\n      - path: raw.env\n        format: raw\n",
    );
    let dir = test.path().to_path_buf();
    assert_imported_as_compose_reads(
        &dir,
        None,
        &[
            ("X_QUOTED", "\"quoted $HOME\""),
            ("X_HASH", "x # not a comment"),
            ("X_BRACES", "${X:-d}"),
            ("X_LEFT", "trailing "),
            ("X_SINGLE", "it's"),
            ("X_EQUALS", "a=b"),
            ("X_ESCAPES", "\\n\\t"),
            ("X_TAB", "v\t"),
            ("X_EMPTY", ""),
        ],
        "svcgen and docker compose read the raw file alike",
    );
}

#[test]
fn an_unknown_env_file_format_is_refused() {
    Test::new()
        .file("a.env", "X=1\n")
        .file(
            "compose.yml",
            "services:\n  app:\n    image: x\n    env_file:\n      - path: a.env\n        format: dotenv\n",
        )
        .args(["import", "--edition", "B", "compose.yml"])
        .code(1)
        .stderr_has("unsupported env_file format `dotenv`")
        .run();
}

/// An env_file that names a file which is not one (a private key, a password file) is one error
/// at its first line, and no line of that file is shown or imported: a compose file must not be
/// a way to print any file through `svcgen import`.
#[test]
fn an_env_file_that_is_not_one_is_one_error_and_its_text_is_never_shown() {
    let key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nroot:$6$salt$hash:19000:0:99999:7:::\n-----END PRIVATE KEY-----\n";
    for format in ["", "\n        format: raw"] {
        let compose = format!(
            "services:\n  admin-ui:\n    image: x/admin-ui:1.0.0_dev\n    env_file:\n      - path: id_key{format}\n    environment:\n      CN_CONFIG_ADAPTER: consul\n"
        );
        let ran = Test::new()
            .file("id_key", key)
            .file("compose.yml", &compose)
            .args(["import", "compose.yml"])
            .code(1)
            .stderr_has("id_key:1:1")
            .stderr_has("does not read as an env_file")
            .run();
        let stderr = ran.stderr();
        for secret in [
            "BEGIN PRIVATE",
            "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "$6$salt",
        ] {
            assert!(
                !stderr.contains(secret),
                "{format:?}: {secret} shown:\n{stderr}"
            );
        }
        assert_eq!(stderr.matches("error[").count(), 1, "{stderr}");
    }
}

/// A YAML file beyond the reader's budget (here an alias bomb) is not called a syntax error: the
/// one error says what ran out and the limit, in words, not the parser's debug text.
#[test]
fn a_yaml_file_beyond_the_budget_names_the_limit() {
    let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
    for level in 1..9u8 {
        let (this, prev) = ((b'a' + level) as char, (b'a' + level - 1) as char);
        let items = vec![format!("*{prev}"); 9].join(",");
        bomb.push_str(&format!("{this}: &{this} [{items}]\n"));
    }
    Test::new()
        .file("bomb.yml", &bomb)
        .args(["import", "bomb.yml"])
        .code(1)
        .stderr_has("the YAML has more than 250000 nodes, the most svcgen reads")
        .stderr_lacks("budget breached")
        .stderr_lacks("YAML syntax")
        .run();
}
