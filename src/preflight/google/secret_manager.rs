//! The google config and secret adapters (jans-pycloudlib `GoogleConfig`, `GoogleSecret`): one
//! Secret Manager secret holding every key as a JSON object. Config reads
//! `<prefix>-configuration` at its version; secret lists the secrets whose name holds
//! `secrets/<prefix>-secret` (a payload over 64 KiB is split into `-1`, `-2`, ... parts), joins
//! their versions' payloads until they parse, and decodes them ([`super::legacy`]). svcgen only
//! reads: where the config secret is missing the image would create it empty, and its wait
//! would still find no `hostname`.

use super::super::Status;
use super::client::{Client, refusal, resource};
use crate::preflight::config::percent;
use base64::Engine;
use std::time::Duration;

/// Secret Manager's answer about `what` as JSON, or an error that names the request.
fn parsed(body: &str, what: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(body)
        .map_err(|e| super::not_json(&format!("Secret Manager's answer for {what}"), &e))
}

/// At most this many pages of the secrets list (the image's pager reads them all).
const MAX_PAGES: usize = 20;

/// Which adapter reads the secret.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Config,
    Secret,
}

/// One adapter's secret, to read keys from.
#[derive(Clone)]
pub struct Store {
    pub client: Client,
    pub kind: Kind,
    pub project: String,
    /// The secret's id: `<prefix>-configuration` or `<prefix>-secret`.
    pub name: String,
    pub version: String,
    /// Said after "secret ... missing" when the name's prefix is the spec's default because the
    /// environment leaves it unset, where the image falls back to its own.
    pub unset_prefix: Option<String>,
}

/// The payload when the API answered: `Ok` the keys, `Err` why they cannot be read (the
/// secret is missing, or its payload cannot be decoded).
pub type Payload = Result<serde_json::Value, (Status, String)>;

/// The first bytes of a zlib stream (its CMF byte for a 32 KiB window) or an xz stream: what the
/// secret adapter's older versions wrote, compressed around an encrypted text.
fn compressed(payload: &[u8]) -> bool {
    let zlib = payload.len() >= 2
        && payload[0] == 0x78
        && u16::from_be_bytes([payload[0], payload[1]]).is_multiple_of(31);
    zlib || payload.starts_with(b"\xFD7zXZ\x00")
}

/// The joined payload as the image's `GoogleSecret.get_all` reads it: a JSON object; an older
/// adapter's compressed, passphrase-encrypted payload is not checked, because pycloudlib's
/// newest `get_all` raises `UnicodeDecodeError` on it (its first `json.loads` of the joined bytes
/// catches only `JSONDecodeError`) where an earlier one decrypted it, and which of the two the
/// image's pinned jans commit carries was not established.
fn keys_of(payload: &[u8], secret: &str) -> Payload {
    let error = match serde_json::from_slice(payload) {
        Ok(keys) => return Ok(keys),
        Err(error) => error,
    };
    if compressed(payload) {
        return Err((
            Status::NotChecked,
            format!(
                "secret {secret} holds an older adapter's compressed, encrypted payload: \
                 pycloudlib's newest GoogleSecret fails on it (UnicodeDecodeError) where an \
                 earlier one decrypted it with CN_GOOGLE_SECRET_MANAGER_PASSPHRASE, and which \
                 one the image carries was not established; write the secret again as JSON \
                 (the adapter's current format) to check it"
            ),
        ));
    }
    Err((
        Status::Failed,
        super::not_json(&format!("secret {secret}"), &error),
    ))
}

impl Store {
    /// `projects/<project>/secrets/<name>/versions/<version>`.
    pub fn version_path(&self) -> String {
        format!(
            "projects/{}/secrets/{}/versions/{}",
            self.project, self.name, self.version
        )
    }

    /// Reads one key: `Ok(None)` when it is missing or empty (the image's `get(key) or
    /// default`); `Err` when the secret cannot be read.
    pub fn get(&self, key: &str, timeout: Duration) -> Result<Option<String>, String> {
        let keys = self.payload(timeout)?.map_err(|(_, why)| why)?;
        Ok(value_of(&keys, key))
    }

    /// Where a key lives, for messages.
    pub fn key_path(&self, key: &str) -> String {
        format!("{key} of {}", self.version_path())
    }

    /// The adapter's keys; the outer `Err` when the API could not be asked (refused
    /// credentials, no answer).
    pub fn payload(&self, timeout: Duration) -> Result<Payload, String> {
        match self.kind {
            Kind::Config => Ok(match self.access(&self.version_path(), timeout)? {
                Some(data) => serde_json::from_slice(&data).map_err(|e| {
                    let what = format!("secret {}", self.version_path());
                    (Status::Failed, super::not_json(&what, &e))
                }),
                None => Err((Status::Failed, self.missing(&self.version_path()))),
            }),
            Kind::Secret => self.joined(timeout),
        }
    }

    /// `GoogleSecret.get_all`: every listed part's version, joined until it parses as JSON.
    fn joined(&self, timeout: Duration) -> Result<Payload, String> {
        let names = self.list(timeout)?;
        if names.is_empty() {
            let name = format!("projects/{}/secrets/{}", self.project, self.name);
            return Ok(Err((Status::Failed, self.missing(&name))));
        }
        let mut payload = Vec::new();
        for name in &names {
            let version = format!("{name}/versions/{}", self.version);
            if let Some(part) = self.access(&version, timeout)? {
                payload.extend_from_slice(&part);
            }
            if serde_json::from_slice::<serde_json::Value>(&payload).is_ok() {
                break;
            }
        }
        if payload.is_empty() {
            return Ok(Err((Status::Failed, self.missing(&self.version_path()))));
        }
        // Where the parser stopped is a place in the parts joined: say how many there were.
        let secret = match names.len() {
            1 => self.version_path(),
            n => format!("{} ({n} parts joined)", self.version_path()),
        };
        Ok(keys_of(&payload, &secret))
    }

    /// "secret `name` missing", with the note on an unset prefix.
    fn missing(&self, name: &str) -> String {
        match &self.unset_prefix {
            Some(note) => format!("secret {name} missing ({note})"),
            None => format!("secret {name} missing"),
        }
    }

    /// `list_secrets(parent, filter="name:secrets/<name>")`: the secrets' names, page by page.
    fn list(&self, timeout: Duration) -> Result<Vec<String>, String> {
        let filter = percent(&format!("name:secrets/{}", self.name));
        let mut names = Vec::new();
        let mut token = String::new();
        for _ in 0..MAX_PAGES {
            let project = percent(&self.project);
            let mut path = format!("/v1/projects/{project}/secrets?filter={filter}");
            if !token.is_empty() {
                path.push_str(&format!("&pageToken={}", percent(&token)));
            }
            let answer = self.client.call(&path, None, timeout)?;
            if answer.status != 200 {
                return Err(refusal(&answer));
            }
            let json = parsed(
                &answer.body,
                &format!("the list of secrets named like {}", self.name),
            )?;
            let listed = json["secrets"].as_array().into_iter().flatten();
            names.extend(listed.filter_map(|s| s["name"].as_str().map(str::to_string)));
            token = json["nextPageToken"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if token.is_empty() {
                return Ok(names);
            }
        }
        Err(format!(
            "Secret Manager listed more than {MAX_PAGES} pages of secrets named like {}; \
             svcgen reads at most {MAX_PAGES} (the image reads them all)",
            self.name
        ))
    }

    /// `access_secret_version(name)`: its payload's bytes, `None` when it is not there (404).
    fn access(&self, version: &str, timeout: Duration) -> Result<Option<Vec<u8>>, String> {
        let answer =
            self.client
                .call(&format!("/v1/{}:access", resource(version)), None, timeout)?;
        match answer.status {
            200 => {
                let json = parsed(&answer.body, version)?;
                let data = json.pointer("/payload/data").and_then(|d| d.as_str());
                let decoded = base64::engine::general_purpose::STANDARD.decode(data.unwrap_or(""));
                decoded
                    .map(Some)
                    .map_err(|_| format!("the payload of {version} is not base64"))
            }
            404 => Ok(None),
            _ => Err(refusal(&answer)),
        }
    }
}

/// A key's value as the image reads it (`get(key) or default`): what Python finds false (null,
/// false, 0, an empty text, list or object) is missing.
pub fn value_of(payload: &serde_json::Value, key: &str) -> Option<String> {
    use serde_json::Value;
    match payload.get(key)? {
        Value::Null | Value::Bool(false) => None,
        Value::Number(n) if n.as_f64() == Some(0.0) => None,
        Value::String(text) if text.is_empty() => None,
        Value::Array(items) if items.is_empty() => None,
        Value::Object(items) if items.is_empty() => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}
