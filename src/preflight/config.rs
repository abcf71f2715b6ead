//! The `config` step: the config backend holds the key `hostname` (pycloudlib's
//! `wait_for_config`: `manager.config.get("hostname")`, empty counts as missing).

use super::deadline::bounded;
use super::google;
use super::http::{self, Tls};
use super::kubernetes::{self, KubeObject};
use super::{Limits, Setting, Status, StepResult};
use crate::model::Model;

/// The key the image's config wait reads.
const KEY: &str = "hostname";
/// The kubernetes adapter's object (the model's `[container] api_objects`).
const RESOURCE: &str = "configmaps";
/// The variable choosing the config adapter.
pub(super) const ADAPTER: &str = "CN_CONFIG_ADAPTER";
/// The consul adapter's variables (python-consul 1.1.0 as pycloudlib's `ConsulConfig` builds it).
const HOST: &str = "CN_CONFIG_CONSUL_HOST";
const PORT: &str = "CN_CONFIG_CONSUL_PORT";
const SCHEME: &str = "CN_CONFIG_CONSUL_SCHEME";
const CONSISTENCY: &str = "CN_CONFIG_CONSUL_CONSISTENCY";
const VERIFY: &str = "CN_CONFIG_CONSUL_VERIFY";
const CACERT: &str = "CN_CONFIG_CONSUL_CACERT_FILE";
const CERT: &str = "CN_CONFIG_CONSUL_CERT_FILE";
const CLIENT_KEY: &str = "CN_CONFIG_CONSUL_KEY_FILE";
const TOKEN: &str = "CN_CONFIG_CONSUL_TOKEN_FILE";

/// A config backend that answered, to read further keys with (the LDAP step's bind DN).
#[derive(Clone)]
pub enum ConfigAccess {
    Consul(ConsulAccess),
    Kubernetes(KubeObject),
    Google(Box<google::Store>),
}

impl ConfigAccess {
    /// Reads one key: `Ok(None)` when it is missing or empty (as the image's `not value`).
    pub fn get(&self, key: &str, timeout: std::time::Duration) -> Result<Option<String>, String> {
        match self {
            ConfigAccess::Consul(access) => access.get(key, timeout),
            ConfigAccess::Kubernetes(object) => object.get(key, timeout),
            ConfigAccess::Google(store) => store.get(key, timeout),
        }
    }

    /// Where a key lives, for messages.
    pub fn key_path(&self, key: &str) -> String {
        match self {
            ConfigAccess::Consul(access) => access.key_path(key),
            ConfigAccess::Kubernetes(object) => object.key_path(key),
            ConfigAccess::Google(store) => store.key_path(key),
        }
    }
}

/// The consul adapter's access: python-consul's requests.
#[derive(Clone)]
pub struct ConsulAccess {
    tls: Tls,
    /// `<scheme>://<host>:<port>`.
    base: String,
    /// `<namespace>/config/`.
    prefix: String,
    /// The query python-consul adds (consistency, token).
    query: String,
}

impl ConsulAccess {
    /// Reads one key: `Ok(None)` when it is missing or empty (as the image's `not value`).
    pub fn get(&self, key: &str, timeout: std::time::Duration) -> Result<Option<String>, String> {
        let agent = http::agent(&self.tls, timeout)?;
        let url = format!("{}/v1/kv/{}{key}?{}", self.base, self.prefix, self.query);
        let answer = http::get(&agent, &url, &[])?;
        match answer.status {
            200 => consul_value(&answer.body),
            404 => Ok(None),
            401 | 403 => Err(format!(
                "authentication failed: {}",
                http::server_words(&answer.body)
            )),
            status => Err(format!(
                "consul answered {status}: {}",
                http::server_words(&answer.body)
            )),
        }
    }

    /// Where a key lives, for messages.
    pub fn key_path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }
}

/// Checks the config backend; its access when it answered (even without `hostname`).
pub fn check(setting: &Setting, limits: Limits) -> (StepResult, Option<ConfigAccess>) {
    let adapter = setting.text(ADAPTER);
    match adapter.as_str() {
        "consul" => consul(setting, limits),
        "kubernetes" => {
            let (result, object) = kubernetes::check(setting, limits, ("config", RESOURCE, KEY));
            (result, object.map(ConfigAccess::Kubernetes))
        }
        "google" => {
            let (result, store) = google::check(setting, limits, ("config", KEY, false));
            (result, store.map(|s| ConfigAccess::Google(Box::new(s))))
        }
        other => (
            StepResult::not_run(
                "config",
                other,
                String::new(),
                Status::NotChecked,
                format!("svcgen does not check the `{other}` config adapter yet"),
            ),
            None,
        ),
    }
}

/// The consul namespace: the image reads it from a variable outside the spec (the model's
/// `[image] reads`), among the consul adapter's own variables.
fn namespace(setting: &Setting) -> String {
    let prefix = HOST.trim_end_matches("HOST");
    (Model::get().image.reads.iter())
        .find(|read| read.env.starts_with(prefix))
        .map(|read| setting.text(&read.env))
        .unwrap_or_default()
}

/// How an HTTP client of the image verifies: `verify` on, with the CA file when it is there;
/// the client certificate when both its files are there (https only).
pub fn tls_of(setting: &Setting, https: bool, [verify, ca, cert, key]: [&str; 4]) -> Tls {
    let verify = setting.flag(verify);
    let optional = |name: &str, secret| setting.read_optional(&setting.text(name), secret);
    Tls {
        verify,
        ca: (https && verify).then(|| optional(ca, false)).flatten(),
        client: https
            .then(|| Some((optional(cert, false)?, optional(key, true)?)))
            .flatten(),
        names: http::TlsNames::paths(&setting.text(ca), &setting.text(cert), &setting.text(key)),
    }
}

/// `GET /v1/kv/<namespace>/config/hostname`, as python-consul 1.1.0 sends it: consistency as a
/// query flag, the ACL token (from its file, when the file is there) as `?token=`.
fn consul(setting: &Setting, limits: Limits) -> (StepResult, Option<ConfigAccess>) {
    let scheme = setting.text(SCHEME);
    if scheme.is_empty() {
        // The spec shows no default scheme: svcgen does not guess the image's.
        let why =
            format!("{SCHEME} is not set and the spec shows no default: set it to dial consul");
        return (
            StepResult::not_run("config", "consul", String::new(), Status::NotChecked, why),
            None,
        );
    }
    let token = setting
        .read_optional(&setting.text(TOKEN), true)
        .map(|t| String::from_utf8_lossy(&t).trim().to_string())
        .unwrap_or_default();
    let mut query = Vec::new();
    match setting.text(CONSISTENCY).as_str() {
        "stale" => query.push("stale=1".to_string()),
        "consistent" => query.push("consistent=1".to_string()),
        _ => {}
    }
    if !token.is_empty() {
        query.push(format!("token={}", percent(&token)));
    }
    let access = ConsulAccess {
        tls: tls_of(
            setting,
            scheme == "https",
            [VERIFY, CACERT, CERT, CLIENT_KEY],
        ),
        base: format!(
            "{scheme}://{}",
            http::host_port(&setting.text(HOST), &setting.text(PORT))
        ),
        prefix: format!("{}/config/", namespace(setting)),
        query: query.join("&"),
    };
    let target = format!("{} (key {})", access.base, access.key_path(KEY));
    let timeout = limits.timeout;
    let (mut result, carried) = bounded(("config", "consul", &target), timeout, move || {
        let found = access.get(KEY, timeout)?;
        Ok((access, found))
    });
    let Some((access, found)) = carried else {
        return (result, None);
    };
    if found.is_none() {
        result.status = Status::Failed;
        result.reason = Some(format!("key {} missing", access.key_path(KEY)));
    }
    (result, Some(ConfigAccess::Consul(access)))
}

/// The key's value from consul's answer (a list of entries with a base64 `Value`); empty or
/// null is missing, as the image's `not value`.
fn consul_value(body: &str) -> Result<Option<String>, String> {
    use base64::Engine;
    let entries: serde_json::Value =
        serde_json::from_str(body).map_err(|e| format!("consul's answer is not JSON: {e}"))?;
    let value = entries
        .get(0)
        .and_then(|entry| entry.get("Value"))
        .and_then(|v| v.as_str())
        .and_then(|v| base64::engine::general_purpose::STANDARD.decode(v).ok())
        .unwrap_or_default();
    Ok((!value.is_empty()).then(|| String::from_utf8_lossy(&value).into_owned()))
}

/// A query parameter's value, percent-encoded (unreserved characters kept).
pub fn percent(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
