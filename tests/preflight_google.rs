//! `svcgen preflight` with the google config and secret adapters and the Spanner backend,
//! against a fake of Google's Secret Manager and Spanner REST APIs whose every answer is checked,
//! in the same run, against the real Python clients (google-cloud-secret-manager and
//! google-cloud-spanner over their REST transport, credentials loaded by google-auth from the
//! same service account file). The binary reaches the fake through its `test-hooks` endpoint
//! override (`SVCGEN_TEST_GOOGLE_ENDPOINT`), which no release build honours.

use crate::preflight::{profile_b, status_and_reason};
use crate::support::servers::{self, Server};
use crate::support::svcgen;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const PROJECT: &str = "project-1";
const EMAIL: &str = "preflight@project-1.iam.gserviceaccount.com";
const DATABASE: &str = "projects/project-1/instances/instance-1/databases/database-1";
/// The passphrase of the profile: distinctive, to look for it in outputs.
const PASSPHRASE: &str = "a-passphrase-7781";

/// A service account key made with openssl: the JSON file google-auth reads, and the key's
/// modulus (hex) the fake verifies signatures with. `None` (skipped) without openssl.
fn account(dir: &Path, name: &str, extra: &str) -> Option<(PathBuf, String)> {
    let key = dir.join(format!("{name}.pem"));
    let made = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&key)
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        crate::support::skip(
            "openssl",
            "install openssl (Debian: apt-get install openssl)",
        );
        return None;
    }
    let out = Command::new("openssl")
        .args(["rsa", "-noout", "-modulus", "-in"])
        .arg(&key)
        .output()
        .unwrap();
    let modulus = String::from_utf8_lossy(&out.stdout);
    let modulus = modulus.trim().trim_start_matches("Modulus=").to_string();
    let json = serde_json::json!({
        "type": "service_account", "project_id": PROJECT, "private_key_id": "key-1",
        "private_key": std::fs::read_to_string(&key).unwrap(), "client_email": EMAIL,
        "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token",
    });
    let mut json = json.as_object().unwrap().clone();
    if !extra.is_empty() {
        let more: Value = serde_json::from_str(extra).unwrap();
        json.extend(more.as_object().unwrap().clone());
    }
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, Value::Object(json).to_string()).unwrap();
    Some((path, modulus))
}

/// The fake of `case`, accepting the account with `modulus`.
fn fake(case: &str, modulus: &str, extra: &[&str]) -> Option<Server> {
    let mut args = vec![case, PROJECT, modulus, EMAIL];
    args.extend_from_slice(extra);
    servers::fake("google", &args)
}

/// The venv's python with the image's Google clients, for the oracle (skipped without them).
fn google_python() -> Option<PathBuf> {
    let venv = std::env::var_os("SVCGEN_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::support::repo().join(".venv"));
    let python = venv.join("bin/python");
    let imports = "import google.cloud.secretmanager, google.cloud.spanner_v1, cryptography";
    let has = python.is_file()
        && Command::new(&python)
            .args(["-c", imports])
            .status()
            .is_ok_and(|s| s.success());
    if !has {
        crate::support::skip(
            "google-cloud-secret-manager, google-cloud-spanner and cryptography",
            "install the pins of scripts/requirements.txt into .venv (scripts/test.sh does)",
        );
        return None;
    }
    Some(python)
}

/// An edition B profile with both google adapters and Spanner, the credentials file `json`.
fn profile(dir: &Path, json: &Path, more: &str) -> PathBuf {
    let sections = format!(
        r#"[config]
adapter = "google"

[secret]
adapter = "google"

[google]
project_id = "{PROJECT}"
application_credentials = "/etc/jans/conf/google-credentials.json"
secret_manager_passphrase = "{PASSPHRASE}"

[persistence]
type = "spanner"
spanner = {{ instance_id = "instance-1", database_id = "database-1" }}
{more}"#
    );
    let files = format!(
        "\"google.application_credentials\" = {{ host = \"{}\" }}",
        json.display()
    );
    let token_server = format!("https://127.0.0.1:{}", servers::refused_port());
    profile_b(dir, &sections, &token_server, &files)
}

/// Runs preflight with every Google API at `port` (3 s per step): code, report, stdout+stderr.
fn run(profile: &Path, port: u16) -> (i32, Value, String) {
    let out = svcgen()
        .arg("preflight")
        .arg(profile)
        .args(["--format", "json", "--timeout", "3"])
        .env(
            "SVCGEN_TEST_GOOGLE_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let report = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), report, all)
}

/// The three steps' (status, reason).
fn steps(report: &Value) -> [(String, String); 3] {
    ["config", "secret", "persistence"].map(|s| status_and_reason(report, s))
}

/// An older `<prefix>-secret` payload as the image's GoogleSecret wrote it (zlib of
/// salt-iv-ciphertext, AES-GCM with a 16-byte IV of lzma'd JSON), made by Python's own modules.
fn older_payload(python: &Path, passphrase: &str) -> String {
    let script = r#"
import base64, hashlib, json, lzma, os, sys, zlib
from binascii import hexlify
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
salt, iv = os.urandom(16), os.urandom(16)
key = hashlib.pbkdf2_hmac("sha256", sys.argv[1].encode(), salt, 1000)
data = json.dumps({"ssl_cert": "-----BEGIN CERTIFICATE-----", "sql_password": "sql-pw"}).encode()
sealed = AESGCM(key).encrypt(iv, lzma.compress(data), None)
text = "%s-%s-%s" % (hexlify(salt).decode(), hexlify(iv).decode(), hexlify(sealed).decode())
print(base64.b64encode(zlib.compress(text.encode())).decode())
"#;
    let out = Command::new(python)
        .args(["-c", script, passphrase])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// The real clients against a fake on `port` with the account file `json`: config's hostname,
/// secret's ssl_cert (with `passphrase`), Spanner's row, Spanner's `SELECT 1`.
fn oracle_reads(python: &Path, port: u16, json: &Path, passphrase: &str) -> [Value; 4] {
    let (port, json) = (port.to_string(), json.to_str().unwrap());
    let config = ["google-config", &port, json, PROJECT, "svc", "hostname"];
    let secret = [
        "google-secret",
        &port,
        json,
        PROJECT,
        "svc",
        passphrase,
        "ssl_cert",
    ];
    let row = [
        "google-spanner",
        &port,
        json,
        DATABASE,
        "jansAppConf",
        "jans-auth",
    ];
    let one = ["google-spanner", &port, json, DATABASE, "-", "-"];
    [&config[..], &secret[..], &row[..], &one[..]]
        .map(|args| crate::preflight::oracle(python, args))
}

/// What the four reads of [`oracle_reads`] give: a value (as JSON), or the start of the error
/// and an excerpt of it.
type Expected<'a> = [(&'a str, &'a str); 4];

/// A preflight of the google profile against the fake of one case, with what it needs kept.
struct Ran {
    code: i32,
    report: Value,
    /// stdout and stderr.
    all: String,
    _dir: tempfile::TempDir,
    _server: Server,
}

/// A service account and the fake of `case` accepting it, and a preflight against it.
fn against(case: &str) -> Option<Ran> {
    let dir = tempfile::tempdir().unwrap();
    let (json, modulus) = account(dir.path(), "sa", "")?;
    let server = fake(case, &modulus, &[])?;
    let (code, report, all) = run(&profile(dir.path(), &json, ""), server.port);
    Some(Ran {
        code,
        report,
        all,
        _dir: dir,
        _server: server,
    })
}

#[test]
fn google_fakes_answer_the_image_s_python_clients_as_real_servers_do() {
    let Some(python) = google_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    let (other, _) = account(dir.path(), "other", "").unwrap();
    let cert = r#"{"value":"-----BEGIN CERTIFICATE-----"}"#;
    // The REST transport names an error by its HTTP status (Unauthorized, Forbidden, NotFound);
    // over gRPC the image's clients raise the status's own class (Unauthenticated,
    // PermissionDenied, NotFound): the same refusals, the same messages.
    let refused = "Unauthorized: 401 ";
    let unauthenticated = "Request had invalid authentication credentials.";
    // (case, account file, expected answers: a value, or the start and an excerpt of the error)
    let cases: [(&str, &Path, Expected); 5] = [
        (
            "ready",
            &json,
            [
                (r#"{"value":"auth.example.org"}"#, ""),
                (cert, ""),
                (r#"{"value":[["jans-auth"]]}"#, ""),
                (r#"{"value":1}"#, ""),
            ],
        ),
        (
            "missing",
            &json,
            [
                (r#"{"value":null}"#, ""),
                (r#"{"value":null}"#, ""),
                (r#"{"value":[]}"#, ""),
                (r#"{"value":1}"#, ""),
            ],
        ),
        (
            "gone",
            &json,
            [
                (
                    "NotFound: 404 ",
                    "Secret [projects/123456789012/secrets/svc-configuration] not found or has no versions.",
                ),
                (r#"{"value":null}"#, ""),
                ("NotFound: 404 ", "Table not found: jansAppConf"),
                (r#"{"value":1}"#, ""),
            ],
        ),
        (
            "denied",
            &json,
            [
                (
                    "Forbidden: 403 ",
                    "Permission 'secretmanager.versions.access' denied",
                ),
                (
                    "Forbidden: 403 ",
                    "Permission 'secretmanager.secrets.list' denied",
                ),
                (
                    "Forbidden: 403 ",
                    "Caller is missing IAM permission spanner.sessions.create",
                ),
                ("Forbidden: 403 ", ""),
            ],
        ),
        (
            "ready",
            &other,
            [
                (refused, unauthenticated),
                (refused, unauthenticated),
                (refused, unauthenticated),
                (refused, unauthenticated),
            ],
        ),
    ];
    for (case, account, expected) in cases {
        let Some(server) = fake(case, &modulus, &[]) else {
            return;
        };
        let got = oracle_reads(&python, server.port, account, PASSPHRASE);
        for (got, (start, excerpt)) in got.iter().zip(expected) {
            let text = match got.get("error") {
                Some(error) => error.as_str().unwrap().to_string(),
                None => got.to_string(),
            };
            assert!(
                text.starts_with(start) && text.contains(excerpt),
                "{case}: {text}"
            );
        }
    }
    // A database that is not there: NotFound in Spanner's words.
    let server = fake("ready", &modulus, &[]).unwrap();
    let (port, file) = (server.port.to_string(), json.to_str().unwrap());
    let other = format!("{DATABASE}-2");
    let args = [
        "google-spanner",
        &port,
        file,
        &other,
        "jansAppConf",
        "jans-auth",
    ];
    let gone = crate::preflight::oracle(&python, &args).to_string();
    assert!(
        gone.contains("NotFound: 404 ") && gone.contains("Database not found: "),
        "{gone}"
    );
    // An older encrypted payload: the adapter that wrote it reads it back with its passphrase
    // (what svcgen cannot know the image still does, so it says not-checked).
    let payload = format!("secret_payload={}", older_payload(&python, PASSPHRASE));
    let server = fake("ready", &modulus, &[&payload]).unwrap();
    assert_eq!(
        oracle_reads(&python, server.port, &json, PASSPHRASE)[1].to_string(),
        cert
    );
}

#[test]
fn preflight_google_ready_passes_config_secret_and_spanner() {
    let Some(ran) = against("ready") else {
        return;
    };
    let (code, report, all) = (ran.code, &ran.report, &ran.all);
    assert_eq!(code, 0, "{all}");
    for (step, (status, _)) in ["config", "secret", "persistence"]
        .iter()
        .zip(steps(report))
    {
        assert_eq!(status, "ok", "{step}: {all}");
    }
    let target = crate::preflight::step(report, "persistence")["target"].to_string();
    assert!(
        target.contains("row jans-auth of table jansAppConf"),
        "{target}"
    );
}

#[test]
fn preflight_google_names_the_missing_keys_and_row() {
    let Some(ran) = against("missing") else {
        return;
    };
    let (code, report, all) = (ran.code, &ran.report, &ran.all);
    assert_eq!(code, 1, "{all}");
    let version = "of projects/project-1/secrets/svc-{}/versions/latest missing";
    let [config, secret, spanner] = steps(report);
    assert_eq!(
        config.1,
        format!("key hostname {}", version.replace("{}", "configuration"))
    );
    assert_eq!(
        secret.1,
        format!("key ssl_cert {}", version.replace("{}", "secret"))
    );
    assert_eq!(
        spanner,
        (
            "failed".into(),
            "row jans-auth missing in table jansAppConf".into()
        )
    );
}

#[test]
fn preflight_google_names_the_missing_secrets_and_table() {
    let Some(ran) = against("gone") else {
        return;
    };
    let (code, report, all) = (ran.code, &ran.report, &ran.all);
    assert_eq!(code, 1, "{all}");
    let [config, secret, spanner] = steps(report);
    assert_eq!(
        config.1,
        "secret projects/project-1/secrets/svc-configuration/versions/latest missing"
    );
    assert!(
        secret
            .1
            .starts_with("secret projects/project-1/secrets/svc-secret missing"),
        "{all}"
    );
    assert_eq!(
        spanner.1,
        "table jansAppConf missing: Table not found: jansAppConf"
    );
    // Another database than the fake's.
    let dir = tempfile::tempdir().unwrap();
    let (json, modulus) = account(dir.path(), "sa", "").unwrap();
    let server = fake("ready", &modulus, &[]).unwrap();
    let path = profile(dir.path(), &json, "");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"database-1\"", "\"database-2\"")).unwrap();
    let (_, report, all) = run(&path, server.port);
    let other = "projects/project-1/instances/instance-1/databases/database-2";
    assert_eq!(
        status_and_reason(&report, "persistence").1,
        format!("database {other} missing: Database not found: {other}"),
        "{all}"
    );
}

#[test]
fn preflight_google_refused_credentials_are_authentication_failed_in_google_s_words() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    let (other, _) = account(dir.path(), "other", "").unwrap();
    // A key Google does not know: 401 on every API.
    let Some(ready) = fake("ready", &modulus, &[]) else {
        return;
    };
    let (code, report, all) = run(&profile(dir.path(), &other, ""), ready.port);
    assert_eq!(code, 1, "{all}");
    for (status, reason) in steps(&report) {
        assert_eq!(status, "failed", "{all}");
        assert!(
            reason.starts_with(
                "authentication failed: Request had invalid authentication credentials."
            ),
            "{reason}"
        );
    }
    // The account's own key without the permissions: 403.
    let denied = fake("denied", &modulus, &[]).unwrap();
    let (_, report, all) = run(&profile(dir.path(), &json, ""), denied.port);
    let [config, secret, spanner] = steps(&report);
    assert!(
        config.1.starts_with(
            "authentication failed: Permission 'secretmanager.versions.access' denied"
        ),
        "{all}"
    );
    assert!(
        secret
            .1
            .starts_with("authentication failed: Permission 'secretmanager.secrets.list' denied"),
        "{all}"
    );
    assert!(
        spanner
            .1
            .starts_with("authentication failed: Caller is missing IAM permission"),
        "{all}"
    );
}

#[test]
fn preflight_google_older_encrypted_payload_is_not_checked_and_says_why() {
    let Some(python) = google_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    let payload = format!("secret_payload={}", older_payload(&python, PASSPHRASE));
    let Some(server) = fake("ready", &modulus, &[&payload]) else {
        return;
    };
    let (code, report, all) = run(&profile(dir.path(), &json, ""), server.port);
    // Not "ok": pycloudlib's newest GoogleSecret fails on such a payload, an earlier one opened
    // it, and which the image carries is not known.
    assert_eq!(code, 1, "{all}");
    let (status, reason) = status_and_reason(&report, "secret");
    assert_eq!(status, "not-checked", "{all}");
    assert!(
        reason.starts_with("secret projects/project-1/secrets/svc-secret/versions/latest holds an older adapter's compressed, encrypted payload"),
        "{reason}"
    );
    assert!(reason.contains("UnicodeDecodeError"), "{reason}");
    assert!(!all.contains(PASSPHRASE), "{all}");
    assert_eq!(status_and_reason(&report, "config").0, "ok", "{all}");
}

#[test]
fn preflight_google_says_where_a_payload_stops_being_json_and_never_what_stands_there() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    // A payload whose second line breaks off in the middle of a secret value.
    let broken = "{\"ssl_cert\": \"x\",\n \"sql_password\": \"pw-".to_string() + PASSPHRASE;
    let payload = format!(
        "secret_payload={}",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &broken)
    );
    let Some(server) = fake("ready", &modulus, &[&payload]) else {
        return;
    };
    let (code, report, all) = run(&profile(dir.path(), &json, ""), server.port);
    assert_eq!(code, 1, "{all}");
    let (status, reason) = status_and_reason(&report, "secret");
    assert_eq!(status, "failed", "{all}");
    // The line only: the column where a payload breaks off is the length of its last line.
    assert_eq!(
        reason,
        "secret projects/project-1/secrets/svc-secret/versions/latest is not JSON (at line 2)"
    );
    assert!(!all.contains(PASSPHRASE), "{all}");
}

#[test]
fn preflight_google_signs_with_a_pkcs1_key_as_google_auth_does() {
    let Some(python) = google_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    let pkcs1 = Command::new("openssl")
        .args(["rsa", "-traditional", "-in"])
        .arg(dir.path().join("sa.pem"))
        .output()
        .unwrap();
    let pem = String::from_utf8(pkcs1.stdout).unwrap();
    assert!(pem.starts_with("-----BEGIN RSA PRIVATE KEY-----"), "{pem}");
    let mut account: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    account["private_key"] = Value::from(pem);
    std::fs::write(&json, account.to_string()).unwrap();
    let Some(server) = fake("ready", &modulus, &[]) else {
        return;
    };
    let (code, report, all) = run(&profile(dir.path(), &json, ""), server.port);
    assert_eq!(code, 0, "{all}");
    for (status, _) in steps(&report) {
        assert_eq!(status, "ok", "{all}");
    }
    // google-auth reads the same key: the real client gets the config's hostname through it.
    let read = oracle_reads(&python, server.port, &json, PASSPHRASE)[0].to_string();
    assert!(read.contains("auth.example.org"), "{read}");
}

#[test]
fn preflight_google_refused_and_black_hole_end_within_the_timeout_plus_one_second() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, _)) = account(dir.path(), "sa", "") else {
        return;
    };
    let path = profile(dir.path(), &json, "");
    let (code, report, all) = run(&path, servers::refused_port());
    assert_eq!(code, 1, "{all}");
    for (status, reason) in steps(&report) {
        assert_eq!(
            (status.as_str(), reason.as_str()),
            ("failed", "connection refused"),
            "{all}"
        );
    }
    let (port, _hole) = servers::black_hole();
    let started = Instant::now();
    let (code, report, all) = run(&path, port);
    // Three steps and the after-start check, each within 3 s + 1 s.
    assert!(
        started.elapsed() < Duration::from_secs(4 * 4),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code, 1, "{all}");
    for step in ["config", "secret", "persistence"] {
        let found = crate::preflight::step(&report, step);
        assert_eq!(found["status"], "timeout", "{step}: {all}");
        assert!(found["ms"].as_u64().unwrap() < 4000, "{step}: {all}");
    }
}

#[test]
fn preflight_google_never_shows_the_private_key_bearer_passphrase_or_payload() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    // A hostile server echoes the request's Authorization header (the signed bearer).
    let Some(echo) = fake("echo", &modulus, &[]) else {
        return;
    };
    let (code, report, all) = run(&profile(dir.path(), &json, ""), echo.port);
    assert_eq!(code, 1, "{all}");
    let (_, reason) = status_and_reason(&report, "config");
    assert_eq!(reason, "authentication failed: refused Bearer ***", "{all}");
    let key: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let key = key["private_key"].as_str().unwrap();
    let body_line = key.lines().nth(1).unwrap();
    let ready = fake("ready", &modulus, &[]).unwrap();
    let (_, _, shown) = run(&profile(dir.path(), &json, ""), ready.port);
    for text in [&all, &shown] {
        for secret in [
            body_line,
            PASSPHRASE,
            "eyJ",
            "-----BEGIN CERTIFICATE-----",
            "sql-pw",
        ] {
            assert!(!text.contains(secret), "{secret} shown: {text}");
        }
    }
}

#[test]
fn preflight_google_in_another_universe_or_with_another_credential_type_says_why() {
    // (Without a service account file: preflight_adapters' test of the steps it cannot check.)
    let dir = tempfile::tempdir().unwrap();
    let Some((json, _)) = account(dir.path(), "sa", r#"{"universe_domain": "example.com"}"#) else {
        return;
    };
    let (code, report, all) = run(&profile(dir.path(), &json, ""), servers::refused_port());
    assert_eq!(code, 1, "{all}");
    for (status, reason) in steps(&report) {
        assert_eq!(status, "failed");
        assert!(
            reason.starts_with("The configured universe domain (googleapis.com) does not match the universe domain found in the credentials (example.com)."),
            "{reason}"
        );
    }
    // A container's own GOOGLE_CLOUD_UNIVERSE_DOMAIN (outside the spec, read by the image's
    // clients) is the client's universe under `--from-env` too.
    let (standard, _) = account(dir.path(), "standard", "{}").unwrap();
    let (report, stderr) = from_env_report(
        servers::refused_port(),
        &standard,
        &[("GOOGLE_CLOUD_UNIVERSE_DOMAIN", "example.com")],
    );
    for (status, reason) in steps(&report) {
        assert_eq!(status, "failed", "{report}\n{stderr}");
        assert!(
            reason.starts_with("The configured universe domain (example.com) does not match the universe domain found in the credentials (googleapis.com)."),
            "{reason}"
        );
    }
    // And a profile's: its `[env]` entry is in the environment render writes.
    let more = "\n[env]\nGOOGLE_CLOUD_UNIVERSE_DOMAIN = \"example.com\"\n";
    let (_, report, all) = run(
        &profile(dir.path(), &standard, more),
        servers::refused_port(),
    );
    for (status, reason) in steps(&report) {
        assert_eq!(status, "failed", "{all}");
        assert!(
            reason.starts_with("The configured universe domain (example.com)"),
            "{reason}"
        );
    }
    let (user, _) = account(dir.path(), "user", r#"{"type": "authorized_user"}"#).unwrap();
    let (_, report, _) = run(&profile(dir.path(), &user, ""), servers::refused_port());
    let (status, reason) = status_and_reason(&report, "config");
    assert_eq!(status, "not-checked");
    assert!(
        reason.contains("its type is \"authorized_user\", not \"service_account\""),
        "{reason}"
    );
}

/// `preflight --from-env --edition B --format json` of a container with the google adapters and
/// Spanner, the fake on `port`, the account file `json` and `more` variables: the report.
fn from_env_report(port: u16, json: &Path, more: &[(&str, &str)]) -> (Value, String) {
    let endpoint = format!("http://127.0.0.1:{port}");
    let mut vars = vec![("SVCGEN_TEST_GOOGLE_ENDPOINT", endpoint.as_str())];
    vars.extend_from_slice(more);
    from_env_report_at_the_universe(json, &vars)
}

/// [`from_env_report`] without the test endpoint: the clients go where the universe says.
fn from_env_report_at_the_universe(json: &Path, more: &[(&str, &str)]) -> (Value, String) {
    let mut vars = vec![
        ("CN_CONFIG_ADAPTER", "google"),
        ("CN_SECRET_ADAPTER", "google"),
        ("GOOGLE_PROJECT_ID", PROJECT),
        ("GOOGLE_APPLICATION_CREDENTIALS", json.to_str().unwrap()),
        ("CN_PERSISTENCE_TYPE", "spanner"),
        ("CN_GOOGLE_SPANNER_INSTANCE_ID", "instance-1"),
        ("CN_GOOGLE_SPANNER_DATABASE_ID", "database-1"),
    ];
    vars.extend_from_slice(more);
    let (_, stdout, stderr) =
        crate::preflight::from_env(&vars, &["--edition", "B", "--format", "json"]);
    (serde_json::from_str(&stdout).unwrap_or(Value::Null), stderr)
}

#[test]
fn preflight_google_from_env_without_a_prefix_reads_the_spec_s_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    let Some(server) = fake("gone", &modulus, &[]) else {
        return;
    };
    let (report, _) = from_env_report(server.port, &json, &[]);
    let (status, reason) = status_and_reason(&report, "secret");
    assert_eq!(status, "failed", "{report:#}");
    assert!(
        reason.starts_with("secret projects/project-1/secrets/svc-secret missing (CN_GOOGLE_SECRET_NAME_PREFIX is not set: svcgen reads the spec's default prefix `svc`"),
        "{reason}"
    );
    // Found on the spec's prefix: passed, and still said, since the image may read another.
    let server = fake("ready", &modulus, &[]).unwrap();
    let (report, _) = from_env_report(server.port, &json, &[]);
    for step in ["config", "secret"] {
        let (status, reason) = status_and_reason(&report, step);
        assert_eq!(status, "ok", "{report:#}");
        assert!(
            reason.starts_with("CN_GOOGLE_SECRET_NAME_PREFIX is not set: svcgen reads the spec's default prefix `svc`"),
            "{step}: {reason}"
        );
    }
}

#[test]
fn preflight_google_says_where_it_stops_reading_a_secrets_list_that_never_ends() {
    let Some(ran) = against("endless") else {
        return;
    };
    let (code, report, all) = (ran.code, &ran.report, &ran.all);
    assert_eq!(code, 1, "{all}");
    let (status, reason) = status_and_reason(report, "secret");
    assert_eq!(status, "failed", "{all}");
    assert_eq!(
        reason,
        "Secret Manager listed more than 20 pages of secrets named like svc-secret; svcgen reads \
         at most 20 (the image reads them all)"
    );
}

#[test]
fn preflight_google_from_env_reads_an_empty_older_prefix_as_the_image_does_not_the_newer() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, modulus)) = account(dir.path(), "sa", "") else {
        return;
    };
    let Some(server) = fake("ready", &modulus, &[]) else {
        return;
    };
    // The image: `os.environ["CN_..._NAME_PREFIX"] or <its default>`; the newer variable's
    // `other` is not read once the older one is set, even empty.
    let more = [
        ("CN_GOOGLE_SECRET_NAME_PREFIX", "other"),
        ("CN_CONFIG_GOOGLE_SECRET_NAME_PREFIX", ""),
        ("CN_SECRET_GOOGLE_SECRET_NAME_PREFIX", ""),
    ];
    let (report, stderr) = from_env_report(server.port, &json, &more);
    for (step, old) in [
        ("config", "CN_CONFIG_GOOGLE_SECRET_NAME_PREFIX"),
        ("secret", "CN_SECRET_GOOGLE_SECRET_NAME_PREFIX"),
    ] {
        let (status, reason) = status_and_reason(&report, step);
        assert_eq!(status, "ok", "{report:#}\n{stderr}");
        assert!(
            reason.starts_with(&format!(
                "{old} is empty: svcgen reads the spec's default prefix `svc`"
            )),
            "{step}: {reason}"
        );
    }
}

/// A set but empty or blank GOOGLE_CLOUD_UNIVERSE_DOMAIN is no universe to the image's clients:
/// google-api-core raises `EmptyUniverseError: Universe Domain cannot be an empty string.` when
/// the client is made (checked with the venv's google-cloud-secret-manager 2.32.0 and
/// google-cloud-spanner 3.71.0), so the pod never reaches Secret Manager. preflight must fail
/// each Google step so, not dial googleapis.com as if the variable were unset.
#[test]
fn preflight_google_from_env_fails_an_empty_universe_as_the_image_s_clients_do() {
    let dir = tempfile::tempdir().unwrap();
    let Some((json, _)) = account(dir.path(), "sa", "") else {
        return;
    };
    for value in ["", "   "] {
        let (report, stderr) = from_env_report(
            servers::refused_port(),
            &json,
            &[("GOOGLE_CLOUD_UNIVERSE_DOMAIN", value)],
        );
        // Either the environment is refused before anything is dialled (the model's rule for
        // the variable, E0251), or every Google step fails in the clients' words.
        if report.is_null() {
            assert!(
                stderr.contains("E0251") && stderr.contains("GOOGLE_CLOUD_UNIVERSE_DOMAIN"),
                "{value:?}: {stderr}"
            );
            continue;
        }
        for (status, reason) in steps(&report) {
            assert_eq!(status, "failed", "{value:?}: {report}\n{stderr}");
            assert!(
                reason.contains("Universe Domain cannot be an empty string"),
                "{value:?}: {reason}"
            );
        }
    }
}

/// The universe is a host name's tail, put into `https://<service>.<universe>`: a universe that
/// smuggles in another authority (`googleapis.com@host:port`) must not be dialled with the
/// account's bearer. The image's gRPC clients look the whole `secretmanager.googleapis.com@...`
/// up as one host name and fail ("address lookup failed"); nothing may connect to `host:port`.
#[test]
fn preflight_google_never_dials_a_host_smuggled_into_the_universe() {
    let dir = tempfile::tempdir().unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let universe = format!("googleapis.com@127.0.0.1:{port}");
    let extra = serde_json::json!({ "universe_domain": universe }).to_string();
    let Some((json, _)) = account(dir.path(), "sa", &extra) else {
        return;
    };
    // No test endpoint: the universe alone decides where the clients go.
    let (report, stderr) =
        from_env_report_at_the_universe(&json, &[("GOOGLE_CLOUD_UNIVERSE_DOMAIN", &universe)]);
    let mut dialled = 0;
    while listener.accept().is_ok() {
        dialled += 1;
    }
    assert_eq!(dialled, 0, "dialled 127.0.0.1:{port}: {report}\n{stderr}");
    for (status, _) in steps(&report) {
        assert_eq!(status, "failed", "{report}\n{stderr}");
    }
}
