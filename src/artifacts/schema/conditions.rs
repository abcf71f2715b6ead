//! A group's `when` conditions as schemas that a profile matches exactly when they hold, the way
//! `resolve::groups` decides them: a key's written value, else its default in the edition.

use super::nest::{self, Presence};
use crate::model::{Condition, Edition, Model};
use serde_json::{Value, json};

/// A schema matched when any of the conditions holds; `None` when none can hold in the edition.
pub fn any_holds(model: &Model, edition: Edition, when: &[Condition]) -> Option<Value> {
    let mut alternatives: Vec<Value> = when
        .iter()
        .filter_map(|c| holds(model, edition, c))
        .collect();
    match alternatives.len() {
        0 => None,
        1 => alternatives.pop(),
        _ => Some(json!({ "anyOf": alternatives })),
    }
}

fn holds(model: &Model, edition: Edition, condition: &Condition) -> Option<Value> {
    match condition {
        Condition::KeyEquals { key, equals } => key_equals(model, edition, key, equals),
        Condition::Backend { backend } => {
            let rule = &model.backends;
            let mut ways = Vec::new();
            if let Some(direct) = key_equals(model, edition, &rule.selector, backend) {
                ways.push(direct);
            }
            if let (Some(mixed), Some(mapped)) = (
                key_equals(model, edition, &rule.selector, &rule.mixed),
                mapping_names(model, edition, backend),
            ) {
                ways.push(json!({ "allOf": [mixed, mapped] }));
            }
            match ways.len() {
                0 => None,
                1 => ways.pop(),
                _ => Some(json!({ "anyOf": ways })),
            }
        }
    }
}

/// `key` has the value `equals`: written so, or not written when that is its default.
pub fn key_equals(model: &Model, edition: Edition, key: &str, equals: &str) -> Option<Value> {
    let var = model.var_by_key(key, edition)?;
    if var
        .allowed
        .as_ref()
        .is_some_and(|a| !a.iter().any(|v| v == equals))
    {
        return None;
    }
    let presence = if var.default.value() == Some(equals) {
        Presence::IfPresent
    } else {
        Presence::Required
    };
    Some(nest::at(key, json!({ "const": equals }), presence))
}

/// A value of the mapping names `backend`.
fn mapping_names(model: &Model, edition: Edition, backend: &str) -> Option<Value> {
    let mapping = model.var_by_key(&model.backends.mapping, edition)?;
    if mapping
        .allowed
        .as_ref()
        .is_some_and(|a| !a.iter().any(|v| v == backend))
    {
        return None;
    }
    let categories: Vec<Value> = mapping
        .mapping_keys
        .iter()
        .map(|k| json!({ "properties": { k: { "const": backend } }, "required": [k] }))
        .collect();
    Some(nest::at(
        &mapping.key,
        json!({ "anyOf": categories }),
        Presence::Required,
    ))
}
