//! The schema of one variable's value: what `resolve::convert` accepts for its type, as JSON Schema.

use super::forms;
use crate::model::{DefaultValue, Var, VarType};
use serde_json::{Map, Value, json};

/// The highest port number.
const PORT_MAX: i64 = 65535;

/// The constraints and hints of one variable entry (one edition's view of a key), without its
/// description: `type`, `enum`, ranges, forms, `default`, `examples`.
pub fn constraints(var: &Var) -> Map<String, Value> {
    let mut schema = match var.ty {
        VarType::Bool => object(json!({ "type": "boolean" })),
        VarType::Port => object(json!({ "type": "integer", "minimum": 1, "maximum": PORT_MAX })),
        VarType::Integer => object(json!({ "type": "integer", "minimum": var.min.unwrap_or(1) })),
        VarType::PluginList => plugin_list(),
        VarType::HybridMapping => hybrid_mapping(var),
        VarType::Secret => secret(var),
        _ => text(var),
    };
    if let Some(default) = typed_default(var) {
        schema.insert("default".into(), default);
    }
    schema
}

/// A string variable: its allowed values, or its form.
fn text(var: &Var) -> Map<String, Value> {
    let mut schema = object(json!({ "type": "string" }));
    if var.ty == VarType::Enum {
        let allowed = var.allowed.clone().unwrap_or_default();
        schema.insert("enum".into(), json!(allowed));
    } else if var.allowed_not_shown {
        // The spec does not show the allowed values: any value but the empty string.
        schema.insert("minLength".into(), json!(1));
    } else if let Some(pattern) = forms::pattern(var.ty) {
        schema.insert("pattern".into(), json!(pattern));
    }
    schema
}

/// A list of plugin names, each the archive name without `.zip`, each listed once.
fn plugin_list() -> Map<String, Value> {
    object(json!({
        "type": "array",
        "items": {
            "type": "string",
            "pattern": forms::PLUGIN_NAME,
            "not": {
                "pattern": forms::PLUGIN_ARCHIVE_SUFFIX,
                "description": "a plugin name is the archive's name without `.zip`"
            }
        },
        "uniqueItems": true
    }))
}

/// The hybrid mapping: a table with exactly the model's data categories, each naming a backend.
fn hybrid_mapping(var: &Var) -> Map<String, Value> {
    let backends = var.allowed.clone().unwrap_or_default();
    let properties: Map<String, Value> = var
        .mapping_keys
        .iter()
        .map(|k| (k.clone(), json!({ "type": "string", "enum": backends })))
        .collect();
    // Every category on one backend: valid in any edition that has the mapping.
    let example: Map<String, Value> = match backends.first() {
        Some(backend) => var
            .mapping_keys
            .iter()
            .map(|k| (k.clone(), json!(backend)))
            .collect(),
        None => Map::new(),
    };
    object(json!({
        "type": "object",
        "properties": properties,
        "required": var.mapping_keys,
        "additionalProperties": false,
        "examples": [example]
    }))
}

/// A secret: a reference `{ env = "NAME" }` or `{ file = "PATH" }`, or the value itself.
fn secret(var: &Var) -> Map<String, Value> {
    object(json!({
        "type": ["string", "object"],
        "properties": {
            "env": {
                "type": "string",
                "pattern": forms::ENV_NAME,
                "description": "Read the value from this environment variable when rendering."
            },
            "file": {
                "type": "string",
                "minLength": 1,
                "description": "Read the value from this file (relative to the profile) when rendering."
            }
        },
        "additionalProperties": false,
        "minProperties": 1,
        "maxProperties": 1,
        "examples": [{ "env": var.env }]
    }))
}

/// The spec's default as a value of the key's JSON type, when the spec shows a non-empty value.
fn typed_default(var: &Var) -> Option<Value> {
    let DefaultValue::Value(text) = &var.default else {
        return None;
    };
    if text.is_empty() {
        return None;
    }
    match var.ty {
        VarType::Port | VarType::Integer => text.parse::<i64>().ok().map(Value::from),
        VarType::Bool => text.parse::<bool>().ok().map(Value::from),
        // Not a string in the profile, and the spec's default is no valid value of the table/list.
        VarType::HybridMapping | VarType::PluginList | VarType::Secret => None,
        _ => Some(Value::from(text.as_str())),
    }
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("called with JSON objects only"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;

    #[test]
    fn every_shown_default_is_typed() {
        let model = Model::get();
        for var in &model.vars {
            let Some(default) = constraints(var).get("default").cloned() else {
                continue;
            };
            let ty = match var.ty {
                VarType::Port | VarType::Integer => default.is_i64(),
                VarType::Bool => default.is_boolean(),
                _ => default.is_string(),
            };
            assert!(ty, "{}: default {default} has the wrong JSON type", var.env);
        }
    }

    #[test]
    fn numeric_and_boolean_defaults_are_never_dropped() {
        let model = Model::get();
        for var in &model.vars {
            let typed = matches!(var.ty, VarType::Port | VarType::Integer | VarType::Bool);
            if typed && var.default.value().is_some_and(|v| !v.is_empty()) {
                assert!(
                    constraints(var).contains_key("default"),
                    "{}: default not typed",
                    var.env
                );
            }
        }
    }

    #[test]
    fn unshown_defaults_are_absent() {
        let model = Model::get();
        for var in model.vars.iter().filter(|v| v.default.value().is_none()) {
            assert!(!constraints(var).contains_key("default"), "{}", var.env);
        }
    }
}
