//! One deployment plan: every command plans a profile once, in the library, and every
//! target reads its names and host files from that plan. So `validate` fails exactly where
//! `render --out-dir` fails on a host file that cannot be read, and the Secret that
//! `--include-secrets` writes is the Secret every target refers to.

use crate::support;

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

/// One entry point: a profile held in memory goes through the same loading
/// as a file: its `extends` is followed from its folder, an overlay and `--set` values go over
/// it, and each value keeps the origin of the layer that wrote it.
#[test]
fn pipeline_text_layers_load_as_files_do() {
    use svcgen::profile::{Extends, Layer, SetKind, Stack};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("base.toml"),
        "edition = \"B\"\n[config]\nadapter = \"consul\"\nconsul = { host = \"base\" }\n",
    )
    .unwrap();
    let stack = Stack {
        overlays: vec![Layer::Text {
            name: "editor".into(),
            text: "[wait]\nmax_time = 450\n".into(),
            base_dir: None,
        }],
        sets: vec![(SetKind::Value, "config.consul.port=8501".into())],
        ..Stack::text(
            "memory",
            "extends = \"base.toml\"\n[secret]\nadapter = \"vault\"\n",
            Some(dir.path()),
        )
    };
    let mut sources = svcgen::diag::source::Sources::new();
    let checked = svcgen::pipeline::check(&stack, &mut sources).unwrap();
    let resolved = checked
        .resolved
        .unwrap_or_else(|| panic!("{:?}", checked.diagnostics));
    let value = |env: &str| {
        let var = resolved.vars.iter().find(|v| v.var.env == env).unwrap();
        let origin = var.origin.map(|o| sources.get(o.source).name.clone());
        (var.value.env_text().unwrap(), origin)
    };
    assert_eq!(value("CN_CONFIG_CONSUL_HOST").0, "base");
    assert!(
        value("CN_CONFIG_CONSUL_HOST")
            .1
            .unwrap()
            .ends_with("base.toml")
    );
    assert_eq!(
        value("CN_SECRET_ADAPTER"),
        ("vault".into(), Some("memory".into()))
    );
    assert_eq!(
        value("CN_WAIT_MAX_TIME"),
        ("450".into(), Some("editor".into()))
    );
    assert_eq!(value("CN_CONFIG_CONSUL_PORT").0, "8501");

    // The caller's policy: refused, `extends` is an error at its key and nothing is resolved.
    let refused = svcgen::diag::Diagnostic::new(svcgen::diag::Code::Extends, "not here");
    let stack = Stack {
        extends: Extends::Refuse(refused),
        ..stack
    };
    let mut sources = svcgen::diag::source::Sources::new();
    let checked = svcgen::pipeline::check(&stack, &mut sources).unwrap();
    assert!(checked.resolved.is_none());
    let found: Vec<_> = checked
        .diagnostics
        .items
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert_eq!(
        found,
        [(svcgen::diag::Code::Extends, "not here".to_string())]
    );
    let origin = checked.diagnostics.items[0].origin.unwrap();
    assert_eq!(&sources.get(origin.source).text[origin.span()], "extends");
}

/// `import` and `lint` ask resolve for an environment instead of removing
/// diagnostics by code afterwards: the checks of a profile's own form (a name passed through
/// `[env]`, which the reader already reported) are not made; every other check is. A credential
/// file's `[deploy.files]` source is a check of rendering a deployment, made
/// by neither: `validate` and `render` make it, `import` and `lint` render nothing.
#[test]
fn pipeline_environment_mode_leaves_out_only_the_profile_form_checks() {
    use svcgen::diag::Code;
    let text = "edition = \"A\"\n[config]\nadapter = \"consul\"\n[secret]\nadapter = \"vault\"\n\
                [persistence]\ntype = \"ldap\"\n[admin_ui]\nplugins = [\"a\"]\n\
                [wait]\nmax_time = 0\n[env]\nTZ = \"UTC\"\n";
    use svcgen::resolve::Environment;
    // As import asks: a profile is written from the environment, every value was read.
    let import = Environment {
        writes_profile: true,
        ..Environment::default()
    };
    let codes = |environment: Option<Environment>| {
        let mut sources = svcgen::diag::source::Sources::new();
        let (id, table) = svcgen::profile::parse_text("p".into(), text.into(), &mut sources);
        let table = table.unwrap();
        let checked = match environment {
            Some(environment) => {
                svcgen::pipeline::check_environment(id, &table, &sources, environment)
            }
            None => svcgen::pipeline::check_table(id, &table, &sources),
        };
        checked
            .diagnostics
            .items
            .iter()
            .map(|d| d.code)
            .collect::<Vec<_>>()
    };
    let profile = codes(None);
    let environment = codes(Some(import));
    // The profile-form check: a name passed through `[env]`.
    let form = [Code::EnvPassthrough];
    assert!(
        !(profile.iter().chain(&environment)).any(|c| *c == Code::CredentialFileMissing),
        "a render-time check: {profile:?} {environment:?}"
    );
    for code in form {
        assert!(profile.contains(&code), "{code:?} in {profile:?}");
    }
    let rest: Vec<Code> = (profile.iter().copied())
        .filter(|c| !form.contains(c))
        .collect();
    assert!(
        rest.contains(&Code::PluginWithoutArchive) && rest.len() > 1,
        "the other checks are made (max_time = 0, the plugin): {rest:?}"
    );
    assert_eq!(environment, rest);
    // As lint asks (no profile is written: an environment never says where plugin archives
    // come from), resolve does not ask for the plugin's archive, and makes every other check.
    let lint = codes(Some(Environment::default()));
    let no_archive: Vec<Code> = (rest.iter().copied())
        .filter(|c| *c != Code::PluginWithoutArchive)
        .collect();
    assert_eq!(lint, no_archive);
}

/// An unreadable host file is named as the profile writes it, never by the path it was read as
/// (the checkout's folder): the message, and the fingerprint the CI formats make of it, are the
/// same wherever the repository is.
#[test]
fn plan_an_unreadable_host_file_is_named_as_the_profile_writes_it() {
    let test = Test::new().profile(PLUGINS).file("a.zip", "zip");
    let folder = test.path().display().to_string();
    test.args(["validate", PROFILE])
        .code(1)
        .stderr_has("cannot copy the host file of `deploy.plugins.b` (\"b.zip\")")
        .stderr_lacks(&folder)
        .run();
}
