//! The `persistence` steps: one per distinct backend, sorted by backend name (pycloudlib's
//! `PersistenceMapper` groups the mapping by backend), each waiting as `wait.py` waits for it.

use super::secret::SecretAccess;
use super::{Limits, Setting};
use crate::model::Model;

/// A backend the image waits for, and the first data key mapped to it (which decides the
/// entry it looks for).
#[derive(Debug, Clone)]
pub struct Backend {
    pub name: String,
    pub first_key: String,
}

/// The backends, sorted by name, each with its first data key in the mapping's key order.
pub fn backends(setting: &Setting) -> Vec<Backend> {
    let model = Model::get();
    // The selector's variable and the value that defers to the mapping, from the model.
    let rule = &model.backends;
    let persistence = (model.var_by_key(&rule.selector, setting.edition))
        .map(|v| setting.text(&v.env))
        .unwrap_or_default();
    let mapping_var = model.var_by_key(&rule.mapping, setting.edition);
    let keys: Vec<String> = mapping_var
        .map(|v| v.mapping_keys.clone())
        .unwrap_or_default();
    let first = keys.first().cloned().unwrap_or_default();
    if persistence != rule.mixed {
        return vec![Backend {
            name: persistence,
            first_key: first,
        }];
    }
    let mapping: serde_json::Map<String, serde_json::Value> = mapping_var
        .and_then(|v| setting.get(&v.env))
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let mut out: Vec<Backend> = Vec::new();
    for key in &keys {
        let Some(name) = mapping.get(key).and_then(|v| v.as_str()) else {
            continue;
        };
        if !out.iter().any(|b| b.name == name) {
            out.push(Backend {
                name: name.to_string(),
                first_key: key.clone(),
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// A secret from the secret backend's session, for a step that needs it: `Err` (not reached)
/// when the secret step gave no session.
pub fn from_secret_backend(
    access: Option<&SecretAccess>,
    key: &str,
    limits: Limits,
) -> Result<Result<String, String>, String> {
    let Some(access) = access else {
        return Err(format!(
            "needs the secret backend's `{key}`, and the secret step's login failed"
        ));
    };
    Ok(match access.get(key, limits.timeout) {
        Ok(Some(value)) => Ok(value),
        Ok(None) => Err(format!("key {} missing", access.key_path(key))),
        Err(why) => Err(why),
    })
}
