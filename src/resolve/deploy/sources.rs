//! `deploy.files` and `deploy.plugins`: where each file the container reads comes from.

use super::FileSource;
use super::source::read_source;
use crate::diag::source::Sources;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, FileKind, Model, Var, VarType};
use crate::profile::{Entry, Value};
use crate::resolve::{Extra, ResolvedVar, Typed};
use crate::support::suggest::did_you_mean;
use std::collections::{HashMap, HashSet};

/// The sources of `[deploy.files]`: one per file variable of the spec that applies, and one for
/// the image's own SSA file (the model's `[image] ssa_file`, by its `key`) in the editions whose
/// image reads it, mounted where `[env]` moves it.
pub(super) fn file_sources(
    model: &Model,
    edition: Edition,
    entry: &Entry,
    (vars, extras): (&[ResolvedVar], &[Extra]),
    sources: &Sources,
    out: &mut Vec<FileSource>,
    diags: &mut Diagnostics,
) {
    let Value::Table(table) = &entry.node.value else {
        diags.push(
            Diagnostic::wrong_type("deploy.files", "a table of file sources", entry.node.value.type_name())
                .at(entry.node.origin)
                .help("write [deploy.files] then \"<profile key>\" = { host = \"...\", secret = \"...\" }"),
        );
        return;
    };
    let ssa = super::credentials::ssa_path(edition, extras);
    let ssa_key = model.image.ssa_file.key.as_str();
    let sql_password = &model.image.sql_password_file;
    let sql_password_path = image_file_path(sql_password, edition, extras);
    let file_keys = file_keys(model, edition, ssa.is_some(), sql_password_path.is_some());
    let mut found: Vec<(usize, FileSource)> = Vec::new();
    for source in &table.entries {
        let key = source.key.as_str();
        if key == sql_password.key
            && let Some(path) = &sql_password_path
        {
            // The SQL client's password file (an image fact): its source is given like a
            // credential file's, and mounted where `[env]` moves it.
            found.extend(image_source(source, sql_password, path, sources, diags));
            continue;
        }
        if key == ssa_key {
            let Some((path, _)) = &ssa else {
                diags.push(ssa_other_edition(model, edition, source));
                continue;
            };
            found.extend(image_source(
                source,
                &model.image.ssa_file,
                path,
                sources,
                diags,
            ));
            continue;
        }
        let Some(var) = model
            .var_by_key(key, edition)
            .filter(|v| v.ty == VarType::File)
        else {
            diags.push(not_a_file_variable(model, edition, source, &file_keys));
            continue;
        };
        let Some(position) = vars.iter().position(|rv| rv.var.key == var.key) else {
            diags.push(unused_source(source));
            continue;
        };
        let container_path = vars[position].value.env_text().unwrap_or_default();
        let kind = var.file.unwrap_or(FileKind::Secret);
        if let Some(file) = read_source(
            source,
            key,
            Some(var.env.clone()),
            kind,
            container_path,
            sources,
            diags,
        ) {
            found.push((position, file));
        }
    }
    found.sort_by_key(|(position, _)| *position);
    out.extend(found.into_iter().map(|(_, f)| f));
}

/// The keys `[deploy.files]` takes in `edition`: its file variables, then the image's SSA file
/// and SQL password file where its image reads them.
fn file_keys(model: &Model, edition: Edition, ssa: bool, sql_password: bool) -> Vec<&str> {
    let mut keys: Vec<&str> = (model.vars_of(edition))
        .filter(|v| v.ty == VarType::File)
        .map(|v| v.key.as_str())
        .collect();
    keys.extend(ssa.then_some(model.image.ssa_file.key.as_str()));
    keys.extend(sql_password.then_some(model.image.sql_password_file.key.as_str()));
    keys
}

/// A source whose key names no file variable of this edition.
fn not_a_file_variable(
    model: &Model,
    edition: Edition,
    source: &Entry,
    file_keys: &[&str],
) -> Diagnostic {
    let key = source.key.as_str();
    let other = model.entries_by_key(key).find(|v| v.ty == VarType::File);
    let d = match other {
        Some(v) => Diagnostic::new(
            Code::OtherEdition,
            format!(
                "`{key}` exists only in edition {}; this profile is edition {edition}",
                v.editions_text()
            ),
        ),
        None => Diagnostic::new(
            Code::UnknownKey,
            format!("`deploy.files` has no file variable `{key}`"),
        )
        .suggest(did_you_mean(key, file_keys.iter().copied()))
        .help(format!("file variables: {}", file_keys.join(", "))),
    };
    d.at(source.key_origin).label("not a file variable")
}

/// A source for a file variable that does not apply to this profile.
fn unused_source(source: &Entry) -> Diagnostic {
    Diagnostic::new(
        Code::UnusedSource,
        format!(
            "a source is declared for `{}`, but that variable does not apply to this profile",
            source.key
        ),
    )
    .at(source.key_origin)
    .label("unused")
    .help("remove it, or choose the adapter or backend that reads this file")
}

/// The source of one of the image's own files (a secret one), at `path`: after every
/// variable's file, as the image reads it after its waits.
fn image_source(
    source: &Entry,
    fact: &crate::model::ImageFile,
    path: &str,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<(usize, FileSource)> {
    let env = Some(fact.env.clone());
    let read = read_source(
        source,
        &fact.key,
        env,
        FileKind::Secret,
        path.to_string(),
        sources,
        diags,
    );
    read.map(|file| (usize::MAX, file))
}

/// Where the image of `edition` opens one of its own files (a fact of the model's `[image]`):
/// where `[env]` moves it, else the image's path; `None` in an edition whose image has none.
fn image_file_path(
    fact: &crate::model::ImageFile,
    edition: Edition,
    extras: &[Extra],
) -> Option<String> {
    if !fact.editions.contains(&edition) {
        return None;
    }
    let moved = extras.iter().rev().find(|e| e.name == fact.env);
    let path = moved.and_then(|e| e.deploy_env.is_none().then(|| e.value.clone()));
    Some(
        path.filter(|p| !p.is_empty())
            .unwrap_or_else(|| fact.path.clone()),
    )
}

/// `[deploy.files] ssa_file` in an edition whose image reads no SSA file.
fn ssa_other_edition(model: &Model, edition: Edition, source: &Entry) -> Diagnostic {
    let fact = &model.image.ssa_file;
    let editions: Vec<&str> = fact.editions.iter().map(|e| e.as_str()).collect();
    Diagnostic::new(
        Code::OtherEdition,
        format!(
            "`{}` is the SSA file of edition {}'s image; this profile is edition {edition}",
            fact.key,
            editions.join(", ")
        ),
    )
    .at(source.key_origin)
    .label(format!("edition {} only", editions.join(", ")))
    .help(format!(
        "edition {edition}'s image reads no SSA file: remove this source"
    ))
}

pub(super) fn plugin_sources(
    model: &Model,
    edition: Edition,
    entry: Option<&Entry>,
    vars: &[ResolvedVar],
    options: crate::resolve::Options<'_>,
    out: &mut Vec<FileSource>,
    diags: &mut Diagnostics,
) {
    let sources = options.sources;
    let plugins_var = model.vars_of(edition).find(|v| v.ty == VarType::PluginList);
    let listed: Vec<String> = vars
        .iter()
        .find_map(|rv| match (&rv.value, rv.var.ty) {
            (Typed::List(names), VarType::PluginList) => Some(names.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let table = match entry.map(|e| (&e.node.value, e)) {
        None => None,
        Some((Value::Table(t), _)) => Some(t),
        Some((other, e)) => {
            diags.push(
                Diagnostic::wrong_type("deploy.plugins", "a table", other.type_name())
                    .at(e.node.origin)
                    .help("write [deploy.plugins] then <name> = { host = \"...\" }"),
            );
            return;
        }
    };
    let Some(var) = plugins_var else {
        if let (Some(e), Some(other)) = (
            entry,
            model.vars.iter().find(|v| v.ty == VarType::PluginList),
        ) {
            diags.push(
                Diagnostic::new(
                    Code::OtherEdition,
                    format!("`deploy.plugins` exists only in edition {}; this profile is edition {edition}", other.editions_text()),
                )
                .at(e.key_origin)
                .label(format!("edition {} only", other.editions_text()))
                .help(format!("edition {edition} has no plugins: remove [deploy.plugins]")),

            );
        }
        return;
    };
    let table = table.map(|t| t.entries.as_slice()).unwrap_or_default();
    let by_name = declared_archives(var, &listed, table, sources, diags);
    let asks_archives = options.mode.asks_plugin_archives();
    in_list_order(var, &listed, by_name, vars, (out, asks_archives), diags);
}

/// The archive sources of `[deploy.plugins]` for listed plugins, by name; reports the others.
fn declared_archives(
    var: &Var,
    listed: &[String],
    table: &[Entry],
    sources: &Sources,
    diags: &mut Diagnostics,
) -> HashMap<String, FileSource> {
    let mount = var.mount_path.clone().unwrap_or_default();
    let listed_set: HashSet<&str> = listed.iter().map(String::as_str).collect();
    let mut by_name: HashMap<String, FileSource> = HashMap::with_capacity(table.len());
    for source in table {
        let name = &source.key;
        if !listed_set.contains(name.as_str()) {
            diags.push(
                Diagnostic::new(
                    Code::UnusedSource,
                    format!(
                        "an archive is declared for plugin \"{name}\", which `{}` does not list",
                        var.key
                    ),
                )
                .at(source.key_origin)
                .label("not a listed plugin")
                .suggest(did_you_mean(name, listed.iter().map(String::as_str)))
                .help(format!(
                    "add \"{name}\" to {}, or remove this source",
                    var.key
                )),
            );
            continue;
        }
        let path = mount.replace("<name>", name);
        let key = format!("deploy.plugins.{name}");
        if let Some(file) = read_source(source, &key, None, FileKind::Archive, path, sources, diags)
        {
            by_name.insert(name.clone(), file);
        }
    }
    by_name
}

/// Appends the archives in the order the plugin list names them; reports a listed plugin
/// without an archive when the archives are asked for (`asks_archives`).
fn in_list_order(
    var: &Var,
    listed: &[String],
    by_name: HashMap<String, FileSource>,
    vars: &[ResolvedVar],
    (out, asks_archives): (&mut Vec<FileSource>, bool),
    diags: &mut Diagnostics,
) {
    for name in listed {
        match by_name.get(name).cloned() {
            Some(file) => out.push(file),
            None if !asks_archives => {}
            None => {
                let origin = vars
                    .iter()
                    .find(|rv| rv.var.key == var.key)
                    .and_then(|rv| rv.origin);
                diags.push(
                    Diagnostic::new(
                        Code::PluginWithoutArchive,
                        format!("plugin \"{name}\" has no archive source: the container ignores a plugin whose archive is missing"),
                    )
                    .at_opt(origin)
                    .label("no archive declared")
                    .help(format!("declare it: [deploy.plugins.{name}] host = \"./plugins/{name}.zip\" (compose) and/or configmap = \"...\" (Kubernetes)")),
                );
            }
        }
    }
}
