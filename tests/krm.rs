//! `svcgen krm` fed `ResourceList`s on stdin, as kpt, kustomize and Argo CD run it: items kept,
//! objects added, diagnostics as results, exit 1 on an invalid profile or input.

mod support;

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
    let output = svcgen()
        .arg("krm")
        .current_dir(repo().join("examples"))
        .write_stdin(input)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let list: Value = serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (output.status.code().unwrap(), list)
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
    // Its kubernetes adapters read and write their objects through the API (issue 21, class 1).
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
