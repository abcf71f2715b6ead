//! `svcgen preflight` against real servers (PostgreSQL) and fakes of Consul and Vault whose
//! answers are checked, in the same run, against the real Python clients the image uses.

use crate::support::servers::{self, Server};
use crate::support::svcgen;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

pub(crate) use crate::support::preflight_profile::profile_b;
use crate::support::preflight_profile::{
    CONSUL_TOKEN, KEY, READY_SQL, ROLE_ID, SECRET_ID, SQL_PASSWORD, Services, profile,
};

/// Runs preflight with JSON output: exit code, the report, stdout and stderr.
pub(crate) fn preflight(profile: &Path, extra: &[&str]) -> (i32, Value, String, String) {
    let out = svcgen()
        .arg("preflight")
        .arg(profile)
        .args(["--format", "json"])
        .args(extra)
        .output()
        .expect("svcgen runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let report = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), report, stdout, stderr)
}

/// The step named `step` (and `backend`) of a report.
pub(crate) fn step<'a>(report: &'a Value, step: &str) -> &'a Value {
    report["steps"]
        .as_array()
        .and_then(|steps| steps.iter().find(|s| s["step"] == step))
        .unwrap_or_else(|| panic!("no step {step} in {report:#}"))
}

pub(crate) fn status_and_reason(report: &Value, name: &str) -> (String, String) {
    let s = step(report, name);
    (
        s["status"].as_str().unwrap_or_default().to_string(),
        s["reason"].as_str().unwrap_or_default().to_string(),
    )
}

/// A ready consul and vault (vault holding `sql_password`), and PostgreSQL with `sql`.
fn ready(sql: &str, sql_password: &str) -> Option<(Server, Server, Server)> {
    let consul = servers::fake("consul", &["ready", ""])?;
    let password = format!("sql_password={sql_password}");
    let vault = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, &password])?;
    let pg = servers::postgres(sql)?;
    Some((consul, vault, pg))
}

#[test]
fn preflight_passes_when_every_service_is_ready_and_after_start_never_changes_the_exit() {
    let Some((consul, vault, pg)) = ready(READY_SQL, SQL_PASSWORD) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(consul.port, vault.port, pg.port));
    let (code, report, stdout, stderr) = preflight(&path, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(report["would_start"], true);
    let names: Vec<&str> = (report["steps"].as_array().unwrap().iter())
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["config", "secret", "persistence"]);
    for name in names {
        assert_eq!(status_and_reason(&report, name).0, "ok", "{report:#}");
    }
    // The token server is down: said, and the exit code stays 0.
    let after = &report["after_start"][0];
    assert_eq!(after["step"], "token-server");
    assert_eq!(after["status"], "failed");
    assert_eq!(after["reason"], "connection refused", "{after:#}");
    for field in ["step", "backend", "target", "status", "ms", "reason"] {
        assert!(step(&report, "config").get(field).is_some(), "{field}");
    }
}

#[test]
fn preflight_names_the_missing_consul_key_and_still_runs_the_other_steps() {
    let Some(consul) = servers::fake("consul", &["missing", ""]) else {
        return;
    };
    let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let refused = servers::refused_port();
    let path = profile(dir.path(), &Services::new(consul.port, vault.port, refused));
    let (code, report, ..) = preflight(&path, &[]);
    assert_eq!(code, 1);
    assert_eq!(report["would_start"], false);
    assert_eq!(
        status_and_reason(&report, "config"),
        ("failed".into(), format!("key {KEY} missing"))
    );
    assert_eq!(status_and_reason(&report, "secret").0, "ok");
    // The secret backend holds no sql_password here: the step ran and says so.
    let (status, reason) = status_and_reason(&report, "persistence");
    assert_eq!(status, "failed");
    assert_eq!(reason, "key secret/jans/sql_password missing");
}

#[test]
fn preflight_reports_a_refused_consul_token_as_authentication_failed() {
    let Some(consul) = servers::fake("consul", &["ready", CONSUL_TOKEN]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("token"), "wrong-token\n").unwrap();
    let mut services = Services::new(consul.port, servers::refused_port(), 1);
    services.consul_extra = ", token_file = \"/etc/certs/consul_token\"".to_string();
    services
        .files
        .push("\"config.consul.token_file\" = { host = \"token\" }".to_string());
    let path = profile(dir.path(), &services);
    let (code, report, stdout, stderr) = preflight(&path, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        status_and_reason(&report, "config"),
        (
            "failed".into(),
            "authentication failed: ACL not found".into()
        )
    );
    // The right token passes.
    std::fs::write(dir.path().join("token"), format!("{CONSUL_TOKEN}\n")).unwrap();
    let (_, report, ..) = preflight(&path, &[]);
    assert_eq!(status_and_reason(&report, "config").0, "ok", "{report:#}");
    assert_eq!(status_and_reason(&report, "secret").1, "connection refused");
}

#[test]
fn preflight_wrong_approle_fails_the_secret_step_and_leaves_sql_not_reached() {
    let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, "another-secret-id"]) else {
        return;
    };
    let Some(consul) = servers::fake("consul", &["ready", ""]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(consul.port, vault.port, 1));
    let (code, report, ..) = preflight(&path, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        status_and_reason(&report, "secret"),
        (
            "failed".into(),
            "authentication failed: invalid role or secret ID".into()
        )
    );
    let (status, reason) = status_and_reason(&report, "persistence");
    assert_eq!(status, "not-reached");
    assert!(reason.contains("sql_password"), "{reason}");
    assert_eq!(status_and_reason(&report, "config").0, "ok");
}

#[test]
fn preflight_missing_ssl_cert_fails_the_secret_step_but_sql_still_runs() {
    let Some((consul, _, pg)) = ready(READY_SQL, SQL_PASSWORD) else {
        return;
    };
    let password = format!("sql_password={SQL_PASSWORD}");
    let Some(vault) = servers::fake("vault", &["missing", ROLE_ID, SECRET_ID, &password]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(consul.port, vault.port, pg.port));
    let (code, report, ..) = preflight(&path, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        status_and_reason(&report, "secret"),
        ("failed".into(), "key secret/jans/ssl_cert missing".into())
    );
    assert_eq!(
        status_and_reason(&report, "persistence").0,
        "ok",
        "{report:#}"
    );
}

#[test]
fn preflight_says_sealed_for_a_sealed_vault() {
    let Some(vault) = servers::fake("vault", &["sealed", ROLE_ID, SECRET_ID]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(1, vault.port, 1));
    let (code, report, ..) = preflight(&path, &[]);
    assert_eq!(code, 1);
    assert_eq!(
        status_and_reason(&report, "secret"),
        ("failed".into(), "sealed: Vault is sealed".into())
    );
    assert_eq!(status_and_reason(&report, "persistence").0, "not-reached");
}

#[test]
fn preflight_sql_wrong_password_missing_table_and_missing_row() {
    let cases = [
        (
            READY_SQL,
            "not-the-password",
            "authentication failed: password authentication failed for user \"svc\"",
        ),
        ("", SQL_PASSWORD, "table jansAppConf missing"),
        (
            "CREATE TABLE \"jansAppConf\" (doc_id varchar(64) PRIMARY KEY)",
            SQL_PASSWORD,
            "row jans-auth missing in table jansAppConf",
        ),
    ];
    for (sql, password, reason) in cases {
        let Some((consul, vault, pg)) = ready(sql, password) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let path = profile(dir.path(), &Services::new(consul.port, vault.port, pg.port));
        let (code, report, stdout, _) = preflight(&path, &[]);
        assert_eq!(code, 1, "{stdout}");
        assert_eq!(
            status_and_reason(&report, "persistence"),
            ("failed".into(), reason.to_string()),
            "{report:#}"
        );
        assert!(!stdout.contains("not-the-password"), "{stdout}");
    }
}

#[test]
fn preflight_black_holes_end_as_timeout_within_the_timeout_plus_one_second() {
    let (consul, _c) = servers::black_hole();
    let (sql, _s) = servers::black_hole();
    let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, "sql_password=x"])
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(consul, vault.port, sql));
    let started = Instant::now();
    let (code, report, stdout, stderr) = preflight(&path, &["--timeout", "1"]);
    let elapsed = started.elapsed();
    assert_eq!(code, 1, "{stdout}{stderr}");
    for name in ["config", "persistence"] {
        let s = step(&report, name);
        assert_eq!(s["status"], "timeout", "{s:#}");
        assert!(s["ms"].as_u64().unwrap() <= 2000, "{s:#}");
    }
    // Four checks (three steps, one after-start), each at most timeout + 1 s.
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
}

#[test]
fn preflight_says_connection_refused_and_no_such_host() {
    let dir = tempfile::tempdir().unwrap();
    let mut services = Services::new(servers::refused_port(), 1, 1);
    services.vault = "http://nonexistent.invalid:8200".to_string();
    let path = profile(dir.path(), &services);
    let (code, report, ..) = preflight(&path, &["--timeout", "5"]);
    assert_eq!(code, 1);
    assert_eq!(
        status_and_reason(&report, "config"),
        ("failed".into(), "connection refused".into())
    );
    assert_eq!(
        status_and_reason(&report, "secret"),
        ("failed".into(), "no such host".into())
    );
}

/// A CA (`ca.pem`) and a server certificate for 127.0.0.1 it signed (`cert.pem`, `key.pem`),
/// in `dir`.
pub(crate) fn certificates(dir: &Path) -> bool {
    let openssl = |args: &[&str]| {
        std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    let made = openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]) && openssl(&[
        "req",
        "-new",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "server.csr",
    ]) && openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "san.ext",
        "-out",
        "cert.pem",
    ]);
    if !made {
        crate::support::skip("openssl", "install it (Debian: apt-get install openssl)");
    }
    made
}

#[test]
fn preflight_tls_untrusted_without_the_ca_file_and_trusted_with_it() {
    let dir = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) {
        return;
    }
    let consul = {
        let cert = dir.path().join("cert.pem");
        let key = dir.path().join("key.pem");
        with_tls(&cert, &key, || servers::fake("consul", &["ready", ""]))
    };
    let Some(consul) = consul else { return };
    let mut services = Services::new(1, servers::refused_port(), 1);
    services.consul = format!(
        "host = \"127.0.0.1\", port = {}, scheme = \"https\", verify = true",
        consul.port
    );
    let path = profile(dir.path(), &services);
    let (_, report, ..) = preflight(&path, &[]);
    let (status, reason) = status_and_reason(&report, "config");
    assert_eq!(status, "failed");
    assert!(reason.starts_with("certificate not trusted"), "{reason}");
    services
        .files
        .push("\"config.consul.cacert_file\" = { host = \"ca.pem\" }".to_string());
    let path = profile(dir.path(), &services);
    let (_, report, ..) = preflight(&path, &[]);
    assert_eq!(status_and_reason(&report, "config").0, "ok", "{report:#}");
}

/// Starts a fake serving HTTPS with `cert` and `key`.
pub(crate) fn with_tls(
    cert: &Path,
    key: &Path,
    start: impl FnOnce() -> Option<Server>,
) -> Option<Server> {
    servers::with_env(&[("FAKE_TLS_CERT", cert), ("FAKE_TLS_KEY", key)], start)
}

#[test]
fn preflight_never_shows_a_secret_in_any_output() {
    let Some((consul, vault, pg)) = ready(READY_SQL, "a-wrong-sql-password-93") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(consul.port, vault.port, pg.port));
    for format in ["json", "human"] {
        let out = svcgen()
            .arg("preflight")
            .arg(&path)
            .args(["--format", format])
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("authentication failed"), "{text}");
        for secret in [ROLE_ID, SECRET_ID, "a-wrong-sql-password-93", "hvs."] {
            assert!(!text.contains(secret), "{secret} shown: {text}");
        }
    }
}

#[test]
fn preflight_of_an_invalid_profile_exits_2_and_dials_nothing() {
    let (port, _hole) = servers::black_hole();
    let dir = tempfile::tempdir().unwrap();
    let path = profile(dir.path(), &Services::new(port, port, port));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("type = \"sql\"", "type = \"sqll\"")).unwrap();
    let started = Instant::now();
    let (code, report, stdout, stderr) = preflight(&path, &["--timeout", "5"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(report.is_null(), "{stdout}");
    assert!(stderr.contains("sqll"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(4));
}

/// What the image's own clients get from a fake, per case (oracle.py's one JSON line).
pub(crate) fn oracle(python: &Path, args: &[&str]) -> Value {
    let out = std::process::Command::new(python)
        .arg(servers::fakes().join("oracle.py"))
        .args(args)
        .output()
        .expect("the oracle runs");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "oracle: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn fakes_answer_the_image_s_python_clients_as_real_servers_do() {
    let Some(python) = servers::oracle_python() else {
        return;
    };
    // python-consul 1.1.0: a value; None for a missing key (404); ACLPermissionDenied for 403.
    let consul_cases = [
        ("ready", CONSUL_TOKEN, r#"{"value":"auth.example.org"}"#),
        ("missing", CONSUL_TOKEN, r#"{"value":null}"#),
        (
            "ready",
            "wrong",
            r#"{"error":"ACLPermissionDenied: ACL not found"}"#,
        ),
    ];
    for (case, token, expected) in consul_cases {
        let fake = servers::fake("consul", &[case, CONSUL_TOKEN]).unwrap();
        let got = oracle(&python, &["consul", &fake.port.to_string(), KEY, token]);
        assert_eq!(
            got,
            serde_json::from_str::<Value>(expected).unwrap(),
            "{case}"
        );
    }
    // hvac: the value; None for a missing key (InvalidPath, caught by pycloudlib); InvalidRequest
    // "invalid role or secret ID" for a wrong secret_id; VaultDown "Vault is sealed".
    let vault_cases = [
        (
            "ready",
            SECRET_ID,
            r#"{"value":"-----BEGIN CERTIFICATE-----"}"#,
        ),
        ("missing", SECRET_ID, r#"{"value":null}"#),
    ];
    for (case, secret_id, expected) in vault_cases {
        let fake = servers::fake("vault", &[case, ROLE_ID, SECRET_ID]).unwrap();
        let port = fake.port.to_string();
        let got = oracle(&python, &["vault", &port, ROLE_ID, secret_id, "ssl_cert"]);
        assert_eq!(
            got,
            serde_json::from_str::<Value>(expected).unwrap(),
            "{case}"
        );
    }
    let error_cases = [
        (
            "ready",
            "wrong",
            "InvalidRequest: invalid role or secret ID",
        ),
        ("sealed", SECRET_ID, "VaultDown: Vault is sealed"),
    ];
    for (case, secret_id, expected) in error_cases {
        let fake = servers::fake("vault", &[case, ROLE_ID, SECRET_ID]).unwrap();
        let port = fake.port.to_string();
        let got = oracle(&python, &["vault", &port, ROLE_ID, secret_id, "ssl_cert"]);
        let error = got["error"].as_str().unwrap_or_default();
        assert!(error.starts_with(expected), "{case}: {got}");
    }
}

#[test]
fn preflight_mysql_ready_wrong_password_missing_table_and_row() {
    let cases = [
        (READY_SQL_MYSQL, SQL_PASSWORD, None),
        (
            READY_SQL_MYSQL,
            "not-the-password",
            Some(
                "authentication failed: Access denied for user 'svc'@'localhost' (using password: YES)",
            ),
        ),
        ("", SQL_PASSWORD, Some("table jansAppConf missing")),
        (
            "CREATE TABLE jansAppConf (doc_id varchar(64) PRIMARY KEY)",
            SQL_PASSWORD,
            Some("row jans-auth missing in table jansAppConf"),
        ),
    ];
    let Some(consul) = servers::fake("consul", &["ready", ""]) else {
        return;
    };
    for (sql, password, reason) in cases {
        let Some(db) = servers::mariadb(sql) else {
            return;
        };
        let secret = format!("sql_password={password}");
        let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, &secret]) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let mut services = Services::new(consul.port, vault.port, db.port);
        services.dialect = "mysql";
        let path = profile(dir.path(), &services);
        let (code, report, stdout, _) = preflight(&path, &[]);
        let (status, got) = status_and_reason(&report, "persistence");
        match reason {
            None => {
                assert_eq!((code, status.as_str()), (0, "ok"), "{stdout}");
            }
            Some(reason) => {
                assert_eq!(code, 1, "{stdout}");
                assert_eq!(status, "failed");
                // MariaDB names the client's address as it saw it.
                let got = got.replace("'127.0.0.1'", "'localhost'");
                assert_eq!(got, reason, "{report:#}");
            }
        }
    }
}

const READY_SQL_MYSQL: &str = "CREATE TABLE jansAppConf (doc_id varchar(64) PRIMARY KEY); \
                               INSERT INTO jansAppConf VALUES ('jans-auth');";

/// `ldap-pw-4471` (the LDAP password) encoded as the image's `encode_text` encodes it with the salt [`SALT`]: Triple
/// DES (ECB, PKCS#5 padding), base64 (`openssl enc -des-ede3 -K <salt in hex> -nosalt -a`).
const SALT: &str = "abcdefghijklmnopqrstuvwx";
const ENCODED_SECRET: &str = "cXbiNE5OqaWEG90PPkos0w==";
const ENCODED_WRONG: &str = "EH+5yHz9I/o=";
/// An SSA with the claims edition A's bootstrap reads, and one without `org_id`.
const SSA: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2FjY291bnQuZ2x1dS5vcmciLCJvcmdfaWQiOiJvcmctNWMxIn0.c2lnbmF0dXJl";
const SSA_WITHOUT_ORG: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2FjY291bnQuZ2x1dS5vcmcifQ.c2lnbmF0dXJl";

/// An edition A profile with LDAP on `ldap_host` (the image's port 1389) and its SSA file.
fn profile_a(
    dir: &Path,
    consul: u16,
    vault: u16,
    ldap_host: &str,
    ssa: &str,
) -> std::path::PathBuf {
    std::fs::write(dir.join("role_id"), format!("{ROLE_ID}\n")).unwrap();
    std::fs::write(dir.join("secret_id"), format!("{SECRET_ID}\n")).unwrap();
    std::fs::write(dir.join("ssa"), ssa).unwrap();
    let text = format!(
        r#"edition = "A"

[config]
adapter = "consul"
consul = {{ host = "127.0.0.1", port = {consul}, scheme = "http" }}

[secret]
adapter = "vault"
vault = {{ addr = "http://127.0.0.1:{vault}", prefix = "jans" }}

[persistence]
type = "ldap"
ldap = {{ url = "{ldap_host}:1389", use_ssl = false }}

[token_server]
base_hostname = "auth.example.org"
client_id = "1001.abc"

[admin_ui]
auth_method = "casa"

[scan]
auth_url = "https://account.example.org"
api_url = "https://scan.example.org"

[deploy]
kubernetes = false

[deploy.files]
"secret.vault.role_id_file" = {{ host = "role_id" }}
"secret.vault.secret_id_file" = {{ host = "secret_id" }}
ssa_file = {{ host = "ssa" }}
"#
    );
    let path = dir.join("profile.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A loopback address of this test's own (the image dials LDAP on a fixed port, 1389).
pub(crate) fn loopback(last: u8) -> String {
    format!("127.0.{}.{last}", std::process::id() % 250 + 1)
}

#[test]
fn preflight_ldap_binds_with_the_decoded_password_and_finds_the_entry() {
    let host = loopback(11);
    let entry = "dn: ou=configuration,o=jans\nobjectClass: organizationalUnit\nou: configuration\n\n\
                 dn: ou=jans-auth,ou=configuration,o=jans\nobjectClass: jansAppConf\nou: jans-auth\n\n\
                 dn: cn=admin,o=jans\nobjectClass: person\ncn: admin\nsn: admin\nuserPassword: ldap-pw-4471\n";
    let Some(_ldap) = servers::slapd(&host, 1389, entry) else {
        return;
    };
    let Some(consul) = servers::fake(
        "consul",
        &["ready", "", "jans/config/ldap_binddn=cn=admin,o=jans"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (ENCODED_SECRET, SSA, None, None),
        (ENCODED_WRONG, SSA, Some("authentication failed: "), None),
        (
            ENCODED_SECRET,
            SSA_WITHOUT_ORG,
            None,
            Some("claim org_id missing"),
        ),
        (
            ENCODED_SECRET,
            "not a jwt",
            None,
            Some("not a JWT: 1 dot-separated parts, where a JWT has 3"),
        ),
    ];
    for (encoded, ssa, ldap_reason, ssa_reason) in cases {
        let password = format!("encoded_ox_ldap_pw={encoded}");
        let salt = format!("encoded_salt={SALT}");
        let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, &password, &salt])
        else {
            return;
        };
        let path = profile_a(dir.path(), consul.port, vault.port, &host, ssa);
        let (code, report, stdout, stderr) = preflight(&path, &[]);
        let names: Vec<&str> = (report["steps"].as_array().unwrap().iter())
            .map(|s| s["step"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["config", "secret", "persistence", "ssa"],
            "{stdout}{stderr}"
        );
        let (status, reason) = status_and_reason(&report, "persistence");
        match ldap_reason {
            None => assert_eq!(status, "ok", "{report:#}"),
            Some(start) => assert!(reason.starts_with(start), "{report:#}"),
        }
        let (status, reason) = status_and_reason(&report, "ssa");
        match ssa_reason {
            None => assert_eq!(status, "ok", "{report:#}"),
            Some(expected) => assert_eq!(reason, expected, "{report:#}"),
        }
        let all_ok = ldap_reason.is_none() && ssa_reason.is_none();
        assert_eq!(code, if all_ok { 0 } else { 1 }, "{stdout}");
        for secret in ["ldap-pw-4471", SSA] {
            assert!(
                !stdout.contains(secret) && !stderr.contains(secret),
                "{stdout}{stderr}"
            );
        }
    }
}

#[test]
fn preflight_ldap_missing_entry_and_not_reached_after_the_config_step_fails() {
    let host = loopback(12);
    let entry = "dn: cn=admin,o=jans\nobjectClass: person\ncn: admin\nsn: admin\nuserPassword: ldap-pw-4471\n";
    let Some(_ldap) = servers::slapd(&host, 1389, entry) else {
        return;
    };
    let password = format!("encoded_ox_ldap_pw={ENCODED_SECRET}");
    let salt = format!("encoded_salt={SALT}");
    let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, &password, &salt])
    else {
        return;
    };
    let Some(consul) = servers::fake(
        "consul",
        &["ready", "", "jans/config/ldap_binddn=cn=admin,o=jans"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = profile_a(dir.path(), consul.port, vault.port, &host, SSA);
    let (_, report, ..) = preflight(&path, &[]);
    assert_eq!(
        status_and_reason(&report, "persistence"),
        (
            "failed".into(),
            "entry ou=jans-auth,ou=configuration,o=jans (objectClass=jansAppConf) missing".into()
        )
    );
    let path = profile_a(dir.path(), servers::refused_port(), vault.port, &host, SSA);
    let (_, report, ..) = preflight(&path, &[]);
    assert_eq!(status_and_reason(&report, "config").1, "connection refused");
    assert_eq!(status_and_reason(&report, "persistence").0, "not-reached");
    assert_eq!(status_and_reason(&report, "ssa").0, "ok");
}

#[test]
fn preflight_after_start_checks_the_token_server_s_discovery_and_issuer() {
    let Some(oidc) = servers::oidc(None) else {
        return;
    };
    let Some(other) = servers::oidc(Some("https://elsewhere.example.org")) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut services = Services::new(servers::refused_port(), servers::refused_port(), 1);
    services.token_server = format!("http://127.0.0.1:{}", oidc.port);
    let path = profile(dir.path(), &services);
    let (code, report, ..) = preflight(&path, &[]);
    assert_eq!(
        code, 1,
        "the start steps fail: the after-start check does not change that"
    );
    assert_eq!(report["after_start"][0]["status"], "ok", "{report:#}");
    services.token_server = format!("http://127.0.0.1:{}", other.port);
    let path = profile(dir.path(), &services);
    let (_, report, ..) = preflight(&path, &[]);
    let after = &report["after_start"][0];
    assert_eq!(after["status"], "failed");
    assert_eq!(
        after["reason"],
        format!(
            "the discovery document names issuer \"https://elsewhere.example.org\", not \"http://127.0.0.1:{}\"",
            other.port
        )
    );
}

#[test]
fn preflight_reads_the_sql_password_file_when_the_profile_gives_it_a_host_source() {
    let Some(pg) = servers::postgres(READY_SQL) else {
        return;
    };
    // The vault login fails: the password comes from the file, so the SQL step still runs.
    let Some(vault) = servers::fake("vault", &["denied", ROLE_ID, SECRET_ID]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sql_password"), format!("{SQL_PASSWORD}\n")).unwrap();
    let mut services = Services::new(servers::refused_port(), vault.port, pg.port);
    services
        .files
        .push("\"persistence.sql.password_file\" = { host = \"sql_password\" }".to_string());
    let path = profile(dir.path(), &services);
    let (code, report, stdout, stderr) = preflight(&path, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(status_and_reason(&report, "secret").0, "failed");
    assert_eq!(
        status_and_reason(&report, "persistence").0,
        "ok",
        "{report:#}"
    );
    // A wrong password in the file is the server's refusal.
    std::fs::write(dir.path().join("sql_password"), "wrong\n").unwrap();
    let (_, report, ..) = preflight(&path, &[]);
    let (status, reason) = status_and_reason(&report, "persistence");
    assert_eq!(status, "failed");
    assert!(reason.starts_with("authentication failed"), "{reason}");
}

#[test]
fn preflight_from_env_reads_the_container_s_environment_and_files() {
    let Some(consul) = servers::fake("consul", &["ready", ""]) else {
        return;
    };
    let Some(vault) = servers::fake("vault", &["missing", ROLE_ID, SECRET_ID]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let role = dir.path().join("role_id");
    let secret = dir.path().join("secret_id");
    std::fs::write(&role, ROLE_ID).unwrap();
    std::fs::write(&secret, SECRET_ID).unwrap();
    let out = svcgen()
        .args([
            "preflight",
            "--from-env",
            "--edition",
            "B",
            "--format",
            "json",
        ])
        .env_clear()
        .env("CN_CONFIG_ADAPTER", "consul")
        .env("CN_CONFIG_CONSUL_HOST", "127.0.0.1")
        .env("CN_CONFIG_CONSUL_PORT", consul.port.to_string())
        .env("CN_CONFIG_CONSUL_SCHEME", "http")
        .env("CN_SECRET_ADAPTER", "vault")
        .env(
            "CN_SECRET_VAULT_ADDR",
            format!("http://127.0.0.1:{}", vault.port),
        )
        .env("CN_SECRET_VAULT_PREFIX", "jans")
        .env("CN_SECRET_VAULT_ROLE_ID_FILE", &role)
        .env("CN_SECRET_VAULT_SECRET_ID_FILE", &secret)
        .env("CN_PERSISTENCE_TYPE", "sql")
        .env("CN_SQL_DB_HOST", "127.0.0.1")
        .env("CN_SQL_DB_PORT", servers::refused_port().to_string())
        .env("CN_SQL_PASSWORD_FILE", dir.path().join("no-such-file"))
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(status_and_reason(&report, "config").0, "ok", "{report:#}");
    assert_eq!(
        status_and_reason(&report, "secret").1,
        "key secret/jans/ssl_cert missing"
    );
    // The password comes from the secret backend, which lacks it.
    assert_eq!(
        status_and_reason(&report, "persistence").1,
        "key secret/jans/sql_password missing"
    );
}

/// `preflight --from-env` in a process whose environment is `vars` alone (plus what the
/// runtime adds: `PATH` and `HOSTNAME`, which the image does not read): exit code, stdout, stderr.
pub(crate) fn from_env(vars: &[(&str, &str)], extra: &[&str]) -> (i32, String, String) {
    let out = svcgen()
        .args(["preflight", "--from-env", "--timeout", "2"])
        .args(extra)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOSTNAME", "admin-ui-preflight-x7")
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn preflight_from_env_refuses_an_unusable_variable_naming_it_and_what_is_accepted() {
    let (port, _hole) = servers::black_hole();
    let port = port.to_string();
    let passphrase = "passphrase-e41c7a";
    let started = Instant::now();
    let (code, stdout, stderr) = from_env(
        &[
            ("CN_CONFIG_ADAPTER", "consul"),
            ("CN_CONFIG_CONSUL_HOST", "127.0.0.1"),
            ("CN_CONFIG_CONSUL_PORT", "consul-port"),
            ("CN_SQL_DB_HOST", "127.0.0.1"),
            ("CN_SQL_DB_PORT", &port),
            ("CN_GOOGLE_SECRET_MANAGER_PASSPHRASE", passphrase),
        ],
        &["--edition", "B"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    // Nothing dialled: no report, and no wait on the black hole.
    assert!(stdout.is_empty(), "{stdout}");
    assert!(started.elapsed() < Duration::from_secs(2));
    // The variable, where it is in the environment, and what a port accepts.
    assert!(stderr.contains("`CN_CONFIG_CONSUL_PORT`"), "{stderr}");
    assert!(stderr.contains("the environment:"), "{stderr}");
    assert!(stderr.contains("an integer from 1 to 65535"), "{stderr}");
    assert!(
        !stderr.contains(passphrase),
        "the passphrase is shown: {stderr}"
    );
    // The runtime's own variables are not the image's: never reported.
    assert!(
        !stderr.contains("HOSTNAME") && !stderr.contains("PATH"),
        "{stderr}"
    );
}

#[test]
fn preflight_from_env_decides_the_edition_from_the_variables_or_asks_for_it() {
    // Both editions have the consul adapter: the edition must be given.
    let (code, stdout, stderr) = from_env(&[("CN_CONFIG_ADAPTER", "consul")], &[]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("--edition A or --edition B"), "{stderr}");
    // A variable only edition A has decides it: the `ssa` step runs, on the file
    // `GLUU_SSA_FILE` names.
    let dir = tempfile::tempdir().unwrap();
    let ssa = dir.path().join("ssa");
    std::fs::write(&ssa, "not-a-jwt").unwrap();
    let refused = servers::refused_port().to_string();
    let (code, stdout, stderr) = from_env(
        &[
            ("CN_CONFIG_ADAPTER", "consul"),
            ("CN_CONFIG_CONSUL_HOST", "127.0.0.1"),
            ("CN_CONFIG_CONSUL_PORT", &refused),
            ("GLUU_SSA_FILE", ssa.to_str().unwrap()),
            ("CN_LDAP_USE_SSL", "true"),
        ],
        &["--format", "json"],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let ssa_step = step(&report, "ssa");
    assert_eq!(ssa_step["status"], "failed", "{report:#}");
    assert_eq!(ssa_step["target"], ssa.to_str().unwrap(), "{report:#}");
}

#[test]
fn preflight_from_env_reads_files_through_the_bounded_reader() {
    let Some(vault) = servers::fake("vault", &["ready", ROLE_ID, SECRET_ID]) else {
        return;
    };
    let addr = format!("http://127.0.0.1:{}", vault.port);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("role_id");
    if !crate::support::mkfifo(&fifo) {
        return;
    }
    for role_id in [Path::new("/dev/zero"), &fifo] {
        let started = Instant::now();
        let (code, stdout, stderr) = from_env(
            &[
                ("CN_SECRET_ADAPTER", "vault"),
                ("CN_SECRET_VAULT_ADDR", &addr),
                ("CN_SECRET_VAULT_ROLE_ID_FILE", role_id.to_str().unwrap()),
            ],
            &["--format", "json", "--edition", "B"],
        );
        assert_eq!(code, 1, "{stdout}{stderr}");
        assert!(started.elapsed() < Duration::from_secs(5));
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let (status, reason) = status_and_reason(&report, "secret");
        assert_eq!(status, "failed", "{report:#}");
        assert!(reason.contains(role_id.to_str().unwrap()), "{reason}");
    }
}

#[test]
fn preflight_from_env_never_shows_the_value_of_a_credential_variable_the_spec_does_not_name() {
    // Variables the image or a sidecar may read as credentials, some misspelt: the warnings
    // about them name the variable, never its value.
    let refused = servers::refused_port().to_string();
    let values = [
        ("CN_SQL_PASSWORD", "sql-pw-61c0f2"),
        ("CN_SECRET_VAULT_ROLE_ID", "role-6a1e77"),
        ("CN_VAULT_TOKEN", "token-0d93b4"),
        ("GLUU_COUCHBASE_SUPERUSER_PASSWORD", "su-pw-7c2e10"),
    ];
    let mut vars = vec![
        ("CN_CONFIG_ADAPTER", "consul"),
        ("CN_CONFIG_CONSUL_HOST", "127.0.0.1"),
        ("CN_CONFIG_CONSUL_PORT", refused.as_str()),
    ];
    vars.extend(values);
    let (_, stdout, stderr) = from_env(&vars, &["--edition", "B"]);
    assert!(stderr.contains("CN_SQL_PASSWORD"), "{stderr}");
    for (name, value) in values {
        assert!(
            !stdout.contains(value) && !stderr.contains(value),
            "{name}'s value is shown:\n{stdout}{stderr}"
        );
    }
}

#[test]
fn preflight_prints_each_step_s_line_as_it_ends_while_a_later_step_still_blocks() {
    // Consul refuses at once; vault accepts and never answers, for up to a minute.
    let (vault, _hole) = servers::black_hole();
    let dir = tempfile::tempdir().unwrap();
    let services = Services::new(servers::refused_port(), vault, servers::refused_port());
    let path = profile(dir.path(), &services);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("svcgen"))
        .arg("preflight")
        .arg(&path)
        .args(["--timeout", "60"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    // The config step's line, read while the secret step still waits on the black hole.
    let first = lines.recv_timeout(Duration::from_secs(30));
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    let first = first
        .expect("the config step's line before the run ends")
        .unwrap();
    assert!(still_running, "the run had ended: {first}");
    assert!(first.starts_with("config"), "{first}");
    assert!(first.contains("failed"), "{first}");
    assert!(first.contains("connection refused"), "{first}");
}

#[test]
fn preflight_names_the_tls_file_at_fault_by_its_role_and_path() {
    let dir = tempfile::tempdir().unwrap();
    if !certificates(dir.path()) {
        return;
    }
    std::fs::write(dir.path().join("garbage.pem"), "not a certificate\n").unwrap();
    let refused = servers::refused_port();
    // (cacert, cert, key) host files, the role that must be named, the key of its path.
    let cases = [
        (
            ["garbage.pem", "cert.pem", "key.pem"],
            "the CA file",
            "cacert_file",
        ),
        (
            ["ca.pem", "garbage.pem", "key.pem"],
            "the client certificate",
            "cert_file",
        ),
        (
            ["ca.pem", "cert.pem", "garbage.pem"],
            "the client key",
            "key_file",
        ),
    ];
    for ([ca, cert, key], role, at_fault) in cases {
        let mut services = Services::new(1, servers::refused_port(), 1);
        services.consul = format!(
            "host = \"127.0.0.1\", port = {refused}, scheme = \"https\", verify = true, \
             cacert_file = \"/certs/ca.crt\", cert_file = \"/certs/client.crt\", \
             key_file = \"/certs/client.key\""
        );
        services.files = vec![
            format!("\"config.consul.cacert_file\" = {{ host = \"{ca}\" }}"),
            format!("\"config.consul.cert_file\" = {{ host = \"{cert}\" }}"),
            format!("\"config.consul.key_file\" = {{ host = \"{key}\" }}"),
        ];
        let path = profile(dir.path(), &services);
        let (_, report, stdout, stderr) = preflight(&path, &[]);
        let (status, reason) = status_and_reason(&report, "config");
        assert_eq!(status, "failed", "{stdout}{stderr}");
        let container_path = match at_fault {
            "cacert_file" => "/certs/ca.crt",
            "cert_file" => "/certs/client.crt",
            _ => "/certs/client.key",
        };
        assert!(
            reason.starts_with(&format!("{role} {container_path} ")),
            "{role}: {reason}"
        );
    }
}

#[test]
fn preflight_from_env_points_at_the_variable_after_a_value_with_line_breaks() {
    let (code, stdout, stderr) = from_env(
        &[
            ("CN_CONFIG_ADAPTER", "consul"),
            ("CN_CONFIG_CONSUL_HOST", "consul\nsecond line\nthird line"),
            ("CN_CONFIG_CONSUL_PORT", "consul-port"),
        ],
        &["--edition", "B"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    // Sorted by name: the adapter is line 1, the host 2, the port 3, whatever the host holds.
    assert!(
        stderr.contains("--> the environment:3:23"),
        "the port's position: {stderr}"
    );
    assert!(
        stderr.contains("CN_CONFIG_CONSUL_HOST=consul\\nsecond line\\nthird line"),
        "the value with its line breaks, on one line: {stderr}"
    );
}

#[test]
fn preflight_from_env_gives_no_advice_about_a_file_on_its_error_path() {
    // A secret variable is where the container's secrets belong; the run stops on the port.
    let (code, stdout, stderr) = from_env(
        &[
            ("CN_CONFIG_ADAPTER", "consul"),
            ("CN_CONFIG_CONSUL_PORT", "consul-port"),
            ("CN_GOOGLE_SECRET_MANAGER_PASSPHRASE", "passphrase-5be0"),
        ],
        &["--edition", "B"],
    );
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("`CN_CONFIG_CONSUL_PORT`"), "{stderr}");
    assert!(!stderr.contains("W0307"), "{stderr}");
    assert!(!stderr.contains("in this file"), "{stderr}");
}

/// Every variable outside the spec that `schemas/spec.toml`'s `[image]` facts name (read from
/// the file's text, not through svcgen's model), with the editions of its line.
fn image_fact_variables() -> Vec<(String, Vec<&'static str>)> {
    let spec = std::fs::read_to_string(crate::support::repo().join("schemas/spec.toml")).unwrap();
    let section = spec.split("\n[image]\n").nth(1).unwrap();
    let section = section.split("\n[").next().unwrap();
    let mut found: Vec<(String, Vec<&'static str>)> = Vec::new();
    for line in section.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let editions: Vec<&'static str> = ["A", "B"]
            .into_iter()
            .filter(|e| !line.contains("editions = [") || line.contains(&format!("\"{e}\"")))
            .collect();
        for quoted in line.split('"').skip(1).step_by(2) {
            let is_name = (quoted.starts_with("CN_") || quoted.starts_with("GLUU_"))
                && quoted
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if !is_name {
                continue;
            }
            // A variable of one line per edition (its facts differ) gathers both.
            match found.iter_mut().find(|(n, _)| n == quoted) {
                Some((_, known)) => {
                    for edition in &editions {
                        if !known.contains(edition) {
                            known.push(edition);
                        }
                    }
                }
                None => found.push((quoted.to_string(), editions.clone())),
            }
        }
    }
    found
}

#[test]
fn image_variables_outside_the_spec_are_known_to_from_env_and_import() {
    let facts = image_fact_variables();
    assert!(
        facts.iter().any(|(n, _)| n == "CN_SQL_PASSWORD_FILE"),
        "{facts:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    for edition in ["A", "B"] {
        let names: Vec<&str> = (facts.iter())
            .filter(|(_, editions)| editions.contains(&edition))
            .map(|(n, _)| n.as_str())
            .collect();
        let mut vars = vec![("CN_CONFIG_ADAPTER", "consul")];
        vars.extend(names.iter().map(|n| (*n, "/x")));
        let (_, stdout, stderr) = from_env(&vars, &["--edition", edition, "--timeout", "1"]);
        let dotenv = dir.path().join(format!("{edition}.env"));
        let text: String = vars.iter().map(|(n, v)| format!("{n}={v}\n")).collect();
        std::fs::write(&dotenv, text).unwrap();
        let imported = svcgen()
            .args(["import", "--edition", edition])
            .arg(&dotenv)
            .output()
            .unwrap();
        let import_stderr = String::from_utf8_lossy(&imported.stderr);
        for name in names {
            let unknown = format!("`{name}` is not in the spec: svcgen does not check it");
            assert!(
                !stderr.contains(&unknown),
                "--from-env, {edition}: {stdout}{stderr}"
            );
            assert!(
                !import_stderr.contains(&unknown),
                "import, {edition}: {import_stderr}"
            );
            assert!(
                import_stderr.contains(&format!(
                    "`{name}` is not in the spec, but the image reads it"
                )),
                "import, {edition}, {name}: {import_stderr}"
            );
        }
    }
}
