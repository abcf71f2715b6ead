//! Hover text per allowed value (taplo's `x-taplo.docs.enumValues`): which settings a value
//! selects, from the groups whose conditions name it.

use crate::model::{Condition, Model};
use serde_json::{Map, Value, json};

/// Adds value docs to every `enum` in `schema` (the schema of the key `path`, nested tables
/// included) whose values select groups of settings.
pub fn annotate(model: &Model, path: &str, schema: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = schema.get("enum") {
        let docs: Vec<Option<String>> = values
            .iter()
            .map(|v| v.as_str().and_then(|v| value_doc(model, path, v)))
            .collect();
        if docs.iter().any(Option::is_some) {
            schema.insert("x-taplo".into(), json!({ "docs": { "enumValues": docs } }));
        }
    }
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, inner) in properties.iter_mut() {
            if let Value::Object(inner) = inner {
                annotate(model, &format!("{path}.{name}"), inner);
            }
        }
    }
}

/// What choosing `value` for `key` does, when it selects any group.
pub fn value_doc(model: &Model, key: &str, value: &str) -> Option<String> {
    let rule = &model.backends;
    let names_backend =
        key == rule.selector || key.rsplit_once('.').is_some_and(|(p, _)| p == rule.mapping);
    let selected: Vec<String> = model
        .groups
        .iter()
        .filter(|g| {
            g.when.iter().any(|c| match c {
                Condition::KeyEquals { key: k, equals } => k == key && equals == value,
                Condition::Backend { backend } => names_backend && backend == value,
            })
        })
        .map(|g| format!("{} (`[{}]`)", g.title, g.id))
        .collect();
    (!selected.is_empty()).then(|| format!("Uses: {}", selected.join(", ")))
}
