//! Writing an analysed environment as a profile: spec variables under their profile keys in the
//! model's order (typed: booleans, numbers, lists, the hybrid mapping as a table, secrets as
//! `{ env = "NAME" }`), spec defaults left out, other variables under `[env]`, and the deployment
//! names read along when they differ from the defaults. The profile is then checked like any
//! other, and what that finds is reported at the input's lines.

use super::analyze::{Analysis, analyze};
use super::remap::SpanMap;
use super::values::ProfileValue;
use super::{EnvEntry, Read};
use crate::diag::{Code, Diagnostics};
use crate::model::{Edition, Model};
use crate::pipeline::check_text;
use crate::resolve::Resolved;
use crate::resolve::formats::{k8s_label, k8s_subdomain};
use crate::source::{Origin, Sources};
use std::collections::HashMap;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

/// How to import.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// The edition; `None` infers it from the variables (an error when they do not decide).
    pub edition: Option<Edition>,
    /// Write values equal to the spec's defaults too.
    pub keep_defaults: bool,
}

/// An imported profile.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The profile (TOML text).
    pub profile: String,
    pub edition: Edition,
    /// Warnings, at the input's lines.
    pub diagnostics: Diagnostics,
}

/// Codes of the profile check that say nothing about the input (they concern the profile's own
/// form, or file sources a profile declares and an environment cannot).
const PROFILE_ONLY: [Code; 7] = [
    Code::EnvPassthrough,
    Code::SecretInProfile,
    Code::EnvIsSpecVar,
    Code::UnusedSource,
    Code::SecretInConfigMap,
    Code::HostPathMissing,
    Code::OtherEdition,
];

/// Builds the profile of what was read. `Err` holds every diagnostic when there is an error:
/// the profile could not carry the environment as it is.
pub fn import(
    read: &Read,
    options: ImportOptions,
    sources: &Sources,
) -> Result<Imported, Diagnostics> {
    let analysis = analyze(&read.entries, options.edition, sources, false);
    let mut diags = read.diagnostics.clone();
    let unreadable = diags.has_errors();
    // When the file could not be read, the edition it does not decide is beside the point.
    diags.extend(Diagnostics {
        items: analysis
            .diagnostics
            .items
            .iter()
            .filter(|d| !(unreadable && d.code == Code::Edition))
            .cloned()
            .collect(),
    });
    let Some(edition) = analysis.edition else {
        diags.sort();
        return Err(diags);
    };
    if diags.has_errors() {
        diags.sort();
        return Err(diags);
    }
    let header = format!(
        "Imported by svcgen from {} ({}).",
        crate::escape::one_line(&sources.get(read.source).name),
        read.format.name()
    );
    let mut deploy: Vec<(&str, String)> = Vec::new();
    let (mut profile, mut checked) = build_and_check(
        read,
        &analysis,
        edition,
        &header,
        &deploy,
        options.keep_defaults,
    );
    // Names first: the Secret's default name follows the deployment's name.
    for secret_stage in [false, true] {
        let Some(resolved) = &checked.0 else {
            break;
        };
        let more = deploy_settings(read, resolved, secret_stage);
        if more.is_empty() {
            continue;
        }
        let mut next = deploy.clone();
        next.extend(more);
        let (p, c) = build_and_check(
            read,
            &analysis,
            edition,
            &header,
            &next,
            options.keep_defaults,
        );
        if c.0.is_some() {
            (deploy, profile, checked) = (next, p, c);
        }
    }
    let (resolved, found) = checked;
    diags.extend(found);
    diags.sort();
    if resolved.is_none() || diags.has_errors() {
        return Err(diags);
    }
    Ok(Imported {
        profile,
        edition,
        diagnostics: diags,
    })
}

/// The cross-field checks of the profile an analysis makes, at the input's lines (for `lint`).
/// Plugin archives are left out: an environment never says where they come from.
pub fn cross_check(read: &Read, analysis: &Analysis, edition: Edition) -> Diagnostics {
    let mut diags = build_and_check(read, analysis, edition, "", &[], false).1.1;
    diags.items.retain(|d| d.code != Code::PluginWithoutArchive);
    diags
}

type Checked = (Option<Resolved>, Diagnostics);

fn build_and_check(
    read: &Read,
    analysis: &Analysis,
    edition: Edition,
    header: &str,
    deploy: &[(&str, String)],
    keep_defaults: bool,
) -> (String, Checked) {
    let (text, origins) = build(
        &read.entries,
        analysis,
        edition,
        header,
        deploy,
        keep_defaults,
    );
    let mut scratch = Sources::new();
    let checked = check_text("imported profile", &text, None, &mut scratch);
    let map = SpanMap::new(&text, &origins);
    let mut found = Diagnostics::default();
    found.extend_new(
        checked
            .diagnostics
            .items
            .into_iter()
            .filter(|d| !PROFILE_ONLY.contains(&d.code))
            .map(|d| map.map(d)),
    );
    (text, (checked.resolved, found))
}

/// The `[deploy]` names read along that differ from what the profile gives without them: the
/// deployment's name and namespace, or (`secret_stage`) the Secret of secret references.
fn deploy_settings(
    read: &Read,
    resolved: &Resolved,
    secret_stage: bool,
) -> Vec<(&'static str, String)> {
    let hints = &read.deploy;
    let now = &resolved.deploy;
    let mut out = Vec::new();
    if secret_stage {
        if let Some(secret) = &hints.secret_name
            && secret != &now.secret_name
            && k8s_subdomain(secret).is_ok()
        {
            out.push(("secret_name", secret.clone()));
        }
        return out;
    }
    if let Some(name) = &hints.name
        && name != &now.name
        && k8s_label(name).is_ok()
    {
        out.push(("name", name.clone()));
    }
    if let Some(namespace) = &hints.namespace
        && now.namespace.as_ref() != Some(namespace)
        && k8s_label(namespace).is_ok()
    {
        out.push(("namespace", namespace.clone()));
    }
    out
}

/// The profile text, and for each key path written, the input origins of its name and value.
fn build(
    entries: &[EnvEntry],
    analysis: &Analysis,
    edition: Edition,
    header: &str,
    deploy: &[(&str, String)],
    keep_defaults: bool,
) -> (String, HashMap<String, (Origin, Origin)>) {
    let mut doc = DocumentMut::new();
    let mut origins = HashMap::new();
    let mut position = 0;
    doc.insert("edition", toml_edit::value(edition.as_str()));
    if !header.is_empty()
        && let Some(mut key) = doc.as_table_mut().key_mut("edition")
    {
        key.leaf_decor_mut().set_prefix(format!("# {header}\n"));
    }
    for setting in &analysis.settings {
        let var = setting.var;
        let is_default = setting
            .value
            .env_text()
            .is_some_and(|t| Some(t.as_str()) == var.default.value());
        if is_default && !keep_defaults && !var.selector {
            continue;
        }
        let (path, leaf) = var.key.rsplit_once('.').unwrap_or(("", var.key.as_str()));
        let table = table_at(&mut doc, path, &mut position);
        table.insert(leaf, Item::Value(toml_value(&setting.value)));
        let entry = &entries[setting.entry];
        origins.insert(var.key.clone(), (entry.name_origin, entry.origin));
    }
    if !analysis.extras.is_empty() {
        let table = table_at(&mut doc, "env", &mut position);
        for &i in &analysis.extras {
            let entry = &entries[i];
            let text = entry.value.text().unwrap_or_default();
            table.insert(&entry.name, toml_edit::value(text));
            origins.insert(
                format!("env.{}", entry.name),
                (entry.name_origin, entry.origin),
            );
        }
    }
    if !deploy.is_empty() {
        let model = Model::get();
        let table = table_at(&mut doc, "deploy", &mut position);
        for (key, value) in deploy {
            debug_assert!(model.setting(&format!("deploy.{key}")).is_some());
            table.insert(key, toml_edit::value(value.as_str()));
        }
    }
    (doc.to_string(), origins)
}

/// The table at a dotted path, created (in order) when missing.
fn table_at<'d>(doc: &'d mut DocumentMut, path: &str, position: &mut isize) -> &'d mut Table {
    let mut table = doc.as_table_mut();
    if path.is_empty() {
        return table;
    }
    for part in path.split('.') {
        if !table.contains_key(part) {
            let mut new = Table::new();
            *position += 1;
            new.set_position(Some(*position));
            new.set_implicit(true);
            table.insert(part, Item::Table(new));
        }
        table = table[part]
            .as_table_mut()
            .expect("the profile builder creates only tables on key paths");
    }
    table.set_implicit(false);
    table
}

fn toml_value(value: &ProfileValue) -> Value {
    match value {
        ProfileValue::Text(t) => Value::from(t.as_str()),
        ProfileValue::Bool(b) => Value::from(*b),
        ProfileValue::Int(n) => Value::from(*n),
        ProfileValue::List(items) => {
            let mut array = Array::new();
            for item in items {
                array.push(item.as_str());
            }
            Value::Array(array)
        }
        ProfileValue::Mapping(pairs) => {
            let mut table = InlineTable::new();
            for (k, v) in pairs {
                table.insert(k, Value::from(v.as_str()));
            }
            Value::InlineTable(table)
        }
        ProfileValue::EnvRef(name) => {
            let mut table = InlineTable::new();
            table.insert("env", Value::from(name.as_str()));
            Value::InlineTable(table)
        }
    }
}
