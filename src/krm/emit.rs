//! Writing the `ResourceList` back: an item svcgen does not own is its input text, copied (only
//! re-indented under `- `), never values turned back into YAML; svcgen's own objects and the
//! results are serialized. The written list is read back and every copied item compared with the
//! input's, node by node (text, style, tag): a copy that would change meaning is never written.

use super::input::{API_VERSION, KIND};
use super::yaml::{self, Node, NodeValue};
use serde_json::Value;

/// One item of the list written.
pub enum Item<'a> {
    /// An item of the input, copied from its text.
    Kept(&'a Node),
    /// An object svcgen generated.
    Generated(Value),
}

/// The list's text; `Err` (nothing to write) when a copied item would not read back the same.
pub fn write(input: &str, items: &[Item<'_>], results: &[Value]) -> Result<String, String> {
    let directive = super::form::yaml_directive(input).map_or(String::new(), |d| format!("{d}\n"));
    let mut out = format!("{directive}---\napiVersion: {API_VERSION}\nkind: {KIND}\n");
    if items.is_empty() {
        out.push_str("items: []\n");
    } else {
        out.push_str("items:\n");
    }
    for item in items {
        match item {
            Item::Kept(node) => out.push_str(&copied(input, node)),
            Item::Generated(value) => out.push_str(&serialized(value)?),
        }
    }
    if !results.is_empty() {
        out.push_str(&to_yaml(&serde_json::json!({ "results": results }))?);
    }
    check_copies(items, &out)?;
    Ok(out)
}

/// A value as YAML, lists indented below their key as yamllint's default rules want.
fn to_yaml(value: &Value) -> Result<String, String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.compact_list_indent = false;
    serde_saphyr::to_string_with_options(value, options).map_err(|e| e.to_string())
}

/// A generated object as a list entry.
fn serialized(value: &Value) -> Result<String, String> {
    let text = to_yaml(value)?;
    let mut out = String::with_capacity(text.len() + 64);
    for (i, line) in text.lines().enumerate() {
        out.push_str(match (i, line.is_empty()) {
            (0, _) => "- ",
            (_, true) => "",
            _ => "  ",
        });
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// An input item's text as a list entry: its first line after `- ` at its own column (or further
/// right), every other line shifted by as much, so the item's inner indentation is unchanged.
fn copied(input: &str, node: &Node) -> String {
    // A block scalar's range runs to the next line's indentation: blanks that are not content.
    // Line ends as LF, as the rest of the list is written (`form` says so in a result).
    let text = input[node.start..node.end]
        .trim_end_matches([' ', '\t'])
        .replace("\r\n", "\n");
    let text = text.as_str();
    let line_start = input[..node.start].rfind('\n').map_or(0, |i| i + 1);
    let column = input[line_start..node.start].chars().count();
    let mut lines = text.split('\n');
    let first = lines.next().unwrap_or_default();
    let rest: Vec<&str> = lines.collect();
    let least = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches(' ').len())
        .min();
    // Room for `- ` before the first line, and every other line right of the list's `-`.
    let shift = 2usize
        .saturating_sub(column)
        .max(least.map_or(0, |m| 1usize.saturating_sub(m)));
    let mut out = String::with_capacity(text.len() + 2 + shift * (rest.len() + 1));
    out.push('-');
    out.push_str(&" ".repeat(column + shift - 1));
    out.push_str(first);
    for line in rest {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&" ".repeat(shift));
        }
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Reads the written list back: each copied item must say what it said in the input.
fn check_copies(items: &[Item<'_>], out: &str) -> Result<(), String> {
    let refused = |why: &str| {
        Err(format!(
            "svcgen krm could not copy the input's items unchanged ({why}): an alias to an anchor outside its item, or a %TAG directive, cannot be copied"
        ))
    };
    let Ok(list) = yaml::read(out) else {
        return refused("the list written does not read back");
    };
    let written = match list.get("items").map(|n| &n.value) {
        Some(NodeValue::Seq(written)) => written.as_slice(),
        _ => &[],
    };
    if written.len() != items.len() {
        return refused("the item count differs");
    }
    for (i, (item, back)) in items.iter().zip(written).enumerate() {
        if let Item::Kept(node) = item
            && !node.same_meaning(back)
        {
            return refused(&format!("item {i} reads back differently"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(input: &str) -> String {
        let list = yaml::read(input).unwrap();
        let Some(NodeValue::Seq(nodes)) = list.get("items").map(|n| &n.value) else {
            panic!("items")
        };
        let items: Vec<Item<'_>> = nodes.iter().map(Item::Kept).collect();
        write(input, &items, &[]).unwrap_or_else(|e| panic!("{input:?}: {e}"))
    }

    #[test]
    fn items_are_copied_whatever_their_indentation() {
        for input in [
            "items:\n- a: 1\n  b: [x,\n y]\n",
            "items:\n    -   a: 0644\n        b: |+\n          keep\n\n    - x\n",
            "{\"items\": [{\"a\":\n1}, {\"b\": yes}]}",
            "items: [&a {k: !!binary aGk=}, {j: 1}]",
        ] {
            let out = round_trip(input);
            assert!(out.starts_with("---\napiVersion"), "{out}");
        }
    }
}
