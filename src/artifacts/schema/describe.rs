//! Hover text: the Markdown `description` of every key and table, from the model's facts.

use super::tree::editions_at;
use crate::model::{Condition, Edition, Model, Var, VarType};

/// The description of a variable's key, from its entries (one per edition set).
pub fn key_description(model: &Model, key: &str) -> String {
    let entries: Vec<&Var> = model.entries_by_key(key).collect();
    let mut lines = Vec::new();
    lines.push(per_entry(&entries, |v| v.meaning.clone()));
    lines.push(String::new());
    lines.push(format!(
        "- Variable: {}",
        per_entry(&entries, |v| format!("`{}`", v.env))
    ));
    lines.push(format!(
        "- Editions: {}",
        editions_text(&editions_at(model, key))
    ));
    lines.push(format!("- Type: {}", per_entry(&entries, type_text)));
    lines.push(format!(
        "- Default: {}",
        per_entry(&entries, |v| v.default.describe())
    ));
    if entries
        .iter()
        .any(|v| v.allowed.is_some() || v.allowed_not_shown)
    {
        let label = if entries.iter().any(|v| v.ty == VarType::HybridMapping) {
            "Backends"
        } else {
            "Allowed"
        };
        lines.push(format!("- {label}: {}", per_entry(&entries, allowed_text)));
    }
    if let Some(var) = entries.iter().find(|v| !v.mapping_keys.is_empty()) {
        let keys = var
            .mapping_keys
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>();
        lines.push(format!("- Keys (all required): {}", keys.join(", ")));
    }
    let first = entries[0];
    let group = model.group(&first.group);
    if !group.when.is_empty() {
        lines.push(format!(
            "- Applies when: {}",
            Condition::any_text(&group.when)
        ));
    }
    if entries.iter().any(|v| v.required) {
        lines.push("- Required whenever it applies".to_string());
    }
    if let Some(limit) = &first.not_above {
        lines.push(format!("- Should not exceed `{limit}`"));
    }
    if let Some(service) = &first.restart {
        lines.push(format!("- Changing it needs a restart of the {service}"));
    }
    if first.secret {
        lines.push(
            "- The value is a secret: prefer `{ env = \"NAME\" }` or `{ file = \"PATH\" }`"
                .to_string(),
        );
    }
    if let Some(note) = &first.note {
        lines.push(format!("- Note: {note}"));
    }
    if entries.iter().any(|v| !v.consumers.is_empty()) {
        let raw = |v: &Var| match crate::value_type::consumer::described(v) {
            texts if texts.is_empty() => "nothing".to_string(),
            texts => texts.join("; "),
        };
        lines.push(format!(
            "- The image puts it as it is into {}",
            per_entry(&entries, raw)
        ));
    }
    lines.join("\n")
}

/// The description of a table: its group's title and conditions, and its editions when not all.
pub fn table_description(model: &Model, path: &str) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(group) = model.groups.iter().find(|g| g.id == path) {
        parts.push(group.title.clone());
        if !group.when.is_empty() {
            parts.push(format!(
                "Applies when {}.",
                Condition::any_text(&group.when)
            ));
        }
    }
    let editions = editions_at(model, path);
    if editions.len() < Edition::ALL.len() {
        parts.push(format!("Edition {} only.", editions_text(&editions)));
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// The group title of a table, when the table is a group.
pub fn table_title(model: &Model, path: &str) -> Option<String> {
    model
        .groups
        .iter()
        .find(|g| g.id == path)
        .map(|g| g.title.clone())
}

/// One fact of a key's entries: once when they agree, else per edition ("x (A); y (B)").
fn per_entry(entries: &[&Var], fact: impl Fn(&Var) -> String) -> String {
    let texts: Vec<String> = entries.iter().map(|v| fact(v)).collect();
    if texts.iter().all(|t| *t == texts[0]) {
        return texts[0].clone();
    }
    entries
        .iter()
        .zip(&texts)
        .map(|(v, t)| format!("{t} (edition {})", v.editions_text()))
        .collect::<Vec<_>>()
        .join("; ")
}

fn type_text(var: &Var) -> String {
    let mut text = format!("{}, {}", var.ty.name(), var.ty.describe());
    if let (Some(unit), Some(min)) = (var.unit, var.min) {
        text.push_str(&format!(", in {} (at least {min})", unit.words()));
    }
    if let Some(kind) = var.file {
        text.push_str(&format!("; the container reads this {} file", kind.name()));
    }
    text
}

fn allowed_text(var: &Var) -> String {
    match &var.allowed {
        Some(values) => values
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", "),
        None if var.allowed_not_shown => "not shown by the spec (any non-empty string)".to_string(),
        None => "any".to_string(),
    }
}

fn editions_text(editions: &[Edition]) -> String {
    editions
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
