//! Completion of the keys valid at the cursor for the profile's edition, and of allowed values,
//! each with its documentation. Works on the text as typed (it rarely parses mid-edit): the
//! table header above the cursor and the line up to the cursor say where it is.

use super::position::LineIndex;
use crate::commands::explain::describe;
use crate::model::{Edition, Model, Var};
use crate::resolve::{RESERVED_KEYS, children, next_segments};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, TextEdit,
};

/// Where the cursor is, as far as completion cares.
#[derive(Debug, PartialEq)]
enum Place {
    /// Naming a key inside `table` (dotted, from the root).
    Key { table: String },
    /// Writing the value of `key`, which starts at byte `start`.
    Value { key: String, start: usize },
    /// In a comment or a string: nothing to offer.
    Nothing,
}

/// The completion items at byte `offset`.
pub fn complete(text: &str, offset: usize, edition: Option<Edition>) -> Vec<CompletionItem> {
    let model = Model::get();
    let editions: Vec<Edition> = edition.map_or(Edition::ALL.to_vec(), |e| vec![e]);
    match place(text, offset) {
        Place::Key { table } => keys(model, &editions, &table),
        Place::Value { key, start } => {
            let range = LineIndex::new(text).range(start..offset);
            values(model, &editions, &key)
                .into_iter()
                .map(|(label, doc)| value_item(label, doc, range))
                .collect()
        }
        Place::Nothing => Vec::new(),
    }
}

/// Reads the line up to the cursor, under the nearest table header above it.
fn place(text: &str, offset: usize) -> Place {
    let offset = crate::diag::source::floor_char_boundary(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    if line.trim_start().starts_with('[') {
        let typed = line.trim_start().trim_start_matches('[');
        return Place::Key {
            table: parent_of(typed),
        };
    }
    let mut path = header_above(&text[..line_start]);
    let mut stack: Vec<String> = Vec::new();
    let mut token = String::new();
    let mut value_start: Option<usize> = None;
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => return Place::Nothing,
            (None, '=') => {
                stack.push(token.trim().to_string());
                token.clear();
                let rest = &line[i + 1..];
                value_start = Some(line_start + i + 1 + (rest.len() - rest.trim_start().len()));
            }
            (None, '{') => value_start = None,
            // The end of a value, and at `}` the end of the inline table it was in.
            (None, ',' | '}') => {
                if value_start.take().is_some() {
                    stack.pop();
                }
                if c == '}' {
                    stack.pop();
                }
            }
            (None, c) if value_start.is_none() => token.push(c),
            _ => {}
        }
    }
    for part in stack.iter().flat_map(|k| k.split('.')) {
        push_segment(&mut path, part);
    }
    match value_start {
        Some(start) if quote.is_none() || text[start..offset].starts_with(['"', '\'']) => {
            Place::Value { key: path, start }
        }
        Some(_) => Place::Nothing,
        None => {
            for part in parent_of(token.trim()).split('.').filter(|p| !p.is_empty()) {
                push_segment(&mut path, part);
            }
            Place::Key { table: path }
        }
    }
}

/// `a.b.c` (being typed) to `a.b`: the table the last segment is a key of.
fn parent_of(typed: &str) -> String {
    match typed.rsplit_once('.') {
        Some((parent, _)) => parent
            .split('.')
            .map(|s| s.trim().trim_matches('"'))
            .collect::<Vec<_>>()
            .join("."),
        None => String::new(),
    }
}

fn push_segment(path: &mut String, segment: &str) {
    let segment = segment.trim().trim_matches(['"', '\'']);
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(segment);
}

/// The dotted name of the last `[table]` header in `above` (root when none).
fn header_above(above: &str) -> String {
    above
        .lines()
        .rev()
        .map(str::trim_start)
        .find(|l| l.starts_with('['))
        .map(|l| {
            let inner = l.trim_start_matches('[');
            let inner = &inner[..inner.find(']').unwrap_or(inner.len())];
            let mut path = String::new();
            for part in inner.split('.') {
                push_segment(&mut path, part);
            }
            path
        })
        .unwrap_or_default()
}

/// The keys valid in `table`: the model's next key segments for the editions, or a mapping's
/// categories; at the root also the keys that are not variables.
fn keys(model: &Model, editions: &[Edition], table: &str) -> Vec<CompletionItem> {
    if let Some(mapping) = var_of(model, editions, table)
        && let Some(entries) = mapping.ty.rules().entry_keys(mapping)
    {
        return entries
            .iter()
            .map(|k| key_item(k.clone(), "data category".into(), describe(mapping)))
            .collect();
    }
    let below = format!("{table}.");
    if !table.is_empty() && model.settings.iter().any(|s| s.key.starts_with(&below)) {
        return deploy_keys(model, table);
    }
    let mut names: Vec<String> = Vec::new();
    for &edition in editions {
        for name in children(model, edition, table) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    if table.is_empty() {
        names.extend(RESERVED_KEYS.iter().map(|k| k.to_string()));
    }
    names
        .into_iter()
        .map(|name| {
            let full = if table.is_empty() {
                name.clone()
            } else {
                format!("{table}.{name}")
            };
            match var_of(model, editions, &full) {
                Some(var) => key_item(name, var.ty.name().to_string(), describe(var)),
                None => key_item(
                    name,
                    "table".to_string(),
                    crate::artifacts::schema::table_description(model, &full).unwrap_or_default(),
                ),
            }
        })
        .collect()
}

/// The deployment settings below `table` (`[deploy]`, `[deploy.image]`).
fn deploy_keys(model: &Model, table: &str) -> Vec<CompletionItem> {
    next_segments(model.settings.iter().map(|s| s.key.as_str()), table)
        .into_iter()
        .map(|name| {
            let full = format!("{table}.{name}");
            match model.setting(&full) {
                Some(s) => key_item(name, s.ty.name().to_string(), s.meaning.clone()),
                None => key_item(name, "table".to_string(), String::new()),
            }
        })
        .collect()
}

/// The values allowed for `key` (as TOML), each with what it selects.
fn values(model: &Model, editions: &[Edition], key: &str) -> Vec<(String, Option<String>)> {
    let doc = |value: &str| crate::artifacts::schema::value_doc(model, key, value);
    if key == "edition" {
        return editions
            .iter()
            .map(|e| {
                (
                    format!("\"{e}\""),
                    Some(format!("image tag {}", model.edition(*e).image_tag)),
                )
            })
            .collect();
    }
    // An entry of a table-valued type (a data category of the hybrid mapping).
    if let Some((parent, _)) = key.rsplit_once('.')
        && let Some(table) = var_of(model, editions, parent)
        && let Some((_, offers)) = table.ty.rules().editor_entry(table, &doc)
    {
        return offers;
    }
    match var_of(model, editions, key) {
        Some(var) => var.ty.rules().editor_values(var, &doc),
        None => Vec::new(),
    }
}

/// The variable of a key in the first of the editions that has it.
fn var_of<'m>(model: &'m Model, editions: &[Edition], key: &str) -> Option<&'m Var> {
    editions.iter().find_map(|e| model.var_by_key(key, *e))
}

fn key_item(label: String, detail: String, doc: String) -> CompletionItem {
    CompletionItem {
        label,
        kind: Some(CompletionItemKind::FIELD),
        detail: Some(detail),
        documentation: Some(markdown(format!("```text\n{doc}\n```"))),
        ..CompletionItem::default()
    }
}

fn value_item(label: String, doc: Option<String>, range: lsp_types::Range) -> CompletionItem {
    CompletionItem {
        kind: Some(CompletionItemKind::VALUE),
        documentation: doc.map(markdown),
        filter_text: Some(label.clone()),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
            range,
            label.clone(),
        ))),
        label,
        ..CompletionItem::default()
    }
}

fn markdown(value: String) -> Documentation {
    Documentation::MarkupContent(MarkupContent {
        kind: MarkupKind::Markdown,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_place_from_headers_dotted_keys_and_inline_tables() {
        let text = "edition = \"B\"\n[config]\nconsul = { host = \"h\", po";
        assert_eq!(
            place(text, text.len()),
            Place::Key {
                table: "config.consul".into()
            }
        );
        let text = "[persistence]\nhybrid = { user = ";
        assert_eq!(
            place(text, text.len()),
            Place::Value {
                key: "persistence.hybrid.user".into(),
                start: text.len()
            }
        );
        let text = "[config]\nconsul.sch";
        assert_eq!(
            place(text, text.len()),
            Place::Key {
                table: "config.consul".into()
            }
        );
        let text = "[config]\nadapter = \"co";
        assert!(
            matches!(place(text, text.len()), Place::Value { key, .. } if key == "config.adapter")
        );
        assert_eq!(place("a = 1 # no", 10), Place::Nothing);
    }
}
