//! Code actions: the fixes the checks attach to their diagnostics ("did you mean", a reference
//! for a clear-text secret, a missing required key), as workspace edits.

use super::analysis::Analysis;
use super::diagnostics::{Published, convert};
use super::position::LineIndex;
use crate::diag::source::Origin;
use crate::diag::{Code, Fix};
use crate::model::{Edition, Model, Var};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::HashMap;
use toml_edit::{DocumentMut, InlineTable, Item, Table, Value};

/// The quick fixes of the document's diagnostics that touch `range`.
pub fn actions(
    analysis: &Analysis,
    uri: &Uri,
    text: &str,
    range: Range,
) -> Vec<CodeActionOrCommand> {
    let mut out = Vec::new();
    for published in convert(analysis, text) {
        let Some(diagnostic) = published.origin else {
            continue;
        };
        if !overlaps(published.lsp.range, range) {
            continue;
        }
        let single = diagnostic.fixes.len() == 1;
        for fix in &diagnostic.fixes {
            let made = match fix {
                Fix::Replace { origin, text: new } => {
                    replace(analysis, uri, text, *origin, new, diagnostic.code)
                }
                Fix::AddKey { key } => add_key_edit(uri, text, key, analysis.edition),
            };
            if let Some((title, edit)) = made {
                out.push(action(title, edit, &published, single));
            }
        }
    }
    out
}

fn action(
    title: String,
    edit: WorkspaceEdit,
    published: &Published<'_>,
    preferred: bool,
) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![published.lsp.clone()]),
        edit: Some(edit),
        is_preferred: Some(preferred),
        ..CodeAction::default()
    })
}

/// Whether two ranges share a position (a cursor at a diagnostic's edge counts).
fn overlaps(a: Range, b: Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

/// Writing `new` at `origin`, in whichever layer's file the origin is.
fn replace(
    analysis: &Analysis,
    uri: &Uri,
    text: &str,
    origin: Origin,
    new: &str,
    code: Code,
) -> Option<(String, WorkspaceEdit)> {
    let (target, target_text) = if Some(origin.source) == analysis.doc {
        (uri.clone(), text)
    } else {
        let source = analysis.sources.get(origin.source);
        let path = crate::diag::source::lexical(std::path::Path::new(&source.name));
        (super::uri::from_path(&path)?, source.text.as_str())
    };
    let range = LineIndex::new(target_text).range(origin.span());
    // The replaced text may be a secret: the title names only what is written.
    let title = match code {
        Code::SecretInProfile => format!("Read the secret from the environment: {new}"),
        _ => format!("Change to {new}"),
    };
    Some((
        title,
        edit(target, vec![TextEdit::new(range, new.to_string())]),
    ))
}

fn edit(uri: Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri, edits)])),
        ..WorkspaceEdit::default()
    }
}

/// Adding a missing key with a placeholder value, in the table where it belongs.
fn add_key_edit(
    uri: &Uri,
    text: &str,
    key: &str,
    edition: Option<Edition>,
) -> Option<(String, WorkspaceEdit)> {
    let model = Model::get();
    let value = match var_of(model, edition, key) {
        Some(var) => var.ty.rules().editor_placeholder(var),
        // An entry of a table-valued type (a data category of the hybrid mapping).
        None => {
            let (parent, _) = key.rsplit_once('.')?;
            let table = var_of(model, edition, parent)?;
            table.ty.rules().editor_entry(table, &|_| None)?.0
        }
    };
    let new = with_key(text, key, value)?;
    let (span, replacement) = minimal_edit(text, &new);
    let range = LineIndex::new(text).range(span);
    let title = format!("Add `{key}`");
    Some((
        title,
        edit(uri.clone(), vec![TextEdit::new(range, replacement)]),
    ))
}

/// The variable of a key, in the profile's edition when known.
fn var_of<'m>(model: &'m Model, edition: Option<Edition>, key: &'m str) -> Option<&'m Var> {
    edition
        .and_then(|e| model.var_by_key(key, e))
        .or_else(|| model.entries_by_key(key).next())
}

/// The profile text with `key` (dotted) set to `value`, tables made where missing, the rest of
/// the text (comments, layout) kept.
fn with_key(text: &str, key: &str, value: Value) -> Option<String> {
    let mut doc: DocumentMut = text.parse().ok()?;
    let segments: Vec<&str> = key.split('.').collect();
    let (leaf, parents) = segments.split_last()?;
    let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
    let mut inline = false;
    for (depth, segment) in parents.iter().enumerate() {
        if !table.contains_key(segment) {
            let item = if inline {
                Item::Value(Value::InlineTable(InlineTable::new()))
            } else {
                let mut new = Table::new();
                new.set_implicit(depth + 1 < parents.len());
                Item::Table(new)
            };
            table.insert(segment, item);
        }
        let item = table.get_mut(segment)?;
        inline = inline || item.is_inline_table();
        table = item.as_table_like_mut()?;
    }
    if table.contains_key(leaf) {
        return None;
    }
    table.insert(leaf, Item::Value(value));
    if inline {
        // An inline table keeps the spacing of its old last value; lay it out afresh.
        table.fmt();
    }
    Some(doc.to_string())
}

/// The smallest edit turning `old` into `new`: the span of `old` that changes and its new text.
fn minimal_edit(old: &str, new: &str) -> (std::ops::Range<usize>, String) {
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(prefix) || !new.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let max_suffix = old.len().min(new.len()) - prefix;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (
        prefix..old.len() - suffix,
        new[prefix..new.len() - suffix].to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_added_in_its_table_keeping_the_rest() {
        let text = "# keep me\nedition = \"B\"\n\n[google]\nsecret_version_id = \"1\"\n";
        let new = with_key(text, "google.project_id", Value::from("")).unwrap();
        assert!(new.starts_with("# keep me\n"), "{new}");
        assert!(
            new.contains("[google]\nsecret_version_id = \"1\"\nproject_id = \"\"\n"),
            "{new}"
        );
        let new = with_key(
            "edition = \"B\"\n",
            "persistence.spanner.instance_id",
            Value::from(""),
        )
        .unwrap();
        assert!(
            new.contains("[persistence.spanner]\ninstance_id = \"\""),
            "{new}"
        );
        assert!(!new.contains("[persistence]\n"), "{new}");
    }

    #[test]
    fn a_missing_category_is_added_inside_the_inline_mapping() {
        let text = "[persistence]\ntype = \"hybrid\"\nhybrid = { default = \"sql\" }\n";
        let new = with_key(text, "persistence.hybrid.user", Value::from("")).unwrap();
        assert!(
            new.contains("hybrid = { default = \"sql\", user = \"\" }"),
            "{new}"
        );
    }

    #[test]
    fn the_minimal_edit_covers_only_the_change() {
        let (span, text) = minimal_edit("a = 1\nb = 2\n", "a = 1\nc = 3\nb = 2\n");
        assert_eq!((span, text.as_str()), (6..6, "c = 3\n"));
        let (span, text) = minimal_edit("é", "è");
        assert_eq!((span, text.as_str()), (0..2, "è"));
    }
}
