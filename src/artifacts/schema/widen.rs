//! One schema for a key whose entries differ per edition (`persistence.type` has other values in
//! each edition): the widest schema that accepts what either entry accepts, and, per edition, only
//! the constraints that edition adds on top of it (applied under `if edition = ...`).

use serde_json::{Map, Value};

/// Keywords that only describe; kept as the union of both sides rather than dropped.
const HINTS: [&str; 1] = ["examples"];

/// A schema accepting every value either side accepts.
///
/// Equal keywords are kept; `enum` values and `properties` are merged; `required` keeps what both
/// require; `type`s are joined. Any other keyword that differs, or that one side lacks, constrains
/// only one side and is dropped. An `enum` on one side only becomes `examples`: a hint, not a rule.
pub fn widen(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let keys: Vec<&String> = a
        .keys()
        .chain(b.keys().filter(|k| !a.contains_key(*k)))
        .collect();
    for key in keys {
        let merged = match (key.as_str(), a.get(key), b.get(key)) {
            (_, Some(x), Some(y)) if x == y => Some(x.clone()),
            ("enum" | "examples", Some(x), Some(y)) => Some(union(x, y)),
            ("enum", Some(one), None) | ("enum", None, Some(one)) => {
                let hints = out.get("examples").map_or(one.clone(), |e| union(e, one));
                out.insert("examples".into(), hints);
                None
            }
            (k, Some(one), None) | (k, None, Some(one)) if HINTS.contains(&k) => Some(one.clone()),
            ("type", Some(x), Some(y)) => Some(union(&types(x), &types(y))),
            ("required", Some(x), Some(y)) => Some(intersection(x, y)),
            ("properties", Some(Value::Object(x)), Some(Value::Object(y))) => {
                Some(Value::Object(properties(x, y)))
            }
            _ => None,
        };
        if let Some(value) = merged {
            let value = match (key.as_str(), out.remove(key.as_str())) {
                ("examples", Some(before)) => union(&before, &value),
                _ => value,
            };
            out.insert(key.clone(), value);
        }
    }
    out
}

/// The keywords of `specific` that `base` does not already have as they are (recursively through
/// `properties`); `None` when it adds nothing.
pub fn narrow(
    specific: &Map<String, Value>,
    base: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    for (key, value) in specific {
        if base.get(key) == Some(value) {
            continue;
        }
        if let (Value::Object(inner), Some(Value::Object(base_inner))) = (value, base.get(key))
            && key == "properties"
        {
            let mut props = Map::new();
            for (name, schema) in inner {
                let narrowed = match (schema, base_inner.get(name)) {
                    (Value::Object(s), Some(Value::Object(b))) => narrow(s, b).map(Value::Object),
                    (s, _) => Some(s.clone()),
                };
                if let Some(n) = narrowed {
                    props.insert(name.clone(), n);
                }
            }
            if !props.is_empty() {
                out.insert(key.clone(), Value::Object(props));
            }
            continue;
        }
        out.insert(key.clone(), value.clone());
    }
    (!out.is_empty()).then_some(out)
}

fn properties(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, x) in a {
        let merged = match (x, b.get(name)) {
            (Value::Object(x), Some(Value::Object(y))) => Value::Object(widen(x, y)),
            (x, None) => x.clone(),
            // A boolean schema on one side: accept anything.
            _ => Value::Bool(true),
        };
        out.insert(name.clone(), merged);
    }
    for (name, y) in b {
        if !a.contains_key(name) {
            out.insert(name.clone(), y.clone());
        }
    }
    out
}

fn types(value: &Value) -> Value {
    match value {
        Value::Array(_) => value.clone(),
        other => Value::Array(vec![other.clone()]),
    }
}

/// The items of two arrays, first `a`'s then `b`'s new ones, in order.
fn union(a: &Value, b: &Value) -> Value {
    let mut items: Vec<Value> = a.as_array().cloned().unwrap_or_default();
    for item in b.as_array().into_iter().flatten() {
        if !items.contains(item) {
            items.push(item.clone());
        }
    }
    Value::Array(items)
}

fn intersection(a: &Value, b: &Value) -> Value {
    let b = b.as_array().cloned().unwrap_or_default();
    let items = a
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| b.contains(i))
        .cloned()
        .collect();
    Value::Array(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn enums_merge_and_other_differences_drop() {
        let a = map(json!({ "type": "string", "enum": ["x", "y"], "default": "x" }));
        let b = map(json!({ "type": "string", "enum": ["z", "y"], "default": "z" }));
        assert_eq!(
            Value::Object(widen(&a, &b)),
            json!({ "type": "string", "enum": ["x", "y", "z"] })
        );
        assert_eq!(
            Value::Object(narrow(&a, &widen(&a, &b)).unwrap()),
            json!({ "enum": ["x", "y"], "default": "x" })
        );
    }

    #[test]
    fn a_one_sided_enum_becomes_a_hint() {
        let a = map(json!({ "type": "string", "enum": ["x"] }));
        let b = map(json!({ "type": "string", "minLength": 1 }));
        assert_eq!(
            Value::Object(widen(&a, &b)),
            json!({ "type": "string", "examples": ["x"] })
        );
    }

    #[test]
    fn nested_properties_widen() {
        let a = map(
            json!({ "type": "object", "properties": { "k": { "enum": ["x"] } }, "required": ["k"] }),
        );
        let b = map(
            json!({ "type": "object", "properties": { "k": { "enum": ["y"] } }, "required": ["k"] }),
        );
        let wide = widen(&a, &b);
        assert_eq!(wide["properties"], json!({ "k": { "enum": ["x", "y"] } }));
        assert_eq!(
            Value::Object(narrow(&a, &wide).unwrap()),
            json!({ "properties": { "k": { "enum": ["x"] } } })
        );
    }
}
