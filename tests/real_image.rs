//! A profile that validates is one the real image can start with: each test holds a profile that
//! once passed silently and must fail or warn, or render what the image needs.

use crate::support;

use serde_json::Value;
use support::scenario::Test;
use support::{build_and_validate, objects, of_kind};

/// `google.secret_name_prefix` and `google.secret_version_id` apply when either adapter
/// is `google` (spec 2.4), not only the secret adapter: no false W0301, and both are rendered.
#[test]
fn google_secret_names_apply_with_the_google_config_adapter() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"google\"\n\
                   [google]\nproject_id = \"p\"\nsecret_name_prefix = \"team\"\nsecret_version_id = \"3\"\n";
    Test::new()
        .file("p.toml", profile)
        .args(["validate", "p.toml"])
        .stderr_lacks("W0301")
        .run();
    Test::new()
        .file("p.toml", profile)
        .args(["render", "-t", "dotenv", "p.toml"])
        .stdout_has("CN_GOOGLE_SECRET_NAME_PREFIX=team\n")
        .stdout_has("CN_GOOGLE_SECRET_VERSION_ID=3\n")
        .run();
}

fn pod(objects: &[Value]) -> &Value {
    &of_kind(objects, "Deployment")[0]["spec"]["template"]["spec"]
}

/// Renders `profile` as a kustomize base in `out/`; returns the run.
pub(crate) fn render_base(profile: &str) -> support::scenario::Ran {
    Test::new()
        .file("p.toml", profile)
        .args(["render", "p.toml", "--out-dir", "out", "-q"])
        .run()
}

const KUBERNETES_ADAPTERS: &str = "edition = \"B\"\n\
    [config]\nadapter = \"kubernetes\"\nkubernetes = { namespace = \"identity\", configmap = \"admin-config\" }\n\
    [secret]\nadapter = \"kubernetes\"\nkubernetes = { namespace = \"identity\", configmap = \"admin-secrets\" }\n\
    [token_server]\nbase_url = \"https://auth.example.org\"\n\
    [persistence.sql]\nhost = \"db\"\n";

/// The rules of a Role as (resource, verbs, resourceNames).
fn rules(role: &Value) -> Vec<(String, Vec<String>, Vec<String>)> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    role["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            assert_eq!(r["apiGroups"], serde_json::json!([""]));
            let resources = strings(&r["resources"]);
            assert_eq!(resources.len(), 1);
            (
                resources[0].clone(),
                strings(&r["verbs"]),
                strings(&r["resourceNames"]),
            )
        })
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// With kubernetes adapters the base has a ServiceAccount, a Role (get, update, patch
/// narrowed to the adapters' objects; list, watch, create on the resource) and a RoleBinding,
/// all named from the profile; the pods use the account and mount its token; DEPLOY.md says why.
#[test]
fn kubernetes_adapters_get_a_service_account_role_and_binding() {
    let ran = render_base(&format!(
        "{KUBERNETES_ADAPTERS}[deploy]\nname = \"ui\"\nnamespace = \"apps\"\n"
    ));
    let objects = self::objects(&ran.read("out/k8s.yaml"));
    let accounts = of_kind(&objects, "ServiceAccount");
    assert_eq!(accounts.len(), 1);
    assert_eq!(accounts[0]["metadata"]["name"], "ui");
    assert_eq!(accounts[0]["metadata"]["namespace"], "apps");
    let roles = of_kind(&objects, "Role");
    assert_eq!(roles.len(), 1);
    assert_eq!(roles[0]["metadata"]["name"], "ui-kubernetes-adapters");
    assert_eq!(
        roles[0]["metadata"]["namespace"], "identity",
        "where the objects are"
    );
    let by_name = strings(&["get", "update", "patch"]);
    let unnamed = strings(&["list", "watch", "create"]);
    assert_eq!(
        rules(roles[0]),
        [
            (
                "configmaps".into(),
                by_name.clone(),
                strings(&["admin-config"])
            ),
            ("configmaps".into(), unnamed.clone(), vec![]),
            // The spec's name, then the one the image reads (CN_SECRET_KUBERNETES_SECRET,
            // image default `jans`).
            (
                "secrets".into(),
                by_name,
                strings(&["admin-secrets", "jans"])
            ),
            ("secrets".into(), unnamed, vec![]),
        ]
    );
    let bindings = of_kind(&objects, "RoleBinding");
    assert_eq!(bindings.len(), 1);
    assert_eq!(bindings[0]["metadata"]["namespace"], "identity");
    assert_eq!(bindings[0]["roleRef"]["kind"], "Role");
    assert_eq!(bindings[0]["roleRef"]["name"], "ui-kubernetes-adapters");
    assert_eq!(
        bindings[0]["subjects"],
        serde_json::json!([{ "kind": "ServiceAccount", "name": "ui", "namespace": "apps" }])
    );
    assert_eq!(pod(&objects)["serviceAccountName"], "ui");
    assert_eq!(pod(&objects)["automountServiceAccountToken"], true);
    let notes = ran.read("out/DEPLOY.md");
    assert!(notes.contains("## Access to the Kubernetes API"), "{notes}");
    assert!(notes.contains("ServiceAccount `ui`"), "{notes}");
    assert!(notes.contains("cannot restrict"), "{notes}");
    if let Some(built) = build_and_validate(&ran.path("out")) {
        assert_eq!(of_kind(&self::objects(&built), "RoleBinding").len(), 1);
    }
}

/// Only the config adapter is kubernetes: the Role grants configmaps only, in the
/// config's namespace; the adapters' objects in two namespaces get a Role in each.
#[test]
fn the_role_grants_only_what_each_adapter_uses_where_it_is() {
    let ran = render_base(
        "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n\
         [token_server]\nbase_url = \"https://auth.example.org\"\n",
    );
    let objects = self::objects(&ran.read("out/k8s.yaml"));
    let roles = of_kind(&objects, "Role");
    assert_eq!(roles.len(), 1);
    assert_eq!(roles[0]["metadata"]["namespace"], "default");
    assert!(
        rules(roles[0])
            .iter()
            .all(|(resource, _, _)| resource == "configmaps")
    );
    build_and_validate(&ran.path("out"));

    let two =
        KUBERNETES_ADAPTERS.replacen("namespace = \"identity\"", "namespace = \"config-ns\"", 1);
    let ran = render_base(&two);
    let objects = self::objects(&ran.read("out/k8s.yaml"));
    let namespaces: Vec<&Value> = of_kind(&objects, "Role")
        .iter()
        .map(|r| &r["metadata"]["namespace"])
        .collect();
    assert_eq!(namespaces, ["config-ns", "identity"]);
    assert_eq!(of_kind(&objects, "RoleBinding").len(), 2);
    build_and_validate(&ran.path("out"));
}

/// `deploy.service_account` names an existing account: no RBAC is rendered, the pods
/// use it, and DEPLOY.md lists what it needs.
#[test]
fn an_existing_service_account_gets_no_rbac() {
    let ran = render_base(&format!(
        "{KUBERNETES_ADAPTERS}[deploy]\nservice_account = \"platform-admin\"\n"
    ));
    let objects = self::objects(&ran.read("out/k8s.yaml"));
    for kind in ["ServiceAccount", "Role", "RoleBinding"] {
        assert!(of_kind(&objects, kind).is_empty(), "{kind}");
    }
    assert_eq!(pod(&objects)["serviceAccountName"], "platform-admin");
    assert_eq!(pod(&objects)["automountServiceAccountToken"], true);
    let notes = ran.read("out/DEPLOY.md");
    assert!(
        notes.contains("`platform-admin`: svcgen renders no RBAC"),
        "{notes}"
    );
    assert!(notes.contains("secrets `admin-secrets`"), "{notes}");
    build_and_validate(&ran.path("out"));
}

/// Without a kubernetes adapter, no RBAC and no service account token in the pods.
#[test]
fn without_a_kubernetes_adapter_no_token_is_mounted() {
    let ran =
        render_base("edition = \"B\"\n[token_server]\nbase_url = \"https://auth.example.org\"\n");
    let objects = self::objects(&ran.read("out/k8s.yaml"));
    for kind in ["ServiceAccount", "Role", "RoleBinding"] {
        assert!(of_kind(&objects, kind).is_empty(), "{kind}");
    }
    assert_eq!(pod(&objects)["automountServiceAccountToken"], false);
    assert!(pod(&objects).get("serviceAccountName").is_none());
    let notes = ran.read("out/DEPLOY.md");
    assert!(
        notes.contains("automountServiceAccountToken: false"),
        "{notes}"
    );
    build_and_validate(&ran.path("out"));
}

/// The Role names the adapters' objects and namespace: a value Kubernetes refuses as
/// a name is an error at it (main rendered the adapters without any RBAC).
#[test]
fn an_adapter_object_that_cannot_be_named_in_a_role_is_refused() {
    Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n\
             kubernetes = { namespace = \"Identity NS\" }\n",
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("E0242")
        .stderr_has("`config.kubernetes.namespace` = \"Identity NS\"")
        .stderr_has("p.toml:4:")
        .run();
}

/// The plugin archives of one ConfigMap add up to more than Kubernetes' 1 MiB: refused
/// at the archive that passes the limit, with the size (files and keys: 3 + 9 + 1100000 + 7
/// bytes) and the limit, and nothing is written.
#[test]
fn a_configmap_of_plugin_archives_over_1_mib_is_refused() {
    let big = vec![7u8; 1_100_000];
    let test = Test::new()
        .file(
            "p.toml",
            "edition = \"A\"\ntoken_server = { base_hostname = \"auth.example.org\" }\n\
             admin_ui = { plugins = [\"small\", \"big\"] }\n[deploy.plugins]\n\
             small = { host = \"small.zip\", configmap = \"plugins\" }\n\
             big = { host = \"big.zip\", configmap = \"plugins\" }\n",
        )
        .file("small.zip", "zip");
    std::fs::write(test.path().join("big.zip"), big).unwrap();
    let ran = test
        .args(["render", "p.toml", "--out-dir", "out"])
        .code(1)
        .stderr_has("E0242")
        .stderr_has("the ConfigMap \"plugins\" would hold 1100019 bytes")
        .stderr_has("at most 1048576 bytes (1 MiB)")
        .stderr_has("p.toml:6:")
        .run();
    assert!(!ran.path("out").exists(), "nothing written");
}

/// The ConfigMap of the variables over 1 MiB is refused at the value that passes it.
#[test]
fn a_configmap_of_variables_over_1_mib_is_refused() {
    let profile = format!(
        "edition = \"B\"\ntoken_server = {{ base_url = \"https://auth.example.org\" }}\n\
         [env]\nLARGE = \"{}\"\n",
        "x".repeat(1_100_000)
    );
    Test::new()
        .file("p.toml", &profile)
        .args(["render", "-t", "k8s", "p.toml"])
        .code(1)
        .stderr_has("E0242")
        .stderr_has("the ConfigMap of the variables would hold")
        .stderr_has("p.toml:4:")
        .run();
}

/// DEPLOY.md lists each credential file the image opens at start, with its source, or
/// says that the profile gives none.
#[test]
fn deploy_notes_list_each_credential_file() {
    let ran = render_base(
        "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n\
         [secret]\nadapter = \"vault\"\nvault = { addr = \"https://vault.example.org\", verify = true }\n\
         [deploy.files]\n\"secret.vault.role_id_file\" = { secret = \"approle\", key = \"role_id\" }\n",
    );
    let notes = ran.read("out/DEPLOY.md");
    assert!(
        notes.contains("- `/etc/certs/vault_role_id` (`CN_SECRET_VAULT_ROLE_ID_FILE`, profile key `secret.vault.role_id_file`): from the Secret `approle`, key `role_id`"),
        "{notes}"
    );
    assert!(
        notes.contains("- `/etc/certs/vault_secret_id` (`CN_SECRET_VAULT_SECRET_ID_FILE`, profile key `secret.vault.secret_id_file`): **no source in the profile**"),
        "{notes}"
    );
}

/// DEPLOY.md has a section of facts about the real image, marked as such: edition A's
/// SSA file and plugin folder, the secret-name variable the image reads.
#[test]
fn deploy_notes_have_a_real_image_section() {
    let a = render_base(
        "edition = \"A\"\ntoken_server = { base_hostname = \"auth.example.org\" }\n\
         [secret]\nadapter = \"kubernetes\"\n",
    );
    let notes = a.read("out/DEPLOY.md");
    let section = notes
        .split("## The real image (facts about the image, not the spec)")
        .nth(1)
        .unwrap_or_else(|| panic!("{notes}"));
    for fact in [
        "`/etc/jans/conf/ssa`",
        "`/opt/flex/admin-ui/_plugins/<name>.zip`",
        "`CN_SECRET_KUBERNETES_SECRET` (image default `jans`)",
    ] {
        assert!(section.contains(fact), "{fact}: {section}");
    }
    let b = render_base(
        "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n",
    );
    let notes = b.read("out/DEPLOY.md");
    assert!(
        notes.contains("facts about the image, not the spec"),
        "{notes}"
    );
    assert!(
        !notes.contains("/etc/jans/conf/ssa"),
        "edition A only: {notes}"
    );
}

/// The guide's startup numbers (docs/guide.md) are those a render of the defaults states (one backend):
/// 1130 s in edition B with both locks' checks, 1730 s in edition A with them and its build
/// allowance (the timeline's worst case plus the margin; main counted one lock in B, none in A).
#[test]
fn the_guides_startup_numbers_match_a_render() {
    let guide = std::fs::read_to_string(support::repo().join("docs/guide.md")).unwrap();
    for (profile, seconds) in [
        (
            "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n",
            1130,
        ),
        (
            "edition = \"A\"\ntoken_server = { base_hostname = \"auth.example.org\" }\n",
            1730,
        ),
    ] {
        let notes = render_base(profile).read("out/DEPLOY.md");
        assert!(notes.contains(&format!(" = {seconds} s,\n")), "{notes}");
        assert!(
            guide.contains(&format!("{seconds} s")),
            "the guide states {seconds} s"
        );
    }
}

/// The image reads the Secret's name from CN_SECRET_KUBERNETES_SECRET (outside
/// the spec): set under `[env]` to the spec's name, the Role names that one Secret; a value that
/// is no Kubernetes name is refused at it.
#[test]
fn the_role_follows_the_secret_name_the_image_reads() {
    let ran = render_base(&format!(
        "{KUBERNETES_ADAPTERS}[env]\nCN_SECRET_KUBERNETES_SECRET = \"admin-secrets\"\n"
    ));
    let objects = objects(&ran.read("out/k8s.yaml"));
    let secrets: Vec<Vec<String>> = rules(of_kind(&objects, "Role")[0])
        .into_iter()
        .filter(|(resource, _, names)| resource == "secrets" && !names.is_empty())
        .map(|(_, _, names)| names)
        .collect();
    assert_eq!(secrets, [strings(&["admin-secrets"])]);
    Test::new()
        .file(
            "p.toml",
            &format!(
                "{KUBERNETES_ADAPTERS}[env]\nCN_SECRET_KUBERNETES_SECRET = \"Admin Secrets\"\n"
            ),
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("E0242")
        .stderr_has("\"Admin Secrets\": not a Kubernetes object name")
        .run();
}

/// A profile on the spec's defaults but its token server: edition B's secret adapter is then
/// `vault` without ever being written, and its AppRole files have no source.
const B_DEFAULT_ADAPTERS: &str =
    "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n";

/// The addresses of the services edition B's default adapters and database connect to.
const B_DEFAULT_SERVICES: &str = "[config.consul]\nhost = \"consul\"\n[secret.vault]\naddr = \"https://vault.example.org\"\nverify = true\n[persistence.sql]\nhost = \"db\"\n";

/// A credential file of an adapter the profile never wrote (edition B's default vault)
/// needs a source as much as a chosen one's: `validate`, `render` of a target that starts the
/// container and `svcgen krm` warn, at the edition (nothing more precise was written); a `.env`
/// and the docs start nothing and do not.
#[test]
fn a_default_adapters_credential_files_need_a_source() {
    let role_id = "`secret.vault.role_id_file` (CN_SECRET_VAULT_ROLE_ID_FILE) names /etc/certs/vault_role_id, and the profile gives no source for it";
    Test::new()
        .file("p.toml", B_DEFAULT_ADAPTERS)
        .args(["validate", "p.toml"])
        .stderr_has("W0331")
        .stderr_has(role_id)
        .stderr_has("/etc/certs/vault_secret_id")
        .stderr_has("p.toml:1:1")
        .run();
    for target in ["compose", "k8s", "k8s-env", "kustomization", "deploy-notes"] {
        Test::new()
            .file("p.toml", B_DEFAULT_ADAPTERS)
            .args(["render", "-t", target, "p.toml"])
            .stderr_has(role_id)
            .run();
    }
    render_base(B_DEFAULT_ADAPTERS)
        .again()
        .args(["render", "p.toml", "--out-dir", "out2"])
        .stderr_has(role_id)
        .run();
    for target in ["dotenv", "docs", "schema"] {
        Test::new()
            .file("p.toml", B_DEFAULT_ADAPTERS)
            .args(["render", "-t", target, "p.toml"])
            .stderr_lacks("W0331")
            .run();
    }
    Test::new()
        .stdin(&support::krm_list(B_DEFAULT_ADAPTERS))
        .arg("krm")
        .stdout_has("W0331")
        .stdout_has("/etc/certs/vault_secret_id")
        .run();
    // The sources a real deployment needs silence it, as they do a written adapter's (with the
    // addresses of the services the default adapters and database reach): Secrets, for a profile
    // that says it is deployed on Kubernetes only.
    Test::new()
        .file(
            "p.toml",
            &format!(
                "{B_DEFAULT_ADAPTERS}[deploy]\ncompose = false\n[deploy.files]\n\
                 \"secret.vault.role_id_file\" = {{ secret = \"approle\", key = \"role_id\" }}\n\
                 \"secret.vault.secret_id_file\" = {{ secret = \"approle\", key = \"secret_id\" }}\n\
                 {B_DEFAULT_SERVICES}"
            ),
        )
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
}

/// Edition A's token server host left at the spec's `localhost` in a profile with no
/// `[deploy]` table: every target that starts the container points its users at the pod, so
/// `validate` and those renders warn (at the edition); a `.env` does not.
#[test]
fn a_loopback_default_host_warns_without_a_deploy_table() {
    let profile =
        "edition = \"A\"\nallow = [\"kube-api-config\"]\n[secret]\nadapter = \"kubernetes\"\n";
    let left = "`token_server.base_hostname` is left at \"localhost\"";
    Test::new()
        .file("p.toml", profile)
        .args(["validate", "p.toml"])
        .stderr_has("W0333")
        .stderr_has(left)
        .stderr_has("p.toml:1:1")
        .run();
    for target in ["compose", "k8s", "k8s-env"] {
        Test::new()
            .file("p.toml", profile)
            .args(["render", "-t", target, "p.toml"])
            .stderr_has(left)
            .run();
    }
    Test::new()
        .file("p.toml", profile)
        .args(["render", "-t", "dotenv", "p.toml"])
        .stderr_lacks("W0333")
        .run();
    // Any spelling of the machine itself (host names are case-insensitive; 0.0.0.0 reaches it).
    for host in ["LOCALHOST", "0.0.0.0"] {
        Test::new()
            .file(
                "p.toml",
                &format!("{profile}[token_server]\nbase_hostname = \"{host}\"\n"),
            )
            .args(["validate", "p.toml"])
            .stderr_has(&format!("`token_server.base_hostname` is \"{host}\""))
            .run();
    }
    // Written, it warns at the value; a real host name is clean.
    Test::new()
        .file(
            "p.toml",
            &format!("{profile}[token_server]\nbase_hostname = \"127.0.0.1\"\n"),
        )
        .args(["render", "-t", "compose", "p.toml"])
        .stderr_has("`token_server.base_hostname` is \"127.0.0.1\"")
        .stderr_has("p.toml:6:")
        .run();
    Test::new()
        .file(
            "p.toml",
            // Edition A's SSA file has a source (on Kubernetes only, as the profile says).
            &format!("{profile}[token_server]\nbase_hostname = \"auth.example.org\"\n[config.consul]\nhost = \"consul\"\n[persistence.ldap]\nurl = \"ldap:1636\"\n[deploy]\ncompose = false\n[deploy.files]\nssa_file = {{ secret = \"ssa\", key = \"ssa\" }}\n"),
        )
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
}

/// The services the container connects to: the consul host, the vault address and the
/// LDAP, Couchbase and SQL addresses all default to `localhost`, which in compose or Kubernetes
/// is the container itself. Left at that default, every target that starts the container warns
/// (W0333, naming the key and its variable); a loopback the profile writes may be a sidecar and
/// is taken as meant; a `.env` starts nothing. `svcgen init` asks for each address instead.
#[test]
fn a_service_address_left_at_loopback_warns() {
    // Each clean but for one service left at its default (on the last main: clean, exit 0).
    let cases = [
        (
            "B",
            "[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n",
            "config.consul.host",
            "CN_CONFIG_CONSUL_HOST",
        ),
        (
            "B",
            "[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n",
            "persistence.sql.host",
            "CN_SQL_DB_HOST",
        ),
        (
            "B",
            "[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence]\ntype = \"couchbase\"\n[deploy]\ncompose = false\n[deploy.files]\n\"persistence.couchbase.password_file\" = { secret = \"cb\", key = \"password\" }\n[deploy.image]\ntag = \"5.1.6\"\n",
            "persistence.couchbase.url",
            "CN_COUCHBASE_URL",
        ),
        (
            "A",
            "[token_server]\nbase_hostname = \"auth.example.org\"\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[deploy]\ncompose = false\n[deploy.files]\nssa_file = { secret = \"ssa\", key = \"ssa\" }\n",
            "persistence.ldap.url",
            "CN_LDAP_URL",
        ),
        (
            "B",
            "[config]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n[deploy]\ncompose = false\n[deploy.files]\n\"secret.vault.role_id_file\" = { secret = \"approle\", key = \"role_id\" }\n\"secret.vault.secret_id_file\" = { secret = \"approle\", key = \"secret_id\" }\n",
            "secret.vault.addr",
            "CN_SECRET_VAULT_ADDR",
        ),
    ];
    for (edition, rest, key, env) in cases {
        let profile = format!("edition = \"{edition}\"\nallow = [\"kube-api-config\"]\n{rest}");
        let warning = format!("`{key}` is left at \"");
        let help = format!("set `{key}` to the address of the service");
        let ran = Test::new()
            .file("p.toml", &profile)
            .args(["validate", "p.toml"])
            .stderr_has("warning[W0333]")
            .stderr_has(&warning)
            .stderr_has("the container would connect to itself")
            .stderr_has(&help)
            .stderr_has(env)
            .run();
        let warnings = ran.stderr().matches("warning[").count();
        assert_eq!(
            warnings,
            1,
            "{key}: one warning, for the one cause:\n{}",
            ran.stderr()
        );
        // The deployments the profile is for (`-t compose` of one opted out of compose is
        // refused).
        let opted_out = |target: &&str| *target == "compose" && profile.contains("compose = false");
        for target in ["compose", "k8s", "k8s-env"]
            .iter()
            .filter(|t| !opted_out(t))
        {
            Test::new()
                .file("p.toml", &profile)
                .args(["render", "-t", target, "p.toml"])
                .stderr_has(&warning)
                .run();
        }
        Test::new()
            .file("p.toml", &profile)
            .args(["render", "-t", "dotenv", "p.toml"])
            .stderr_lacks("W0333")
            .run();
        Test::new()
            .stdin(&support::krm_list(&profile))
            .arg("krm")
            .stdout_has("W0333")
            .stdout_has(key)
            .run();
        // Written, even as `localhost` (a sidecar in the same pod), it is what the profile means.
        let (table, leaf) = key.rsplit_once('.').unwrap();
        let value = if key == "secret.vault.addr" {
            "\"http://localhost:8200\""
        } else if key == "persistence.ldap.url" {
            "\"localhost:1636\""
        } else {
            "\"localhost\""
        };
        Test::new()
            .file("p.toml", &format!("{profile}[{table}]\n{leaf} = {value}\n"))
            .args(["validate", "--deny-warnings", "p.toml"])
            .stderr_lacks("warning")
            .run();
        // Written empty, it is left out and the image uses its default: the same warning, at
        // the empty value (on the last main: no warning at all).
        let emptied = format!("{profile}[{table}]\n{leaf} = \"\"\n");
        let line = emptied.lines().count();
        Test::new()
            .file("p.toml", &emptied)
            .args(["validate", "p.toml"])
            .stderr_has(&format!("`{key}` is empty, so the image uses its default"))
            .stderr_has(&format!("p.toml:{line}:"))
            .run();
        Test::new()
            .file("p.toml", &emptied)
            .args(["render", "-t", "dotenv", "p.toml"])
            .stderr_lacks("W0333")
            .run();
    }
    // A base that writes the address counts as written: the child left nothing at the default.
    Test::new()
        .file("base.toml", "edition = \"B\"\nallow = [\"kube-api-config\"]\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n")
        .file("p.toml", "extends = \"base.toml\"\n[wait]\nmax_time = 450\n")
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
    // `svcgen init` asks for every address a deployment needs: its profile validates clean.
    for args in [
        &["--persistence", "couchbase"][..],
        &["--edition", "A", "--persistence", "couchbase"],
        &[],
        &["--edition", "A"],
    ] {
        let ran = Test::new()
            .arg("init")
            .args(args)
            .args(["-o", "i.toml"])
            .run();
        let text = ran.read("i.toml");
        assert!(
            !text
                .lines()
                .any(|l| l.contains("\"localhost") && !l.starts_with('#')),
            "{text}"
        );
        ran.again()
            .args(["validate", "--deny-warnings", "i.toml"])
            .stderr_lacks("warning")
            .run();
    }
}
