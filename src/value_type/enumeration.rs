//! `enum`: one of the variable's allowed values (the edition's own list in the model).

use super::Typed;
use super::{Context, Offer, TypeRules, ValueDoc, object, quoted, read_text};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, Var};
use crate::profile::Node;
use serde_json::{Map, Value as Json, json};

pub(super) struct Enum;

impl TypeRules for Enum {
    words!("enum", "one of the allowed values");

    fn env_text_allowed(&self, text: &str, allowed: &[String]) -> bool {
        allowed.iter().any(|a| a == text)
    }

    fn read(&self, var: &Var, node: &Node, _: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        let text = read_text(var, node, diags)?;
        let allowed = var.allowed.as_deref().unwrap_or_default();
        if allowed.iter().any(|a| a == text) {
            return Some(Typed::Text(text.clone()));
        }
        diags.push(not_allowed(var, allowed, text, node.origin));
        None
    }

    fn schema(&self, var: &Var) -> Map<String, Json> {
        let allowed = var.allowed.clone().unwrap_or_default();
        object(json!({ "type": "string", "enum": allowed }))
    }

    fn editor_values(&self, var: &Var, doc: ValueDoc<'_>) -> Vec<Offer> {
        quoted(var.allowed.as_deref().unwrap_or_default(), doc)
    }
}

/// The "value not allowed" diagnostic, shared by enums and the hybrid mapping's backends; names
/// the other edition when the value is one of its own (a profile written for the other edition).
pub(super) fn not_allowed(var: &Var, allowed: &[String], text: &str, origin: Origin) -> Diagnostic {
    let list = allowed
        .iter()
        .map(|a| format!("\"{a}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let suggestion = var.suggest_value(text, allowed);
    // Name the edition only when the allowed values are the edition's own.
    let in_edition = match var.editions.as_slice() {
        [one] => format!(" in edition {one}"),
        _ => String::new(),
    };
    let d = Diagnostic::new(
        Code::NotAllowed,
        format!("`{}` cannot be \"{text}\"{in_edition}", var.key),
    )
    .at(origin)
    .label("not an allowed value")
    .help(format!("allowed values: {list}"))
    .suggest_value(origin, suggestion);
    let other = Model::get().entries_by_key(&var.key).find(|other| {
        other.editions != var.editions
            && other
                .allowed
                .as_ref()
                .is_some_and(|a| a.iter().any(|x| x == text))
    });
    match other {
        Some(other) => d.help(format!(
            "\"{text}\" is a value of edition {}",
            other.editions_text()
        )),
        None => d,
    }
}
