//! The files the image opens at start: each needs a source that the deployment rendered mounts
//! (compose a `host` file, Kubernetes a Secret or ConfigMap key), edition A's SSA file included; an
//! empty path, a mount over a path the image writes and one Secret created twice are refused or
//! merged. Every profile here passes `validate` silently on the main these tests were written
//! against (or is refused there for a key that now exists).

use crate::support;

use serde_json::Value;
use support::scenario::{Ran, Test};
use support::{build_and_validate, objects, of_kind};

/// Edition B with kubernetes adapters and couchbase (the services written): what it deploys
/// needs only the couchbase password file.
const COUCHBASE: &str = "edition = \"B\"\n\
    [config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n\
    [persistence]\ntype = \"couchbase\"\ncouchbase = { url = \"cb.example.org\" }\n\
    [token_server]\nbase_url = \"https://auth.example.org\"\n\
    [deploy.image]\ntag = \"5.1.6\"\n";

/// Edition A with kubernetes adapters and LDAP (the services written): it reads no credential
/// file, only the image's SSA file.
const EDITION_A: &str = "edition = \"A\"\n\
    [config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n\
    [persistence.ldap]\nurl = \"ldap.example.org:1636\"\n\
    [token_server]\nbase_hostname = \"auth.example.org\"\n";

/// Edition B with a kubernetes config adapter and the vault secret adapter, its secret id file
/// given both sources: what it deploys needs only the AppRole role id file. (Edition B's image
/// reads the couchbase password from its secret backend when the file is missing, so that file
/// is no longer one it needs.)
const VAULT_ROLE: &str = "edition = \"B\"\n\
    [config]\nadapter = \"kubernetes\"\n\
    [secret]\nadapter = \"vault\"\nvault = { addr = \"https://vault.example.org:8200\", verify = true }\n\
    [persistence.sql]\nhost = \"db.example.org\"\n\
    [token_server]\nbase_url = \"https://auth.example.org\"\n\
    [deploy.files.\"secret.vault.secret_id_file\"]\nhost = \"pw\"\nsecret = \"approle\"\nkey = \"secret_id\"\n";

const ROLE_FILE: &str =
    "`secret.vault.role_id_file` (CN_SECRET_VAULT_ROLE_ID_FILE) names /etc/certs/vault_role_id";

/// Every target that starts the container, rendered alone.
const STARTING: [&str; 5] = ["compose", "k8s-env", "k8s", "kustomization", "deploy-notes"];
const KUBERNETES: [&str; 4] = ["k8s-env", "k8s", "kustomization", "deploy-notes"];

/// `svcgen validate` of `profile`, beside the host file `pw` (its checks added before `run`).
fn validate(profile: &str) -> Test {
    Test::new()
        .file("p.toml", profile)
        .file("pw", "secret")
        .args(["validate", "p.toml"])
}

/// `svcgen render -t TARGET` of `profile`, beside the host file `pw`.
fn render(profile: &str, target: &str) -> Test {
    Test::new()
        .file("p.toml", profile)
        .file("pw", "secret")
        .args(["render", "-t", target, "p.toml"])
}

/// The number of W0331 warnings of a run.
fn credential_warnings(ran: &Ran) -> usize {
    ran.stderr().matches("warning[W0331]").count()
}

/// Findings 5 and 6: a Secret source reaches Kubernetes only, a host source compose only. Each
/// deployment rendered without a source that it mounts warns, naming it; `validate` (every
/// target) gives one warning for the one file, naming the deployment it lacks one in.
#[test]
fn a_source_reaches_only_the_deployment_that_mounts_it() {
    let secret_only = format!(
        "{VAULT_ROLE}[deploy.files]\n\"secret.vault.role_id_file\" = {{ secret = \"cb\", key = \"password\" }}\n"
    );
    let ran = validate(&secret_only)
        .stderr_has(ROLE_FILE)
        .stderr_has("has no `host`, which compose (-t compose) mounts")
        .stderr_has("p.toml:16:1")
        .stderr_has("`deploy.compose = false`")
        .run();
    assert_eq!(credential_warnings(&ran), 1, "{}", ran.stderr());
    render(&secret_only, "compose")
        .stderr_has("warning[W0331]")
        .stderr_has(ROLE_FILE)
        .stdout_lacks(":/etc/certs/vault_role_id")
        .run();
    for target in KUBERNETES {
        render(&secret_only, target).stderr_lacks("W0331").run();
    }

    let host_only = format!(
        "{VAULT_ROLE}[deploy.files]\n\"secret.vault.role_id_file\" = {{ host = \"pw\" }}\n"
    );
    let ran = validate(&host_only)
        .stderr_has(
            "has no `secret` or `configmap`, which Kubernetes (-t k8s-env,k8s,kustomization,deploy-notes) mounts",
        )
        .run();
    assert_eq!(credential_warnings(&ran), 1, "{}", ran.stderr());
    for target in KUBERNETES {
        render(&host_only, target)
            .stderr_has("warning[W0331]")
            .stderr_has(ROLE_FILE)
            .run();
    }
    let k8s = render(&host_only, "k8s").run();
    let deployment = objects(&k8s.stdout());
    let pod = &of_kind(&deployment, "Deployment")[0]["spec"]["template"]["spec"];
    assert!(
        !pod.to_string()
            .contains("\"mountPath\":\"/etc/certs/vault_role_id\""),
        "no volume for a host file: {pod}"
    );
    render(&host_only, "compose").stderr_lacks("W0331").run();
    // DEPLOY.md says the host file reaches compose only ("the the" is gone).
    render(&host_only, "deploy-notes")
        .stdout_has(
            "from the host file `pw`, which only compose mounts: **no source for Kubernetes**",
        )
        .stdout_lacks("the the")
        .run();
    both_sources_mount_the_file_in_each_deployment();
}

/// The same cause in several deployments is one warning naming them all; a profile that says how
/// it is deployed (`deploy.compose = false`) is asked only for that deployment's sources, and
/// `render -t compose` of it does not ask either; saying neither is refused.
#[test]
fn one_warning_per_file_naming_every_deployment_without_a_source() {
    let ran = validate(VAULT_ROLE)
        .stderr_has(
            "(without a source in compose (-t compose) nor Kubernetes (-t k8s-env,k8s,kustomization,deploy-notes))",
        )
        .run();
    assert_eq!(credential_warnings(&ran), 1, "{}", ran.stderr());
    let kubernetes_only = format!(
        "{VAULT_ROLE}[deploy]\ncompose = false\n[deploy.files]\n\"secret.vault.role_id_file\" = {{ secret = \"cb\", key = \"password\" }}\n"
    );
    Test::new()
        .file("p.toml", &kubernetes_only)
        .file("pw", "secret")
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
    // Asked for by name, the deployment the profile opts out of is refused, with the reason.
    render(&kubernetes_only, "compose")
        .code(1)
        .stderr_has("error[E0214]")
        .stderr_has("the profile says it is not deployed with compose (`deploy.compose = false`)")
        .stdout_lacks("services:")
        .run();
    // It still warns of what Kubernetes lacks.
    let without = format!("{VAULT_ROLE}[deploy]\ncompose = false\n");
    let ran = validate(&without)
        .stderr_has("(without a source in Kubernetes (")
        .stderr_lacks("compose (-t compose)")
        .run();
    assert_eq!(credential_warnings(&ran), 1, "{}", ran.stderr());
    Test::new()
        .file(
            "p.toml",
            &format!("{VAULT_ROLE}[deploy]\ncompose = false\nkubernetes = false\n"),
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("`deploy.compose` and `deploy.kubernetes` are both false")
        .run();
}

/// With both sources, compose binds the host file (as Docker Compose v2 reads it) and the
/// kustomize base mounts the Secret's key at the file's path (kubectl kustomize and
/// kubernetes-validate --strict accept it): no warning.
fn both_sources_mount_the_file_in_each_deployment() {
    // The kubernetes adapters cannot reach the API from compose (W0341, acknowledged here as the
    // examples do): the file is what this checks.
    let both = format!(
        "allow = [\"kube-api-config\"]\n{COUCHBASE}[deploy.files]\n\"persistence.couchbase.password_file\" = {{ host = \"pw\", secret = \"cb\", key = \"password\" }}\n"
    );
    Test::new()
        .file("p.toml", &both)
        .file("pw", "secret")
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
    let ran = Test::new()
        .file("p.toml", &both)
        .file("pw", "secret")
        .args(["render", "p.toml", "--out-dir", "out", "-q"])
        .run();
    assert_mounted(&ran, "/etc/jans/conf/couchbase_password");
}

/// The compose service binds a file at `path` (read by Docker Compose v2) and the built
/// Deployment mounts one there (read by kubectl kustomize and kubernetes-validate --strict);
/// each skips visibly without its tool, and fails on CI.
fn assert_mounted(ran: &Ran, path: &str) {
    if let Some(compose) = support::docker_compose_v2() {
        let model =
            support::compose_config_json(&compose, &ran.path("out/docker-compose.yml"), &[]);
        let volumes = model["services"]["admin-ui"]["volumes"].as_array().unwrap();
        assert!(
            volumes
                .iter()
                .any(|v| v["type"] == "bind" && v["target"] == path && v["read_only"] == true),
            "{volumes:?}"
        );
    }
    if let Some(built) = build_and_validate(&ran.path("out")) {
        let built = objects(&built);
        let pod = &of_kind(&built, "Deployment")[0]["spec"]["template"]["spec"];
        let mounts = pod["containers"][0]["volumeMounts"].as_array().unwrap();
        assert!(mounts.iter().any(|m| m["mountPath"] == path), "{mounts:?}");
    }
}

/// Finding 4: an empty credential path is left out of the output, so the image opens its
/// default path, which no source can name: refused, naming that default.
#[test]
fn an_empty_credential_path_is_refused_naming_the_default() {
    let vault = "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n\
        [secret]\nadapter = \"vault\"\n\
        vault = { addr = \"https://vault.example.org:8200\", verify = true, role_id_file = \"\", secret_id_file = \"\" }\n\
        [persistence.sql]\nhost = \"db\"\n[token_server]\nbase_url = \"https://auth.example.org\"\n";
    Test::new()
        .file("p.toml", vault)
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0251]: `secret.vault.role_id_file` is empty: the variable is left out, and the image then opens its default /etc/certs/vault_role_id")
        .stderr_has("/etc/certs/vault_secret_id")
        .stderr_has("p.toml:6:")
        .run();
    Test::new()
        .file(
            "p.toml",
            &VAULT_ROLE.replace("verify = true", "verify = true, role_id_file = \"\""),
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("opens its default /etc/certs/vault_role_id")
        .run();
}

/// Findings 7 and 19: edition A's image refuses to start without its SSA file. A profile
/// without a source for it warns in every target that starts the container; `[deploy.files]
/// ssa_file` mounts it (compose and Kubernetes), where `[env] GLUU_SSA_FILE` moves it; DEPLOY.md
/// lists it at that path; edition B has none.
#[test]
fn edition_a_needs_a_source_for_its_ssa_file() {
    let ssa = "`ssa_file` (GLUU_SSA_FILE) names /etc/jans/conf/ssa";
    let ran = validate(EDITION_A)
        .stderr_has(ssa)
        .stderr_has("refuses to start without it")
        .run();
    assert_eq!(credential_warnings(&ran), 1, "{}", ran.stderr());
    for target in STARTING {
        render(EDITION_A, target).stderr_has(ssa).run();
    }
    render(EDITION_A, "dotenv").stderr_lacks("W0331").run();

    let moved = "/etc/jans/conf/other-ssa";
    let with_source = format!(
        "{EDITION_A}[env]\nGLUU_SSA_FILE = \"{moved}\"\n\
         [deploy.files]\nssa_file = {{ host = \"pw\", secret = \"admin-ui-ssa\", key = \"ssa\" }}\n"
    );
    let ran = Test::new()
        .file("p.toml", &with_source)
        .file("pw", "ssa")
        .args(["validate", "p.toml"])
        .stderr_lacks("W0331")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "-q"])
        .run();
    let notes = ran.read("out/DEPLOY.md");
    assert!(
        notes.contains(&format!("- `{moved}` (`GLUU_SSA_FILE`, profile key `ssa_file`): from the Secret `admin-ui-ssa`, key `ssa`")),
        "{notes}"
    );
    assert!(
        notes.contains(&format!("the SSA file at\n  `{moved}`")),
        "{notes}"
    );
    assert!(!notes.contains("/etc/jans/conf/ssa"), "{notes}");
    assert_mounted(&ran, moved);
    Test::new()
        .file(
            "p.toml",
            &format!("{COUCHBASE}[deploy.files]\nssa_file = {{ secret = \"s\" }}\n"),
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0202]: `ssa_file` is the SSA file of edition A's image; this profile is edition B")
        .run();
}

/// Finding 18: a `.env` that moves the SSA file is not told that the container does not read
/// it (W0316, an old name): the image reads it, outside the spec (W0317, saying so).
#[test]
fn lint_and_import_say_the_image_reads_gluu_ssa_file() {
    let env =
        "CN_TOKEN_SERVER_BASE_HOSTNAME=auth.example.org\nGLUU_SSA_FILE=/etc/jans/conf/other-ssa\n";
    for command in ["lint", "import"] {
        Test::new()
            .file("a.env", env)
            .args([command, "a.env"])
            .stderr_lacks("W0316")
            .stderr_lacks("does not read it")
            .stderr_has("warning[W0317]: `GLUU_SSA_FILE` is not in the spec")
            .stderr_has(
                "the image reads it: the path of the SSA file the image refuses to start without",
            )
            .run();
    }
}

/// Finding 8: a file mounted at a path the image writes, or at a folder above one, is refused
/// naming the path and why; a file elsewhere inside a written folder is not (the couchbase
/// password's default is one).
#[test]
fn a_file_mounted_over_a_path_the_image_writes_is_refused() {
    let over = [
        ("/etc/jans/conf", "/etc/jans/conf", "its configuration"),
        ("/etc/jans//conf/", "/etc/jans/conf", "its configuration"),
        (
            "/run/nginx/nginx.pid",
            "/run/nginx/nginx.pid",
            "nginx's pid file",
        ),
        ("/run/nginx", "/run/nginx/nginx.pid", "nginx's pid file"),
        (
            "/opt/flex/admin-ui/dist/env-config.js",
            "/opt/flex/admin-ui/dist/env-config.js",
            "env-config.js",
        ),
        ("/var/lib/nginx", "/var/lib/nginx", "nginx's state"),
    ];
    for (path, written, what) in over {
        let profile = COUCHBASE.replace(
            "url = \"cb.example.org\"",
            &format!("url = \"cb.example.org\", password_file = \"{path}\""),
        ) + "[deploy.files]\n\"persistence.couchbase.password_file\" = { host = \"pw\", secret = \"cb\", key = \"password\" }\n";
        let ran = Test::new()
            .file("p.toml", &profile)
            .file("pw", "secret")
            .args(["validate", "p.toml"])
            .code(1)
            .run();
        let stderr = ran.stderr();
        if path.ends_with('/') {
            // A folder is refused as a mount path before the image's paths are compared.
            assert!(stderr.contains("names a folder"), "{path}: {stderr}");
            continue;
        }
        assert!(stderr.contains("error[E0251]"), "{path}: {stderr}");
        assert!(
            stderr.contains(&format!("is mounted at {path}")),
            "{path}: {stderr}"
        );
        assert!(stderr.contains(what), "{path}: {stderr}");
        assert!(
            stderr.contains(&format!("the image cannot write {written}")),
            "{path}: {stderr}"
        );
    }
    let inside = format!(
        "{COUCHBASE}[deploy.files]\n\"persistence.couchbase.password_file\" = {{ host = \"pw\", secret = \"cb\", key = \"password\" }}\n"
    );
    validate(&inside).stderr_lacks("E0251").run();
}

/// Finding 17: a file from the Secret of the secret variables (deploy.secret_name) is one more
/// key of it: DEPLOY.md creates that Secret once, with every key; a file under a secret
/// variable's key there is refused (one key, two contents).
#[test]
fn deploy_notes_create_each_secret_once() {
    let google = "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
        [google]\nproject_id = \"p\"\napplication_credentials = \"/etc/certs/google.json\"\n\
        secret_manager_passphrase = { env = \"PASS\" }\n\
        [persistence.sql]\nhost = \"db\"\n[token_server]\nbase_url = \"https://auth.example.org\"\n\
        [deploy]\ncompose = false\n";
    let shared = format!(
        "{google}[deploy.files]\n\"google.application_credentials\" = {{ secret = \"admin-ui-secrets\", key = \"g.json\" }}\n"
    );
    let notes = render(&shared, "deploy-notes").run().stdout();
    assert_eq!(
        notes
            .matches("kubectl create secret generic admin-ui-secrets")
            .count(),
        1,
        "{notes}"
    );
    assert!(
        notes.contains(
            "--from-file=CN_GOOGLE_SECRET_MANAGER_PASSPHRASE=PATH \\\n    --from-file=g.json=PATH\n"
        ),
        "{notes}"
    );
    Test::new()
        .file(
            "p.toml",
            &format!(
                "{google}[deploy.files]\n\"google.application_credentials\" = {{ secret = \"admin-ui-secrets\", key = \"CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\" }}\n"
            ),
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("holds the value of the secret variable CN_GOOGLE_SECRET_MANAGER_PASSPHRASE")
        .run();
}

/// The example meant for a cluster mounts its password file in both deployments now.
#[test]
fn the_kubernetes_example_gives_compose_a_source_too() {
    let example = support::repo().join("examples/b-kubernetes-couchbase.toml");
    let ran = Test::new()
        .args(["render", "-t", "compose"])
        .arg(&example)
        .stderr_lacks("W0331")
        .run();
    let compose: Value = serde_yaml_ng_or_json(&ran.stdout());
    let volumes = compose["services"]["admin-ui"]["volumes"]
        .as_array()
        .unwrap();
    assert!(
        volumes
            .iter()
            .any(|v| v["target"] == "/etc/jans/conf/couchbase_password"),
        "{volumes:?}"
    );
}

/// The one YAML document of a compose file, as JSON values.
fn serde_yaml_ng_or_json(text: &str) -> Value {
    objects(text).into_iter().next().expect("one document")
}

/// A profile opted out of Kubernetes, with the services written (no loopback host) and a host
/// source for each credential file: deployed with compose only.
fn compose_only() -> String {
    "edition = \"B\"\n\
     [config.consul]\nhost = \"consul.example.org\"\n\
     [secret.vault]\naddr = \"https://vault.example.org:8200\"\nverify = true\n\
     [persistence]\ntype = \"couchbase\"\ncouchbase = { url = \"cb.example.org\" }\n\
     [token_server]\nbase_url = \"https://auth.example.org\"\n\
     [deploy.image]\ntag = \"5.1.6\"\n\
     [deploy]\nkubernetes = false\n\
     [deploy.files]\n\"persistence.couchbase.password_file\" = { host = \"pw\" }\n\
     \"secret.vault.secret_id_file\" = { host = \"pw\" }\n\
     \"secret.vault.role_id_file\" = { host = \"pw\" }\n"
        .to_string()
}

/// The Kubernetes-only profile: kubernetes adapters, the password file from a Secret.
fn kubernetes_only() -> String {
    format!(
        "{COUCHBASE}[deploy]\ncompose = false\n[deploy.files]\n\"persistence.couchbase.password_file\" = {{ secret = \"cb\", key = \"password\" }}\n"
    )
}

/// The files of `out/` after a run, sorted.
fn written(ran: &Ran) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(ran.path("out"))
        .expect("out/")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| !name.starts_with(".svcgen"))
        .collect();
    names.sort();
    names
}

/// `render --out-dir` writes the targets of the deployments the profile is for only,
/// and says which it left out and why; a file of an earlier render that is no longer rendered
/// is removed by the folder's record, and `--check` agrees with what was written.
#[test]
fn out_dir_leaves_out_an_opted_out_deployment_and_says_so() {
    let ran = Test::new()
        .file("p.toml", &kubernetes_only())
        .args(["render", "--out-dir", "out", "p.toml"])
        .stderr_has("left out docker-compose.yml: the profile says it is not deployed with compose (`deploy.compose = false`)")
        .stderr_lacks("W0341")
        .run();
    assert!(
        !written(&ran).contains(&"docker-compose.yml".to_string()),
        "{:?}",
        written(&ran)
    );
    assert!(
        written(&ran).contains(&"k8s.yaml".to_string()),
        "{:?}",
        written(&ran)
    );

    let ran = Test::new()
        .file("p.toml", &compose_only())
        .file("pw", "secret")
        .args(["render", "--out-dir", "out", "p.toml"])
        .stderr_has("left out k8s-env.yaml, k8s.yaml, kustomization.yaml, DEPLOY.md: the profile says it is not deployed with Kubernetes (`deploy.kubernetes = false`)")
        .run();
    let files = written(&ran);
    for gone in [
        "k8s-env.yaml",
        "k8s.yaml",
        "kustomization.yaml",
        "DEPLOY.md",
    ] {
        assert!(!files.contains(&gone.to_string()), "{files:?}");
    }
    assert!(
        files.contains(&"docker-compose.yml".to_string()),
        "{files:?}"
    );

    // Rendered for both first, then opted out of Kubernetes: its files are removed, and the
    // folder checks clean.
    let both = compose_only().replace("[deploy]\nkubernetes = false\n", "");
    let ran = Test::new()
        .file("p.toml", &both)
        .file("pw", "secret")
        .args(["render", "--out-dir", "out", "p.toml"])
        .run();
    assert!(written(&ran).contains(&"k8s.yaml".to_string()));
    std::fs::write(ran.path("p.toml"), compose_only()).unwrap();
    let ran = ran
        .again()
        .args(["render", "--out-dir", "out", "p.toml"])
        .stderr_has("left out k8s-env.yaml")
        .run();
    let files = written(&ran);
    assert!(!files.contains(&"k8s.yaml".to_string()), "{files:?}");
    assert!(!files.contains(&"DEPLOY.md".to_string()), "{files:?}");
    ran.again()
        .args(["render", "--out-dir", "out", "--check", "p.toml"])
        .run();

    // A batch leaves them out per profile.
    let ran = Test::new()
        .file("co.toml", &compose_only())
        .file("both.toml", &both)
        .file("pw", "secret")
        .args(["render", "--out-dir", "out", "co.toml", "both.toml"])
        .stderr_has("left out k8s-env.yaml, k8s.yaml, kustomization.yaml, DEPLOY.md")
        .run();
    assert!(!ran.path("out/co/k8s.yaml").exists());
    assert!(ran.path("out/co/docker-compose.yml").exists());
    assert!(ran.path("out/both/k8s.yaml").exists());
}

/// A kubernetes adapter's profile opted out of compose is refused `-t compose` by name
/// (it could not start there: W0341), and `validate --deny-warnings` is clean.
#[test]
fn an_opted_out_deployment_named_with_t_is_refused_with_the_reason() {
    Test::new()
        .file("p.toml", &kubernetes_only())
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("warning")
        .run();
    for target in KUBERNETES {
        render(&compose_only(), target)
            .code(1)
            .stderr_has(
                "the profile says it is not deployed with Kubernetes (`deploy.kubernetes = false`)",
            )
            .stderr_has(&format!("target `{target}` is not rendered"))
            .run();
    }
    render(&compose_only(), "compose")
        .stdout_has("services:")
        .run();
    render(&compose_only(), "dotenv").run();
}

/// The workload's checks against the image (deploy.port and the others) apply to a
/// Kubernetes deployment only: a profile opted out of Kubernetes validates as `render -t
/// compose` renders it.
#[test]
fn workload_checks_are_off_for_a_profile_not_deployed_on_kubernetes() {
    for set in [
        "deploy.port=80",
        "deploy.security.read_only_root_filesystem=true",
        "deploy.security.run_as_user=1001",
    ] {
        Test::new()
            .file("p.toml", &compose_only())
            .file("pw", "secret")
            .args(["validate", "--deny-warnings", "--set", set, "p.toml"])
            .stderr_lacks("error")
            .stderr_lacks("warning")
            .run();
    }
    // With Kubernetes, the same setting is refused (the check itself is unchanged).
    let both = compose_only().replace("[deploy]\nkubernetes = false\n", "");
    Test::new()
        .file("p.toml", &both)
        .file("pw", "secret")
        .args(["validate", "--set", "deploy.port=80", "p.toml"])
        .code(1)
        .stderr_has("E0251")
        .run();
}

/// Every starting profile `svcgen init` writes validates with `--deny-warnings`: one
/// with a kubernetes adapter says it is not deployed with compose, which cannot reach the
/// cluster's API (W0341), and its `-t compose` is refused instead of rendered unstartable.
#[test]
fn every_init_combination_validates_with_deny_warnings() {
    for (name, options) in crate::init::combinations("./profile.schema.json") {
        let text = svcgen::commands::init::starting_profile(&options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let kube_adapter = [&options.config_adapter, &options.secret_adapter]
            .iter()
            .any(|a| a.as_deref() == Some("kubernetes"));
        // The file is named after the combination, which failures then show.
        let file = format!("{name}.toml");
        Test::new()
            .file(&file, &text)
            .args(["validate", "--deny-warnings", &file])
            .stderr_lacks("warning")
            .run();
        if kube_adapter {
            assert!(text.contains("\ncompose = false\n"), "{name}:\n{text}");
            render(&text, "compose").code(1).stderr_has("E0214").run();
        }
    }
}
