//! The schema of one variable's value: what its type accepts (`crate::value_type`), as JSON Schema.

use crate::model::{DefaultValue, Var};
use serde_json::{Map, Value};

/// The constraints and hints of one variable entry (one edition's view of a key), without its
/// description: `type`, `enum`, ranges, forms, `default`, `examples` (the type's own schema).
pub fn constraints(var: &Var) -> Map<String, Value> {
    let mut schema = var.ty.rules().schema(var);
    if let Some(default) = typed_default(var) {
        schema.insert("default".into(), default);
    }
    schema
}

/// The spec's default as a value of the key's JSON type, when the spec shows a non-empty value.
fn typed_default(var: &Var) -> Option<Value> {
    match &var.default {
        DefaultValue::Value(text) if !text.is_empty() => var.ty.rules().json_default(text),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Model, VarType};

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
