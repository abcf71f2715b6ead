//! Hover: what `svcgen explain` says of the key under the cursor, and which layer sets it.

use super::analysis::Analysis;
use super::cursor::Located;
use super::diagnostics::at;
use crate::commands::explain::{describe, lookup};
use crate::model::{Model, Var, VarType};
use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};

/// The hover of the key or value `at`, or `None` where svcgen knows nothing to say.
pub fn hover(analysis: &Analysis, at: &Located) -> Option<Hover> {
    let model = Model::get();
    let mut text = explain_text(model, analysis, at)?;
    if let Some(value) = at.text.as_deref().filter(|_| at.on_value)
        && let Some(doc) = crate::artifacts::schema::value_doc(model, &at.path, value)
    {
        text.push_str(&format!("\n\n`\"{value}\"`: {doc}"));
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: None,
    })
}

/// The explain text of a variable (its entry for the profile's edition when known), a
/// deployment setting, or a table.
fn explain_text(model: &Model, analysis: &Analysis, at: &Located) -> Option<String> {
    let key = var_key(model, &at.path);
    if let Ok(vars) = lookup(&key, analysis.edition).or_else(|_| lookup(&key, None)) {
        let explained: Vec<String> = vars.iter().map(|v| describe(v)).collect();
        let mut text = format!("```text\n{}```", explained.join("\n"));
        if let Some(layer) = layer_text(analysis, vars[0]) {
            text.push_str(&format!("\n\n{layer}"));
        }
        return Some(text);
    }
    if let Some(setting) = model.setting(&at.path) {
        return Some(format!(
            "`{}` (deployment setting, {})\n\n{}\n\n- Default: {}",
            setting.key,
            setting.ty.name(),
            setting.meaning,
            setting.default.describe()
        ));
    }
    crate::artifacts::schema::table_description(model, &at.path)
        .map(|d| format!("`[{}]`\n\n{d}", at.path))
}

/// The variable a dotted key belongs to: itself, or the hybrid mapping one of whose data
/// categories it is (`persistence.hybrid.user`).
fn var_key(model: &Model, path: &str) -> String {
    match path.rsplit_once('.') {
        Some((parent, _)) if is_mapping(model, parent) => parent.to_string(),
        _ => path.to_string(),
    }
}

fn is_mapping(model: &Model, key: &str) -> bool {
    model
        .entries_by_key(key)
        .any(|v| v.ty == VarType::HybridMapping)
}

/// Which layer sets the variable, in the resolved profile.
fn layer_text(analysis: &Analysis, var: &Var) -> Option<String> {
    let checked = analysis.checked.as_ref().ok()?;
    let Some(resolved) = &checked.resolved else {
        return Some("In this profile: not resolved yet (it has errors).".to_string());
    };
    let sources = &analysis.sources;
    let mut lines = vec![match resolved.vars.iter().find(|rv| rv.var.key == var.key) {
        Some(rv) => match rv.origin {
            Some(origin) => format!("In this profile: set at `{}`", at(sources, origin)),
            None => "In this profile: the spec's default".to_string(),
        },
        None => "In this profile: not in the environment (its group does not apply, or it has no value)"
            .to_string(),
    }];
    let nested = format!("{}.", var.key);
    for (key, origin) in checked
        .overridden
        .iter()
        .filter(|(k, _)| *k == var.key || k.starts_with(&nested))
    {
        lines.push(format!(
            "- overrides `{key}` set at `{}`",
            at(sources, *origin)
        ));
    }
    Some(lines.join("\n"))
}
