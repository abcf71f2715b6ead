//! The deploy-time form of a value (`{ deploy_env = "DB_HOST", default = 5432 }`, see
//! `resolve::deferred`) in the schema: every key that may be deferred accepts it beside its own
//! values, with the default checked by the key's own constraints.

use crate::model::Model;
use crate::resolve::deferred::{DEFAULT, DEPLOY_ENV, cannot_defer};
use crate::value_type::patterns;
use serde_json::{Map, Value, json};

/// True when every entry of `key` may be filled in at deploy time.
pub fn may_defer(model: &Model, key: &str) -> bool {
    let mut entries = model.entries_by_key(key).peekable();
    entries.peek().is_some() && entries.all(|v| cannot_defer(v).is_none())
}

/// The form, its default checked by `value` (the key's constraints).
pub fn form(value: &Map<String, Value>) -> Value {
    json!({
        "type": "object",
        "description": "Filled in at deploy time from a variable of the deploying environment (compose and .env write ${NAME}; the Kubernetes targets refuse it).",
        "properties": {
            DEPLOY_ENV: { "type": "string", "pattern": patterns::ENV_NAME },
            DEFAULT: value
        },
        "required": [DEPLOY_ENV],
        "additionalProperties": false
    })
}

/// `schema` (a key's constraints) or the deploy-time form, when the key may be deferred; the
/// annotations (description, docs for editors) stay outside, where editors look for them.
pub fn or_deferred(model: &Model, key: &str, mut schema: Map<String, Value>) -> Map<String, Value> {
    if !may_defer(model, key) {
        return schema;
    }
    let mut outside = Map::new();
    for annotation in ["description", "default", "x-taplo", "examples"] {
        if let Some(value) = schema.remove(annotation) {
            outside.insert(annotation.to_string(), value);
        }
    }
    let deferred = form(&schema);
    outside.insert(
        "anyOf".to_string(),
        json!([Value::Object(schema), deferred]),
    );
    outside
}

/// The form for an `[env]` value (a string, integer or boolean default).
pub fn env_form() -> Value {
    let mut value = Map::new();
    value.insert("type".into(), json!(["string", "integer", "boolean"]));
    form(&value)
}
