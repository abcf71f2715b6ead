//! The `secret` step: the secret backend answers and holds `ssl_cert` (pycloudlib's
//! `wait_for_secret`). Its session is handed on: the SQL password may come from it.

use super::config::tls_of;
use super::deadline::bounded;
use super::google;
use super::http::{self, Tls};
use super::kubernetes::{self, KubeObject};
use super::{Limits, Setting, Status, StepResult};
use std::time::Duration;

/// The key the image's secret wait reads.
const KEY: &str = "ssl_cert";
pub(super) const ADAPTER: &str = "CN_SECRET_ADAPTER";
/// The kubernetes adapter's object (the model's `[container] api_objects`).
const RESOURCE: &str = "secrets";
/// The vault adapter's variables (hvac as pycloudlib's `VaultSecret` drives it).
const ADDR: &str = "CN_SECRET_VAULT_ADDR";
const VERIFY: &str = "CN_SECRET_VAULT_VERIFY";
const CACERT: &str = "CN_SECRET_VAULT_CACERT_FILE";
const CERT: &str = "CN_SECRET_VAULT_CERT_FILE";
const CLIENT_KEY: &str = "CN_SECRET_VAULT_KEY_FILE";
const ROLE_ID: &str = "CN_SECRET_VAULT_ROLE_ID_FILE";
const SECRET_ID: &str = "CN_SECRET_VAULT_SECRET_ID_FILE";
const NAMESPACE: &str = "CN_SECRET_VAULT_NAMESPACE";
const KV_PATH: &str = "CN_SECRET_VAULT_KV_PATH";
const PREFIX: &str = "CN_SECRET_VAULT_PREFIX";
const APPROLE: &str = "CN_SECRET_VAULT_APPROLE_PATH";

/// A secret backend that answered, to read further keys with (the SQL password, the LDAP
/// bind password).
#[derive(Clone)]
pub enum SecretAccess {
    Vault(VaultSession),
    Kubernetes(KubeObject),
    Google(Box<google::Store>),
}

impl SecretAccess {
    /// Reads one key: `Ok(None)` when it is missing or empty.
    pub fn get(&self, key: &str, timeout: Duration) -> Result<Option<String>, String> {
        match self {
            SecretAccess::Vault(session) => session.get(key, timeout),
            SecretAccess::Kubernetes(object) => object.get(key, timeout),
            SecretAccess::Google(store) => store.get(key, timeout),
        }
    }

    /// Where a key lives, for messages.
    pub fn key_path(&self, key: &str) -> String {
        match self {
            SecretAccess::Vault(session) => session.key_path(key),
            SecretAccess::Kubernetes(object) => object.key_path(key),
            SecretAccess::Google(store) => store.key_path(key),
        }
    }
}

/// A logged-in session of vault.
#[derive(Clone)]
pub struct VaultSession {
    base: String,
    tls: Tls,
    token: String,
    namespace: String,
    kv_path: String,
    prefix: String,
}

impl VaultSession {
    /// Reads one key (KV v1 `<kv_path>/<prefix>/<key>`): `Ok(None)` when it is missing.
    pub fn get(&self, key: &str, timeout: Duration) -> Result<Option<String>, String> {
        let agent = http::agent(&self.tls, timeout)?;
        let url = format!("{}/v1/{}/{}/{key}", self.base, self.kv_path, self.prefix);
        let answer = http::get(&agent, &url, &self.headers(true))?;
        match answer.status {
            200 => {
                let json: serde_json::Value = serde_json::from_str(&answer.body)
                    .map_err(|e| format!("vault's answer is not JSON: {e}"))?;
                let value = json.pointer("/data/value").and_then(|v| v.as_str());
                Ok(value.filter(|v| !v.is_empty()).map(str::to_string))
            }
            404 => Ok(None),
            503 => Err(sealed_or(&answer)),
            status => Err(format!(
                "vault answered {status}: {}",
                http::server_words(&answer.body)
            )),
        }
    }

    /// Where a key lives, for messages.
    pub fn key_path(&self, key: &str) -> String {
        format!("{}/{}/{key}", self.kv_path, self.prefix)
    }

    fn headers(&self, with_token: bool) -> Vec<(&str, &str)> {
        let mut headers = Vec::new();
        if with_token {
            headers.push(("X-Vault-Token", self.token.as_str()));
        }
        if !self.namespace.is_empty() {
            headers.push(("X-Vault-Namespace", self.namespace.as_str()));
        }
        headers
    }
}

/// "sealed" when vault says so (503 with "Vault is sealed"), else its words.
fn sealed_or(answer: &http::Answer) -> String {
    let words = http::server_words(&answer.body);
    if words.to_lowercase().contains("sealed") {
        format!("sealed: {words}")
    } else {
        format!("vault answered {}: {words}", answer.status)
    }
}

/// Checks the secret backend; its session when the login passed (even if `ssl_cert` is missing).
pub fn check(setting: &Setting, limits: Limits) -> (StepResult, Option<SecretAccess>) {
    let adapter = setting.text(ADAPTER);
    match adapter.as_str() {
        "vault" => vault(setting, limits),
        "kubernetes" => {
            let (result, object) = kubernetes::check(setting, limits, ("secret", RESOURCE, KEY));
            (result, object.map(SecretAccess::Kubernetes))
        }
        "google" => {
            let (result, store) = google::check(setting, limits, ("secret", KEY, true));
            (result, store.map(|s| SecretAccess::Google(Box::new(s))))
        }
        other => (
            StepResult::not_run(
                "secret",
                other,
                String::new(),
                Status::NotChecked,
                format!("svcgen does not check the `{other}` secret adapter yet"),
            ),
            None,
        ),
    }
}

/// AppRole login with the role_id and secret_id files, then `ssl_cert`.
fn vault(setting: &Setting, limits: Limits) -> (StepResult, Option<SecretAccess>) {
    let base = setting.text(ADDR).trim_end_matches('/').to_string();
    let target = format!(
        "{base} (key {}/{}/{KEY})",
        setting.text(KV_PATH),
        setting.text(PREFIX)
    );
    let credentials = setting
        .read_secret_text(&setting.text(ROLE_ID))
        .and_then(|role| Ok((role, setting.read_secret_text(&setting.text(SECRET_ID))?)));
    let (role_id, secret_id) = match credentials {
        Ok(both) => both,
        Err(why) => {
            let step = StepResult::not_run("secret", "vault", target, Status::Failed, why);
            return (step, None);
        }
    };
    let session = VaultSession {
        tls: tls_of(
            setting,
            base.starts_with("https:"),
            [VERIFY, CACERT, CERT, CLIENT_KEY],
        ),
        base,
        token: String::new(),
        namespace: setting.text(NAMESPACE),
        kv_path: setting.text(KV_PATH),
        prefix: setting.text(PREFIX),
    };
    let approle = setting.text(APPROLE);
    let timeout = limits.timeout;
    // The token is a secret too: the check hands it back so that it is masked.
    let (mut result, carried) = bounded(("secret", "vault", &target), timeout, move || {
        let mut session = session;
        session.token = login(&session, &approle, &role_id, &secret_id, timeout)?;
        let found = session.get(KEY, timeout);
        Ok((session, found))
    });
    let Some((session, found)) = carried else {
        return (result, None);
    };
    setting.keep_secret(&session.token);
    match found {
        Ok(Some(_)) => {}
        Ok(None) => {
            result.status = Status::Failed;
            result.reason = Some(format!("key {} missing", session.key_path(KEY)));
        }
        Err(why) => {
            result.status = Status::Failed;
            result.reason = Some(why);
        }
    }
    (result, Some(SecretAccess::Vault(session)))
}

/// `POST /v1/auth/<approle>/login`: the client token, or why not.
fn login(
    session: &VaultSession,
    approle: &str,
    role_id: &str,
    secret_id: &str,
    timeout: Duration,
) -> Result<String, String> {
    let agent = http::agent(&session.tls, timeout)?;
    let url = format!("{}/v1/auth/{approle}/login", session.base);
    let body = serde_json::json!({ "role_id": role_id, "secret_id": secret_id });
    let answer = http::post_json(&agent, &url, &session.headers(false), &body)?;
    match answer.status {
        200 => {
            let json: serde_json::Value = serde_json::from_str(&answer.body)
                .map_err(|e| format!("vault's answer is not JSON: {e}"))?;
            json.pointer("/auth/client_token")
                .and_then(|t| t.as_str())
                .map(str::to_string)
                .ok_or_else(|| "vault's login answer has no client token".to_string())
        }
        503 => Err(sealed_or(&answer)),
        400 | 401 | 403 => Err(format!(
            "authentication failed: {}",
            http::server_words(&answer.body)
        )),
        status => Err(format!(
            "vault answered {status}: {}",
            http::server_words(&answer.body)
        )),
    }
}
