//! `hybrid-mapping`: a table with exactly the model's data categories, each naming a backend of
//! the edition; written to the environment as compact JSON in the spec's key order.

use super::Typed;
use super::enumeration::not_allowed;
use super::hybrid_env::backend_not_a_string;
use super::{Context, EnvText, Offer, TypeRules, ValueDoc, object, quoted, wrong_type};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Var;
use crate::profile::{Node, Table, Value};
use crate::support::suggest::did_you_mean;
use serde_json::{Map, Value as Json, json};

pub(super) struct HybridMapping;

impl TypeRules for HybridMapping {
    words!("hybrid mapping", "a table of the six data categories");

    /// The container reads strict JSON: the object becomes the mapping table, each member at its
    /// place in the file ([`super::hybrid_env`]).
    fn read_env_text(&self, var: &Var, env: &EnvText, diags: &mut Diagnostics) -> Option<Node> {
        super::hybrid_env::table(var, env, diags)
    }

    /// Every backend the JSON object names is allowed.
    fn env_text_allowed(&self, text: &str, allowed: &[String]) -> bool {
        match serde_json::from_str::<Json>(text) {
            Ok(Json::Object(map)) => map
                .values()
                .all(|v| v.as_str().is_some_and(|b| allowed.iter().any(|a| a == b))),
            _ => false,
        }
    }

    fn read(&self, var: &Var, node: &Node, _: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        let Value::Table(table) = &node.value else {
            return wrong_type(var, node, diags);
        };
        let mut ok = known_categories(var, table, diags);
        let mut pairs = Vec::with_capacity(var.mapping_keys.len());
        for category in &var.mapping_keys {
            match category_backend(var, node, table, category, diags) {
                Some(backend) => pairs.push((category.clone(), backend)),
                None => ok = false,
            }
        }
        ok.then_some(Typed::Mapping(pairs))
    }

    /// The environment's JSON text written as a string: the table to write instead, from that
    /// JSON (each member that names no backend said so), else one with every category on the
    /// first backend.
    fn wrong_type_help(&self, var: &Var, found: &Value, d: Diagnostic) -> Diagnostic {
        let backends = var.allowed.clone().unwrap_or_default();
        let leaf = var.key.rsplit('.').next().unwrap_or(&var.key);
        let json = match found {
            Value::String(text) => serde_json::from_str::<Map<String, Json>>(text).ok(),
            _ => None,
        };
        let mut table = toml_edit::InlineTable::new();
        let mut d = d;
        match json {
            Some(members) => {
                for (category, value) in &members {
                    match value.as_str() {
                        Some(backend) => {
                            table.insert(category, toml_edit::Value::from(backend));
                        }
                        None => {
                            table.insert(category, toml_edit::Value::from("BACKEND"));
                            d = d.help(format!(
                                "`{category}` is {value} in that JSON: it must name a backend ({})",
                                backends.join(", ")
                            ));
                        }
                    }
                }
            }
            None => {
                let first = backends.first().map_or("BACKEND", String::as_str);
                for category in &var.mapping_keys {
                    table.insert(category, toml_edit::Value::from(first));
                }
            }
        }
        table.fmt();
        d.help(format!(
            "write a TOML table, not JSON text: {leaf} = {table}"
        ))
    }

    fn schema(&self, var: &Var) -> Map<String, Json> {
        let backends = var.allowed.clone().unwrap_or_default();
        let properties: Map<String, Json> = var
            .mapping_keys
            .iter()
            .map(|k| (k.clone(), json!({ "type": "string", "enum": backends })))
            .collect();
        // Every category on one backend: valid in any edition that has the mapping.
        let example: Map<String, Json> = match backends.first() {
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

    /// The spec's default text is no valid table.
    fn json_default(&self, _text: &str) -> Option<Json> {
        None
    }

    /// The spec's default is JSON text; `init` starts from an empty table.
    fn toml_default(&self, _text: &str) -> toml::Value {
        toml::Value::Table(toml::Table::new())
    }

    fn init_values_hint(&self, var: &Var) -> Option<String> {
        Some(format!(
            "Keys: {}; backends: {}",
            var.mapping_keys.join(", "),
            var.allowed.as_deref().unwrap_or_default().join(", ")
        ))
    }

    /// Every category, its backend left for the user to choose.
    fn editor_placeholder(&self, var: &Var) -> toml_edit::Value {
        let mut table = toml_edit::InlineTable::new();
        for category in &var.mapping_keys {
            table.insert(category, toml_edit::Value::from(""));
        }
        toml_edit::Value::InlineTable(table)
    }

    fn entry_keys<'v>(&self, var: &'v Var) -> Option<&'v [String]> {
        Some(&var.mapping_keys)
    }

    /// A category's backend is for the user to choose among the edition's backends.
    fn editor_entry(&self, var: &Var, doc: ValueDoc<'_>) -> Option<(toml_edit::Value, Vec<Offer>)> {
        let backends = quoted(var.allowed.as_deref().unwrap_or_default(), doc);
        Some((toml_edit::Value::from(""), backends))
    }
}

/// True when every key of the mapping is a data category; reports the others.
fn known_categories(var: &Var, table: &Table, diags: &mut Diagnostics) -> bool {
    let mut ok = true;
    for entry in &table.entries {
        if !var.mapping_keys.contains(&entry.key) {
            let suggestion = did_you_mean(&entry.key, var.mapping_keys.iter().map(String::as_str));
            let keys = var.mapping_keys.join(", ");
            diags.push(
                Diagnostic::new(
                    Code::HybridKeyUnknown,
                    format!("`{}` has no data category `{}`", var.key, entry.key),
                )
                .at(entry.key_origin)
                .label("not a data category")
                .help(format!("the mapping has exactly these keys: {keys}"))
                .suggest(suggestion)
                .replace_with_opt(entry.key_origin, suggestion),
            );
            ok = false;
        }
    }
    ok
}

/// The backend the mapping (`node`, `table`) names for one data category, or `None` with a
/// diagnostic when it is missing, not a string or not a backend of the edition.
fn category_backend(
    var: &Var,
    node: &Node,
    table: &Table,
    category: &str,
    diags: &mut Diagnostics,
) -> Option<String> {
    let allowed = var.allowed.as_deref().unwrap_or_default();
    let Some(entry) = table.get(category) else {
        diags.push(
            Diagnostic::new(
                Code::HybridKeyMissing,
                format!("`{}` is missing the data category `{category}`", var.key),
            )
            .at(node.origin)
            .label(format!("no `{category}` here"))
            .help(format!(
                "add `{category} = \"<backend>\"`; backends: {}",
                allowed.join(", ")
            ))
            .fix(crate::diag::Fix::AddKey {
                key: format!("{}.{category}", var.key),
            }),
        );
        return None;
    };
    match &entry.node.value {
        Value::String(backend) if allowed.contains(backend) => Some(backend.clone()),
        Value::String(backend) => {
            let mut d = not_allowed(var, allowed, backend, entry.node.origin);
            if *backend == crate::model::Model::get().backends.mixed {
                d = d.help(format!(
                    "\"{backend}\" is a persistence type, not a backend"
                ));
            }
            d.message = format!(
                "`{}.{category}` cannot be \"{backend}\": not a backend of edition {}",
                var.key,
                var.editions_text()
            );
            diags.push(d);
            None
        }
        other => {
            diags.push(backend_not_a_string(
                &format!("{}.{category}", var.key),
                other.type_name(),
                entry.node.origin,
                allowed,
            ));
            None
        }
    }
}
