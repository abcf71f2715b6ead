//! Schemas that reach a dotted key through nested `properties`.

use serde_json::{Map, Value, json};

/// Whether the tables on the way to a key (and the key itself) must be present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Absent keys pass: the schema applies only to what is written.
    IfPresent,
    /// Every table on the path and the key must be written.
    Required,
}

/// `{ "properties": { a: { "properties": { b: schema } } } }` for `a.b`.
pub fn at(path: &str, schema: Value, presence: Presence) -> Value {
    let mut inner = schema;
    for segment in path.rsplit('.') {
        let mut wrapper = Map::new();
        wrapper.insert("properties".into(), json!({ segment: inner }));
        if presence == Presence::Required {
            wrapper.insert("required".into(), json!([segment]));
        }
        inner = Value::Object(wrapper);
    }
    inner
}

/// Many `(path, schema)` pairs merged into one nested `properties` tree (paths must not repeat).
pub fn merge_all(entries: Vec<(String, Value)>) -> Map<String, Value> {
    let mut root = Map::new();
    for (path, schema) in entries {
        let mut node = &mut root;
        let segments: Vec<&str> = path.split('.').collect();
        let (last, parents) = segments.split_last().expect("a path has a segment");
        for segment in parents {
            let properties = node
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("properties is an object");
            node = properties
                .entry(segment.to_string())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .expect("a table's schema is an object");
        }
        let properties = node
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .expect("properties is an object");
        properties.insert(last.to_string(), schema);
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_nest() {
        assert_eq!(
            at("a.b", json!({ "const": 1 }), Presence::Required),
            json!({ "properties": { "a": { "properties": { "b": { "const": 1 } }, "required": ["b"] } }, "required": ["a"] })
        );
        let merged = merge_all(vec![
            ("a.b".into(), json!(false)),
            ("a.c".into(), json!({})),
            ("d".into(), json!(false)),
        ]);
        assert_eq!(
            Value::Object(merged),
            json!({ "properties": { "a": { "properties": { "b": false, "c": {} } }, "d": false } })
        );
    }
}
