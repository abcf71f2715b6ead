//! `svcgen preflight` with the kubernetes config and secret adapters and the Couchbase backend,
//! against fakes whose answers are checked in the same run against the image's own Python
//! calls (the real `kubernetes` client; pycloudlib's Couchbase requests replayed with
//! `requests`). The google adapters and Spanner: tests/preflight_google.rs.

use crate::preflight::{
    certificates, loopback, oracle, preflight, profile_b, status_and_reason, with_tls,
};
use crate::support::servers::{self, Server};
use crate::support::svcgen;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use svcgen::model::{Edition, Model};
use svcgen::preflight::{FileReader, Limits};

/// The service account token the Kubernetes fake accepts: distinctive, to look for it in outputs.
const TOKEN: &str = "sa-token-41c9e7";
const NAMESPACE: &str = "ns";
const NAME: &str = "cm";
/// The Couchbase user's password the fake accepts.
const CB_PASSWORD: &str = "cb-password-6a20f";

/// A Kubernetes fake of `case` serving HTTPS with the certificate `certificates` made in `dir`.
fn kube_fake(dir: &Path, case: &str) -> Option<Server> {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    with_tls(&cert, &key, || {
        servers::fake("kubernetes", &[case, TOKEN, NAMESPACE, NAME])
    })
}

/// Runs every step as a container whose environment is `vars` and whose service account files
/// (the model's `[image] kube_api` paths) are those in `account`: the in-cluster configuration
/// a pod has, which no test can write at its real place.
fn in_pod(account: &Path, port: u16, vars: &[(&str, &str)]) -> Value {
    let facts = &Model::get().image.kube_api;
    let prefix = Path::new(&facts.token).parent().unwrap().to_path_buf();
    let account = account.to_path_buf();
    let reader: FileReader = Box::new(move |path: &Path| {
        let local = match path.strip_prefix(&prefix) {
            Ok(rest) => account.join(rest),
            Err(_) => path.to_path_buf(),
        };
        std::fs::read(&local).map_err(|e| format!("{}: {e}", path.display()))
    });
    let port = port.to_string();
    let refused = servers::refused_port().to_string();
    let mut env: Vec<(String, String)> = [
        ("CN_CONFIG_ADAPTER", "kubernetes"),
        ("CN_CONFIG_KUBERNETES_NAMESPACE", NAMESPACE),
        ("CN_CONFIG_KUBERNETES_CONFIGMAP", NAME),
        ("CN_SECRET_ADAPTER", "kubernetes"),
        ("CN_SECRET_KUBERNETES_NAMESPACE", NAMESPACE),
        ("CN_SECRET_KUBERNETES_CONFIGMAP", NAME),
        ("CN_SECRET_KUBERNETES_SECRET", NAME),
        (facts.host.as_str(), "127.0.0.1"),
        (facts.port.as_str(), &port),
        ("CN_PERSISTENCE_TYPE", "sql"),
        ("CN_SQL_DB_HOST", "127.0.0.1"),
        ("CN_SQL_DB_PORT", &refused),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    env.extend(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let setting = container_setting(env, reader);
    let limits = Limits {
        timeout: Duration::from_secs(3),
    };
    serde_json::to_value(svcgen::preflight::run(&setting, limits)).unwrap()
}

/// An edition B container's setting from its variables `env`, its files read by `reader`.
fn container_setting(env: Vec<(String, String)>, reader: FileReader) -> svcgen::preflight::Setting {
    let mut sources = svcgen::diag::source::Sources::new();
    let read = svcgen::preflight::from_environment(
        "the environment",
        env,
        Some(Edition::B),
        &mut sources,
        reader,
    );
    assert!(!read.diagnostics.has_errors(), "{:?}", read.diagnostics);
    read.setting.expect("a usable environment").unwrap()
}

/// A service account folder with the token and `ca` as its CA file.
fn account(dir: &Path, token: &str, ca: &str) -> PathBuf {
    let account = dir.join("account");
    std::fs::create_dir_all(&account).unwrap();
    std::fs::write(account.join("token"), token).unwrap();
    std::fs::copy(dir.join(ca), account.join("ca.crt")).unwrap();
    account
}

#[test]
fn kubernetes_and_couchbase_fakes_answer_the_image_s_python_calls_as_real_servers_do() {
    let Some(python) = servers::oracle_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) {
        return;
    }
    let account = account(dir.path(), TOKEN, "ca.pem");
    std::fs::write(dir.path().join("bad-token"), "not-the-token").unwrap();
    let (token, ca) = (account.join("token"), account.join("ca.crt"));
    // The real client, loaded by its own in-cluster loader: the value; None for a missing key;
    // ApiException 404 for a missing object, 401 for a bad token, 403 without the right.
    let cases = [
        (
            "ready",
            &token,
            r#"{"value":"auth.example.org"}"#,
            r#"{"value":"-----BEGIN CERTIFICATE-----"}"#,
        ),
        ("missing", &token, r#"{"value":null}"#, r#"{"value":null}"#),
        (
            "gone",
            &token,
            r#"{"error":"RuntimeError: ApiException 404 Not Found: configmaps \"cm\" not found"}"#,
            r#"{"error":"RuntimeError: ApiException 404 Not Found: secrets \"cm\" not found"}"#,
        ),
        (
            "ready",
            &dir.path().join("bad-token"),
            r#"{"error":"RuntimeError: ApiException 401 Unauthorized: Unauthorized"}"#,
            r#"{"error":"RuntimeError: ApiException 401 Unauthorized: Unauthorized"}"#,
        ),
    ];
    // The real client reading `resource`'s `key` from the fake on `port`.
    let read = |port: u16, token: &Path, ca: &Path, resource: &str, key: &str| {
        let port = port.to_string();
        let (token, ca) = (token.to_str().unwrap(), ca.to_str().unwrap());
        let args = [
            "kubernetes",
            &port,
            token,
            ca,
            NAMESPACE,
            NAME,
            resource,
            key,
        ];
        oracle(&python, &args)
    };
    for (case, token, config, secret) in cases {
        let fake = kube_fake(dir.path(), case).unwrap();
        for (resource, key, expected) in [
            ("configmaps", "hostname", config),
            ("secrets", "ssl_cert", secret),
        ] {
            let got = read(fake.port, token, &ca, resource, key);
            let expected = serde_json::from_str::<Value>(expected).unwrap();
            assert_eq!(got, expected, "{case} {resource}");
        }
    }
    let fake = kube_fake(dir.path(), "forbidden").unwrap();
    let got = read(fake.port, &token, &ca, "configmaps", "hostname");
    let error = got["error"].as_str().unwrap_or_default();
    let forbidden = "RuntimeError: ApiException 403 Forbidden: configmaps \"cm\" is forbidden";
    assert!(error.starts_with(forbidden), "{got}");
    // Another CA than the server's: the client refuses the certificate.
    let other = tempfile::tempdir().unwrap();
    assert!(certificates(other.path()));
    let got = read(
        fake.port,
        &token,
        &other.path().join("ca.pem"),
        "configmaps",
        "hostname",
    );
    let error = got["error"].as_str().unwrap_or_default();
    assert!(error.contains("CERTIFICATE_VERIFY_FAILED"), "{got}");

    // pycloudlib's Couchbase calls: the document exists; a wrong password leaves no host; a
    // missing bucket and a missing document are not there (in the N1QL service's words).
    let host = loopback(31);
    let couchbase_cases = [
        (
            "ready",
            CB_PASSWORD,
            r#"{"value":{"exists":true,"buckets_ok":true}}"#,
        ),
        (
            "ready",
            "wrong",
            &format!(
                r#"{{"value":{{"exists":false,"reason":"Unable to resolve host for query service from {host} list (healthcheck 401)","buckets_ok":false}}}}"#
            ),
        ),
        (
            "no-bucket",
            CB_PASSWORD,
            r#"{"value":{"exists":false,"reason":"Keyspace not found in CB datastore: default:jans","buckets_ok":true}}"#,
        ),
        (
            "no-document",
            CB_PASSWORD,
            r#"{"value":{"exists":false,"reason":"Missing document","buckets_ok":true}}"#,
        ),
    ];
    for (case, password, expected) in couchbase_cases {
        let fake = servers::fake("couchbase", &[case, "admin", CB_PASSWORD, &host]).unwrap();
        let got = oracle(
            &python,
            &[
                "couchbase",
                &host,
                "admin",
                password,
                "jans",
                "configuration_jans-auth",
            ],
        );
        assert_eq!(
            got,
            serde_json::from_str::<Value>(expected).unwrap(),
            "{case}"
        );
        drop(fake);
    }
}

/// The status and reason of `step` in a report.
fn of(report: &Value, step: &str) -> (String, String) {
    status_and_reason(report, step)
}

/// The config and secret steps both failed, with these reasons.
fn assert_both_failed(report: &Value, config: &str, secret: &str) {
    assert_eq!(of(report, "config"), ("failed".into(), config.into()));
    assert_eq!(of(report, "secret"), ("failed".into(), secret.into()));
}

#[test]
fn preflight_kubernetes_in_a_pod_ready_missing_key_missing_object_and_refused_tokens() {
    let dir = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) {
        return;
    }
    let account = account(dir.path(), TOKEN, "ca.pem");
    let Some(fake) = kube_fake(dir.path(), "ready") else {
        return;
    };
    let report = in_pod(&account, fake.port, &[]);
    assert_eq!(of(&report, "config").0, "ok", "{report:#}");
    assert_eq!(of(&report, "secret").0, "ok", "{report:#}");
    // The SQL password comes from the Secret, which lacks it: the chain goes on through it.
    assert_eq!(
        of(&report, "persistence").1,
        "key sql_password of Secret ns/cm missing"
    );
    assert_eq!(report["would_start"], false);

    let fake = kube_fake(dir.path(), "missing").unwrap();
    let report = in_pod(&account, fake.port, &[]);
    assert_both_failed(
        &report,
        "key hostname of ConfigMap ns/cm missing",
        "key ssl_cert of Secret ns/cm missing",
    );

    let fake = kube_fake(dir.path(), "gone").unwrap();
    let report = in_pod(&account, fake.port, &[]);
    assert_eq!(
        of(&report, "config").1,
        "ConfigMap ns/cm missing: configmaps \"cm\" not found"
    );
    assert_eq!(
        of(&report, "secret").1,
        "Secret ns/cm missing: secrets \"cm\" not found"
    );
    // No Secret, no SQL password: the persistence step is not reached.
    assert_eq!(of(&report, "persistence").0, "not-reached");

    // The image reads the Secret's name from CN_SECRET_KUBERNETES_SECRET (default `jans`), not
    // from the spec's variable: a failure says so when the two differ.
    let fake = kube_fake(dir.path(), "ready").unwrap();
    let renamed = [
        ("CN_SECRET_KUBERNETES_SECRET", "jans"),
        ("CN_SECRET_KUBERNETES_CONFIGMAP", NAME),
    ];
    let report = in_pod(&account, fake.port, &renamed);
    assert_eq!(
        of(&report, "secret").1,
        "Secret ns/jans missing: secrets \"jans\" not found (the image reads the name from \
         CN_SECRET_KUBERNETES_SECRET, not CN_SECRET_KUBERNETES_CONFIGMAP = \"cm\")"
    );

    let fake = kube_fake(dir.path(), "forbidden").unwrap();
    let report = in_pod(&account, fake.port, &[]);
    let (status, reason) = of(&report, "config");
    assert_eq!(status, "failed");
    assert!(
        reason.starts_with("authentication failed: configmaps \"cm\" is forbidden: User"),
        "{reason}"
    );

    let fake = kube_fake(dir.path(), "ready").unwrap();
    let wrong = account.parent().unwrap().join("wrong-account");
    std::fs::create_dir_all(&wrong).unwrap();
    std::fs::write(wrong.join("token"), "not-the-token").unwrap();
    std::fs::copy(account.join("ca.crt"), wrong.join("ca.crt")).unwrap();
    let report = in_pod(&wrong, fake.port, &[]);
    assert_both_failed(
        &report,
        "authentication failed: Unauthorized",
        "authentication failed: Unauthorized",
    );
    // The token is a secret: nowhere in the report.
    let text = report.to_string();
    assert!(
        !text.contains("not-the-token") && !text.contains(TOKEN),
        "{text}"
    );
}

#[test]
fn preflight_kubernetes_tls_untrusted_with_another_ca_and_refused_and_trusted_with_the_account_s() {
    let dir = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) || !certificates(other.path()) {
        return;
    }
    let Some(fake) = kube_fake(dir.path(), "ready") else {
        return;
    };
    std::fs::copy(other.path().join("ca.pem"), dir.path().join("other-ca.pem")).unwrap();
    let untrusted = account(dir.path(), TOKEN, "other-ca.pem");
    let report = in_pod(&untrusted, fake.port, &[]);
    let (status, reason) = of(&report, "config");
    assert_eq!(status, "failed");
    assert!(reason.starts_with("certificate not trusted"), "{reason}");
    let trusted = account(other.path(), TOKEN, "ca.pem");
    std::fs::copy(dir.path().join("ca.pem"), trusted.join("ca.crt")).unwrap();
    let report = in_pod(&trusted, fake.port, &[]);
    assert_eq!(of(&report, "config").0, "ok", "{report:#}");
    let report = in_pod(&trusted, servers::refused_port(), &[]);
    assert_eq!(
        of(&report, "config"),
        ("failed".into(), "connection refused".into())
    );
}

/// An edition B profile with `sections` (config, secret, persistence and `[env]` tables) and
/// `files` lines of `[deploy.files]`, its token server refusing.
fn profile(dir: &Path, sections: &str, files: &str) -> PathBuf {
    let token_server = format!("https://127.0.0.1:{}", servers::refused_port());
    profile_b(dir, sections, &token_server, files)
}

#[test]
fn preflight_kubernetes_reads_the_kubeconfig_when_use_kube_config_is_set() {
    let dir = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) {
        return;
    }
    let Some(fake) = kube_fake(dir.path(), "ready") else {
        return;
    };
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".kube")).unwrap();
    // The CA path is relative to the kubeconfig's folder, as the client reads it.
    let kube_config = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n- name: fake\n  cluster:\n    server: https://127.0.0.1:{}\n    certificate-authority: ../../ca.pem\ncontexts:\n- name: test\n  context: {{cluster: fake, user: sa, namespace: {NAMESPACE}}}\nusers:\n- name: sa\n  user: {{token: {TOKEN}}}\n",
        fake.port
    );
    std::fs::write(home.join(".kube/config"), kube_config).unwrap();
    let sections = format!(
        "{}\n[env]\nCN_SECRET_KUBERNETES_SECRET = \"{NAME}\"\n",
        kube_config_sections()
    );
    let path = profile(dir.path(), &sections, "");
    let out = svcgen()
        .arg("preflight")
        .arg(&path)
        .args(["--format", "json"])
        .env("HOME", &home)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let report: Value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    assert_eq!(of(&report, "config").0, "ok", "{stdout}{stderr}");
    assert_eq!(of(&report, "secret").0, "ok", "{stdout}{stderr}");
    assert_eq!(out.status.code(), Some(1), "the SQL step fails: {stdout}");
    assert!(!stdout.contains(TOKEN) && !stderr.contains(TOKEN));
}

#[test]
fn preflight_steps_it_cannot_check_say_what_a_check_needs_and_never_count_as_started() {
    let dir = tempfile::tempdir().unwrap();
    // In a profile, the in-cluster configuration of the kubernetes adapter does not exist (only
    // a pod has it); without a service account file the Google clients look for credentials
    // where svcgen does not (gcloud's file, the metadata server).
    let sections = r#"[config]
adapter = "kubernetes"

[secret]
adapter = "google"

[google]
project_id = "project-1"
secret_manager_passphrase = "a-passphrase-7781"

[persistence]
type = "spanner"
spanner = { instance_id = "instance-1", database_id = "database-1" }
"#;
    let path = profile(dir.path(), sections, "");
    let (code, report, stdout, stderr) = preflight(&path, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(report["would_start"], false);
    let (status, reason) = of(&report, "config");
    assert_eq!(status, "not-checked");
    assert!(
        reason.starts_with("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set"),
        "{reason}"
    );
    for step in ["secret", "persistence"] {
        let (status, reason) = of(&report, step);
        assert_eq!(status, "not-checked", "{step}");
        assert!(
            reason.starts_with("GOOGLE_APPLICATION_CREDENTIALS is not set"),
            "{step}: {reason}"
        );
    }
    assert!(!stdout.contains("a-passphrase-7781"));
}

/// An edition B profile with Couchbase on `host` (the client's fixed ports) and its password
/// file, config and secret backends that refuse.
fn couchbase_profile(dir: &Path, host: &str, password: &str) -> PathBuf {
    std::fs::write(dir.join("cb_password"), format!("{password}\n")).unwrap();
    let refused = servers::refused_port();
    let sections = format!(
        r#"[config]
adapter = "consul"
consul = {{ host = "127.0.0.1", port = {refused}, scheme = "http" }}

[secret]
adapter = "vault"
vault = {{ addr = "http://127.0.0.1:{refused}", prefix = "jans" }}

[persistence]
type = "couchbase"
couchbase = {{ url = "{host}", user = "admin", bucket_prefix = "jans", truststore_enable = false }}
"#
    );
    profile(
        dir,
        &sections,
        "\"persistence.couchbase.password_file\" = { host = \"cb_password\" }",
    )
}

#[test]
fn preflight_couchbase_ready_wrong_password_missing_bucket_and_document() {
    let host = loopback(32);
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("ready", CB_PASSWORD, "ok", String::new()),
        (
            "ready",
            "wrong-cb-password",
            "failed",
            format!("{host}: authentication failed: Authentication failure"),
        ),
        (
            "no-bucket",
            CB_PASSWORD,
            "failed",
            "bucket jans: Keyspace not found in CB datastore: default:jans".to_string(),
        ),
        (
            "no-document",
            CB_PASSWORD,
            "failed",
            "document configuration_jans-auth missing in bucket jans".to_string(),
        ),
    ];
    for (case, password, status, reason) in cases {
        let Some(fake) = servers::fake("couchbase", &[case, "admin", CB_PASSWORD, &host]) else {
            return;
        };
        let path = couchbase_profile(dir.path(), &host, password);
        let (_, report, stdout, _) = preflight(&path, &["--timeout", "3"]);
        assert_eq!(
            of(&report, "persistence"),
            (status.to_string(), reason),
            "{case}: {stdout}"
        );
        assert!(!stdout.contains(password), "{stdout}");
        drop(fake);
    }
}

#[test]
fn preflight_couchbase_refused_and_black_hole() {
    let dir = tempfile::tempdir().unwrap();
    let host = loopback(33);
    let path = couchbase_profile(dir.path(), &host, CB_PASSWORD);
    let (_, report, ..) = preflight(&path, &["--timeout", "2"]);
    assert_eq!(
        of(&report, "persistence"),
        ("failed".into(), format!("{host}: connection refused"))
    );
    // A N1QL port that accepts and never answers: the step ends as timeout within 2 + 1 s.
    let listener = std::net::TcpListener::bind((host.as_str(), 8093)).expect("the N1QL port");
    let hold = std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().take(4).collect();
        std::thread::sleep(Duration::from_secs(10));
        drop(held);
    });
    let started = Instant::now();
    let (_, report, ..) = preflight(&path, &["--timeout", "2"]);
    let step = &report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "persistence")
        .unwrap();
    assert_eq!(step["status"], "timeout", "{report:#}");
    assert!(step["ms"].as_u64().unwrap() <= 3000, "{step}");
    assert!(started.elapsed() < Duration::from_secs(20));
    drop(hold);
}

#[test]
fn preflight_couchbase_over_https_on_the_client_s_ports_without_verifying_as_its_client() {
    // The image's default: the truststore switch on (https on 18091/18093) and certificate
    // checks off (`CN_COUCHBASE_VERIFY` unset): a certificate no root signed still passes.
    let dir = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) {
        return;
    }
    let host = loopback(34);
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let fake = with_tls(&cert, &key, || {
        servers::fake("couchbase", &["ready", "admin", CB_PASSWORD, &host])
    });
    let Some(_fake) = fake else { return };
    let path = couchbase_profile(dir.path(), &host, CB_PASSWORD);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("truststore_enable = false", "truststore_enable = true"),
    )
    .unwrap();
    let (_, report, stdout, _) = preflight(&path, &["--timeout", "3"]);
    assert_eq!(of(&report, "persistence").0, "ok", "{stdout}");
    let target = report["steps"][2]["target"].as_str().unwrap_or_default();
    assert_eq!(
        target,
        format!(
            "https://{host}:18091,18093 as admin (bucket jans, document configuration_jans-auth)"
        )
    );
}

/// Config and secret through the kubernetes adapters with `use_kube_config` (the kubeconfig
/// under `$HOME`), and an SQL backend that refuses.
fn kube_config_sections() -> String {
    format!(
        r#"[config]
adapter = "kubernetes"
kubernetes = {{ namespace = "{NAMESPACE}", configmap = "{NAME}", use_kube_config = true }}

[secret]
adapter = "kubernetes"
kubernetes = {{ namespace = "{NAMESPACE}", configmap = "{NAME}", use_kube_config = true }}

[persistence]
type = "sql"
sql = {{ dialect = "pgsql", host = "127.0.0.1", port = {port}, name = "svc", user = "svc" }}
"#,
        port = servers::refused_port()
    )
}

#[test]
fn preflight_never_shows_a_kubeconfig_s_token_or_the_password_of_its_server_url() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".kube")).unwrap();
    let sections = kube_config_sections();
    let path = profile(dir.path(), &sections, "");
    let refused = servers::refused_port();
    let token = "kube-token-4b7e19";
    let password = "url-pw-93d0aa";
    // A file that is no YAML (the parser's message quotes its lines), then a server URL with a
    // password in it (the step's target prints the URL).
    let broken = format!("users:\n- name: u\n  user:\n    token: \"{token}\n    other: [x\n");
    let with_password = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: test\nclusters:\n- name: c\n  cluster:\n    server: https://admin:{password}@127.0.0.1:{refused}\n    insecure-skip-tls-verify: true\ncontexts:\n- name: test\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user: {{token: {token}}}\n"
    );
    // What each case must still say: where the file breaks; the URL, its password masked.
    let cases = [
        (broken, "not YAML: "),
        (with_password, "https://admin:***@127.0.0.1:"),
    ];
    for (kube_config, said) in cases {
        std::fs::write(home.join(".kube/config"), &kube_config).unwrap();
        for format in ["json", "human"] {
            let out = svcgen()
                .arg("preflight")
                .arg(&path)
                .args(["--format", format, "--timeout", "2"])
                .env("HOME", &home)
                .output()
                .unwrap();
            let printed = crate::support::printed(&out);
            assert_eq!(out.status.code(), Some(1), "{printed}");
            assert!(printed.contains(said), "{said} not said:\n{printed}");
            assert!(
                !printed.contains(token) && !printed.contains(password),
                "a credential is shown:\n{printed}"
            );
        }
    }
}

#[test]
fn preflight_ends_a_step_whose_files_take_longer_than_its_bound_as_timeout() {
    // Every file read takes 6 s (a kubeconfig of tens of megabytes to parse, a stalled
    // network mount): each step still ends within --timeout + 1 s, as `timeout`.
    let reader: FileReader = Box::new(|path: &Path| {
        std::thread::sleep(Duration::from_secs(6));
        Err(format!("{}: read too late", path.display()))
    });
    let refused = servers::refused_port().to_string();
    let facts = &Model::get().image.kube_api;
    let env: Vec<(String, String)> = [
        ("CN_CONFIG_ADAPTER", "kubernetes"),
        ("CN_CONFIG_KUBERNETES_NAMESPACE", NAMESPACE),
        ("CN_CONFIG_KUBERNETES_CONFIGMAP", NAME),
        (facts.host.as_str(), "127.0.0.1"),
        (facts.port.as_str(), refused.as_str()),
        ("CN_SECRET_ADAPTER", "vault"),
        ("CN_SECRET_VAULT_ADDR", "http://127.0.0.1:1"),
        ("CN_PERSISTENCE_TYPE", "sql"),
        ("CN_SQL_DB_HOST", "127.0.0.1"),
        ("CN_SQL_DB_PORT", refused.as_str()),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let setting = container_setting(env, reader);
    let limits = Limits {
        timeout: Duration::from_secs(1),
    };
    let started = Instant::now();
    let report = serde_json::to_value(svcgen::preflight::run(&setting, limits)).unwrap();
    let elapsed = started.elapsed();
    // The config step reads the service account's token, the secret step the role_id file,
    // the SQL step its password file.
    // Each says which file it was still reading.
    let image = &Model::get().image;
    let token = &facts.token;
    let sql_password = &image.sql_password_file.path;
    for (name, file) in [
        ("config", token.as_str()),
        ("secret", "/etc/certs/vault_role_id"),
        ("persistence", sql_password.as_str()),
    ] {
        let (status, reason) = of(&report, name);
        assert_eq!(status, "timeout", "{name}: {reason}\n{report:#}");
        assert!(
            reason.ends_with(&format!("; it was reading {file}")),
            "{name}: {reason}"
        );
    }
    for step in report["steps"].as_array().unwrap() {
        assert!(step["ms"].as_u64().unwrap() < 2500, "{step:#}");
    }
    // Four checks (three steps and the token server), each at most 2 s.
    assert!(elapsed < Duration::from_secs(9), "{elapsed:?}");
}
