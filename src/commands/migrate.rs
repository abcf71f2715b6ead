//! `migrate`: an edition A profile rewritten as edition B, keeping its comments and layout
//! (a format-preserving TOML editor changes only what must change).
//!
//! What changes is derived from the model: keys of variables that only edition A has are removed
//! (with a note each), backends that edition B does not have (`ldap`) must be moved to one it has,
//! deployment settings that only make sense for A (plugin archives, A's image tag, files of A's
//! variables) go. One rule ties two variables together and is written here: the token server's
//! host name becomes its base URL. The result is checked as an edition B profile.

use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Condition, Edition, Model, Var, VarType};
use crate::pipeline::check_text;
use crate::profile::{Table, Value as Raw, parse_text};
use crate::support::suggest::did_you_mean;
use std::path::Path;
use toml_edit::{DocumentMut, Item, Key, Value};

/// The A key that becomes a B key with a scheme in front (a cross-field rule).
const HOSTNAME_KEY: &str = "token_server.base_hostname";
const BASE_URL_KEY: &str = "token_server.base_url";
const BASE_URL_SCHEME: &str = "https://";
/// Deployment tables that refer to variables or plugins.
const DEPLOY_FILES: &str = "deploy.files";
const DEPLOY_PLUGINS: &str = "deploy.plugins";
const DEPLOY_TAG: &str = "deploy.image.tag";

/// The edition `migrate` reads, and the one it writes.
pub const FROM: Edition = Edition::A;
pub const TO: Edition = Edition::B;

/// A profile rewritten for edition B.
#[derive(Debug, Clone)]
pub struct Migrated {
    /// The new profile text.
    pub profile: String,
    /// What was changed, one line each, in the order applied (empty: already edition B).
    pub changes: Vec<String>,
    /// Warnings of the new profile, checked as edition B.
    pub diagnostics: Diagnostics,
}

/// Rewrites the edition A profile `text` (shown as `name`) as edition B. `ldap_to` names the
/// edition B backend that replaces backends B does not have. `base_dir` is the profile's folder
/// (for relative file references when the result is checked). Errors: the profile cannot be read,
/// is not edition A, uses a backend B lacks without `ldap_to`, or the result does not validate.
pub fn migrate_to_b(
    name: &str,
    text: &str,
    ldap_to: Option<&str>,
    base_dir: Option<&Path>,
    sources: &mut Sources,
) -> Result<Migrated, Diagnostics> {
    let (source, table) = parse_text(name.to_string(), text.to_string(), sources);
    let table = table?;
    match table.get("edition").map(|e| &e.node) {
        Some(node) if node.value == Raw::String(TO.as_str().into()) => {
            let checked = check_text(name, text, base_dir, sources);
            return Ok(Migrated {
                profile: text.to_string(),
                changes: Vec::new(),
                diagnostics: checked.diagnostics,
            });
        }
        Some(node) if node.value == Raw::String(FROM.as_str().into()) => {}
        other => {
            let mut diags = Diagnostics::default();
            diags.push(
                Diagnostic::new(
                    Code::Edition,
                    format!("migrate reads a profile of edition {FROM}"),
                )
                .at(other.map_or(Origin::new(source, 0..0), |n| n.origin))
                .label(format!("expected edition = \"{FROM}\""))
                .help("check the profile first with `svcgen validate`"),
            );
            return Err(diags);
        }
    }
    let mut doc: DocumentMut = text.parse().map_err(|_| {
        let mut diags = Diagnostics::default();
        diags.push(
            Diagnostic::new(Code::TomlSyntax, "the profile cannot be edited")
                .at(Origin::new(source, 0..0)),
        );
        diags
    })?;
    let model = Model::get();
    let mut changes = Vec::new();
    let dropped = dropped_backends(model);
    let target = backend_target(model, &table, source, &dropped, ldap_to)?;
    if let Some(target) = &target {
        move_backends(model, &mut doc, &table, &dropped, target, &mut changes);
    }
    set_value(&mut doc, "edition", Value::from(TO.as_str()));
    changes.insert(0, format!("edition: \"{FROM}\" → \"{TO}\""));
    hostname_to_url(&mut doc, &table, &mut changes);
    remove_a_only(model, &mut doc, &table, &dropped, &mut changes);
    deploy_settings(model, &mut doc, &table, &mut changes);

    let profile = doc.to_string();
    let checked = check_text(
        &format!("{name} (edition {TO})"),
        &profile,
        base_dir,
        sources,
    );
    if checked.resolved.is_none() {
        let mut diags = checked.diagnostics;
        diags.push(
            Diagnostic::new(
                Code::Edition,
                format!("the migrated profile is not a valid edition {TO} profile"),
            )
            .help(format!("changes made: {}", changes.join("; "))),
        );
        return Err(diags);
    }
    Ok(Migrated {
        profile,
        changes,
        diagnostics: checked.diagnostics,
    })
}

/// The backends of an edition (selector values and mapping values, the mixed value aside), in
/// the model's order, each once.
fn backends_of(model: &Model, edition: Edition) -> Vec<String> {
    let rule = &model.backends;
    let mut out: Vec<String> = Vec::new();
    for key in [&rule.selector, &rule.mapping] {
        let allowed = model
            .var_by_key(key, edition)
            .and_then(|v| v.allowed.as_ref());
        for b in allowed.into_iter().flatten() {
            if b != &rule.mixed && !out.contains(b) {
                out.push(b.clone());
            }
        }
    }
    out
}

/// Backends of edition A (selector values and mapping values) that edition B does not have.
fn dropped_backends(model: &Model) -> Vec<String> {
    let b = backends_of(model, TO);
    let mut out = backends_of(model, FROM);
    out.retain(|x| !b.contains(x));
    out
}

/// Edition B's backends, for `--ldap-to`.
fn b_backends(model: &Model) -> Vec<String> {
    backends_of(model, TO)
}

/// The values `--ldap-to` accepts: edition B's backends.
pub fn ldap_to_values() -> Vec<&'static str> {
    let model = Model::get();
    let rule = &model.backends;
    // The same names as `b_backends`, borrowed from the model, which lives for the whole run.
    let in_model: Vec<&'static str> = [&rule.selector, &rule.mapping]
        .into_iter()
        .filter_map(|key| model.var_by_key(key, TO)?.allowed.as_deref())
        .flatten()
        .map(String::as_str)
        .collect();
    b_backends(model)
        .iter()
        .filter_map(|b| in_model.iter().copied().find(|m| m == b))
        .collect()
}

/// The help of `--ldap-to`, from the model: the backends that must move, and where they can go.
pub fn ldap_to_help() -> String {
    let model = Model::get();
    format!(
        "Where backends edition {TO} lacks ({}) go: {}",
        dropped_backends(model).join(", "),
        b_backends(model).join(", ")
    )
}

/// True for a variable of a group that applies only with one of the dropped backends.
fn of_dropped_backend(model: &Model, var: &Var, dropped: &[String]) -> bool {
    let when = &model.group(&var.group).when;
    !when.is_empty()
        && when
            .iter()
            .all(|c| matches!(c, Condition::Backend { backend } if dropped.contains(backend)))
}

/// Every place the profile uses a dropped backend: the selector, mapping values, its settings.
fn backend_places(model: &Model, table: &Table, dropped: &[String]) -> Vec<(String, Origin)> {
    let rule = &model.backends;
    let mut places = Vec::new();
    if let Some(entry) = table.get_path(&rule.selector)
        && let Raw::String(v) = &entry.node.value
        && dropped.contains(v)
    {
        places.push((format!("{} = \"{v}\"", rule.selector), entry.node.origin));
    }
    if let Some(entry) = table.get_path(&rule.mapping)
        && let Raw::Table(mapping) = &entry.node.value
    {
        for e in &mapping.entries {
            if let Raw::String(v) = &e.node.value
                && dropped.contains(v)
            {
                places.push((
                    format!("{}.{} = \"{v}\"", rule.mapping, e.key),
                    e.node.origin,
                ));
            }
        }
    }
    for var in model.vars_of(FROM) {
        if of_dropped_backend(model, var, dropped)
            && let Some(entry) = table.get_path(&var.key)
        {
            places.push((var.key.clone(), entry.key_origin));
        }
    }
    places
}

/// The backend that replaces the dropped ones: `None` when none is used; an error naming every
/// place when one is used and `ldap_to` is missing or not a backend of edition B.
fn backend_target(
    model: &Model,
    table: &Table,
    source: crate::diag::source::SourceId,
    dropped: &[String],
    ldap_to: Option<&str>,
) -> Result<Option<String>, Diagnostics> {
    let places = backend_places(model, table, dropped);
    let backends = b_backends(model);
    let list = backends.join("|");
    let mut diags = Diagnostics::default();
    if let Some(to) = ldap_to
        && !backends.iter().any(|b| b == to)
    {
        diags.push(
            Diagnostic::new(
                Code::NotAllowed,
                format!("`{to}` is not a backend of edition {TO}"),
            )
            .at(Origin::new(source, 0..0))
            .help(format!("edition {TO}'s backends: {}", backends.join(", ")))
            .suggest(did_you_mean(to, backends.iter().map(String::as_str))),
        );
        return Err(diags);
    }
    if places.is_empty() {
        return Ok(None);
    }
    let Some(to) = ldap_to else {
        let names = dropped.join(", ");
        for (what, origin) in places {
            diags.push(
                Diagnostic::new(
                    Code::NoEquivalent,
                    format!("`{what}`: edition {TO} has no `{names}` backend"),
                )
                .at(origin)
                .label(format!("no edition {TO} equivalent"))
                .help(format!("choose where the data goes: --ldap-to {list}")),
            );
        }
        return Err(diags);
    };
    Ok(Some(to.to_string()))
}

/// Replaces dropped backends by `target` and removes their settings.
fn move_backends(
    model: &Model,
    doc: &mut DocumentMut,
    table: &Table,
    dropped: &[String],
    target: &str,
    changes: &mut Vec<String>,
) {
    let rule = &model.backends;
    if let Some(Raw::String(v)) = table.get_path(&rule.selector).map(|e| &e.node.value)
        && dropped.contains(v)
    {
        set_value(doc, &rule.selector, Value::from(target));
        changes.push(format!(
            "{}: \"{v}\" → \"{target}\" (edition {TO} has no {v} backend)",
            rule.selector
        ));
    }
    if let Some(Raw::Table(mapping)) = table.get_path(&rule.mapping).map(|e| &e.node.value) {
        for e in &mapping.entries {
            if let Raw::String(v) = &e.node.value
                && dropped.contains(v)
            {
                let path = format!("{}.{}", rule.mapping, e.key);
                set_value(doc, &path, Value::from(target));
                changes.push(format!("{path}: \"{v}\" → \"{target}\""));
            }
        }
    }
    let removed: Vec<String> = model
        .vars_of(FROM)
        .filter(|v| of_dropped_backend(model, v, dropped) && table.get_path(&v.key).is_some())
        .map(|v| v.key.clone())
        .collect();
    let why = format!(
        "edition {TO} has no {} backend; configure the {target} backend instead",
        dropped.join(", ")
    );
    remove_keys(doc, &removed, &why, changes);
}

/// `token_server.base_hostname = "h"` becomes `token_server.base_url = "https://h"`, in place.
fn hostname_to_url(doc: &mut DocumentMut, table: &Table, changes: &mut Vec<String>) {
    let Some(Raw::String(host)) = table.get_path(HOSTNAME_KEY).map(|e| &e.node.value) else {
        return;
    };
    let url = format!("{BASE_URL_SCHEME}{host}");
    let (parent, old) = HOSTNAME_KEY.rsplit_once('.').unwrap_or(("", HOSTNAME_KEY));
    let (_, new) = BASE_URL_KEY.rsplit_once('.').unwrap_or(("", BASE_URL_KEY));
    if let Some(item) = item_mut(doc, parent) {
        rename(item, old, new, Value::from(url.as_str()));
        changes.push(format!(
            "{HOSTNAME_KEY} = \"{host}\" → {BASE_URL_KEY} = \"{url}\""
        ));
    }
}

/// Removes every key of an edition A variable that B does not have (backend settings aside).
fn remove_a_only(
    model: &Model,
    doc: &mut DocumentMut,
    table: &Table,
    dropped: &[String],
    changes: &mut Vec<String>,
) {
    let keys: Vec<String> = model
        .vars_of(FROM)
        .filter(|v| model.var_by_key(&v.key, TO).is_none())
        .filter(|v| v.key != HOSTNAME_KEY && !of_dropped_backend(model, v, dropped))
        .filter(|v| table.get_path(&v.key).is_some())
        .map(|v| v.key.clone())
        .collect();
    remove_keys(doc, &keys, &format!("edition {FROM} only"), changes);
}

/// Deployment settings of things edition B does not have: plugin archives, file sources of
/// removed variables, edition A's image tag.
fn deploy_settings(model: &Model, doc: &mut DocumentMut, table: &Table, changes: &mut Vec<String>) {
    let b_has_plugins = model.vars_of(TO).any(|v| v.ty == VarType::PluginList);
    if !b_has_plugins && table.get_path(DEPLOY_PLUGINS).is_some() {
        remove_keys(
            doc,
            &[DEPLOY_PLUGINS.to_string()],
            &format!("edition {TO} has no plugins"),
            changes,
        );
    }
    if let Some(Raw::Table(files)) = table.get_path(DEPLOY_FILES).map(|e| &e.node.value) {
        for entry in &files.entries {
            if model.var_by_key(&entry.key, TO).is_some() {
                continue;
            }
            if let Some(t) = item_mut(doc, DEPLOY_FILES).and_then(Item::as_table_like_mut)
                && t.remove(&entry.key).is_some()
            {
                changes.push(format!(
                    "removed {DEPLOY_FILES}.\"{}\": its variable is not in edition {TO}",
                    entry.key
                ));
            }
        }
    }
    image_read_env(model, doc, table, changes);
    let a_tag = &model.edition(FROM).image_tag;
    if let Some(Raw::String(tag)) = table.get_path(DEPLOY_TAG).map(|e| &e.node.value)
        && tag == a_tag
    {
        let b_tag = &model.edition(TO).image_tag;
        remove_keys(
            doc,
            &[DEPLOY_TAG.to_string()],
            &format!("edition {FROM}'s image tag; edition {TO}'s default tag {b_tag} applies"),
            changes,
        );
    }
}

/// `[env]` variables outside the spec that edition A's image reads and B's does not (the model's
/// `[image]` facts: the path of the SSA file): B would pass them through unread.
fn image_read_env(model: &Model, doc: &mut DocumentMut, table: &Table, changes: &mut Vec<String>) {
    let Some(Raw::Table(env)) = table.get_path("env").map(|e| &e.node.value) else {
        return;
    };
    let keys: Vec<String> = (env.entries.iter())
        .filter(|e| model.image_reads(&e.key, FROM).is_some())
        .filter(|e| model.image_reads(&e.key, TO).is_none())
        .map(|e| format!("env.{}", e.key))
        .collect();
    let why = format!("read by edition {FROM}'s image only");
    remove_keys(doc, &keys, &why, changes);
}

/// Removes keys (dotted paths); a table left empty goes too, noted once with its keys.
fn remove_keys(doc: &mut DocumentMut, keys: &[String], why: &str, changes: &mut Vec<String>) {
    let mut parents: Vec<(String, Vec<String>)> = Vec::new();
    for key in keys {
        let (parent, leaf) = key.rsplit_once('.').unwrap_or(("", key.as_str()));
        let removed = item_mut(doc, parent)
            .and_then(Item::as_table_like_mut)
            .and_then(|t| t.remove(leaf))
            .is_some();
        if !removed {
            continue;
        }
        match parents.iter_mut().find(|(p, _)| p == parent) {
            Some((_, leaves)) => leaves.push(leaf.to_string()),
            None => parents.push((parent.to_string(), vec![leaf.to_string()])),
        }
    }
    for (parent, leaves) in parents {
        let empty = !parent.is_empty()
            && item_mut(doc, &parent)
                .and_then(|i| i.as_table_like_mut())
                .is_some_and(|t| t.is_empty());
        if empty {
            let (grand, leaf) = parent.rsplit_once('.').unwrap_or(("", parent.as_str()));
            if let Some(t) = item_mut(doc, grand).and_then(Item::as_table_like_mut) {
                t.remove(leaf);
            }
            changes.push(format!("removed [{parent}] ({}): {why}", leaves.join(", ")));
        } else {
            for leaf in leaves {
                let key = if parent.is_empty() {
                    leaf
                } else {
                    format!("{parent}.{leaf}")
                };
                changes.push(format!("removed {key}: {why}"));
            }
        }
    }
}

/// The item at a dotted path ("" is the root).
fn item_mut<'d>(doc: &'d mut DocumentMut, path: &str) -> Option<&'d mut Item> {
    let mut item = doc.as_item_mut();
    if path.is_empty() {
        return Some(item);
    }
    for part in path.split('.') {
        item = item.get_mut(part)?;
    }
    Some(item)
}

/// Replaces a value, keeping its comments and spacing.
fn set_value(doc: &mut DocumentMut, path: &str, mut value: Value) {
    let Some(Item::Value(old)) = item_mut(doc, path) else {
        return;
    };
    *value.decor_mut() = old.decor().clone();
    *old = value;
}

/// Renames `old` to `new` in a table or inline table with a new value, at the same place and
/// with the same comments: every entry is taken out and put back in order.
fn rename(parent: &mut Item, old: &str, new: &str, value: Value) {
    // The new value in the old one's place: with its comments and spacing.
    let keep_decor = |old: &Value| {
        let mut value = value.clone();
        *value.decor_mut() = old.decor().clone();
        value
    };
    if let Some(table) = parent.as_table_mut() {
        let keys: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
        let mut entries: Vec<(Key, Item)> =
            keys.iter().filter_map(|k| table.remove_entry(k)).collect();
        rename_entry(&mut entries, old, new, |item| {
            *item = Item::Value(match item {
                Item::Value(v) => keep_decor(v),
                _ => value.clone(),
            });
        });
        for (key, item) in entries {
            table.insert_formatted(&key, item);
        }
    } else if let Some(table) = parent.as_inline_table_mut() {
        let keys: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
        let mut entries: Vec<(Key, Value)> =
            keys.iter().filter_map(|k| table.remove_entry(k)).collect();
        rename_entry(&mut entries, old, new, |v| *v = keep_decor(v));
        for (key, v) in entries {
            table.insert_formatted(&key, v);
        }
    }
}

/// Renames the entry `old` (if any) to `new`, keeping the key's comments, and lets `put` give it
/// its new value.
fn rename_entry<V>(entries: &mut [(Key, V)], old: &str, new: &str, mut put: impl FnMut(&mut V)) {
    for (key, v) in entries.iter_mut().filter(|(k, _)| k.get() == old) {
        let mut renamed = Key::new(new);
        *renamed.leaf_decor_mut() = key.leaf_decor().clone();
        *key = renamed;
        put(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backend_b_lacks_is_derived_from_the_model() {
        let model = Model::get();
        let dropped = dropped_backends(model);
        assert_eq!(dropped.len(), 1);
        assert!(!b_backends(model).contains(&dropped[0]));
    }

    #[test]
    fn renaming_keeps_place_and_comments() {
        let mut doc: DocumentMut = "[t]\na = 1\n# about b\nb = \"x\" # trailing\nc = 2\n"
            .parse()
            .unwrap();
        rename(
            doc.as_item_mut().get_mut("t").unwrap(),
            "b",
            "d",
            Value::from("y"),
        );
        assert_eq!(
            doc.to_string(),
            "[t]\na = 1\n# about b\nd = \"y\" # trailing\nc = 2\n"
        );
        let mut doc: DocumentMut = "t = { a = 1, b = \"x\", c = 2 }\n".parse().unwrap();
        rename(
            doc.as_item_mut().get_mut("t").unwrap(),
            "b",
            "d",
            Value::from("y"),
        );
        assert_eq!(doc.to_string(), "t = { a = 1, d = \"y\", c = 2 }\n");
    }
}
