//! `plugin-list`: a TOML array of plugin names (each the archive `<name>.zip` without `.zip`),
//! written to the environment comma-joined.

use super::Typed;
use super::{Context, EnvText, TypeRules, formats, object, patterns, wrong_type};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Var;
use crate::profile::{Node, Value};
use serde_json::{Map, Value as Json, json};
use std::collections::HashSet;

pub(super) struct PluginList;

impl TypeRules for PluginList {
    words!("list of plugin names", "a list of plugin names");

    fn read(&self, var: &Var, node: &Node, _: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        let Value::Array(items) = &node.value else {
            return wrong_type(var, node, diags);
        };
        let mut names: Vec<String> = Vec::new();
        // The names seen, for "listed twice": a set, so that a long list stays linear.
        let mut seen: HashSet<&str> = HashSet::new();
        let mut ok = true;
        for item in items {
            match item_name(var, item, &seen, diags) {
                Some(name) => {
                    seen.insert(name);
                    names.push(name.clone());
                }
                None => ok = false,
            }
        }
        ok.then_some(Typed::List(names))
    }

    /// The container splits the text at commas: each item a string (empty ones too, which
    /// [`TypeRules::read`] refuses), at its own place in the file when it can be.
    fn read_env_text(&self, _var: &Var, env: &EnvText, _diags: &mut Diagnostics) -> Option<Node> {
        let mut items = Vec::new();
        let mut offset = 0;
        for item in env.text.split(',') {
            items.push(super::env_text::string(item, env.at(offset, item.len())));
            offset += item.len() + 1;
        }
        Some(Node {
            value: Value::Array(items),
            origin: env.origin,
        })
    }

    /// Each name is one item: the text split at commas, empty items dropped, each with its span.
    fn set_value(&self, text: &str, origin: Origin) -> Value {
        let mut items = Vec::new();
        let mut start = origin.start;
        for part in text.split(',') {
            if !part.is_empty() {
                let item_origin = Origin::new(origin.source, start..start + part.len());
                items.push(Node {
                    value: Value::String(part.to_string()),
                    origin: item_origin,
                });
            }
            start += part.len() + 1;
        }
        Value::Array(items)
    }

    /// Each the archive name without `.zip`, each listed once; each name fits the texts the
    /// image puts it into.
    fn schema(&self, var: &Var) -> Map<String, Json> {
        let mut item = object(json!({
            "type": "string",
            "pattern": patterns::PLUGIN_NAME,
            "not": {
                "pattern": patterns::PLUGIN_ARCHIVE_SUFFIX,
                "description": "a plugin name is the archive's name without `.zip`"
            }
        }));
        super::consumer::add_to_schema(var, &mut item);
        object(json!({
            "type": "array",
            "items": item,
            "uniqueItems": true
        }))
    }

    /// The spec's default text is no valid list.
    fn json_default(&self, _text: &str) -> Option<Json> {
        None
    }

    fn toml_default(&self, text: &str) -> toml::Value {
        toml::Value::Array(
            text.split(',')
                .filter(|s| !s.is_empty())
                .map(toml::Value::from)
                .collect(),
        )
    }

    fn init_form_hint(&self, _var: &Var) -> Option<String> {
        Some(format!(
            "Write {}; svcgen joins them with commas",
            self.describe()
        ))
    }

    fn editor_placeholder(&self, _var: &Var) -> toml_edit::Value {
        toml_edit::Value::Array(toml_edit::Array::new())
    }
}

/// One item's plugin name, given the names before it; `None` (with a diagnostic) when it is not
/// a string, not a plugin name, or listed twice.
fn item_name<'n>(
    var: &Var,
    item: &'n Node,
    before: &HashSet<&str>,
    diags: &mut Diagnostics,
) -> Option<&'n String> {
    let Value::String(name) = &item.value else {
        diags.push(
            Diagnostic::wrong_type(
                &var.key,
                "a list of strings",
                &format!("{} in it", item.value.type_name()),
            )
            .at(item.origin)
            .label("expected a plugin name"),
        );
        return None;
    };
    if let Err(problem) = formats::plugin_name(name) {
        let mut d = Diagnostic::new(
            Code::PluginName,
            format!("`{}`: plugin name \"{name}\": {}", var.key, problem.message),
        )
        .at(item.origin)
        .label("invalid plugin name")
        .help("a plugin is an archive <name>.zip; list <name> only");
        if let Some(s) = problem.suggestion {
            d = d.help(format!("did you mean \"{s}\"?"));
        }
        diags.push(d);
        return None;
    }
    // Each name goes on its own into the texts the image builds from it (a command line).
    if !super::consumer::accepts(var, name, item.origin, diags) {
        return None;
    }
    if before.contains(name.as_str()) {
        diags.push(
            Diagnostic::new(
                Code::PluginName,
                format!("`{}`: plugin \"{name}\" is listed twice", var.key),
            )
            .at(item.origin)
            .label("duplicate")
            .help("list each plugin once"),
        );
        return None;
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::super::env_text::tests::env_text;
    use super::*;

    fn item_spans(node: &Node) -> Vec<std::ops::Range<usize>> {
        match &node.value {
            Value::Array(items) => items.iter().map(|i| i.origin.span()).collect(),
            other => panic!("not a list: {other:?}"),
        }
    }

    /// Each item of the environment text at its place when the value is written as it is, else
    /// at the whole value.
    #[test]
    fn env_text_items_are_at_their_place() {
        let var = (crate::model::Model::get().vars.iter())
            .find(|v| v.ty == crate::model::VarType::PluginList)
            .expect("the model has a plugin list");
        let mut diags = Diagnostics::default();
        let read = |at| PluginList.read_env_text(var, &at, &mut Diagnostics::default());
        let as_is = read(env_text("P=a,bb\n", "a,bb", 2..6)).expect("a list");
        assert_eq!(item_spans(&as_is), [2..3, 4..6]);
        let escaped = read(env_text("P=a\\,b\n", "a,b", 2..6)).expect("a list");
        assert_eq!(item_spans(&escaped), [2..6, 2..6]);
        let empty = PluginList.read_env_text(var, &env_text("P=a,,b\n", "a,,b", 2..6), &mut diags);
        assert_eq!(item_spans(&empty.expect("a list")), [2..3, 4..4, 5..6]);
        assert!(diags.is_empty());
    }
}
