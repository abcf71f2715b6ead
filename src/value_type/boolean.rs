//! `bool`: TOML's `true` or `false`, written to the environment as that word.

use super::Typed;
use super::{Context, EnvText, Offer, TypeRules, ValueDoc, expected, object, wrong_type};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, Setting, Var};
use crate::profile::{Node, Value};
use serde_json::{Map, Value as Json, json};

pub(super) struct Bool;

impl TypeRules for Bool {
    words!("boolean", "a boolean (true or false, without quotes)");

    fn read(&self, var: &Var, node: &Node, _: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        match &node.value {
            Value::Bool(b) => Some(Typed::Bool(*b)),
            _ => wrong_type(var, node, diags),
        }
    }

    /// The container's reading: its true words are true, anything else false, with a warning for
    /// anything but `true` / `false`.
    fn read_env_text(&self, _var: &Var, env: &EnvText, diags: &mut Diagnostics) -> Option<Node> {
        let (name, text) = (env.name, env.text);
        let words = &Model::get().container.true_words;
        let is_true = words.iter().any(|w| w == text);
        let node = Node {
            value: Value::Bool(is_true),
            origin: env.origin,
        };
        if text == "true" || text == "false" {
            return Some(node);
        }
        let d = if is_true {
            Diagnostic::new(
                Code::NonCanonicalBool,
                format!("`{name}` = `{text}` is read as true by the container; write `true`"),
            )
            .label("read as true")
            .help("the profile writes it as true")
        } else {
            Diagnostic::new(
                Code::NonCanonicalBool,
                format!("`{text}` is read as false by the container"),
            )
            .label("read as false")
            .help(format!(
                "the container reads only {} as true; anything else is false",
                words.join(", ")
            ))
            .help(format!("write `false`, or `true` if `{name}` should be on"))
        };
        diags.push(d.at(env.origin));
        Some(node)
    }

    fn wrong_type_help(&self, _var: &Var, found: &Value, d: Diagnostic) -> Diagnostic {
        match found {
            Value::String(s) if matches!(s.as_str(), "true" | "false") => {
                d.help(format!("write {s} without quotes"))
            }
            Value::String(_) => d.help(
                "write true or false, without quotes (the container reads any other text as false)",
            ),
            _ => d,
        }
    }

    fn set_value(&self, text: &str, _origin: Origin) -> Value {
        word(text).map_or_else(|| Value::String(text.to_string()), Value::Bool)
    }

    fn schema(&self, _var: &Var) -> Map<String, Json> {
        object(json!({ "type": "boolean" }))
    }

    fn json_default(&self, text: &str) -> Option<Json> {
        word(text).map(Json::from)
    }

    fn toml_default(&self, text: &str) -> toml::Value {
        word(text).map_or_else(|| toml::Value::from(text), toml::Value::Boolean)
    }

    fn editor_placeholder(&self, _var: &Var) -> toml_edit::Value {
        toml_edit::Value::from(false)
    }

    fn editor_values(&self, _var: &Var, _doc: ValueDoc<'_>) -> Vec<Offer> {
        ["true", "false"].map(|b| (b.to_string(), None)).to_vec()
    }

    fn setting_schema(&self, _setting: &Setting) -> Map<String, Json> {
        object(json!({ "type": "boolean" }))
    }

    fn setting_text(&self, _setting: &Setting, value: &Value) -> Result<String, super::Problem> {
        let Value::Bool(b) = value else {
            return Err(expected("a boolean", value));
        };
        Ok(b.to_string())
    }
}

/// The boolean a text spells exactly (`true` or `false`), as TOML writes it.
fn word(text: &str) -> Option<bool> {
    match text {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}
