//! The google config and secret adapters and the Spanner backend, checked as the image's own
//! Google clients read them: Secret Manager and Spanner over their REST APIs (the same resources
//! and answers as the gRPC the image speaks), authenticated with the service account file's
//! self-signed JWT ([`account`]).

mod account;
mod client;
mod secret_manager;
mod spanner;

pub use secret_manager::Store;
pub use spanner::check as spanner;

use super::deadline::bounded;
use super::{Limits, Setting, Status, StepResult};
use account::Account;
use client::Client;
use secret_manager::Kind;

/// The project every resource name starts with.
const PROJECT: &str = "GOOGLE_PROJECT_ID";
/// The scope the Secret Manager client's bearer carries (its `AUTH_SCOPES`).
const SECRET_MANAGER_SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// Checks the config (`Kind::Config`, key `hostname`) or secret (`ssl_cert`) adapter; the store
/// when Secret Manager answered (even without the key).
pub fn check(
    setting: &Setting,
    limits: Limits,
    (step, key, secret): (&str, &str, bool),
) -> (StepResult, Option<Store>) {
    let kind = if secret { Kind::Secret } else { Kind::Config };
    let store = match store(setting, kind) {
        Ok(store) => store,
        Err((status, why)) => {
            return (
                StepResult::not_run(step, "google", String::new(), status, why),
                None,
            );
        }
    };
    let target = format!("{} (secret {})", store.client.base, store.version_path());
    let timeout = limits.timeout;
    let (mut result, carried) = bounded((step, "google", &target), timeout, move || {
        let payload = store.payload(timeout)?;
        Ok((store, payload))
    });
    let Some((store, payload)) = carried else {
        return (result, None);
    };
    let missing = match payload {
        Ok(keys) => secret_manager::value_of(&keys, key).is_none().then(|| {
            (
                Status::Failed,
                format!("key {} missing", store.key_path(key)),
            )
        }),
        Err(not_ok) => Some(not_ok),
    };
    if let Some((status, why)) = missing {
        result.status = status;
        result.reason = Some(why);
    } else if let Some(note) = &store.unset_prefix {
        // Passed, but on the spec's prefix: the image may read another secret (warned).
        result.reason = Some(note.clone());
    }
    (result, Some(store))
}

/// The adapter's secret as the image names it: the adapter's own older variables first (the
/// image reads them when they are set at all), else the spec's `CN_GOOGLE_SECRET_*`.
fn store(setting: &Setting, kind: Kind) -> Result<Store, (Status, String)> {
    let account = Account::load(setting)?;
    let client = Client::new(setting, account, "secretmanager", SECRET_MANAGER_SCOPE)
        .map_err(|why| (Status::Failed, why))?;
    let older = match kind {
        Kind::Config => "CN_CONFIG_GOOGLE_SECRET_",
        Kind::Secret => "CN_SECRET_GOOGLE_SECRET_",
    };
    // pycloudlib: `os.environ[old] or <default>` when the older variable is set at all (even
    // empty), else the newer one; the default here is the spec's (the newer variable's).
    let read = |rest: &str| {
        let old = format!("{older}{rest}");
        let newer = format!("CN_GOOGLE_SECRET_{rest}");
        match setting.text(&old) {
            value if setting.is_set(&old) && !value.is_empty() => value,
            _ if setting.is_set(&old) => setting.default_of(&newer).unwrap_or_default(),
            _ => setting.text(&newer),
        }
    };
    let suffix = match kind {
        Kind::Config => "configuration",
        Kind::Secret => "secret",
    };
    let version = match read("VERSION_ID") {
        // The image's `... or "latest"`, which is the spec's default too: read from the model.
        empty if empty.is_empty() => {
            (setting.default_of("CN_GOOGLE_SECRET_VERSION_ID")).unwrap_or_default()
        }
        version => version,
    };
    // The spec's default where the image has its own (spec 2.4 against pycloudlib's own):
    // svcgen follows the spec and says so on the step.
    let prefix = "CN_GOOGLE_SECRET_NAME_PREFIX";
    let old_prefix = format!("{older}NAME_PREFIX");
    let fallen_back = if setting.is_set(&old_prefix) {
        setting
            .text(&old_prefix)
            .is_empty()
            .then(|| format!("{old_prefix} is empty"))
    } else {
        (!setting.is_set(prefix)).then(|| format!("{prefix} is not set"))
    };
    let unset_prefix = fallen_back.map(|why| {
        format!(
            "{why}: svcgen reads the spec's default prefix `{}`, where the image falls back to \
             its own default prefix, which names another secret",
            setting.default_of(prefix).unwrap_or_default()
        )
    });
    Ok(Store {
        client,
        kind,
        project: setting.text(PROJECT),
        name: format!("{}-{suffix}", read("NAME_PREFIX")),
        version,
        unset_prefix,
    })
}

/// "`what` is not JSON", with the line where the parser stopped: never the text there, nor its
/// column (a payload that breaks off at its end would give the length of its last line, a
/// secret's).
fn not_json(what: &str, error: &serde_json::Error) -> String {
    format!("{what} is not JSON (at line {})", error.line())
}
