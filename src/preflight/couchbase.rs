//! The Couchbase wait (pycloudlib's `wait_for_couchbase`), with the HTTP calls of its
//! `CouchbaseClient` (persistence/couchbase.py): when the first data key mapped to Couchbase
//! names an entry (the model's `[image] waits_for`), the N1QL health check (`N1qlApi.healthcheck`:
//! `POST /query/service` with `SELECT status FROM system:indexes LIMIT 1`) picks the first host
//! of the URL's list that answers, then `doc_exists` queries `SELECT objectClass FROM <bucket>
//! USE KEYS $key`; for any other key the REST health check (`RestApi.healthcheck`: `GET
//! /pools/`) picks the host and `get_buckets` (`GET /pools/default/buckets`) must answer. Every
//! call sends the user and password as HTTP basic authentication, as `requests` does.

use super::deadline::{Outcome, bounded};
use super::http::{self, Tls};
use super::persistence::{Backend, id_from_dn, waited_entry};
use super::secret::SecretAccess;
use super::{Limits, Setting, StepResult};
use crate::model::Model;
use std::time::Duration;

const URL: &str = "CN_COUCHBASE_URL";
const USER: &str = "CN_COUCHBASE_USER";
const PASSWORD_FILE: &str = "CN_COUCHBASE_PASSWORD_FILE";
const CERT_FILE: &str = "CN_COUCHBASE_CERT_FILE";
const BUCKET_PREFIX: &str = "CN_COUCHBASE_BUCKET_PREFIX";
const TRUSTSTORE: &str = "CN_COUCHBASE_TRUSTSTORE_ENABLE";
/// The N1QL health check's statement (`N1qlApi.healthcheck`).
const HEALTH_STATEMENT: &str = "SELECT status FROM system:indexes LIMIT 1";

/// Where the Couchbase servers are, and as whom.
struct Cluster {
    hosts: Vec<String>,
    scheme: &'static str,
    /// REST and N1QL ports.
    ports: [u16; 2],
    tls: Tls,
    user: String,
    /// The bucket and document id the wait looks for; `None`: the bucket list only.
    document: Option<(String, String)>,
}

/// Checks the Couchbase backend; `Err` (not reached) when the password must come from the
/// secret backend and its step gave no access.
pub fn check(
    backend: &Backend,
    setting: &Setting,
    access: Option<&SecretAccess>,
    limits: Limits,
) -> Result<StepResult, String> {
    let facts = &Model::get().image.couchbase;
    let https = setting.flag(TRUSTSTORE);
    let verify = setting.flag(&facts.verify);
    let prefix = setting.text(BUCKET_PREFIX);
    let cluster = Cluster {
        hosts: (setting.text(URL).split(','))
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(str::to_string)
            .collect(),
        scheme: if https { "https" } else { "http" },
        ports: if https {
            facts.tls_ports
        } else {
            facts.plain_ports
        },
        tls: Tls {
            verify: https && verify,
            ca: (https && verify)
                .then(|| setting.read_optional(&setting.text(CERT_FILE), false))
                .flatten(),
            client: None,
            names: http::TlsNames::paths(&setting.text(CERT_FILE), "", ""),
        },
        user: (setting.get(&facts.superuser))
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| setting.text(USER)),
        document: waited_entry(&backend.first_key).and_then(|entry| {
            let suffix = entry.bucket_suffix.as_ref()?;
            Some((format!("{prefix}{suffix}"), id_from_dn(&entry.dn)))
        }),
    };
    let target = cluster.describe();
    let password = Password::of(setting, access)?;
    let keep = setting.secret_keeper();
    let timeout = limits.timeout;
    let (result, _) = bounded(("persistence", "couchbase", &target), timeout, move || {
        let password = password.get(timeout)?;
        keep(&password);
        // A server may echo the header it was sent: its encoded form is as secret.
        keep(basic(&cluster.user, &password).trim_start_matches("Basic "));
        let agent = http::agent(&cluster.tls, timeout)?;
        match &cluster.document {
            Some((bucket, id)) => cluster.document_exists(&agent, &password, bucket, id),
            None => cluster.buckets_answer(&agent, &password),
        }
    });
    Ok(result)
}

/// Where the password comes from, as `CouchbaseClient.__init__` takes it: the superuser's file,
/// else the secret backend's superuser key; when that is empty, the user's file, else the
/// secret backend's user key.
struct Password {
    superuser_file: Option<String>,
    user_file: Option<String>,
    access: Option<SecretAccess>,
}

impl Password {
    fn of(setting: &Setting, access: Option<&SecretAccess>) -> Result<Password, String> {
        let facts = &Model::get().image.couchbase;
        let file = |env: &str, default: &str| {
            let path = setting.get(env).unwrap_or_else(|| default.to_string());
            (setting.read_optional(&path, true))
                .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_string())
        };
        let file_of = &facts.superuser_password_file;
        let password = Password {
            superuser_file: file(&file_of.env, &file_of.path),
            user_file: file(PASSWORD_FILE, ""),
            access: access.cloned(),
        };
        if password.superuser_file.is_none()
            && password.user_file.is_none()
            && password.access.is_none()
        {
            return Err(format!(
                "the Couchbase password comes from the secret backend's `{}` (no password file \
                 {} is there), and the secret step's login failed",
                facts.password_key,
                setting.text(PASSWORD_FILE)
            ));
        }
        Ok(password)
    }

    fn get(self, timeout: Duration) -> Outcome<String> {
        let facts = &Model::get().image.couchbase;
        let from_secret = |key: &str| match &self.access {
            Some(access) => access.get(key, timeout),
            None => Ok(None),
        };
        let superuser = match self.superuser_file {
            Some(text) => text,
            None => from_secret(&facts.superuser_password_key)?.unwrap_or_default(),
        };
        if !superuser.is_empty() {
            return Ok(superuser);
        }
        if let Some(text) = self.user_file {
            return Ok(text);
        }
        let key = &facts.password_key;
        from_secret(key)?.ok_or_else(|| match &self.access {
            Some(access) => format!("key {} missing", access.key_path(key)),
            None => format!("no Couchbase password: no file, and no `{key}`"),
        })
    }
}

impl Cluster {
    fn describe(&self) -> String {
        let [rest, n1ql] = self.ports;
        let what = match &self.document {
            Some((bucket, id)) => format!("bucket {bucket}, document {id}"),
            None => "its buckets".to_string(),
        };
        format!(
            "{}://{}:{rest},{n1ql} as {} ({what})",
            self.scheme,
            self.hosts.join(","),
            self.user
        )
    }

    fn url(&self, host: &str, port: u16, path: &str) -> String {
        let address = http::host_port(host, &port.to_string());
        format!("{}://{address}/{path}", self.scheme)
    }

    /// `resolve_host`: the first host whose health check answers 2xx, else every host's reason.
    fn resolve_host(
        &self,
        health: impl Fn(&str) -> Result<http::Answer, String>,
    ) -> Outcome<String> {
        let mut reasons = Vec::new();
        for host in &self.hosts {
            match health(host) {
                Ok(answer) if (200..300).contains(&answer.status) => return Ok(host.clone()),
                Ok(answer) => reasons.push(format!("{host}: {}", refused(&answer))),
                Err(why) => reasons.push(format!("{host}: {why}")),
            }
        }
        if reasons.is_empty() {
            return Err(format!("{URL} names no host"));
        }
        Err(reasons.join("; "))
    }

    /// `doc_exists` after the N1QL health check.
    fn document_exists(
        &self,
        agent: &ureq::Agent,
        password: &str,
        bucket: &str,
        id: &str,
    ) -> Outcome<()> {
        let auth = basic(&self.user, password);
        let headers = [("Authorization", auth.as_str())];
        let n1ql = self.ports[1];
        let host = self.resolve_host(|host| {
            let url = self.url(host, n1ql, "query/service");
            http::post_form(agent, &url, &headers, &[("statement", HEALTH_STATEMENT)])
        })?;
        let statement = format!("SELECT objectClass FROM {bucket} USE KEYS $key");
        let key = serde_json::Value::from(id).to_string();
        let url = self.url(&host, n1ql, "query/service");
        let form = [("statement", statement.as_str()), ("$key", key.as_str())];
        let answer = http::post_form(agent, &url, &headers, &form)?;
        if !(200..300).contains(&answer.status) {
            return Err(format!("bucket {bucket}: {}", refused(&answer)));
        }
        let json: serde_json::Value = serde_json::from_str(&answer.body)
            .map_err(|e| format!("couchbase's answer is not JSON: {e}"))?;
        let found = json["results"].as_array().is_some_and(|r| !r.is_empty());
        if !found {
            return Err(format!("document {id} missing in bucket {bucket}"));
        }
        Ok(())
    }

    /// `get_buckets().ok` after the REST health check.
    fn buckets_answer(&self, agent: &ureq::Agent, password: &str) -> Outcome<()> {
        let auth = basic(&self.user, password);
        let headers = [("Authorization", auth.as_str())];
        let rest = self.ports[0];
        let host =
            self.resolve_host(|host| http::get(agent, &self.url(host, rest, "pools/"), &headers))?;
        let url = self.url(&host, rest, "pools/default/buckets");
        let answer = http::get(agent, &url, &headers)?;
        if !(200..300).contains(&answer.status) {
            return Err(refused(&answer));
        }
        Ok(())
    }
}

/// A refusal in words: 401 is a refused login; the N1QL service's first error message (as
/// `doc_exists` reads it), else the body's first line.
fn refused(answer: &http::Answer) -> String {
    let words = serde_json::from_str::<serde_json::Value>(&answer.body)
        .ok()
        .and_then(|json| json.pointer("/errors/0/msg")?.as_str().map(str::to_string))
        .unwrap_or_else(|| http::server_words(&answer.body));
    let words = if words.is_empty() {
        format!("couchbase answered {}", answer.status)
    } else {
        words
    };
    if answer.status == 401 {
        format!("authentication failed: {words}")
    } else {
        words
    }
}

/// HTTP basic authentication, as `requests` sends an `auth=(user, password)` pair.
fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    let pair = format!("{user}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}
