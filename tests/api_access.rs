//! The pods' access to the Kubernetes API holds in every case a profile can write (an emptied
//! object name, a RoleBinding's namespace, a client with no API configuration where it runs), and
//! lint says what the model knows of the variables outside the spec that the image reads. Each
//! profile here passed `validate` silently on the main these tests were written against.

use crate::support;

use serde_json::{Value, json};
use std::path::Path;
use support::scenario::Test;
use support::{objects, of_kind};

/// Edition B with both adapters `kubernetes`, clean but for what each test adds.
const ADAPTERS: &str = "edition = \"B\"\n\
    [token_server]\nbase_url = \"https://auth.example.org\"\n\
    [persistence.sql]\nhost = \"db\"\n";

/// `ADAPTERS` with its `[config]` and `[secret]` tables' `kubernetes` inline tables.
fn adapters(config: &str, secret: &str) -> String {
    format!(
        "{ADAPTERS}[config]\nadapter = \"kubernetes\"\nkubernetes = {{ {config} }}\n\
         [secret]\nadapter = \"kubernetes\"\nkubernetes = {{ {secret} }}\n"
    )
}

/// `svcgen krm` of `profile` (no items): its results.
fn krm_results(profile: &str) -> Vec<Value> {
    let ran = Test::new()
        .stdin(&support::krm_list(profile))
        .arg("krm")
        .code_is_not(2)
        .run();
    let out: Value = serde_saphyr::from_str(&ran.stdout()).unwrap();
    out["results"].as_array().cloned().unwrap_or_default()
}

/// The codes of `results` (krm).
fn codes(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .filter_map(|r| r["tags"]["code"].as_str().map(str::to_string))
        .collect()
}

/// The objects of the base in `out` as `kubectl kustomize` builds it, accepted by
/// `kubernetes-validate --strict` (see [`support::build_and_validate`]).
fn build_and_validate(out: &Path) -> Option<Vec<Value>> {
    support::build_and_validate(out).map(|built| objects(&built))
}

/// An empty name or namespace of a kubernetes adapter's object left its
/// variable unset: the image used a default object of its own, svcgen rendered no RBAC at all
/// and DEPLOY.md said "No adapter is kubernetes". Refused at the value, in the profile, by
/// `--set KEY=` and in `svcgen krm`, with the spec's default to fall back to.
#[test]
fn an_empty_adapter_object_name_or_namespace_is_refused() {
    let profile = adapters("configmap = ''", "configmap = '', namespace = \"sec\"");
    let ran = Test::new()
        .file("p.toml", &profile)
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0210]: `config.kubernetes.configmap` is empty")
        .stderr_has("error[E0210]: `secret.kubernetes.configmap` is empty")
        .stderr_has("leaves CN_CONFIG_KUBERNETES_CONFIGMAP unset")
        .stderr_has("the Role svcgen renders cannot name")
        .stderr_has("remove the key to use the spec's default \"svc\"")
        .stderr_has("p.toml:8:")
        .run();
    assert_eq!(
        ran.stderr().matches("error[").count(),
        2,
        "{}",
        ran.stderr()
    );
    Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "k8s", "p.toml"])
        .code(1)
        .stdout_is("")
        .stderr_has("E0210")
        .run();
    // `--set KEY=` is the empty string too, at its own place.
    let clean = adapters("namespace = \"identity\"", "namespace = \"identity\"");
    let clean = format!("{clean}[deploy]\nnamespace = \"identity\"\n");
    for key in [
        "config.kubernetes.namespace",
        "config.kubernetes.configmap",
        "secret.kubernetes.namespace",
        "secret.kubernetes.configmap",
    ] {
        Test::new()
            .file("p.toml", &clean)
            .args(["validate", "p.toml", "--set", &format!("{key}=")])
            .code(1)
            .stderr_has(&format!("error[E0210]: `{key}` is empty"))
            .stderr_has("--set:1:")
            .run();
    }
    let results = krm_results(&profile);
    assert_eq!(
        codes(&results).iter().filter(|c| *c == "E0210").count(),
        2,
        "{results:#?}"
    );
    // Without a kubernetes adapter the keys are not applied: no refusal of their emptiness.
    Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\n[config.kubernetes]\nconfigmap = \"\"\n",
        )
        .args(["validate", "p.toml"])
        .stderr_lacks("E0210")
        .run();
}

/// The name is checked as a Kubernetes name whatever else is empty (main
/// dropped the object with its empty namespace, and "Svc Map" went unchecked).
#[test]
fn an_object_name_is_checked_beside_an_empty_namespace() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n\
                   kubernetes = { namespace = '', configmap = \"Svc Map\" }\n\
                   [persistence.sql]\nhost = \"db\"\n";
    Test::new()
        .file("p.toml", profile)
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0210]: `config.kubernetes.namespace` is empty")
        .stderr_has("error[E0242]: `config.kubernetes.configmap` = \"Svc Map\"")
        .stderr_has("p.toml:4:44")
        .run();
}

/// With `deploy.namespace` unset the ServiceAccount and the Deployment land
/// in kubectl's context namespace, while the RoleBindings bind the account in the namespace the
/// profile gives an adapter: W0340 in validate, render -t k8s and krm, with the fix; set, the
/// bindings bind the account where it is, and the base builds and validates.
#[test]
fn role_bindings_need_the_namespace_of_the_service_account() {
    let profile = adapters("namespace = \"identity\"", "namespace = \"other\"");
    let ran = Test::new()
        .file("p.toml", &profile)
        .args(["validate", "p.toml", "--deny-warnings"])
        .code(1)
        .stderr_has("warning[W0340]: `deploy.namespace` is unset")
        .stderr_has("bind the service account `identity/admin-ui`")
        .stderr_has("set `deploy.namespace`")
        .stderr_has("p.toml:")
        .run();
    assert_eq!(
        ran.stderr().matches("[W0340]").count(),
        1,
        "{}",
        ran.stderr()
    );
    Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "k8s", "p.toml"])
        .stderr_has("W0340")
        .stdout_has("kind: RoleBinding")
        .run();
    Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "k8s-env", "p.toml"])
        .stderr_lacks("W0340")
        .run();
    assert!(codes(&krm_results(&profile)).contains(&"W0340".to_string()));
    // The editor shows it too, at the adapter's namespace (line 8, 0-based 7).
    let dir = tempfile::tempdir().unwrap();
    let uri = support::lsp::file_uri(&dir.path().join("p.toml"));
    let mut client = support::lsp::Client::opened(&uri, &profile);
    let published = client.diagnostics(&uri, 1);
    let binding: Vec<&Value> = published.iter().filter(|d| d["code"] == "W0340").collect();
    assert_eq!(binding.len(), 1, "{published:#?}");
    assert_eq!(binding[0]["range"]["start"]["line"], 7);
    assert_eq!(client.shutdown(), Some(0));

    // Set: no warning, and each RoleBinding binds the account in its own namespace.
    // (The compose file --out-dir also writes is acknowledged: W0341, below.)
    let set = format!("allow = [\"kube-api-config\"]\n{profile}[deploy]\nnamespace = \"apps\"\n");
    let ran = Test::new()
        .file("p.toml", &set)
        .args(["render", "p.toml", "--out-dir", "out", "--deny-warnings"])
        .stderr_lacks("W0340")
        .run();
    let rendered = objects(&ran.read("out/k8s.yaml"));
    let bindings = of_kind(&rendered, "RoleBinding");
    assert_eq!(bindings.len(), 2);
    for binding in &bindings {
        assert_eq!(
            binding["subjects"],
            json!([{ "kind": "ServiceAccount", "name": "admin-ui", "namespace": "apps" }])
        );
    }
    assert_eq!(
        of_kind(&rendered, "ServiceAccount")[0]["metadata"]["namespace"],
        "apps"
    );
    if let Some(built) = build_and_validate(&ran.path("out")) {
        assert_eq!(of_kind(&built, "RoleBinding").len(), 2);
        assert_eq!(of_kind(&built, "Role").len(), 2);
    }
    // The adapters' namespaces left at the spec's default: nothing the profile wrote is guessed.
    Test::new()
        .file("p.toml", &adapters("", ""))
        .args(["render", "-t", "k8s", "p.toml"])
        .stderr_lacks("W0340")
        .run();
}

/// `use_kube_config = true` in a pod loads `$HOME/.kube/config`, which the
/// pod has not (the spec: "only useful outside a container"): W0341 in every target that starts
/// the container in a cluster, and krm; a `.env` starts nothing.
#[test]
fn use_kube_config_in_a_pod_warns() {
    let profile = adapters(
        "namespace = \"identity\", use_kube_config = true",
        "namespace = \"identity\"",
    );
    let profile = format!("{profile}[deploy]\nnamespace = \"identity\"\n");
    for target in ["k8s", "k8s-env", "kustomization", "deploy-notes"] {
        Test::new()
            .file("p.toml", &profile)
            .args(["render", "-t", target, "p.toml"])
            .stderr_has("warning[W0341]: `config.kubernetes.use_kube_config` = true in a pod")
            .stderr_has("$HOME/.kube/config")
            .stderr_has("p.toml:8:")
            .run();
    }
    Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "dotenv", "p.toml"])
        .stderr_lacks("W0341")
        .run();
    assert!(codes(&krm_results(&profile)).contains(&"W0341".to_string()));
}

/// A kubernetes adapter rendered for compose has no in-cluster
/// configuration (no KUBERNETES_SERVICE_HOST, no token): W0341 names it per adapter; the
/// Kubernetes targets do not warn; `allow` acknowledges it.
#[test]
fn a_kubernetes_adapter_in_compose_warns() {
    let profile = adapters("namespace = \"identity\"", "namespace = \"identity\"");
    let profile = format!("{profile}[deploy]\nnamespace = \"identity\"\n");
    let ran = Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "compose", "p.toml"])
        .stderr_has("warning[W0341]: a kubernetes adapter rendered for compose")
        .stderr_has("KUBERNETES_SERVICE_HOST")
        .stderr_has("fails at its wait for the configmaps")
        .stderr_has("fails at its wait for the secrets")
        .run();
    assert_eq!(ran.stderr().matches("[W0341]").count(), 2);
    Test::new()
        .file("p.toml", &profile)
        .args(["validate", "--deny-warnings", "p.toml"])
        .code(1)
        .stderr_has("W0341")
        .run();
    for target in ["k8s", "dotenv"] {
        Test::new()
            .file("p.toml", &profile)
            .args(["render", "-t", target, "p.toml"])
            .stderr_lacks("W0341")
            .run();
    }
    // A KRM function renders for a cluster: no compose warning there.
    assert!(!codes(&krm_results(&profile)).contains(&"W0341".to_string()));
    Test::new()
        .file("p.toml", &format!("allow = [\"W0341\"]\n{profile}"))
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
}

/// The variables outside the spec that the image reads (the model's facts
/// about the image) are said so by lint, with no "did you mean" of a spec name; one the model
/// does not know stays "not in the spec".
#[test]
fn lint_says_the_image_reads_the_variables_it_reads() {
    let env = "CN_SECRET_KUBERNETES_SECRET=svc\nCN_CONFIG_CONSUL_NAMESPACE=team\nGLUU_SSA_FILE=/etc/jans/conf/other-ssa\nCN_NOT_A_THING=1\n";
    let ran = Test::new()
        .file("l.env", env)
        .args(["lint", "--edition", "A", "l.env"])
        .stderr_has("`CN_SECRET_KUBERNETES_SECRET` is not in the spec, but the image reads it")
        .stderr_has(
            "where the spec documents CN_SECRET_KUBERNETES_CONFIGMAP (image default `jans`)",
        )
        .stderr_has("`CN_CONFIG_CONSUL_NAMESPACE` is not in the spec, but the image reads it")
        .stderr_has("`GLUU_SSA_FILE` is not in the spec, but the image reads it")
        .stderr_has("`CN_NOT_A_THING` is not in the spec: svcgen does not check it")
        .stderr_lacks("CN_SECRET_KUBERNETES_NAMESPACE")
        .stderr_lacks("CN_CONFIG_CONSUL_SCHEME")
        .stderr_lacks("old prefix")
        .run();
    assert_eq!(
        ran.stderr()
            .matches("not in the spec, read by the image")
            .count(),
        3,
        "{}",
        ran.stderr()
    );
    // The SSA file is edition A's: edition B's image does not read it.
    Test::new()
        .file("l.env", "GLUU_SSA_FILE=/x\n")
        .args(["lint", "--edition", "B", "l.env"])
        .stderr_lacks("read by the image")
        .run();
}

/// `[env] CN_SECRET_KUBERNETES_SECRET`, the variable DEPLOY.md tells the
/// user to set, got W0306 "did you mean CN_SECRET_KUBERNETES_NAMESPACE?". A variable the image
/// reads (a fact of the model) is passed through as what it is: no warning (following DEPLOY.md
/// must not need `allow`), no suggestion, and it reaches the output. Another name still warns.
#[test]
fn env_passthrough_of_a_variable_the_image_reads_has_no_false_suggestion() {
    let profile = format!(
        "{}[env]\nCN_SECRET_KUBERNETES_SECRET = \"svc\"\n",
        adapters("", "")
    );
    Test::new()
        .file("p.toml", &profile)
        .args(["validate", "p.toml"])
        .stderr_lacks("CN_SECRET_KUBERNETES_SECRET")
        .stderr_lacks("did you mean")
        .run();
    Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "dotenv", "p.toml"])
        .stdout_has("CN_SECRET_KUBERNETES_SECRET=svc")
        .stderr_lacks("W0306")
        .run();
    Test::new()
        .file(
            "p.toml",
            &profile.replace("KUBERNETES_SECRET", "KUBERNETES_SECRTE"),
        )
        .args(["validate", "p.toml"])
        .stderr_has("warning[W0306]")
        .run();
    // Edition A's SSA file moved by [env] is the documented way: clean; emptied, it names no
    // file: refused (E0251), a deploy-time value is not.
    let a = "edition = \"A\"\n[env]\nGLUU_SSA_FILE = ";
    Test::new()
        .file("p.toml", &format!("{a}\"/etc/ssa/x\"\n"))
        .args(["validate", "p.toml"])
        .stderr_lacks("W0306")
        .stderr_lacks("not a variable of the spec")
        .run();
    Test::new()
        .file("p.toml", &format!("{a}\"\"\n"))
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0251]: `GLUU_SSA_FILE` is empty: it names no SSA file")
        .stderr_has("p.toml:3:17")
        .run();
    Test::new()
        .file("p.toml", &format!("{a}{{ deploy_env = \"SSA\" }}\n"))
        .args(["validate", "p.toml"])
        .stderr_lacks("E0251")
        .run();
}
