//! `CN_HYBRID_MAPPING` as the container reads it: strict JSON (a trailing comma stops it at
//! start-up), an object of the data categories, each naming a backend of the edition. JSON
//! errors are reported at their position in the file when the value is written there as is.

use super::EnvEntry;
use super::values::not_allowed;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Var};
use crate::resolve::backend_not_a_string;
use crate::source::{Origin, Sources};
use crate::suggest::did_you_mean;
use serde_json::Value;

/// The mapping as (category, backend) pairs in the model's order, or `None` with diagnostics.
pub fn mapping(
    var: &Var,
    entry: &EnvEntry,
    text: &str,
    edition: Edition,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<Vec<(String, String)>> {
    let verbatim = sources
        .get(entry.origin.source)
        .text
        .get(entry.origin.span())
        == Some(text);
    let at = Positions {
        origin: entry.origin,
        verbatim,
    };
    let object = parse_object(var, entry, text, at, diags)?;
    let mut ok = true;
    for (key, value) in &object {
        ok &= check_pair(var, entry, text, at, edition, (key, value), diags);
    }
    ok &= all_categories(var, entry, &object, diags);
    if !ok {
        return None;
    }
    Some(
        var.mapping_keys
            .iter()
            .map(|k| {
                let backend = object[k.as_str()].as_str().unwrap_or_default().to_string();
                (k.clone(), backend)
            })
            .collect(),
    )
}

/// Where a part of the value is in the file: at its own place when the value is written there
/// as is, else the whole entry.
#[derive(Clone, Copy)]
struct Positions {
    origin: Origin,
    verbatim: bool,
}

impl Positions {
    fn at(self, offset: usize, len: usize) -> Origin {
        let origin = self.origin;
        if self.verbatim {
            let start = (origin.start + offset).min(origin.end);
            Origin::new(origin.source, start..(start + len).min(origin.end))
        } else {
            origin
        }
    }
}

/// The value read as strict JSON, which must be an object.
fn parse_object(
    var: &Var,
    entry: &EnvEntry,
    text: &str,
    at: Positions,
    diags: &mut Diagnostics,
) -> Option<serde_json::Map<String, Value>> {
    let name = &entry.name;
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
                .at(entry.origin)
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

/// True when the key is a data category and its value a backend of the edition.
fn check_pair(
    var: &Var,
    entry: &EnvEntry,
    text: &str,
    at: Positions,
    edition: Edition,
    (key, value): (&String, &Value),
    diags: &mut Diagnostics,
) -> bool {
    let name = &entry.name;
    let allowed = var.allowed.as_deref().unwrap_or_default();
    let key_at = text.find(&format!("\"{key}\"")).unwrap_or(0);
    if !var.mapping_keys.contains(key) {
        diags.push(
            Diagnostic::new(
                Code::HybridKeyUnknown,
                format!("`{name}` has no data category `{key}`"),
            )
            .at(at.at(key_at, key.len() + 2))
            .label("not a data category")
            .help(format!("the categories: {}", var.mapping_keys.join(", ")))
            .suggest(did_you_mean(
                key,
                var.mapping_keys.iter().map(String::as_str),
            )),
        );
        return false;
    }
    let value_at = |len: usize| {
        let after = key_at + key.len() + 2;
        let found = text[after..]
            .find(|c: char| c != ':' && !c.is_whitespace())
            .map_or(after, |i| after + i);
        at.at(found, len)
    };
    match value {
        Value::String(backend) if allowed.contains(backend) => true,
        Value::String(backend) => {
            let d = not_allowed(
                var,
                name,
                allowed,
                backend,
                value_at(backend.len() + 2),
                edition,
            );
            diags.push(d.label(format!("not a backend of edition {edition}")));
            false
        }
        other => {
            diags.push(backend_not_a_string(
                format!(
                    "`{name}`: `{key}` must name a backend, found {}",
                    json_kind(other)
                ),
                value_at(1),
                allowed,
            ));
            false
        }
    }
}

/// True when the object names every data category; reports the missing ones together.
fn all_categories(
    var: &Var,
    entry: &EnvEntry,
    object: &serde_json::Map<String, Value>,
    diags: &mut Diagnostics,
) -> bool {
    let missing: Vec<&String> = var
        .mapping_keys
        .iter()
        .filter(|k| !object.contains_key(k.as_str()))
        .collect();
    if missing.is_empty() {
        return true;
    }
    let list = missing
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    diags.push(
        Diagnostic::new(
            Code::HybridKeyMissing,
            format!("`{}` lacks the data categories {list}", entry.name),
        )
        .at(entry.origin)
        .label("incomplete mapping")
        .help(example(var)),
    );
    false
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

fn example(var: &Var) -> String {
    let backend = var
        .allowed
        .as_ref()
        .and_then(|a| a.first())
        .cloned()
        .unwrap_or_default();
    let pairs = var
        .mapping_keys
        .iter()
        .map(|k| format!("\"{k}\":\"{backend}\""))
        .collect::<Vec<_>>()
        .join(",");
    format!("write a JSON object of every category, such as {{{pairs}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_positions_become_byte_offsets() {
        let text = "{\"a\":1,\n \"b\":2,}";
        let err = serde_json::from_str::<Value>(text).unwrap_err();
        let offset = offset_of(text, err.line(), err.column());
        assert_eq!(&text[offset..offset + 1], "}");
    }
}
