//! `CN_HYBRID_MAPPING` as the container reads it: strict JSON (a trailing comma stops it at
//! start-up) that must be an object. JSON errors are reported at their position in the file when
//! the value is written there as is. The object becomes the profile's mapping table, each key and
//! value at its place in the file, for resolve to check its categories and backends.

use super::EnvText;
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Var;
use crate::profile::{Entry, Node, Table};
use serde_json::Value;

/// The mapping as a profile table (data categories in the model's order, others after), or
/// `None` with a diagnostic when the text is not a JSON object a profile can hold.
pub(super) fn table(var: &Var, at: &EnvText, diags: &mut Diagnostics) -> Option<Node> {
    let text = at.text;
    let object = parse_object(var, at, diags)?;
    let mut entries = Vec::with_capacity(object.len());
    // Members are found in the order written, each after the one before: linear in the text.
    let mut cursor = 0;
    for (key, value) in &object {
        let len = match value {
            Value::String(s) => s.len() + 2,
            _ => 1,
        };
        let found = text
            .get(cursor..)
            .and_then(|rest| rest.find(&format!("\"{key}\"")));
        // A key written with escapes is not found as its text: the whole value, and no more
        // searching (that would make the work grow with the square of the text).
        let (key_origin, origin) = match found {
            Some(i) => {
                let key_at = cursor + i;
                let value_at = value_offset(text, key_at + key.len() + 2);
                cursor = value_at + len;
                (at.at(key_at, key.len() + 2), at.at(value_at, len))
            }
            None => {
                cursor = usize::MAX;
                (at.origin, at.origin)
            }
        };
        let Some(value) = member(value) else {
            diags.push(backend_not_a_string(
                &format!("{}.{key}", at.name),
                "null",
                origin,
                var.allowed.as_deref().unwrap_or_default(),
            ));
            return None;
        };
        entries.push(Entry {
            key: key.clone(),
            key_origin,
            node: Node { value, origin },
        });
    }
    let rank = |e: &Entry| var.mapping_keys.iter().position(|k| *k == e.key);
    entries.sort_by_key(|e| rank(e).unwrap_or(usize::MAX));
    Some(Node {
        value: crate::profile::Value::Table(Table { entries }),
        origin: at.origin,
    })
}

/// The offset of the value after a key ending at `after` (past `:` and spaces).
fn value_offset(text: &str, after: usize) -> usize {
    let after = after.min(text.len());
    text.get(after..)
        .and_then(|rest| rest.find(|c: char| c != ':' && !c.is_whitespace()))
        .map_or(after, |i| after + i)
}

/// A JSON member as the profile value of the same kind (nested arrays and objects empty: only
/// their kind matters to the checks); `None` for null, which a profile cannot hold.
fn member(value: &Value) -> Option<crate::profile::Value> {
    use crate::profile::Value as V;
    Some(match value {
        Value::Null => return None,
        Value::Bool(b) => V::Bool(*b),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| V::Float(n.as_f64().unwrap_or_default()), V::Integer),
        Value::String(s) => V::String(s.clone()),
        Value::Array(_) => V::Array(Vec::new()),
        Value::Object(_) => V::Table(Table::default()),
    })
}

/// The value read as strict JSON, which must be an object.
fn parse_object(
    var: &Var,
    at: &EnvText,
    diags: &mut Diagnostics,
) -> Option<serde_json::Map<String, Value>> {
    let (name, text) = (at.name, at.text);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Some(object),
        Ok(other) => {
            diags.push(
                Diagnostic::new(
                    Code::HybridJson,
                    format!(
                        "`{name}` must be a JSON object, found {}",
                        json_kind(&other)
                    ),
                )
                .at(at.origin)
                .label("not an object")
                .help(example(var)),
            );
            None
        }
        Err(err) => {
            let mut offset = offset_of(text, err.line(), err.column());
            let message = err.to_string();
            if message.starts_with("trailing comma") {
                // serde_json points after the comma; the comma is the mistake.
                offset = text[..offset].rfind(',').unwrap_or(offset);
            }
            let message = message.split(" at line ").next().unwrap_or(&message);
            diags.push(
                Diagnostic::new(
                    Code::HybridJson,
                    format!("`{name}` is not valid JSON: {message}"),
                )
                .at(at.at(offset, 1))
                .label("JSON error here")
                .help("the container stops at start-up when the mapping is not strict JSON")
                .help(example(var)),
            );
            None
        }
    }
}

/// The byte offset of a 1-based line and column of serde_json (columns count bytes).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut offset = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How to write the mapping: every category with the first backend, as the container reads it.
fn example(var: &Var) -> String {
    let backend = var.allowed.as_ref().and_then(|a| a.first());
    let backend = Value::from(backend.map_or("", String::as_str));
    let object: serde_json::Map<String, Value> = (var.mapping_keys.iter())
        .map(|k| (k.clone(), backend.clone()))
        .collect();
    format!(
        "write a JSON object of every category, such as {}",
        Value::Object(object)
    )
}

/// A value of the hybrid mapping that is not a string (read from a profile or from JSON text).
pub fn backend_not_a_string(key: &str, found: &str, at: Origin, allowed: &[String]) -> Diagnostic {
    Diagnostic::wrong_type(key, "a backend name", found)
        .at(at)
        .label("expected a string")
        .help(format!("backends: {}", allowed.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::super::env_text::tests::env_text;
    use super::*;
    use crate::model::{Model, VarType};

    /// The key and value spans of each member of the mapping written as `json` in a .env line.
    fn spans(json: &str) -> Vec<(String, std::ops::Range<usize>, std::ops::Range<usize>)> {
        let file = format!("M={json}\n");
        let at = env_text(&file, json, 2..2 + json.len());
        let var = (Model::get().vars.iter())
            .find(|v| v.ty == VarType::HybridMapping)
            .expect("the model has a mapping");
        let mut diags = Diagnostics::default();
        let node = table(var, &at, &mut diags).expect("an object");
        let crate::profile::Value::Table(t) = node.value else {
            panic!("not a table")
        };
        (t.entries.iter())
            .map(|e| (e.key.clone(), e.key_origin.span(), e.node.origin.span()))
            .collect()
    }

    #[test]
    fn members_are_at_their_place_and_an_escaped_key_at_the_whole_value() {
        let found = spans(r#"{"default": "sql", "user":1}"#);
        assert_eq!(found[0], ("default".into(), 3..12, 14..19));
        assert_eq!(found[1], ("user".into(), 21..27, 28..29));
        let found = spans(r#"{"us\u0065r":"sql","default":"sql"}"#);
        let whole = 2..2 + r#"{"us\u0065r":"sql","default":"sql"}"#.len();
        // The model's order: `default` first; after the escaped key nothing is searched.
        assert_eq!(found[0], ("default".into(), whole.clone(), whole.clone()));
        assert_eq!(found[1], ("user".into(), whole.clone(), whole));
    }

    #[test]
    fn json_positions_become_byte_offsets() {
        let text = "{\"a\":1,\n \"b\":2,}";
        let err = serde_json::from_str::<Value>(text).unwrap_err();
        let offset = offset_of(text, err.line(), err.column());
        assert_eq!(&text[offset..offset + 1], "}");
    }
}
