//! The root of the schema: the profile's top-level keys ("sections") and the edition rules.
//!
//! Each section is one top-level key with its schema. The variables' tables come from the model's
//! key tree; the keys that are not variables (`edition`, `[env]`) have a function each. A new
//! top-level object (deployment settings, say) is one more function in [`sections`].

use super::DRAFT;
use super::deploy;
use super::describe::{key_description, table_description, table_title};
use super::editions::{self, shared_constraints};
use super::tree::{KeyNode, key_tree};
use crate::model::Model;
use crate::profile::EXTENDS;
use crate::value_type::patterns;
use schemars::{Schema, json_schema};
use serde_json::{Map, Value, json};

/// The key that names the profile's edition.
const EDITION_KEY: &str = "edition";

/// The table of variables outside the spec.
const ENV_KEY: &str = "env";

/// One top-level key of the profile.
struct Section {
    key: String,
    schema: Value,
    required: bool,
}

/// The whole schema.
pub fn schema(model: &Model) -> Schema {
    let tree = key_tree(model);
    let sections = sections(model, &tree);
    let required: Vec<&str> = sections
        .iter()
        .filter(|s| s.required)
        .map(|s| s.key.as_str())
        .collect();
    let properties: Map<String, Value> = sections
        .iter()
        .map(|s| (s.key.clone(), s.schema.clone()))
        .collect();
    json_schema!({
        "$schema": DRAFT,
        "title": "svcgen profile",
        "description": "A profile of the Admin UI container for svcgen: the container's settings as friendly nested keys, checked against the spec model of its edition. Generated from svcgen's spec model (schemas/spec.toml); do not edit by hand.",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
        "allOf": editions::rules(model, EDITION_KEY, &tree)
            .into_iter()
            .chain(deploy::edition_rules(model, EDITION_KEY))
            .collect::<Vec<_>>()
    })
}

/// The top-level keys, in the order the schema lists them.
fn sections(model: &Model, tree: &[KeyNode]) -> Vec<Section> {
    let mut out = vec![edition(model)];
    out.extend(tree.iter().map(|node| Section {
        key: node.name.clone(),
        schema: node_schema(model, node),
        required: false,
    }));
    out.push(passthrough_env(model));
    out.push(Section {
        key: EXTENDS.to_string(),
        schema: json!({
            "description": "Bases this profile is layered over: a path (relative to this file) or a list of paths, merged in order, this file's keys winning.",
            "anyOf": [
                { "type": "string", "minLength": 1 },
                { "type": "array", "items": { "type": "string", "minLength": 1 } }
            ]
        }),
        required: false,
    });
    out.push(Section {
        key: deploy::DEPLOY_KEY.to_string(),
        schema: deploy::section(model),
        required: false,
    });
    out.push(allow());
    out
}

/// `allow`: the warnings the profile acknowledges, by code or name (see `resolve::allow`).
fn allow() -> Section {
    let codes: Vec<&str> = crate::resolve::allow::warning_codes()
        .flat_map(|c| [c.id(), c.name()])
        .collect();
    Section {
        key: crate::resolve::allow::ALLOW_KEY.to_string(),
        schema: json!({
            "description": "Warnings this profile acknowledges, by code (`W0306`) or name (`env-passthrough`): svcgen no longer reports them, and `--deny-warnings` no longer fails on them. Errors cannot be acknowledged.",
            "type": "array",
            "items": { "type": "string", "enum": codes },
            "uniqueItems": true
        }),
        required: false,
    }
}

/// `edition`: which of the model's editions the profile is for.
fn edition(model: &Model) -> Section {
    let ids: Vec<&str> = model.editions.iter().map(|e| e.id.as_str()).collect();
    let docs: Vec<String> = model
        .editions
        .iter()
        .map(|e| format!("Image tag `{}`", e.image_tag))
        .collect();
    Section {
        key: EDITION_KEY.to_string(),
        schema: json!({
            "description": "The edition of the container's configuration surface. It decides which keys and values are valid, and picks the image tag.",
            "type": "string",
            "enum": ids,
            "x-taplo": { "docs": { "enumValues": docs } }
        }),
        required: true,
    }
}

/// `[env]`: variables outside the spec, passed through as they are (with a warning).
fn passthrough_env(model: &Model) -> Section {
    Section {
        key: ENV_KEY.to_string(),
        schema: json!({
            "description": "Variables outside the spec, passed to the container as they are (svcgen warns about each). A variable of the spec cannot be set here: use its profile key.",
            "type": "object",
            "propertyNames": {
                "pattern": patterns::ENV_NAME,
                "not": {
                    "description": "a variable of the spec: set it with its profile key",
                    "enum": model.env_names()
                }
            },
            "additionalProperties": {
                "anyOf": [
                    { "type": ["string", "integer", "boolean"] },
                    super::deferred::env_form()
                ]
            }
        }),
        required: false,
    }
}

/// A variable's key, or a table of keys with its subtree.
fn node_schema(model: &Model, node: &KeyNode) -> Value {
    let mut schema = Map::new();
    if !node.is_table() {
        schema.insert(
            "description".into(),
            json!(key_description(model, &node.path)),
        );
        let constraints = shared_constraints(model, &node.path);
        schema.extend(super::deferred::or_deferred(model, &node.path, constraints));
        return Value::Object(schema);
    }
    if let Some(title) = table_title(model, &node.path) {
        schema.insert("title".into(), json!(title));
    }
    if let Some(description) = table_description(model, &node.path) {
        schema.insert("description".into(), json!(description));
    }
    let properties: Map<String, Value> = node
        .children
        .iter()
        .map(|c| (c.name.clone(), node_schema(model, c)))
        .collect();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::RESERVED_KEYS;

    #[test]
    fn the_keys_that_are_not_variables_are_the_resolvers_reserved_keys() {
        let mut keys = [
            EDITION_KEY,
            ENV_KEY,
            deploy::DEPLOY_KEY,
            EXTENDS,
            crate::resolve::allow::ALLOW_KEY,
        ];

        let mut reserved = RESERVED_KEYS;
        keys.sort();
        reserved.sort();
        assert_eq!(keys, reserved);
    }
}
