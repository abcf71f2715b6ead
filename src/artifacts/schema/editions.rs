//! The rules that depend on the edition, as one `if edition = X then ...` per edition:
//! keys of other editions are forbidden, keys with per-edition entries get that edition's
//! values, and variables the edition requires (when their group applies) must be given.

use super::conditions;
use super::enum_docs;
use super::leaf;
use super::nest::{self, Presence};
use super::tree::{KeyNode, editions_at};
use super::widen::{narrow, widen};
use crate::model::{Edition, Model, Var};
use serde_json::{Map, Value, json};

/// One `if`/`then` per edition of the model.
pub fn rules(model: &Model, edition_key: &str, tree: &[KeyNode]) -> Vec<Value> {
    Edition::ALL
        .into_iter()
        .filter(|e| model.editions.iter().any(|info| info.id == *e))
        .map(|edition| {
            // Without `required`, a profile that lacks `edition` would match every `if`.
            let when = json!({
                "properties": { edition_key: { "const": edition.as_str() } },
                "required": [edition_key]
            });
            json!({ "if": when, "then": then(model, edition, tree) })
        })
        .collect()
}

fn then(model: &Model, edition: Edition, tree: &[KeyNode]) -> Value {
    let mut overlay = Vec::new();
    forbidden(model, edition, tree, &mut overlay);
    for key in model.keys() {
        if let Some(narrowed) = edition_entry(model, edition, key) {
            overlay.push((key.to_string(), Value::Object(narrowed)));
        }
    }
    let mut schema = nest::merge_all(overlay);
    let required = required_rules(model, edition);
    if !required.is_empty() {
        schema.insert("allOf".into(), Value::Array(required));
    }
    Value::Object(schema)
}

/// Keys and tables no variable of the edition lives at or below, the outermost only.
///
/// Each is `{ "not": { "description": why } }` rather than `false`: validators print the schema a
/// value must not match, so the reason reaches the user, and check-jsonschema (python-jsonschema)
/// reports a `false` schema at the parent's path instead of the key's.
fn forbidden(model: &Model, edition: Edition, nodes: &[KeyNode], out: &mut Vec<(String, Value)>) {
    for node in nodes {
        let editions = editions_at(model, &node.path);
        if !editions.contains(&edition) {
            let only = editions
                .iter()
                .map(|e| e.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            let why = format!(
                "`{}` exists only in edition {only}; this profile is edition {edition}",
                node.path
            );
            out.push((node.path.clone(), json!({ "not": { "description": why } })));
        } else {
            forbidden(model, edition, &node.children, out);
        }
    }
}

/// The schema every edition shares for `key`: its one entry's, or the widest of its entries'.
pub fn shared_constraints(model: &Model, key: &str) -> Map<String, Value> {
    let mut entries = model.entries_by_key(key).map(|v| with_docs(model, v));
    let first = entries.next().expect("a key of the model has an entry");
    let mut schema = entries.fold(first, |wide, next| widen(&wide, &next));
    enum_docs::annotate(model, key, &mut schema);
    schema
}

/// What the edition's own entry adds to the shared schema of a key with per-edition entries.
fn edition_entry(model: &Model, edition: Edition, key: &str) -> Option<Map<String, Value>> {
    if model.entries_by_key(key).count() < 2 {
        return None;
    }
    let var = model.var_by_key(key, edition)?;
    let narrowed = narrow(&with_docs(model, var), &shared_constraints(model, key))?;
    Some(super::deferred::or_deferred(model, key, narrowed))
}

fn with_docs(model: &Model, var: &Var) -> Map<String, Value> {
    let mut schema = leaf::constraints(var);
    enum_docs::annotate(model, &var.key, &mut schema);
    schema
}

/// Variables that must be given (not empty) whenever their group applies, one rule per group, and
/// the mapping that must be given when the persistence type defers to it.
fn required_rules(model: &Model, edition: Edition) -> Vec<Value> {
    let mut rules = Vec::new();
    for group in &model.groups {
        let required: Vec<&Var> = model
            .vars_of(edition)
            .filter(|v| v.required && v.group == group.id)
            .collect();
        if required.is_empty() {
            continue;
        }
        // An empty string counts as not given.
        let given: Vec<Value> = required
            .iter()
            .map(|v| nest::at(&v.key, json!({ "minLength": 1 }), Presence::Required))
            .collect();
        let given = if given.len() == 1 {
            given[0].clone()
        } else {
            json!({ "allOf": given })
        };
        if group.when.is_empty() {
            rules.push(given);
        } else if let Some(applies) = conditions::any_holds(model, edition, &group.when) {
            rules.push(json!({ "if": applies, "then": given }));
        }
    }
    let rule = &model.backends;
    if let (Some(mixed), Some(mapping)) = (
        conditions::key_equals(model, edition, &rule.selector, &rule.mixed),
        model.var_by_key(&rule.mapping, edition),
    ) {
        let given = nest::at(&mapping.key, json!({}), Presence::Required);
        rules.push(json!({ "if": mixed, "then": given }));
    }
    rules
}
