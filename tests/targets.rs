//! The deployable targets read back by independent tools: the compose-spec JSON Schema
//! (check-jsonschema), Docker Compose v2 (`docker-compose config --format json`, the compose in
//! use), kubernetes-validate, yamllint (default configuration), PyYAML (YAML 1.1) and the
//! serde-saphyr YAML parser. All four env-carrying targets must carry the
//! same environment, in the model's order.

use crate::support;

use support::scenario::Test;
use support::{hostile, resolve_file};

use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use svcgen::render::{EnvOptions, EnvVar, Target, Templates, environment, render};
use svcgen::resolve::Resolved;

/// What the secret variable is given as when docker compose interpolates it in the tests.
const SECRET: &str = "s3cret value $x";
/// yamllint: the default rules plus the ones that catch unquoted booleans and octal numbers.
const YAMLLINT: &str = r#"{extends: default, rules: {truthy: {allowed-values: ["true", "false"], check-keys: true}, octal-values: {forbid-implicit-octal: true, forbid-explicit-octal: true}}}"#;

type Pairs = Vec<(String, String)>;

fn render_target(resolved: &Resolved, env: &[EnvVar], target: Target) -> String {
    let templates = Templates::load(None).unwrap();
    render(target, resolved, env, &templates).unwrap_or_else(|e| panic!("{target:?}: {e:?}"))
}

/// The environment every target must carry: secrets as the marker each target uses for them.
fn expected(env: &[EnvVar], secret: &str) -> Pairs {
    env.iter()
        .map(|v| {
            (
                v.name.clone(),
                v.value.clone().unwrap_or_else(|| secret.to_string()),
            )
        })
        .collect()
}

/// Compose interpolation of an escaped value: `$$` is `$`; any other `$` would be interpolated,
/// which svcgen must never leave in a value.
fn compose_unescape(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' {
            match chars.next() {
                Some('$') => out.push('$'),
                other => return Err(format!("unescaped `$` before {other:?} in {value:?}")),
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// Kubernetes' expansion of `env[].value` (k8s.io/kubernetes third_party/forked/golang/expansion)
/// with no variables defined: `$$` is `$`, `$(NAME)` stays as written, `$x` stays.
fn kubernetes_expand(input: &str) -> String {
    let bytes = input.as_bytes();
    let mut out = String::new();
    let mut checkpoint = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' && i + 1 < bytes.len() {
            out.push_str(&input[checkpoint..i]);
            let rest = &input[i + 1..];
            let advance = match rest.as_bytes()[0] {
                b'$' => {
                    out.push('$');
                    1
                }
                b'(' => match rest.find(')') {
                    Some(end) => {
                        out.push_str(&format!("$({})", &rest[1..end]));
                        end + 1
                    }
                    None => {
                        out.push_str("$(");
                        1
                    }
                },
                _ => {
                    let c = rest.chars().next().unwrap();
                    out.push('$');
                    out.push(c);
                    c.len_utf8()
                }
            };
            i += advance;
            checkpoint = i + 1;
        }
        i += 1;
    }
    if checkpoint < input.len() {
        out.push_str(&input[checkpoint..]);
    }
    out
}

/// Docker Compose v2 reading a compose file (`config --format json`, interpolated with the
/// process environment), as the environment of its one service. `config` writes every `$` of a
/// value as `$$`.
fn compose_v2_env(docker_compose: &Path, file: &Path, secrets: &[(String, String)]) -> Pairs {
    let doc = support::compose_config_json(docker_compose, file, secrets);
    let services = doc["services"].as_object().expect("services");
    let env = services.values().next().expect("one service")["environment"]
        .as_object()
        .expect("environment");
    env.iter()
        .map(|(k, v)| (k.clone(), compose_unescape(&string(v, k)).unwrap()))
        .collect()
}

/// The variables the operator sets for each withheld secret (as the compose file names them).
fn operator_secrets(env: &[EnvVar]) -> Vec<(String, String)> {
    env.iter()
        .filter_map(|v| v.supply_as.clone())
        .map(|from| (from, SECRET.to_string()))
        .collect()
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("YAML does not parse: {e}\n{text}"))
}

fn string(value: &Value, what: &str) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string but {value}"))
        .to_string()
}

/// The environment of a compose file as written (before interpolation).
fn compose_raw(text: &str) -> Pairs {
    let doc = yaml(text);
    let services = doc["services"].as_object().expect("services");
    let service = services.values().next().expect("one service");
    let env = service["environment"].as_object().expect("environment map");
    env.iter().map(|(k, v)| (k.clone(), string(v, k))).collect()
}

/// The environment of a compose file as compose reads it (no secret references in it).
fn compose_env(text: &str) -> Result<Pairs, String> {
    compose_raw(text)
        .into_iter()
        .map(|(k, v)| Ok((k, compose_unescape(&v)?)))
        .collect()
}

fn secret_ref(value: &Value) -> String {
    let r = &value["valueFrom"]["secretKeyRef"];
    format!(
        "secretKeyRef:{}/{}",
        string(&r["name"], "name"),
        string(&r["key"], "key")
    )
}

/// The environment of a k8s-env list after Kubernetes' expansion.
fn k8s_env(text: &str) -> Pairs {
    let doc = yaml(text);
    doc["env"]
        .as_array()
        .expect("env list")
        .iter()
        .map(|item| {
            let name = string(&item["name"], "name");
            let value = match item.get("value") {
                Some(v) => kubernetes_expand(&string(v, &name)),
                None => secret_ref(item),
            };
            (name, value)
        })
        .collect()
}

/// The environment of the k8s manifest: ConfigMap data (read as is) plus secret references.
fn k8s_manifest_env(text: &str, order: &[String]) -> Pairs {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).expect("multi-document YAML");
    let configmap = docs
        .iter()
        .find(|d| d["kind"] == "ConfigMap")
        .expect("a ConfigMap");
    let deployment = docs
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("a Deployment");
    let mut pairs: Pairs = match &configmap["data"] {
        Value::Object(data) => data
            .iter()
            .map(|(k, v)| (k.clone(), string(v, k)))
            .collect(),
        _ => Vec::new(),
    };
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    if let Some(env) = container["env"].as_array() {
        pairs.extend(
            env.iter()
                .map(|e| (string(&e["name"], "name"), secret_ref(e))),
        );
    }
    pairs.sort_by_key(|(k, _)| order.iter().position(|o| o == k));
    pairs
}

#[test]
fn all_env_targets_carry_the_same_environment() {
    for example in support::examples() {
        let resolved = resolve_file(&example);
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        let names: Vec<String> = env.iter().map(|v| v.name.clone()).collect();
        let secret_ref = format!("secretKeyRef:{}/", resolved.deploy.secret_name);
        let with_refs: Pairs = env
            .iter()
            .map(|v| match &v.value {
                Some(value) => (v.name.clone(), value.clone()),
                None => (v.name.clone(), format!("{secret_ref}{}", v.name)),
            })
            .collect();
        let label = example.display();
        let compose = compose_raw(&render_target(&resolved, &env, Target::Compose));
        assert_eq!(
            compose.len(),
            env.len(),
            "{label}: compose has every variable"
        );
        for ((name, raw), var) in compose.iter().zip(&env) {
            assert_eq!(name, &var.name, "{label}: compose order");
            match (&var.value, &var.supply_as) {
                (Some(value), _) => {
                    assert_eq!(
                        &compose_unescape(raw).unwrap(),
                        value,
                        "{label}: compose {name}"
                    )
                }
                (None, Some(from)) => {
                    assert!(
                        raw.starts_with(&format!("${{{from}:?")),
                        "{label}: {name} is a reference: {raw}"
                    )
                }
                (None, None) => panic!("{label}: {name} has no value and no source"),
            }
        }

        assert_eq!(
            k8s_env(&render_target(&resolved, &env, Target::K8sEnv)),
            with_refs,
            "{label}: k8s-env"
        );
        let manifest = render_target(&resolved, &env, Target::K8s);
        assert_eq!(
            k8s_manifest_env(&manifest, &names),
            with_refs,
            "{label}: k8s"
        );
    }
}

#[test]
fn docker_compose_reads_the_same_environment_and_the_secret_from_the_operator() {
    let Some(docker_compose) = support::docker_compose_v2() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for example in support::examples() {
        let resolved = resolve_file(&example);
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        let file = dir.path().join("docker-compose.yml");
        std::fs::write(&file, render_target(&resolved, &env, Target::Compose)).unwrap();
        let mut got = compose_v2_env(&docker_compose, &file, &operator_secrets(&env));
        let mut want = expected(&env, SECRET);
        want.sort();
        got.sort();
        assert_eq!(got, want, "{}", example.display());
    }
}

#[test]
fn a_missing_secret_stops_docker_compose_with_a_message() {
    let Some(docker_compose) = support::docker_compose_v2() else {
        return;
    };
    let example = support::repo().join("examples/b-google-spanner.toml");
    let resolved = resolve_file(&example);
    let env = environment(&resolved, EnvOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("docker-compose.yml");
    std::fs::write(&file, render_target(&resolved, &env, Target::Compose)).unwrap();
    let output = Command::new(docker_compose)
        .arg("-f")
        .arg(&file)
        .arg("config")
        .env_remove("ADMIN_UI_PASSPHRASE")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ADMIN_UI_PASSPHRASE"));
}

/// Renders every example with `--out-dir` into a temporary folder, one sub-folder each.
fn render_examples_to_disk() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let mut outs = Vec::new();
    for example in support::examples() {
        let out = dir.path().join(example.file_stem().unwrap());
        Test::new()
            .arg("render")
            .arg(&example)
            .arg("--out-dir")
            .arg(&out)
            .run();
        outs.push(out);
    }
    (dir, outs)
}

fn run_tool(tool: &Path, args: &[&str], files: &[PathBuf]) {
    let output = Command::new(tool).args(args).args(files).output().unwrap();
    assert!(
        output.status.success(),
        "{} {args:?} failed:\n{}\n{}",
        tool.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn every_compose_file_passes_the_compose_spec_schema() {
    let Some(tool) = support::tool("check-jsonschema") else {
        return;
    };
    let (_dir, outs) = render_examples_to_disk();
    let files: Vec<PathBuf> = outs.iter().map(|o| o.join("docker-compose.yml")).collect();
    run_tool(&tool, &["--builtin-schema", "vendor.compose-spec"], &files);
}

#[test]
fn every_compose_file_passes_docker_compose_config() {
    let Some(tool) = support::docker_compose_v2() else {
        return;
    };
    let (_dir, outs) = render_examples_to_disk();
    for (example, out) in support::examples().iter().zip(outs) {
        let resolved = resolve_file(example);
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        // The file as written to disk (bind mounts included), read by compose v2.
        let mut got = compose_v2_env(
            &tool,
            &out.join("docker-compose.yml"),
            &operator_secrets(&env),
        );
        let mut want = expected(&env, SECRET);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", out.display());
    }
}

#[test]
fn every_k8s_manifest_passes_kubernetes_validate_strict() {
    let Some(tool) = support::tool("kubernetes-validate") else {
        return;
    };
    let (_dir, outs) = render_examples_to_disk();
    for out in outs {
        run_tool(&tool, &["--strict", "--quiet"], &[out.join("k8s.yaml")]);
    }
}

#[test]
fn every_yaml_output_passes_yamllint_default_and_truthy_and_octal_rules() {
    let Some(tool) = support::tool("yamllint") else {
        return;
    };
    let (_dir, outs) = render_examples_to_disk();
    let files: Vec<PathBuf> = outs
        .iter()
        .flat_map(|o| {
            std::fs::read_dir(o)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        })
        .collect();
    assert!(
        files.len() >= 3 * outs.len(),
        "every YAML output: {files:?}"
    );
    // As users run it (warnings count too), then with the rules that catch typed scalars.
    run_tool(&tool, &["--strict", "-d", "default"], &files);
    run_tool(&tool, &["--strict", "-d", YAMLLINT], &files);
}

proptest! {
    #![proptest_config(support::proptest_cases(6))]

    /// Long hostile values are folded to yamllint's width in every YAML target, and read back
    /// unchanged (serde-saphyr here; PyYAML and compose v2 in their own tests).
    #[test]
    fn long_values_fold_within_yamllint_default(values in prop::collection::vec(hostile::long_value(), 5)) {
        let Some(tool) = support::tool("yamllint") else { return Ok(()) };
        let (resolved, env) = hostile::resolved(&values);
        let want = expected(&env, "");
        let names: Vec<String> = env.iter().map(|v| v.name.clone()).collect();
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for target in [Target::Compose, Target::K8sEnv, Target::K8s] {
            let text = render_target(&resolved, &env, target);
            let file = dir.path().join(target.file_name());
            std::fs::write(&file, &text).unwrap();
            files.push(file);
        }
        let read = |i: usize| std::fs::read_to_string(&files[i]).unwrap();
        prop_assert!(read(0).contains("\\\n"), "a long value is folded");
        let compose = compose_env(&read(0));
        prop_assert_eq!(compose.as_ref(), Ok(&want));
        prop_assert_eq!(&k8s_env(&read(1)), &want);
        prop_assert_eq!(&k8s_manifest_env(&read(2), &names), &want);
        run_tool(&tool, &["--strict", "-d", "default"], &files);
    }
}

#[test]
fn the_k8s_manifest_never_contains_a_secret_value() {
    let profile = "edition = \"B\"\n[secret]\nadapter = \"google\"\n[config]\nadapter = \"google\"\n\
         [google]\nproject_id = \"p\"\nsecret_manager_passphrase = \"literal-passphrase-value\"\n";
    for target in ["k8s", "k8s-env", "compose", "dotenv"] {
        let ran = Test::new()
            .file("p.toml", profile)
            .args(["render", "-t", target, "p.toml"])
            .run();
        let text = String::from_utf8(ran.output.stdout).unwrap();
        assert!(
            !text.contains("literal-passphrase-value"),
            "{target} leaks the secret:\n{text}"
        );
        assert!(
            text.contains("CN_GOOGLE_SECRET_MANAGER_PASSPHRASE"),
            "{target} names the secret"
        );
    }
    Test::new()
        .file("p.toml", profile)
        .args(["render", "-t", "dotenv", "--include-secrets", "p.toml"])
        .stdout_has("=literal-passphrase-value\n")
        .run();
}

#[test]
fn target_snapshots() {
    insta::glob!("../examples", "*.toml", |path| {
        for target in ["compose", "k8s-env", "k8s"] {
            let ran = Test::new().args(["render", "-t", target]).arg(path).run();
            insta::assert_snapshot!(target, String::from_utf8(ran.output.stdout).unwrap());
        }
    });
}

/// Reads YAML documents with PyYAML (YAML 1.1, as Kubernetes tooling and compose v1 read) into JSON.
fn pyyaml_documents(python: &Path, text: &str) -> Vec<Value> {
    let script = "import json, sys, yaml\nprint(json.dumps(list(yaml.safe_load_all(sys.stdin))))";
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), text.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "PyYAML cannot read:\n{text}");
    serde_json::from_slice(&output.stdout).unwrap()
}

proptest! {
    #![proptest_config(support::proptest_cases(2000))]

    /// 2,000 cases of 4 hostile strings each, every YAML target parsed back by serde-saphyr
    /// (which applies YAML 1.1 typing to anything unquoted).
    #[test]
    fn hostile_values_survive_every_yaml_target(values in prop::collection::vec(hostile::any_length(), 5)) {
        let (resolved, env) = hostile::resolved(&values);
        let want = expected(&env, "");
        let names: Vec<String> = env.iter().map(|v| v.name.clone()).collect();
        let compose = compose_env(&render_target(&resolved, &env, Target::Compose));
        prop_assert_eq!(compose.as_ref(), Ok(&want));
        prop_assert_eq!(&k8s_env(&render_target(&resolved, &env, Target::K8sEnv)), &want);
        prop_assert_eq!(&k8s_manifest_env(&render_target(&resolved, &env, Target::K8s), &names), &want);
    }
}

proptest! {
    #![proptest_config(support::proptest_cases(12))]

    /// Docker Compose v2 (with interpolation) on 100 hostile values at a time; its JSON printout
    /// carries every character, U+0085 and U+2028 included.
    #[test]
    fn hostile_values_survive_docker_compose(values in prop::collection::vec(hostile::any_length(), 100)) {
        let Some(docker_compose) = support::docker_compose_v2() else { return Ok(()) };
        let (resolved, env) = hostile::resolved(&values);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("docker-compose.yml");
        std::fs::write(&file, render_target(&resolved, &env, Target::Compose)).unwrap();
        let mut got = compose_v2_env(&docker_compose, &file, &[]);
        let mut want = expected(&env, "");
        got.sort();
        want.sort();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn kubernetes_expansion_emulation_matches_the_documented_rules() {
    assert_eq!(kubernetes_expand("$$"), "$");
    assert_eq!(kubernetes_expand("$$(X)"), "$(X)");
    assert_eq!(kubernetes_expand("$(X)"), "$(X)");
    assert_eq!(kubernetes_expand("a$b"), "a$b");
    assert_eq!(kubernetes_expand("$"), "$");
    assert_eq!(kubernetes_expand("$$$$HOME"), "$$HOME");
    assert_eq!(kubernetes_expand("é$$é"), "é$é");
}

proptest! {
    #![proptest_config(support::proptest_cases(12))]

    /// PyYAML (YAML 1.1) reads every YAML target exactly as written, 100 hostile values at a time.
    #[test]
    fn pyyaml_reads_hostile_values_as_written(values in prop::collection::vec(hostile::any_length(), 100)) {
        let Some(python) = support::python_with("yaml") else { return Ok(()) };
        let (resolved, env) = hostile::resolved(&values);
        let want = expected(&env, "");
        let compose = &pyyaml_documents(&python, &render_target(&resolved, &env, Target::Compose))[0];
        let service = compose["services"].as_object().unwrap().values().next().unwrap();
        let got: Pairs = service["environment"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), compose_unescape(&string(v, k)).unwrap()))
            .collect();
        prop_assert_eq!(&got, &want);
        let k8s_env = &pyyaml_documents(&python, &render_target(&resolved, &env, Target::K8sEnv))[0];
        let got: Pairs = k8s_env["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (string(&e["name"], "name"), kubernetes_expand(&string(&e["value"], "value"))))
            .collect();
        prop_assert_eq!(&got, &want);
        let docs = pyyaml_documents(&python, &render_target(&resolved, &env, Target::K8s));
        let data = docs[0]["data"].as_object().unwrap();
        let got: Pairs = data.iter().map(|(k, v)| (k.clone(), string(v, k))).collect();
        prop_assert_eq!(&got, &want);
    }
}
