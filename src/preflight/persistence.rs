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

/// The entry the waits look for when `first_key` is the first data key mapped to a backend (the
/// model's `[image] waits_for`): `None` for a key without one.
pub fn waited_entry(first_key: &str) -> Option<&'static crate::model::WaitedEntry> {
    (Model::get().image.waits_for.iter()).find(|entry| entry.key == first_key)
}

/// pycloudlib's `doc_id_from_dn` (persistence/sql.py): the first RDN's value, `_` for `o=jans`.
pub fn doc_id_from_dn(dn: &str) -> String {
    let first = dn.split(',').next().unwrap_or_default();
    let value = first.split_once('=').map_or(first, |(_, v)| v);
    if value == "jans" { "_" } else { value }.to_string()
}

/// pycloudlib's `id_from_dn` (persistence/couchbase.py): the RDN values without `o=jans`,
/// reversed and joined with `_` (`_` when none is left).
pub fn id_from_dn(dn: &str) -> String {
    let mut values: Vec<&str> = (dn.split(','))
        .filter(|rdn| *rdn != "o=jans")
        .map(|rdn| rdn.rsplit('=').next().unwrap_or_default())
        .collect();
    values.reverse();
    let id = values.join("_");
    if id.is_empty() { "_".to_string() } else { id }
}

#[cfg(test)]
mod tests {
    use super::{doc_id_from_dn, id_from_dn, waited_entry};

    #[test]
    fn ids_from_dns_are_pycloudlib_s() {
        // What pycloudlib's functions give for the DNs its waits name.
        assert_eq!(
            doc_id_from_dn("ou=jans-auth,ou=configuration,o=jans"),
            "jans-auth"
        );
        assert_eq!(doc_id_from_dn("inum=60B7,ou=groups,o=jans"), "60B7");
        assert_eq!(doc_id_from_dn("o=jans"), "_");
        assert_eq!(
            id_from_dn("ou=jans-auth,ou=configuration,o=jans"),
            "configuration_jans-auth"
        );
        assert_eq!(id_from_dn("inum=60B7,ou=groups,o=jans"), "groups_60B7");
        assert_eq!(id_from_dn("o=jans"), "_");
        let default = waited_entry("default").unwrap();
        assert_eq!(default.table.as_deref(), Some("jansAppConf"));
        assert!(waited_entry("site").unwrap().table.is_none());
    }
}
