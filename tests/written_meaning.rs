//! What svcgen writes says what it means: a SARIF URI names the very file (its bytes), a KRM
//! result about a `data.set` line gives that line, `init --schema` cannot write a second line
//! into the profile, and a vault namespace hvac cannot send in its header is refused.

use crate::support::scenario::Test;
use std::os::unix::ffi::OsStrExt;

#[test]
fn a_sarif_uri_of_a_file_name_that_is_not_utf8_encodes_its_bytes() {
    let test = Test::new().file(".git/HEAD", "ref: refs/heads/main\n");
    let name = std::ffi::OsStr::from_bytes(b"p\xff.toml");
    std::fs::write(
        test.path().join(name),
        "edition = \"B\"\n[config]\ncolour = 1\n",
    )
    .unwrap();
    let ran = test
        .args(["validate", "--format", "sarif"])
        .arg(name)
        .code(1)
        .run();
    let sarif: serde_json::Value = serde_json::from_slice(&ran.output.stdout).unwrap();
    let uris: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(!uris.is_empty());
    assert!(uris.iter().all(|u| *u == "p%FF.toml"), "{uris:?}");
}

#[test]
fn a_krm_result_about_a_set_line_gives_its_line_in_data_set() {
    let profile =
        std::fs::read_to_string(crate::support::repo().join("examples/b-hybrid.toml")).unwrap();
    let list = serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [],
        "functionConfig": {
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": { "name": "p" },
            "data": { "profile": profile, "set": "deploy.replicas=3\n\n  deploy.replicas=-4\n" }
        }
    });
    let ran = Test::new()
        .arg("krm")
        .stdin(&serde_saphyr::to_string(&list).unwrap())
        .code(1)
        .run();
    let out: serde_json::Value =
        serde_saphyr::from_str(&String::from_utf8(ran.output.stdout.clone()).unwrap()).unwrap();
    let error = out["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["field"]["path"] == "data.set")
        .unwrap_or_else(|| panic!("{out:#}"));
    assert_eq!(error["tags"]["line"], "3", "{error}");
    assert_eq!(error["tags"]["column"], "19", "{error}");
}

#[test]
fn init_refuses_a_schema_reference_with_a_line_break() {
    for schema in ["x.json\nedition = \"A\"", "x.json\rmore", "x\u{7}.json"] {
        Test::new()
            .args(["init", "--edition", "B", "--schema", schema, "-o", "p.toml"])
            .code(2)
            .stderr_has("control character")
            .run()
            .again()
            .args(["validate", "p.toml"])
            .code(2)
            .run();
    }
}

#[test]
fn a_vault_namespace_above_latin1_is_refused_as_hvac_cannot_send_it() {
    Test::new()
        .profile(
            "edition = \"B\"\n[secret]\nadapter = \"vault\"\n[secret.vault]\nnamespace = \"tenant-\u{101}\"\n",
        )
        .args(["validate", "profile.toml"])
        .code(1)
        .stderr_has("Latin-1")
        .stderr_has("X-Vault-Namespace")
        .run();
}
