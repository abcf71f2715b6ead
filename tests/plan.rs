//! One deployment plan (issue 23): every command plans a profile once, in the library, and every
//! target reads its names and host files from that plan. So `validate` fails exactly where
//! `render --out-dir` fails on a host file that cannot be read, and the Secret that
//! `--include-secrets` writes is the Secret every target refers to.

mod support;

use serde_json::Value;
use support::scenario::{PROFILE, Test, google_passphrase_profile};

/// An edition A profile whose two plugin archives come from host files `a.zip` and `b.zip`.
const PLUGINS: &str = r#"edition = "A"
[config]
adapter = "consul"
[secret]
adapter = "vault"
[persistence]
type = "ldap"
[admin_ui]
plugins = ["a", "b"]
[deploy.plugins]
a = { host = "a.zip", configmap = "plugins", key = "a.zip" }
b = { host = "b.zip", configmap = "plugins", key = "b.zip" }
"#;

/// A host file that exists but cannot be read (a FIFO) fails `validate` and `render --out-dir`
/// alike, with the same diagnostic at the same place; neither blocks on it.
#[test]
fn plan_host_file_unreadable_fails_validate_as_render() {
    let test = Test::new().profile(PLUGINS).file("a.zip", "zip");
    if !support::mkfifo(&test.path().join("b.zip")) {
        return;
    }
    let expected = "error[E0245]: cannot copy the host file of `deploy.plugins.b`";
    let validated = test
        .args(["validate", PROFILE])
        .timeout(20)
        .code(1)
        .stderr_has(expected)
        .stderr_has("--> profile.toml:12:1")
        .run();
    let validate_stderr = validated.stderr();
    let rendered = validated
        .again()
        .args(["render", PROFILE, "--out-dir", "out"])
        .timeout(20)
        .code(1)
        .run();
    let diagnostic = |stderr: &str| {
        stderr
            .lines()
            .skip_while(|l| !l.starts_with(expected))
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(!diagnostic(&validate_stderr).is_empty());
    assert_eq!(
        diagnostic(&rendered.stderr()),
        diagnostic(&validate_stderr),
        "validate and render report the host file alike"
    );
    assert!(!rendered.path("out/k8s.yaml").exists(), "nothing written");
}

/// With `--include-secrets`, the Secret of the secret variables is generated under a
/// content-hashed name: `k8s-env.yaml` refers to that Secret, the one `k8s.yaml` defines, and
/// no target names another.
#[test]
fn plan_secret_name_is_the_same_in_every_target() {
    let ran = Test::new()
        .profile(&google_passphrase_profile(r#"{ env = "PASS" }"#))
        .env("PASS", "s3cret")
        .args([
            "render",
            PROFILE,
            "--out-dir",
            "out",
            "--include-secrets",
            "-q",
        ])
        .run();
    let manifests = objects(&ran.read("out/k8s.yaml"));
    let defined: Vec<&str> = manifests
        .iter()
        .filter(|o| o["kind"] == "Secret")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    assert_eq!(defined.len(), 1, "one generated Secret: {defined:?}");
    assert!(defined[0].starts_with("admin-ui-secrets-"), "{defined:?}");
    let env: Value = serde_saphyr::from_str(&ran.read("out/k8s-env.yaml")).unwrap();
    let mut referred = Vec::new();
    secret_refs(&env, &mut referred);
    for object in &manifests {
        secret_refs(object, &mut referred);
    }
    assert!(!referred.is_empty(), "the passphrase is read from a Secret");
    for name in &referred {
        assert_eq!(
            name, defined[0],
            "every reference names the generated Secret"
        );
    }
}

fn objects(yaml: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(yaml)
        .unwrap()
        .into_iter()
        .filter(Value::is_object)
        .collect()
}

/// The name of every `secretKeyRef` in `value`.
fn secret_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map.get("secretKeyRef").and_then(|r| r["name"].as_str()) {
                out.push(name.to_string());
            }
            map.values().for_each(|v| secret_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| secret_refs(v, out)),
        _ => {}
    }
}
