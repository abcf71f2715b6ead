//! The `[deploy]` section: deployment settings from the model's `[[setting]]` entries, and the
//! file and plugin sources (`deploy.files`, `deploy.plugins`).

use crate::model::{DefaultValue, Edition, Model, Setting, VarType};
use crate::value_type::patterns;
use serde_json::{Map, Value, json};

/// The top-level key of the deployment settings.
pub const DEPLOY_KEY: &str = "deploy";

/// Secret/ConfigMap names (DNS-1123 subdomain) and their data keys.
const K8S_SUBDOMAIN: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
const K8S_DATA_KEY: &str = r"^[-._a-zA-Z0-9]+$";

/// The schema of `[deploy]`.
pub fn section(model: &Model) -> Value {
    let mut properties = Map::new();
    for setting in &model.settings {
        let rest = setting.key.strip_prefix("deploy.").unwrap_or(&setting.key);
        insert_nested(&mut properties, rest, setting_schema(model, setting));
    }
    let mut file_keys: Vec<&str> = model
        .keys()
        .into_iter()
        .filter(|k| is_file_key(model, k))
        .collect();
    // The image's own SSA file (edition A), by its key in the model's `[image]`.
    file_keys.push(&model.image.ssa_file.key);
    // The SQL client's password file (an image fact), by its key.
    file_keys.push(&model.image.sql_password_file.key);
    properties.insert(
        "files".into(),
        json!({
            "description": format!("Where each file the container reads comes from, by the profile key of its variable (or `{}`: edition A's SSA file, which the image reads from {} or where {} moves it): `host` (a path bind-mounted read-only by compose), `secret` or `configmap` (and `key`) for Kubernetes.", model.image.ssa_file.key, model.image.ssa_file.path, model.image.ssa_file.env),
            "type": "object",
            "propertyNames": { "enum": file_keys },
            "additionalProperties": source(),
        }),
    );
    properties.insert(
        "plugins".into(),
        json!({
            "description": "Where each plugin archive listed in admin_ui.plugins comes from (edition A): `host` for compose, `secret` or `configmap` (and `key`) for Kubernetes. It is mounted at the plugin's path in the container.",
            "type": "object",
            "propertyNames": { "pattern": patterns::PLUGIN_NAME },
            "additionalProperties": source(),
        }),
    );
    json!({
        "title": "Deployment",
        "description": "How the container is deployed: names, image, replicas and the sources of the files it reads. Not container variables.",
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    })
}

/// `deploy.plugins` in an edition without plugins is an error: an `if`/`then` rule per edition.
pub fn edition_rules(model: &Model, edition_key: &str) -> Vec<Value> {
    Edition::ALL
        .into_iter()
        .filter(|e| !model.vars_of(*e).any(|v| v.ty == VarType::PluginList))
        .map(|edition| {
            json!({
                "if": { "properties": { edition_key: { "const": edition.as_str() } }, "required": [edition_key] },
                "then": { "properties": { DEPLOY_KEY: { "properties": { "plugins": {
                    "not": { "description": format!("plugins exist only in another edition, not in edition {edition}") }
                } } } } }
            })
        })
        .collect()
}

fn is_file_key(model: &Model, key: &str) -> bool {
    model.entries_by_key(key).any(|v| v.ty == VarType::File)
}

fn setting_schema(model: &Model, setting: &Setting) -> Value {
    let default_text = match &setting.default {
        DefaultValue::ByEdition => {
            let tags: Vec<String> = model
                .editions
                .iter()
                .map(|e| format!("{} in edition {}", e.image_tag, e.id))
                .collect();
            format!("Default: {}.", tags.join(", "))
        }
        other => format!("Default: {}.", other.describe()),
    };
    let mut schema = Map::new();
    schema.insert(
        "description".into(),
        json!(format!("{} {default_text}", setting.meaning)),
    );
    let rules = setting.ty.rules();
    schema.extend(rules.setting_schema(setting));
    if let DefaultValue::Value(v) = &setting.default {
        let typed = rules.json_default(v).unwrap_or(Value::Null);
        schema.insert("default".into(), typed);
    }
    Value::Object(schema)
}

/// Puts `schema` at a dotted path below `properties`, making object schemas on the way.
fn insert_nested(properties: &mut Map<String, Value>, path: &str, schema: Value) {
    match path.split_once('.') {
        None => {
            properties.insert(path.to_string(), schema);
        }
        Some((head, rest)) => {
            let table = properties.entry(head.to_string()).or_insert_with(
                || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            );
            if let Some(Value::Object(inner)) = table.get_mut("properties") {
                insert_nested(inner, rest, schema);
            }
        }
    }
}

/// One file source: `{ host, secret | configmap, key }`.
fn source() -> Value {
    json!({
        "type": "object",
        "properties": {
            "host": { "type": "string", "minLength": 1, "description": "A host file (relative to the profile's folder): bind-mounted read-only by compose, and the file kustomize generates the Secret or ConfigMap from. Outputs refer to it relative to their own folder." },
            "secret": { "type": "string", "pattern": K8S_SUBDOMAIN, "description": "Kubernetes: the Secret holding the file." },
            "configmap": { "type": "string", "pattern": K8S_SUBDOMAIN, "description": "Kubernetes: the ConfigMap holding the file (certificates and archives; not for secrets)." },
            "key": { "type": "string", "pattern": K8S_DATA_KEY, "description": "The key in the Secret or ConfigMap; by default the file's name." }
        },
        "additionalProperties": false,
        "anyOf": [ { "required": ["host"] }, { "required": ["secret"] }, { "required": ["configmap"] } ],
        "not": { "required": ["secret", "configmap"] },
        "dependencies": { "key": { "anyOf": [ { "required": ["secret"] }, { "required": ["configmap"] } ] } }
    })
}

#[cfg(test)]
mod tests {
    use super::{K8S_DATA_KEY, K8S_SUBDOMAIN};
    use crate::value_type::formats;
    use regex::Regex;

    type Check = fn(&str) -> Result<(), formats::Problem>;

    /// The schema's patterns of a file source's names agree with the resolver's checks over
    /// these samples: the schema never rejects a valid profile, and rejects what the form tells.
    #[test]
    fn source_name_patterns_agree_with_the_checks() {
        let samples = [
            "a",
            "vault-approle",
            "a.b",
            "a..b",
            ".a",
            "a.",
            "-a",
            "a-",
            "A",
            "a_b",
            "tls.crt",
            "role_id",
            "User_Mgmt.zip",
            "a b",
            "a/b",
            "a=b",
            "é",
            ".",
            "..",
            "",
        ];
        let pairs: [(&str, Check); 2] = [
            (K8S_SUBDOMAIN, formats::k8s_subdomain),
            (K8S_DATA_KEY, formats::k8s_data_key),
        ];
        for (pattern, check) in pairs {
            let regex = Regex::new(pattern).unwrap();
            for sample in samples {
                let (accepted, matched) = (check(sample).is_ok(), regex.is_match(sample));
                // `.` and `..` are refused by the check, beyond what the pattern tells.
                let beyond = pattern == K8S_DATA_KEY && matches!(sample, "." | "..");
                assert!(
                    accepted == matched || beyond,
                    "{pattern} on {sample:?}: check {accepted}, pattern {matched}"
                );
            }
        }
    }
}
