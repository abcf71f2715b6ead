//! The `kubernetes` config and secret adapters (pycloudlib's `KubernetesConfig` and
//! `KubernetesSecret`): the ConfigMap or Secret is read whole (`read_namespaced_config_map`,
//! `read_namespaced_secret`) and the key looked up in its `data` (a Secret's values in base64),
//! empty counting as missing (`result.get(key) or default`). The API is reached as the Python
//! `kubernetes` client reaches it (the model's `[image] kube_api`): in a pod from
//! `KUBERNETES_SERVICE_HOST`/`_PORT` with the service account's token and CA files, or, with
//! the adapter's `use_kube_config`, from `~/.kube/config`. The image creates a missing object
//! (and then waits for its key): svcgen only reads.

use super::deadline::bounded;
use super::http::{self, Tls};
use super::{Limits, Setting, Status, StepResult};
use crate::model::{ApiObject, Model};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How the client reaches the API: its address, how it verifies it, and its bearer token.
#[derive(Clone)]
struct Api {
    base: String,
    tls: Tls,
    token: Option<String>,
}

/// One ConfigMap or Secret of the Kubernetes API, to read keys from.
#[derive(Clone)]
pub struct KubeObject {
    api: Api,
    /// `configmaps` or `secrets` (the model's `[container] api_objects`).
    resource: String,
    namespace: String,
    name: String,
}

impl KubeObject {
    /// Reads one key of the object's `data`: `Ok(None)` when it is missing or empty.
    pub fn get(&self, key: &str, timeout: Duration) -> Result<Option<String>, String> {
        let agent = http::agent(&self.api.tls, timeout)?;
        let url = format!(
            "{}/api/v1/namespaces/{}/{}/{}",
            self.api.base, self.namespace, self.resource, self.name
        );
        let bearer = self.api.token.as_ref().map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = (bearer.iter())
            .map(|b| ("Authorization", b.as_str()))
            .collect();
        let answer = http::get(&agent, &url, &headers)?;
        let words = status_message(&answer.body);
        match answer.status {
            200 => self.value(&answer.body, key),
            404 => Err(format!("{} missing: {words}", self.describe())),
            401 | 403 => Err(format!("authentication failed: {words}")),
            status => Err(format!("the Kubernetes API answered {status}: {words}")),
        }
    }

    /// Where a key lives, for messages.
    pub fn key_path(&self, key: &str) -> String {
        format!("{key} of {}", self.describe())
    }

    /// `ConfigMap <namespace>/<name>` or `Secret <namespace>/<name>`.
    fn describe(&self) -> String {
        let kind = if self.is_secret() {
            "Secret"
        } else {
            "ConfigMap"
        };
        format!("{kind} {}/{}", self.namespace, self.name)
    }

    fn is_secret(&self) -> bool {
        self.resource == "secrets"
    }

    /// The key's value in the object's `data` (a Secret's decoded from base64, as the adapter
    /// decodes it; a value that does not decode fails the image's read too).
    fn value(&self, body: &str, key: &str) -> Result<Option<String>, String> {
        use base64::Engine;
        let object: serde_json::Value = serde_json::from_str(body)
            .map_err(|e| format!("the Kubernetes API's answer is not JSON: {e}"))?;
        let Some(text) = object
            .pointer(&format!("/data/{key}"))
            .and_then(|v| v.as_str())
        else {
            return Ok(None);
        };
        let value = if self.is_secret() {
            let bytes = (base64::engine::general_purpose::STANDARD.decode(text))
                .map_err(|_| format!("{} is not base64", self.key_path(key)))?;
            String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8", self.key_path(key)))?
        } else {
            text.to_string()
        };
        Ok((!value.is_empty()).then_some(value))
    }
}

/// A Kubernetes `Status` answer's message, else the body's first line.
fn status_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("message")?.as_str().map(str::to_string))
        .unwrap_or_else(|| http::server_words(body))
}

/// Checks that the object of `resource` (`configmaps` for the config step, `secrets` for the
/// secret step) holds `key`; the object when the API answered with it (even without the key).
pub fn check(
    setting: &Setting,
    limits: Limits,
    (step, resource, key): (&str, &str, &str),
) -> (StepResult, Option<KubeObject>) {
    let not_run = |status, why| {
        let result = StepResult::not_run(step, "kubernetes", String::new(), status, why);
        (result, None)
    };
    let model = Model::get();
    let Some(object) = (model.container.api_objects.iter()).find(|o| o.resource == resource) else {
        return not_run(
            Status::NotChecked,
            format!("the model names no {resource} object"),
        );
    };
    let env = |profile_key: &str| {
        (model.var_by_key(profile_key, setting.edition))
            .map(|v| setting.text(&v.env))
            .unwrap_or_default()
    };
    let api = if setting.flag(&env_name(setting, &object.kube_config)) {
        kube_config(setting)
    } else {
        in_cluster(setting)
    };
    let api = match api {
        Ok(api) => api,
        Err((status, why)) => return not_run(status, why),
    };
    let target_object = KubeObject {
        api,
        resource: resource.to_string(),
        namespace: env(&object.namespace),
        name: object_name(setting, object, &env(&object.name)),
    };
    let renamed = renamed(setting, object, &target_object.name, &env(&object.name));
    let target = format!("{} ({})", target_object.api.base, target_object.describe());
    let timeout = limits.timeout;
    let key = key.to_string();
    let (mut result, carried) = bounded((step, "kubernetes", &target), timeout, move || {
        let found = target_object.get(&key, timeout)?;
        Ok((target_object, found, key))
    });
    let Some((object, found, key)) = carried else {
        if let (Some(reason), Some(note)) = (result.reason.as_mut(), renamed) {
            reason.push_str(&note);
        }
        return (result, None);
    };
    if found.is_none() {
        result.status = Status::Failed;
        let note = renamed.unwrap_or_default();
        result.reason = Some(format!("key {} missing{note}", object.key_path(&key)));
    }
    (result, Some(object))
}

/// Where the image reads the object's name from another variable than the spec's and the two
/// names differ, a note for a failure: the profile's name is not the one the image looks for.
fn renamed(setting: &Setting, object: &ApiObject, name: &str, spec_name: &str) -> Option<String> {
    let image = object.image_name.as_ref()?;
    (name != spec_name).then(|| {
        format!(
            " (the image reads the name from {}, not {} = \"{spec_name}\")",
            image.env,
            env_name(setting, &object.name)
        )
    })
}

/// The variable of a profile key, in the setting's edition.
fn env_name(setting: &Setting, profile_key: &str) -> String {
    (Model::get().var_by_key(profile_key, setting.edition))
        .map(|v| v.env.clone())
        .unwrap_or_default()
}

/// The object's name as the image reads it: from its own variable where it differs from the
/// spec (the Secret: `image_name`, else the image's default), else the spec's variable.
fn object_name(setting: &Setting, object: &ApiObject, spec_name: &str) -> String {
    match &object.image_name {
        Some(image) => setting
            .get(&image.env)
            .unwrap_or_else(|| image.default.clone()),
        None => spec_name.to_string(),
    }
}

/// `load_incluster_config`: `https://<host>:<port>` from the pod's variables, the service
/// account's token as the bearer, verified against its CA file.
fn in_cluster(setting: &Setting) -> Result<Api, (Status, String)> {
    let facts = &Model::get().image.kube_api;
    let (host, port) = (setting.text(&facts.host), setting.text(&facts.port));
    if host.is_empty() || port.is_empty() {
        return Err((
            Status::NotChecked,
            format!(
                "{} and {} are not set: the in-cluster configuration exists only in a pod (the \
                 client says \"Service host/port is not set.\"); run `svcgen preflight --from-env` \
                 there (the Job of `render -t preflight-job`), or set the adapter's \
                 use_kube_config to read a kubeconfig",
                facts.host, facts.port
            ),
        ));
    }
    let failed = |why: String| (Status::Failed, why);
    let token = setting
        .read_secret_text(&facts.token)
        .map_err(|why| failed(format!("the service account token: {why}")))?;
    if token.is_empty() {
        return Err(failed(format!(
            "the service account token {} is empty",
            facts.token
        )));
    }
    let ca = (setting.read(&facts.ca, false))
        .map_err(|why| failed(format!("the service account CA: {why}")))?;
    Ok(Api {
        base: format!("https://{}", http::host_port(&host, &port)),
        tls: Tls {
            verify: true,
            ca: Some(ca),
            client: None,
            names: http::TlsNames::paths(&facts.ca, "", ""),
        },
        token: Some(token),
    })
}

/// `load_kube_config("~/.kube/config")`: the current context's cluster and user. The home
/// folder is the container's `HOME` when the setting has one, else svcgen's own (a client
/// outside a container, where the adapter's switch is useful, reads the user's file).
fn kube_config(setting: &Setting) -> Result<Api, (Status, String)> {
    let facts = &Model::get().image.kube_api;
    let home = (setting.get("HOME"))
        .or_else(|| std::env::var("HOME").ok())
        .unwrap_or_default();
    let path = PathBuf::from(facts.kube_config.replacen('~', &home, 1));
    let failed = |why: String| (Status::Failed, format!("{}: {why}", path.display()));
    let config = read_kube_config(setting, &path).map_err(&failed)?;
    let named = |list: &str, name: &str, field: &str| {
        (config.get(list)?.as_array()?.iter())
            .find(|item| item.get("name").and_then(|n| n.as_str()) == Some(name))?
            .get(field)
            .cloned()
    };
    let current = (config.get("current-context").and_then(|c| c.as_str())).unwrap_or_default();
    let context = named("contexts", current, "context")
        .ok_or_else(|| failed(format!("no context {current:?} (its current-context)")))?;
    let field = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(|s| s.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let (cluster_name, user_name) = (field(&context, "cluster"), field(&context, "user"));
    let cluster = named("clusters", &cluster_name, "cluster")
        .ok_or_else(|| failed(format!("no cluster {cluster_name:?}")))?;
    let user = named("users", &user_name, "user").unwrap_or_default();
    refuse_plugins(&user, &user_name, &path)?;
    let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let file = |v: &serde_json::Value, data: &str, file: &str, secret: bool| {
        kube_config_file(setting, &dir, v, (data, file), secret).map_err(&failed)
    };
    let verify = cluster.get("insecure-skip-tls-verify") != Some(&serde_json::Value::Bool(true));
    let ca = file(
        &cluster,
        "certificate-authority-data",
        "certificate-authority",
        false,
    )?;
    let cert = file(
        &user,
        "client-certificate-data",
        "client-certificate",
        false,
    )?;
    let key = file(&user, "client-key-data", "client-key", true)?;
    let names = tls_names(&path, &dir, &cluster, &user);
    let token = match field(&user, "token") {
        token if !token.is_empty() => Some(token),
        _ => file(&user, "", "tokenFile", true)?
            .map(|t| String::from_utf8_lossy(&t).trim().to_string()),
    };
    if let Some(token) = &token {
        setting.keep_secret(token);
    }
    let base = field(&cluster, "server").trim_end_matches('/').to_string();
    // A password in the server's URL is never shown (the step's target prints the URL).
    for range in crate::diag::redact::url_password_ranges(&base) {
        setting.keep_secret(&base[range]);
    }
    Ok(Api {
        base,
        tls: Tls {
            verify,
            ca: ca.filter(|_| verify),
            client: cert.zip(key),
            names: std::sync::Arc::new(names),
        },
        token,
    })
}

/// The kubeconfig at `path`, read through the bounded reader. The parser's message quotes the
/// file's lines, and a kubeconfig holds tokens and keys: only its first line (where, and what)
/// is said.
fn read_kube_config(setting: &Setting, path: &Path) -> Result<serde_json::Value, String> {
    let bytes = setting.read_local(path, true)?;
    let text = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    serde_saphyr::from_str(&text).map_err(|e| {
        let first = e.to_string().lines().next().unwrap_or_default().to_string();
        format!("not YAML: {first} (the file's lines are not shown)")
    })
}

/// A user whose credentials come from a plugin: `not-checked`, as svcgen runs no plugin.
fn refuse_plugins(
    user: &serde_json::Value,
    user_name: &str,
    path: &Path,
) -> Result<(), (Status, String)> {
    for plugin in ["exec", "auth-provider"] {
        if user.get(plugin).is_some() {
            return Err((
                Status::NotChecked,
                format!(
                    "{}: the user {user_name:?} gets its credentials from an {plugin} plugin, which svcgen does not run",
                    path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Where the cluster's CA and the user's client certificate and key come from, for messages.
fn tls_names(
    path: &Path,
    dir: &Path,
    cluster: &serde_json::Value,
    user: &serde_json::Value,
) -> http::TlsNames {
    let named = |v, data, file| kube_config_source(path, dir, v, (data, file));
    http::TlsNames {
        ca: named(
            cluster,
            "certificate-authority-data",
            "certificate-authority",
        ),
        cert: named(user, "client-certificate-data", "client-certificate"),
        key: named(user, "client-key-data", "client-key"),
    }
}

/// Where a kubeconfig field's file comes from, for messages: the file it names (relative to
/// the kubeconfig's folder), or the inline field of the kubeconfig at `path`.
fn kube_config_source(
    path: &Path,
    dir: &Path,
    value: &serde_json::Value,
    (data, file): (&str, &str),
) -> String {
    if value.get(data).is_some() {
        return format!("({data} of {})", path.display());
    }
    let named = value.get(file).and_then(|v| v.as_str()).unwrap_or_default();
    dir.join(named).display().to_string()
}

/// A kubeconfig field given inline in base64 (`data`) or as a file path (`file`, relative to the
/// kubeconfig's folder); `None` when neither is there.
fn kube_config_file(
    setting: &Setting,
    dir: &Path,
    value: &serde_json::Value,
    (data, file): (&str, &str),
    secret: bool,
) -> Result<Option<Vec<u8>>, String> {
    use base64::Engine;
    if let Some(text) = value.get(data).and_then(|v| v.as_str()) {
        let bytes = (base64::engine::general_purpose::STANDARD.decode(text.trim()))
            .map_err(|_| format!("{data} is not base64"))?;
        if secret {
            setting.keep_secret(String::from_utf8_lossy(&bytes).trim());
        }
        return Ok(Some(bytes));
    }
    let Some(path) = value.get(file).and_then(|v| v.as_str()) else {
        return Ok(None);
    };
    let bytes = setting
        .read_local(&dir.join(path), secret)
        .map_err(|why| format!("{file}: {why}"))?;
    Ok(Some(bytes))
}
