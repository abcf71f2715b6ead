//! The real image beyond the spec: what its scripts and client library read, defaults that
//! depend on another choice, the ids its servers accept, host files it cannot use, numbers read
//! as Python's `int()` reads them, a tag that moves, and an import that keeps what it read.
//! Each test holds a profile or file that the code before this change let through silently,
//! refused although the image takes it, or read differently from the image.

use crate::support;

use support::scenario::Test;

/// A clean edition B base (SQL, consul, vault with its AppRole files from a Secret), deployed
/// on Kubernetes only.
const B_BASE: &str = "edition = \"B\"\n\
    [deploy]\ncompose = false\n\
    [deploy.files]\n\
    \"secret.vault.role_id_file\" = { secret = \"vault-approle\", key = \"role_id\" }\n\
    \"secret.vault.secret_id_file\" = { secret = \"vault-approle\", key = \"secret_id\" }\n\
    [config.consul]\nhost = \"consul\"\n\
    [secret.vault]\naddr = \"https://vault:8200\"\nverify = true\n";

#[test]
fn postgresql_with_the_port_left_at_mysqls_default_is_a_warning() {
    let profile = format!("{B_BASE}[persistence.sql]\nhost = \"db\"\ndialect = \"pgsql\"\n");
    Test::new()
        .profile(&profile)
        .args(["validate", "profile.toml"])
        .stderr_has("W0347")
        .stderr_has("`persistence.sql.port` = 5432")
        .run();
    let with_port = format!("{profile}port = 5432\n");
    Test::new()
        .profile(&with_port)
        .args(["validate", "profile.toml"])
        .stderr_lacks("W0347")
        .run();
}

const KUBERNETES_ADAPTERS_IN_DEFAULT: &str = "edition = \"B\"\n\
    [deploy]\nnamespace = \"identity\"\ncompose = false\n\
    [config]\nadapter = \"kubernetes\"\nkubernetes = { configmap = \"admin-config\" }\n\
    [secret]\nadapter = \"kubernetes\"\nkubernetes = { configmap = \"admin-secrets\" }\n\
    [token_server]\nbase_url = \"https://auth.example.org\"\n\
    [persistence.sql]\nhost = \"db\"\nport = 3306\n";

#[test]
fn adapters_left_in_default_while_the_pod_runs_elsewhere_are_a_warning_and_deploy_md_says_so() {
    Test::new()
        .profile(KUBERNETES_ADAPTERS_IN_DEFAULT)
        .args(["validate", "profile.toml"])
        .stderr_has("W0347")
        .stderr_has("`config.kubernetes.namespace` is unset")
        .stderr_has("`secret.kubernetes.namespace` is unset")
        .run();
    Test::new()
        .profile(KUBERNETES_ADAPTERS_IN_DEFAULT)
        .args(["render", "-t", "deploy-notes", "profile.toml"])
        .stdout_has("`deploy.namespace` is `identity`, but the adapters read and write")
        .stdout_has("does not follow `deploy.namespace`")
        .run();
}

#[test]
fn edition_a_takes_a_token_server_host_with_a_port() {
    let profile = "edition = \"A\"\n[token_server]\nbase_hostname = \"auth.example.org:8443\"\n";
    Test::new()
        .profile(profile)
        .args(["validate", "profile.toml"])
        .stderr_lacks("E0206")
        .run();
    Test::new()
        .profile("edition = \"A\"\n[token_server]\nbase_hostname = \"2001:db8::1\"\n")
        .args(["validate", "profile.toml"])
        .code(1)
        .stderr_has("E0206")
        .stderr_has("[2001:db8::1]")
        .run();
}

#[test]
fn edition_b_needs_no_couchbase_password_file_as_it_reads_the_secret_backend() {
    let profile = format!(
        "{B_BASE}[persistence]\ntype = \"couchbase\"\ncouchbase = {{ url = \"cb.internal\" }}\n\
         [deploy.image]\ntag = \"5.1.6\"\n"
    );
    Test::new()
        .profile(&profile)
        .args(["validate", "profile.toml"])
        .stderr_lacks("couchbase_password")
        .stderr_lacks("W0331")
        .run();
}

#[test]
fn deploy_md_never_says_none_to_create_while_a_credential_file_has_no_source() {
    let profile = "edition = \"B\"\n[deploy]\ncompose = false\n\
        [config.consul]\nhost = \"consul\"\n[secret.vault]\naddr = \"https://vault:8200\"\nverify = true\n\
        [persistence.sql]\nhost = \"db\"\n";
    let ran = Test::new()
        .profile(profile)
        .args(["render", "-t", "deploy-notes", "profile.toml"])
        .run();
    let notes = ran.stdout();
    let section = notes
        .split("## Objects to create yourself")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_default();
    assert!(!section.contains("None:"), "{section}");
    assert!(section.contains("/etc/certs/vault_role_id"), "{section}");
}

#[test]
fn a_backend_the_moving_nightly_dropped_is_a_warning_until_the_tag_is_pinned() {
    let spanner = B_BASE.replace(
        "[config.consul]",
        "\"google.application_credentials\" = { secret = \"gcp\", key = \"creds.json\" }\n[config.consul]",
    ) + "[persistence]\ntype = \"spanner\"\nspanner = { instance_id = \"idp\", database_id = \"idp-db\" }\n\
         [google]\nproject_id = \"acme\"\napplication_credentials = \"/etc/gcp/creds.json\"\n";
    Test::new()
        .profile(&spanner)
        .args(["validate", "profile.toml"])
        .stderr_has("W0344")
        .stderr_has("no longer has the spanner backend")
        .stderr_has("5.1.6")
        .run();
    Test::new()
        .profile(&format!("{spanner}[deploy.image]\ntag = \"5.1.6\"\n"))
        .args(["validate", "profile.toml"])
        .stderr_lacks("W0344")
        .run();
}

#[test]
fn lint_reads_wait_times_as_pythons_int_does() {
    Test::new()
        .file(
            "app.env",
            "CN_WAIT_MAX_TIME=3_000\nCN_WAIT_SLEEP_DURATION= +15 \n",
        )
        .args(["lint", "--edition", "B", "app.env"])
        .stderr_lacks("W0314")
        .run();
    let ran = Test::new()
        .file("app.env", "CN_WAIT_MAX_TIME=3_000\n")
        .args(["import", "--edition", "B", "app.env"])
        .run();
    assert!(ran.stdout().contains("max_time = 3000"), "{}", ran.stdout());
}

#[test]
fn import_keeps_the_image_and_replicas_and_names_what_it_leaves_out() {
    let compose = "services:\n  admin-ui:\n    image: ghcr.io/acme/admin-ui:0.0.0-nightly\n    \
        ports:\n      - \"8080:8080\"\n    deploy:\n      replicas: 2\n      \
        resources:\n        limits:\n          memory: 1G\n    environment:\n      \
        CN_PERSISTENCE_TYPE: sql\n";
    let ran = Test::new()
        .file("docker-compose.yml", compose)
        .args(["import", "--edition", "B", "docker-compose.yml"])
        .stderr_has("W0320")
        .stderr_has("`ports` of the service is not imported")
        .stderr_has("`resources` of the service's `deploy` is not imported")
        .run();
    let profile: toml::Table = toml::from_str(&ran.stdout()).unwrap();
    let deploy = &profile["deploy"];
    assert_eq!(
        deploy["image"]["repository"].as_str(),
        Some("ghcr.io/acme/admin-ui")
    );
    assert_eq!(deploy.get("replicas").and_then(|r| r.as_integer()), Some(2));
    // The edition's own tag is the default: not written.
    assert!(deploy["image"].get("tag").is_none(), "{deploy:?}");
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: admin-ui\n\
        spec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: admin-ui\n          \
        image: registry.example.org:5000/admin-ui:5.1.6\n          \
        livenessProbe:\n            tcpSocket: { port: 8080 }\n          \
        env:\n            - name: CN_PERSISTENCE_TYPE\n              value: sql\n";
    let ran = Test::new()
        .file("deployment.yaml", deployment)
        .args(["import", "--edition", "B", "deployment.yaml"])
        .stderr_has("`livenessProbe` of the container is not imported")
        .run();
    let profile: toml::Table = toml::from_str(&ran.stdout()).unwrap();
    let deploy = &profile["deploy"];
    assert_eq!(
        deploy["image"]["repository"].as_str(),
        Some("registry.example.org:5000/admin-ui")
    );
    assert_eq!(deploy["image"]["tag"].as_str(), Some("5.1.6"));
    assert_eq!(deploy.get("replicas").and_then(|r| r.as_integer()), Some(3));
}

#[cfg(unix)]
#[test]
fn a_compose_host_file_the_images_user_cannot_read_is_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let test = Test::new()
        .file("role_id", "r")
        .file("secret_id", "s")
        .profile(
            "edition = \"B\"\n[deploy]\nkubernetes = false\n\
             [deploy.files]\n\"secret.vault.role_id_file\" = { host = \"role_id\" }\n\
             \"secret.vault.secret_id_file\" = { host = \"secret_id\" }\n\
             [config.consul]\nhost = \"consul\"\n[secret.vault]\naddr = \"https://vault:8200\"\nverify = true\n\
             [persistence.sql]\nhost = \"db\"\n",
        );
    let dir = test.path().to_path_buf();
    // A 0600 file of another user than 1000 (root in CI) is unreadable for the image's user
    // through a bind mount; were the test's user 1000 itself, mode 0000 is. A 0644 one is read.
    let owner = std::fs::metadata(dir.join("role_id")).map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    let private = if owner.ok() == Some(1000) {
        0o000
    } else {
        0o600
    };
    std::fs::set_permissions(
        dir.join("role_id"),
        std::fs::Permissions::from_mode(private),
    )
    .unwrap();
    std::fs::set_permissions(
        dir.join("secret_id"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let ran = test.args(["validate", "profile.toml"]).run();
    let stderr = ran.stderr();
    assert!(stderr.contains("W0345"), "{stderr}");
    assert!(stderr.contains("\"role_id\""), "{stderr}");
    assert!(!stderr.contains("\"secret_id\" of"), "{stderr}");
}

#[test]
fn an_ssa_file_that_is_no_jwt_with_iss_and_org_id_is_a_warning_without_its_content() {
    let profile = "edition = \"A\"\n[deploy]\nkubernetes = false\n\
        [deploy.files]\nssa_file = { host = \"ssa\" }\n\
        \"secret.vault.role_id_file\" = { host = \"r\" }\n\"secret.vault.secret_id_file\" = { host = \"s\" }\n";
    let ran = Test::new()
        .file("ssa", "top-secret-statement\n")
        .file("r", "r")
        .file("s", "s")
        .profile(profile)
        .args(["validate", "profile.toml"])
        .stderr_has("W0345")
        .stderr_has("is not a JWT")
        .run();
    assert!(
        !ran.stderr().contains("top-secret-statement"),
        "{}",
        ran.stderr()
    );
}

/// An edition B profile on the google adapters (credentials from a Secret).
const GOOGLE_B: &str = "edition = \"B\"\n\
    [deploy]\ncompose = false\n\
    [deploy.files]\n\
    \"google.application_credentials\" = { secret = \"gcp\", key = \"credentials.json\" }\n\
    [config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
    [google]\nproject_id = \"acme\"\napplication_credentials = \"/etc/gcp/credentials.json\"\n\
    secret_manager_passphrase = { env = \"PASSPHRASE\" }\n\
    [persistence.sql]\nhost = \"db\"\nport = 3306\n";

/// The image's Google clients (google-api-core's `_get_universe_domain`) raise
/// `EmptyUniverseError: Universe Domain cannot be an empty string.` when
/// GOOGLE_CLOUD_UNIVERSE_DOMAIN is set but empty or blank (checked with the venv's
/// google-cloud-secret-manager 2.32.0 and google-cloud-spanner 3.71.0): such a value is refused,
/// as `CN_CONFIG_CONSUL_NAMESPACE = ""` is, not rendered into the environment.
#[test]
fn an_empty_google_universe_in_env_is_refused_as_the_image_s_clients_refuse_it() {
    for value in ["", "  "] {
        let profile = format!("{GOOGLE_B}[env]\nGOOGLE_CLOUD_UNIVERSE_DOMAIN = \"{value}\"\n");
        Test::new()
            .profile(&profile)
            .env("PASSPHRASE", "pp-5521")
            .args(["validate", "profile.toml"])
            .code(1)
            .stderr_has("E0251")
            .stderr_has("GOOGLE_CLOUD_UNIVERSE_DOMAIN")
            .run();
    }
    let fine = format!("{GOOGLE_B}[env]\nGOOGLE_CLOUD_UNIVERSE_DOMAIN = \"example.com\"\n");
    Test::new()
        .profile(&fine)
        .env("PASSPHRASE", "pp-5521")
        .args(["validate", "profile.toml"])
        .stderr_lacks("E0251")
        .run();
}
