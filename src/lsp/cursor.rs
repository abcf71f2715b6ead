//! What is under the cursor in a profile that parses: the dotted key and whether the cursor is on
//! the key or on its value.

use crate::diag::source::Sources;
use crate::profile::{Node, Table, Value, parse_text};
use std::ops::Range;

/// A key or value under the cursor.
#[derive(Debug, PartialEq)]
pub struct Located {
    /// The dotted key from the profile's root (`config.consul.port`).
    pub path: String,
    pub on_value: bool,
    /// The span of the key or value under the cursor.
    pub span: Range<usize>,
    /// The value, when it is a string.
    pub text: Option<String>,
}

/// The deepest key or value whose span holds `offset`; `None` when the text does not parse.
pub fn locate(text: &str, offset: usize) -> Option<Located> {
    let mut scratch = Sources::new();
    let (_, table) = parse_text(String::new(), text.to_string(), &mut scratch);
    in_table(&table.ok()?, "", offset)
}

fn in_table(table: &Table, prefix: &str, offset: usize) -> Option<Located> {
    for entry in &table.entries {
        let path = if prefix.is_empty() {
            entry.key.clone()
        } else {
            format!("{prefix}.{}", entry.key)
        };
        if contains(&entry.key_origin.span(), offset) {
            return Some(Located {
                path,
                on_value: false,
                span: entry.key_origin.span(),
                text: None,
            });
        }
        if let Some(found) = in_node(&entry.node, &path, offset) {
            return Some(found);
        }
    }
    None
}

fn in_node(node: &Node, path: &str, offset: usize) -> Option<Located> {
    match &node.value {
        // Table spans are not reliable for implicit tables (`[a.b]` makes `a`): look inside all.
        Value::Table(t) => in_table(t, path, offset),
        Value::Array(items) => items.iter().find_map(|item| match &item.value {
            Value::Table(t) => in_table(t, path, offset),
            _ => contains(&item.origin.span(), offset).then(|| value_at(path, item)),
        }),
        _ => contains(&node.origin.span(), offset).then(|| value_at(path, node)),
    }
}

fn value_at(path: &str, node: &Node) -> Located {
    Located {
        path: path.to_string(),
        on_value: true,
        span: node.origin.span(),
        text: match &node.value {
            Value::String(s) => Some(s.clone()),
            _ => None,
        },
    }
}

/// Whether a span holds the offset, its end included (the cursor right after a word).
fn contains(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_values_in_inline_and_dotted_tables() {
        let text = "[config]\nconsul = { host = \"h\", port = 8500 }\n";
        let port = text.find("port").unwrap();
        let found = locate(text, port + 1).unwrap();
        assert_eq!(found.path, "config.consul.port");
        assert!(!found.on_value);
        let value = locate(text, text.find("\"h\"").unwrap()).unwrap();
        assert_eq!(value.path, "config.consul.host");
        assert_eq!(value.text.as_deref(), Some("h"));
    }
}
