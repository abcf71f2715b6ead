//! The google config and secret adapters (jans-pycloudlib `GoogleConfig`, `GoogleSecret`): one
//! Secret Manager secret holding every key as a JSON object. Config reads
//! `<prefix>-configuration` at its version; secret lists the secrets whose name holds
//! `secrets/<prefix>-secret` (a payload over 64 KiB is split into `-1`, `-2`, ... parts), joins
//! their versions' payloads until they parse, and decodes them ([`super::legacy`]). svcgen only
//! reads: where the config secret is missing the image would create it empty, and its wait
//! would still find no `hostname`.

use super::client::{Client, refusal, resource};
use super::legacy;
use crate::preflight::config::percent;
use base64::Engine;
use std::time::Duration;

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
    /// The secret adapter's passphrase (older payloads only).
    pub passphrase: String,
    /// Said after "secret ... missing" when the name's prefix is the spec's default because the
    /// environment leaves it unset, where the image falls back to its own.
    pub unset_prefix: Option<String>,
}

/// The payload when the API answered: `Ok` the keys, `Err` why they cannot be read (the
/// secret is missing, or its payload cannot be decoded).
pub type Payload = Result<serde_json::Value, String>;

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
        Ok(value_of(&self.payload(timeout)??, key))
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
                Some(data) => serde_json::from_slice(&data)
                    .map_err(|_| format!("secret {} is not JSON", self.version_path())),
                None => Err(self.missing(&self.version_path())),
            }),
            Kind::Secret => self.joined(timeout),
        }
    }

    /// `GoogleSecret.get_all`: every listed part's version, joined until it parses as JSON.
    fn joined(&self, timeout: Duration) -> Result<Payload, String> {
        let names = self.list(timeout)?;
        if names.is_empty() {
            let name = format!("projects/{}/secrets/{}", self.project, self.name);
            return Ok(Err(self.missing(&name)));
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
            return Ok(Err(self.missing(&self.version_path())));
        }
        Ok(legacy::decode(
            &payload,
            &self.passphrase,
            &self.version_path(),
        ))
    }

    /// "secret `name` missing", with the note on an unset prefix.
    fn missing(&self, name: &str) -> String {
        let note = self.unset_prefix.as_deref().unwrap_or_default();
        format!("secret {name} missing{note}")
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
            let json: serde_json::Value = serde_json::from_str(&answer.body)
                .map_err(|_| "Secret Manager's answer is not JSON".to_string())?;
            let listed = json["secrets"].as_array().into_iter().flatten();
            names.extend(listed.filter_map(|s| s["name"].as_str().map(str::to_string)));
            token = json["nextPageToken"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if token.is_empty() {
                break;
            }
        }
        Ok(names)
    }

    /// `access_secret_version(name)`: its payload's bytes, `None` when it is not there (404).
    fn access(&self, version: &str, timeout: Duration) -> Result<Option<Vec<u8>>, String> {
        let answer =
            self.client
                .call(&format!("/v1/{}:access", resource(version)), None, timeout)?;
        match answer.status {
            200 => {
                let json: serde_json::Value = serde_json::from_str(&answer.body)
                    .map_err(|_| "Secret Manager's answer is not JSON".to_string())?;
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
