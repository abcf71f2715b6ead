//! `svcgen krm` fed `ResourceList`s on stdin, as kpt, kustomize and Argo CD run it: items kept,
//! objects added, diagnostics as results, exit 1 on an invalid profile or input.

use crate::support;

use serde_json::{Value, json};
use support::scenario::Test;
use support::{repo, svcgen};

fn resource_list(profile: &str, items: Value) -> String {
    let list = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": items,
        "functionConfig": {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "admin-ui-profile",
                "annotations": { "config.kubernetes.io/path": "fn-config.yaml" }
            },
            "data": { "profile": profile }
        }
    });
    serde_saphyr::to_string(&list).unwrap()
}

/// Runs the function; (exit code, the ResourceList it wrote).
fn run(input: &str) -> (i32, Value) {
    let (code, text) = run_text(input);
    let list: Value = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (code, list)
}

fn kept_items() -> Value {
    json!([
        { "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": "keep-me" },
          "data": { "answer": "no", "mode": "0755", "long": "x ".repeat(80) } },
        { "apiVersion": "v1", "kind": "Namespace", "metadata": { "name": "identity" } }
    ])
}

fn example(name: &str) -> String {
    std::fs::read_to_string(repo().join("examples").join(name)).unwrap()
}

#[test]
fn items_are_kept_and_objects_added() {
    let input = resource_list(&example("b-consul-vault-sql.toml"), kept_items());
    let (code, list) = run(&input);
    assert_eq!(code, 0, "{list:#}");
    assert_eq!(list["kind"], "ResourceList");
    let items = list["items"].as_array().unwrap();
    assert_eq!(
        &items[..2],
        kept_items().as_array().unwrap().as_slice(),
        "items kept as they came"
    );
    let kinds: Vec<&str> = items[2..]
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["ConfigMap", "Deployment", "Service"]);
    let results = list["results"].as_array().unwrap();
    assert!(
        results.iter().all(|r| r["severity"] != "error"),
        "{results:#?}"
    );
    assert!(
        results
            .iter()
            .any(|r| r["message"].as_str().unwrap().contains("vault-approle")),
        "the objects to create are named: {results:#?}"
    );
}

#[test]
fn running_again_replaces_its_objects_instead_of_adding_twice() {
    let input = resource_list(&example("b-hybrid.toml"), json!([]));
    let (_, first) = run(&input);
    let mut again: Value = first.clone();
    again["functionConfig"] =
        serde_saphyr::from_str::<Value>(&input).unwrap()["functionConfig"].clone();
    let (code, second) = run(&serde_saphyr::to_string(&again).unwrap());
    assert_eq!(code, 0);
    assert_eq!(first["items"], second["items"]);
}

#[test]
fn an_invalid_profile_gives_error_results_with_its_position_and_exit_1() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"consull\"\n";
    let (code, list) = run(&resource_list(profile, kept_items()));
    assert_eq!(code, 1);
    assert_eq!(list["items"], kept_items(), "items still kept");
    let error = list["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["severity"] == "error")
        .expect("an error result");
    assert_eq!(error["field"]["path"], "data.profile");
    assert_eq!(error["file"]["path"], "fn-config.yaml");
    assert_eq!(error["tags"]["line"], "3");
    assert_eq!(error["resourceRef"]["name"], "admin-ui-profile");
    assert!(
        error["message"].as_str().unwrap().contains("consul"),
        "{error}"
    );
}

#[test]
fn an_input_that_is_not_a_resource_list_is_an_error_result() {
    for input in [
        "kind: Pod\n",
        "[1, 2]\n",
        "{{{{\n",
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {kind: ConfigMap, data: {}}\n",
    ] {
        let (code, list) = run(input);
        assert_eq!(code, 1, "{input}");
        assert_eq!(list["results"][0]["severity"], "error", "{input}");
    }
}

#[test]
fn secrets_never_reach_the_stream() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n[google]\nproject_id = \"p\"\nsecret_manager_passphrase = \"Literal-Pass-91c2\"\n[persistence]\ntype = \"sql\"\nsql = { dialect = \"pgsql\", host = \"db\", port = 5432 }\n[token_server]\nbase_url = \"https://auth.example.org\"\n";
    let input = resource_list(profile, json!([]));
    let output = svcgen().arg("krm").write_stdin(input).output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("W0307"),
        "the clear-text secret is reported: {text}"
    );
    assert!(!text.contains("Literal-Pass-91c2"), "{text}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("Literal-Pass-91c2"));
}

#[test]
fn the_gitops_function_config_runs() {
    let config: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(repo().join("examples/gitops/fn-config.yaml")).unwrap(),
    )
    .unwrap();
    let list = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [],
        "functionConfig": config,
    });
    let (code, out) = run(&serde_saphyr::to_string(&list).unwrap());
    assert_eq!(code, 0, "{out:#}");
    let kinds: Vec<&str> = out["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    // Its kubernetes adapters read and write their objects through the API.
    assert_eq!(
        kinds,
        [
            "ConfigMap",
            "ServiceAccount",
            "Role",
            "RoleBinding",
            "Deployment",
            "Service"
        ]
    );
    assert!(
        out["items"].to_string().contains("\"identity\""),
        "its namespace"
    );
}

#[test]
fn hostile_inputs_are_error_results_not_crashes() {
    let nested = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..30 {
        let p = i - 1;
        bomb.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{p}"); 9].join(", ")
        ));
    }
    for input in [nested, bomb, "\u{feff}\0\u{1}".to_string()] {
        let (code, list) = run(&input);
        assert_eq!(code, 1);
        assert_eq!(list["results"][0]["tags"]["code"], "E0244");
    }
}

#[test]
fn stdin_beyond_the_limit_is_refused() {
    let big = "#".repeat(svcgen::krm::MAX_INPUT_BYTES as usize + 10);
    Test::new()
        .arg("krm")
        .stdin(&big)
        .code(2)
        .stderr_has("at most")
        .run();
}

#[test]
fn extends_is_refused_not_silently_ignored() {
    let profile = "extends = \"layers/base.toml\"\nedition = \"B\"\n";
    let (code, list) = run(&resource_list(profile, json!([])));
    assert_eq!(code, 1);
    assert!(
        list["results"][0]["message"]
            .as_str()
            .unwrap()
            .contains("extends")
    );
    assert_eq!(list["items"], json!([]));
}

#[test]
fn set_lines_apply_over_the_profile_and_errors_name_the_line() {
    let mut list: Value =
        serde_saphyr::from_str(&resource_list(&example("b-hybrid.toml"), json!([]))).unwrap();
    list["functionConfig"]["data"]["set"] =
        Value::from("deploy.replicas=3\n\ndeploy.name=admin-ui-eu\n");
    let (code, out) = run(&serde_saphyr::to_string(&list).unwrap());
    assert_eq!(code, 0, "{out:#}");
    let deployment = out["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "Deployment")
        .unwrap();
    assert_eq!(deployment["spec"]["replicas"], 3);
    assert_eq!(deployment["metadata"]["name"], "admin-ui-eu");
    list["functionConfig"]["data"]["set"] = Value::from("deploy.replicas=-4\n");
    let (code, out) = run(&serde_saphyr::to_string(&list).unwrap());
    assert_eq!(code, 1);
    let error = &out["results"][0];
    assert_eq!(error["field"]["path"], "data.set", "{out:#}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("deploy.replicas=-4"),
        "{error}"
    );
}

/// Runs the function; (exit code, the text it wrote).
fn run_text(input: &str) -> (i32, String) {
    let output = svcgen()
        .arg("krm")
        .current_dir(repo().join("examples"))
        .write_stdin(input)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    (output.status.code().unwrap(), text)
}

/// A `ResourceList` whose items are written as `items` (YAML lines below `items:`), with the
/// function config of `profile`.
fn raw_list(items: &str, profile: &str) -> String {
    let config = json!({ "functionConfig": {
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": { "name": "admin-ui-profile" },
        "data": { "profile": profile },
    }});
    format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{items}{}",
        serde_saphyr::to_string(&config).unwrap()
    )
}

/// Each item of a list as PyYAML composes it (safe loader): every node's resolved tag and its
/// text, so that a changed type (`0644` to a string, `yes` to a string, a decoded `!!binary`)
/// shows. `None` when PyYAML is missing (skipped on a laptop, a failure on CI).
fn pyyaml_items(text: &str) -> Option<Vec<Value>> {
    let python = support::python_with("yaml")?;
    let script = r#"
import json, sys, yaml
def rep(n):
    if isinstance(n, yaml.ScalarNode):
        return [n.tag, n.value]
    if isinstance(n, yaml.SequenceNode):
        return [n.tag, [rep(c) for c in n.value]]
    return [n.tag, [[rep(k), rep(v)] for k, v in n.value]]
doc = yaml.compose(sys.stdin.read(), Loader=yaml.SafeLoader)
items = dict((k.value, v) for k, v in doc.value)["items"]
print(json.dumps([rep(i) for i in items.value]))
"#;
    let mut child = std::process::Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "PyYAML could not read: {text}");
    serde_json::from_slice(&out.stdout).ok()
}

const FOREIGN_ITEMS: &str = r#"- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: keep-me
  data:
    mode: 0644
    enabled: yes
    big: 123456789012345678901234567890
    bin: !!binary aGVsbG8=
    when: 2001-12-14
    f: 1e3
    nul: ~
    multi: |
      line one
        line two
  binaryData:
    blob: !!binary |
      R0lGODlhDAAMAIQAAP//9/X17unp5WZmZgAAAOfn515eXvPz7Y6OjuDg4J+fn5
-   {apiVersion: example.com/v1, kind: Thing, metadata: {name: t},
  spec: {on: on, n: 0x1F, s: !custom x}}
"#;

/// Items svcgen does not own come out with the same types, values and tags, as PyYAML
/// reads them (today `0644` and `yes` become strings, the big integer a float, `!!binary` decoded).
#[test]
fn foreign_items_keep_their_types_values_and_tags() {
    let input = raw_list(FOREIGN_ITEMS, &example("b-hybrid.toml"));
    let (code, output) = run_text(&input);
    assert_eq!(code, 0, "{output}");
    let (Some(before), Some(after)) = (pyyaml_items(&input), pyyaml_items(&output)) else {
        return;
    };
    assert_eq!(before.len(), 2);
    assert_eq!(&after[..2], &before[..], "{output}");
    assert!(after.len() > 2, "svcgen's objects are added: {output}");
}

/// The Service svcgen renders for `b-hybrid.toml`: (its name, the list text with it).
fn generated(kind: &str) -> (String, Value) {
    let (_, list) = run(&resource_list(&example("b-hybrid.toml"), json!([])));
    let name = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == kind)
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
        .unwrap();
    (name, list)
}

/// An object of another API group with the kind and name of a generated one is another
/// object: it is kept, and svcgen's own is added beside it.
#[test]
fn an_objects_identity_includes_its_api_group() {
    let (service, _) = generated("Service");
    let other = json!([{ "apiVersion": "serving.knative.dev/v1", "kind": "Service",
        "metadata": { "name": service }, "spec": { "x": "y" } }]);
    let (code, list) = run(&resource_list(&example("b-hybrid.toml"), other.clone()));
    assert_eq!(code, 0, "{list:#}");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items[0], other[0], "the other group's Service is kept");
    let services = items.iter().filter(|i| i["kind"] == "Service").count();
    assert_eq!(services, 2, "{list:#}");
}

/// The objects of an earlier run that this run does not generate any more (the
/// hash-suffixed ConfigMap of the old content) are removed; an item svcgen did not create,
/// whatever its name, stays.
#[test]
fn objects_no_longer_generated_are_removed() {
    let (old_map, first) = generated("ConfigMap");
    let look_alike = json!({ "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": { "name": format!("{old_map}x") }, "data": { "a": "b" } });
    let mut items = first["items"].as_array().unwrap().clone();
    items.push(look_alike.clone());
    let mut list: Value = serde_saphyr::from_str(&resource_list(
        &example("b-hybrid.toml"),
        Value::Array(items),
    ))
    .unwrap();
    list["functionConfig"]["data"]["set"] =
        Value::from("token_server.base_url=https://auth2.example.org\n");
    let (code, second) = run(&serde_saphyr::to_string(&list).unwrap());
    assert_eq!(code, 0, "{second:#}");
    let names: Vec<&str> = second["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "ConfigMap")
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&old_map.as_str()), "{names:?}");
    assert_eq!(
        names.len(),
        2,
        "the new ConfigMap and the look-alike: {names:?}"
    );
    assert!(names.contains(&format!("{old_map}x").as_str()), "{names:?}");
}

/// A syntax error in the function config never echoes the input (a passphrase there).
#[test]
fn a_yaml_error_does_not_quote_the_input() {
    let input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  kind: ConfigMap\n  data:\n    profile: \"passphrase = 'Hunter2-Secret'\n    set: [\n";
    let (code, output) = run_text(input);
    assert_eq!(code, 1, "{output}");
    assert!(output.contains("line "), "the position is given: {output}");
    assert!(!output.contains("Hunter2"), "{output}");
}

/// A NaN or infinity in one item is a warning on that item and its field path (no
/// value); the list is not refused, and the other items and svcgen's objects are there.
#[test]
fn a_nan_in_one_item_is_reported_on_that_item() {
    let items = "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: odd}\n  spec:\n    ratio: .nan\n    limit: -.inf\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: fine}\n";
    let (code, output) = run_text(&raw_list(items, &example("b-hybrid.toml")));
    assert_eq!(code, 0, "{output}");
    assert!(output.contains("kind: Deployment"), "{output}");
    assert!(output.contains("ratio: .nan"), "kept as written: {output}");
    assert!(output.contains("path: spec.ratio"), "{output}");
    assert!(output.contains("path: spec.limit"), "{output}");
    assert!(output.contains("name: odd"), "{output}");
}

/// More nodes than the limit is an error that names the limit.
#[test]
fn too_many_nodes_is_an_error_naming_the_limit() {
    let many = vec!["0"; svcgen::krm::yaml::MAX_NODES + 1].join(",");
    let input =
        format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{many}]\n");
    let (code, output) = run_text(&input);
    assert_eq!(code, 1);
    assert!(
        output.contains(&format!(
            "more than {} YAML nodes",
            svcgen::krm::yaml::MAX_NODES
        )),
        "{output}"
    );
}

/// The list a step of a pipeline gets: `items` and the function config `name` holding the
/// example profile with `set` lines over it.
fn step(name: &str, set: &str, items: Value) -> String {
    let mut list: Value =
        serde_saphyr::from_str(&resource_list(&example("b-hybrid.toml"), items)).unwrap();
    list["functionConfig"]["metadata"]["name"] = Value::from(name);
    list["functionConfig"]["data"]["set"] = Value::from(set);
    serde_saphyr::to_string(&list).unwrap()
}

/// The names of the items of `list` of `kind`.
fn names_of(list: &Value, kind: &str) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == kind)
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// Two svcgen function configs in one package (tenant a, then tenant b, on the same stream):
/// each replaces and prunes only its own objects; the other's are kept and reported.
#[test]
fn a_function_prunes_only_the_objects_of_its_own_config() {
    let (code, first) = run(&step("tenant-a", "deploy.name=tenant-a\n", json!([])));
    assert_eq!(code, 0, "{first:#}");
    let (code, both) = run(&step(
        "tenant-b",
        "deploy.name=tenant-b\n",
        first["items"].clone(),
    ));
    assert_eq!(code, 0, "{both:#}");
    let b_objects = names_of(&both, "ConfigMap")
        .into_iter()
        .filter(|n| n.starts_with("tenant-b"))
        .collect::<Vec<_>>();
    assert!(!b_objects.is_empty(), "{both:#}");
    assert!(
        names_of(&both, "Deployment").contains(&"tenant-a".to_string()),
        "tenant b's step keeps tenant a's objects: {both:#}"
    );
    // Tenant a again, its content changed (a new hash-suffixed ConfigMap): its old ConfigMap
    // goes, tenant b's objects all stay, and a result says they were kept.
    let (code, again) = run(&step(
        "tenant-a",
        "deploy.name=tenant-a\ntoken_server.base_url=https://auth2.example.org\n",
        both["items"].clone(),
    ));
    assert_eq!(code, 0, "{again:#}");
    let maps = names_of(&again, "ConfigMap");
    for b in &b_objects {
        assert!(maps.contains(b), "tenant b's {b} is kept: {maps:?}");
    }
    let a_maps: Vec<_> = maps.iter().filter(|n| n.starts_with("tenant-a")).collect();
    assert_eq!(
        a_maps.len(),
        1,
        "tenant a's old ConfigMap is pruned: {maps:?}"
    );
    assert_eq!(
        names_of(&again, "Deployment"),
        ["tenant-a", "tenant-b"],
        "{again:#}"
    );
    let reported = again["results"].as_array().unwrap().iter().any(|r| {
        r["message"]
            .as_str()
            .unwrap()
            .contains("function config /tenant-b")
    });
    assert!(reported, "{:#}", again["results"]);
}

/// A `%YAML` directive comes back as it came; a comment between items and CRLF line ends,
/// which the written list does not keep, are each named by a result.
#[test]
fn the_list_s_text_form_comes_back_or_a_result_says_what_changed() {
    let items = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n# between a and b\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n";
    let input = format!(
        "%YAML 1.2\n---\n{}",
        raw_list(items, &example("b-hybrid.toml"))
    );
    let (code, text) = run_text(&input);
    assert_eq!(code, 0, "{text}");
    assert!(text.starts_with("%YAML 1.2\n---\n"), "{text}");
    let list: Value = serde_saphyr::from_str(text.split_once("---\n").unwrap().1).unwrap();
    let messages: Vec<&str> = list["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    let comment_line = input
        .lines()
        .position(|l| l == "# between a and b")
        .unwrap()
        + 1;
    assert!(
        messages
            .iter()
            .any(|m| m.contains("comments between items")
                && m.contains(&format!("line {comment_line}"))),
        "{messages:?}"
    );
    let (code, crlf) = run_text(&input.replace('\n', "\r\n"));
    assert_eq!(code, 0, "{crlf}");
    assert!(!crlf.contains('\r'), "one line end throughout");
    assert!(crlf.contains("CRLF line ends are written as LF"), "{crlf}");
}
