//! Walking the profile's tables against the model's key tree: every key is a variable of this
//! edition, a table on the way to one, or a mistake (unknown, or of the other edition).

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model, Var};
use crate::profile::{Entry, Table, Value};
use crate::support::suggest::did_you_mean;

/// A profile entry that sets a variable of the profile's edition.
pub struct Setting<'p> {
    pub var: &'static Var,
    pub entry: &'p Entry,
}

/// Collects the settings below `table` (whose path is `prefix`, "" for the root), reporting
/// unknown keys and keys of the other edition. `reserved` are root keys handled elsewhere.
pub fn walk<'p>(
    model: &'static Model,
    edition: Edition,
    table: &'p Table,
    prefix: &str,
    reserved: &[&str],
    out: &mut Vec<Setting<'p>>,
    diags: &mut Diagnostics,
) {
    for entry in &table.entries {
        if prefix.is_empty() && reserved.contains(&entry.key.as_str()) {
            continue;
        }
        let path = join(prefix, &entry.key);
        if let Some(var) = model.var_by_key(&path, edition) {
            out.push(Setting { var, entry });
            continue;
        }
        if let Some(other) = model.entries_by_key(&path).next() {
            diags.push(other_edition(&path, other.editions_text(), edition, entry));
            continue;
        }
        let below = format!("{path}.");
        let in_edition = model.vars_of(edition).any(|v| v.key.starts_with(&below));
        if in_edition {
            match &entry.node.value {
                Value::Table(inner) => walk(model, edition, inner, &path, reserved, out, diags),
                other => diags.push(
                    Diagnostic::wrong_type(&path, "a table", other.type_name())
                        .at(entry.node.origin)
                        .help(format!(
                            "write its keys under [{path}]: {}",
                            children(model, edition, &path).join(", ")
                        )),
                ),
            }
            continue;
        }
        if let Some(other) = model.vars.iter().find(|v| v.key.starts_with(&below)) {
            diags.push(other_edition(&path, other.editions_text(), edition, entry));
            continue;
        }
        diags.push(unknown_key(model, edition, prefix, &path, entry, reserved));
    }
}

fn other_edition(path: &str, editions: String, edition: Edition, entry: &Entry) -> Diagnostic {
    Diagnostic::new(
        Code::OtherEdition,
        format!("`{path}` exists only in edition {editions}; this profile is edition {edition}"),
    )
    .at(entry.key_origin)
    .label(format!("edition {editions} only"))
    .help(format!(
        "remove it, or set edition = \"{editions}\" if this profile is for that edition"
    ))
}

fn unknown_key(
    model: &Model,
    edition: Edition,
    prefix: &str,
    path: &str,
    entry: &Entry,
    reserved: &[&str],
) -> Diagnostic {
    let mut valid = children(model, edition, prefix);
    if prefix.is_empty() {
        valid.extend(reserved.iter().map(|s| s.to_string()));
    }
    let sibling = did_you_mean(&entry.key, valid.iter().map(String::as_str));
    let near = sibling.map(|s| join(prefix, s));
    // A key written in the wrong table (`[consul]` for `[config.consul]`).
    let elsewhere = || {
        model
            .vars_of(edition)
            .flat_map(|v| prefixes(&v.key))
            .find(|p| p.rsplit('.').next() == Some(entry.key.as_str()) && p != path)
    };
    let where_ = if prefix.is_empty() {
        "at the top level".to_string()
    } else {
        format!("in [{prefix}]")
    };
    let mut d = Diagnostic::new(Code::UnknownKey, format!("unknown key `{path}`"))
        .at(entry.key_origin)
        .label("unknown key")
        .suggest(near.as_deref().or(elsewhere().as_deref()))
        .replace_with_opt(entry.key_origin, sibling);
    if !valid.is_empty() {
        d = d.help(format!("keys valid {where_}: {}", valid.join(", ")));
    }
    d
}

/// Every dotted prefix of a key, the key included (`a`, `a.b`, `a.b.c`).
fn prefixes(key: &str) -> Vec<String> {
    key.match_indices('.')
        .map(|(i, _)| key[..i].to_string())
        .chain(std::iter::once(key.to_string()))
        .collect()
}

/// The next key segments below `prefix` for this edition, in model order.
pub fn children(model: &Model, edition: Edition, prefix: &str) -> Vec<String> {
    next_segments(model.vars_of(edition).map(|v| v.key.as_str()), prefix)
}

/// The next segments below `prefix` of dotted keys, in order, each once.
pub fn next_segments<'a>(keys: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let start = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}.")
    };
    let mut out: Vec<String> = Vec::new();
    for key in keys {
        if let Some(rest) = key.strip_prefix(&start) {
            let next = rest.split('.').next().unwrap_or(rest).to_string();
            if !out.contains(&next) {
                out.push(next);
            }
        }
    }
    out
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}
