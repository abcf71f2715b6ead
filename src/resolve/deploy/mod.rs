//! The `[deploy]` table: how the container is deployed (names, image, replicas) and where each
//! file it reads comes from. Not container variables, but checked like them, from the model.
//! This module reads the settings; `sources` reads `deploy.files` and `deploy.plugins`.

mod sources;

use sources::{file_sources, plugin_sources};

use super::ResolvedVar;
use super::formats::{self, Problem};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Edition, FileKind, Model, Setting, VarType};
use crate::profile::{Entry, Table, Value};
use crate::source::Sources;
use crate::suggest::did_you_mean;

/// The deployment of one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Deploy {
    pub name: String,
    pub namespace: Option<String>,
    pub replicas: i64,
    /// `repository:tag`.
    pub image: String,
    /// The Kubernetes Secret holding secret variables.
    pub secret_name: String,
    /// Every declared file source, variables in model order, then plugins in list order.
    pub files: Vec<FileSource>,
}

/// Where one file the container reads comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSource {
    /// The variable naming the file, or `None` for a plugin archive.
    pub env: Option<String>,
    /// The profile key (`secret.vault.role_id_file`) or `plugins.<name>`.
    pub key: String,
    pub kind: FileKind,
    /// Where the container reads it.
    pub container_path: String,
    /// Compose: the host path bind-mounted read-only.
    pub host: Option<String>,
    /// Kubernetes: the Secret or ConfigMap key mounted read-only.
    pub k8s: Option<K8sRef>,
}

/// A key of a Secret or ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct K8sRef {
    pub kind: K8sKind,
    pub name: String,
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K8sKind {
    Secret,
    ConfigMap,
}

const FILES: &str = "files";
const PLUGINS: &str = "plugins";

/// Reads `[deploy]` (or its defaults), given the resolved variables.
pub fn deploy(
    model: &'static Model,
    edition: Edition,
    table: Option<&Entry>,
    vars: &[ResolvedVar],
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Deploy {
    let empty = Table::default();
    let table = match table.map(|e| (&e.node.value, e)) {
        None => &empty,
        Some((Value::Table(t), _)) => t,
        Some((other, entry)) => {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    format!("`deploy` must be a table, found {}", other.type_name()),
                )
                .at(entry.node.origin)
                .label("expected a table"),
            );
            &empty
        }
    };
    check_keys(model, table, diags);
    let text = |key: &str, diags: &mut Diagnostics| setting_text(model, table, key, diags);
    let name = text("deploy.name", diags).unwrap_or_default();
    let namespace = text("deploy.namespace", diags);
    let repository = text("deploy.image.repository", diags).unwrap_or_default();
    let tag =
        text("deploy.image.tag", diags).unwrap_or_else(|| model.edition(edition).image_tag.clone());
    let secret_name =
        text("deploy.secret_name", diags).unwrap_or_else(|| format!("{name}-secrets"));
    let replicas = text("deploy.replicas", diags)
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let mut files = Vec::new();
    if let Some(entry) = table.get(FILES) {
        file_sources(model, edition, entry, vars, sources, &mut files, diags);
    }
    plugin_sources(
        model,
        edition,
        table.get(PLUGINS),
        vars,
        sources,
        &mut files,
        diags,
    );
    Deploy {
        name,
        namespace,
        replicas,
        image: format!("{repository}:{tag}"),
        secret_name,
        files,
    }
}

/// Unknown keys anywhere in `[deploy]` outside `files` and `plugins`.
fn check_keys(model: &Model, table: &Table, diags: &mut Diagnostics) {
    check_level(model, table, "deploy", diags);
}

fn check_level(model: &Model, table: &Table, prefix: &str, diags: &mut Diagnostics) {
    let below = format!("{prefix}.");
    let mut valid: Vec<String> = Vec::new();
    for setting in &model.settings {
        if let Some(rest) = setting.key.strip_prefix(&below) {
            let next = rest.split('.').next().unwrap_or(rest).to_string();
            if !valid.contains(&next) {
                valid.push(next);
            }
        }
    }
    if prefix == "deploy" {
        valid.extend([FILES.to_string(), PLUGINS.to_string()]);
    }
    for entry in &table.entries {
        let path = format!("{prefix}.{}", entry.key);
        if !valid.contains(&entry.key) {
            diags.push(
                Diagnostic::new(Code::UnknownKey, format!("unknown key `{path}`"))
                    .at(entry.key_origin)
                    .label("unknown key")
                    .suggest(did_you_mean(&entry.key, valid.iter().map(String::as_str)))
                    .help(format!("keys valid in [{prefix}]: {}", valid.join(", "))),
            );
            continue;
        }
        let is_table_level = model
            .settings
            .iter()
            .any(|s| s.key.starts_with(&format!("{path}.")));
        if is_table_level {
            match &entry.node.value {
                Value::Table(inner) => check_level(model, inner, &path, diags),
                other => diags.push(
                    Diagnostic::new(
                        Code::WrongType,
                        format!("`{path}` must be a table, found {}", other.type_name()),
                    )
                    .at(entry.node.origin)
                    .label("expected a table"),
                ),
            }
        }
    }
}

/// The text of a setting: its valid value, else its default (`None` when it has none).
fn setting_text(
    model: &Model,
    table: &Table,
    key: &str,
    diags: &mut Diagnostics,
) -> Option<String> {
    let setting = model
        .setting(key)
        .expect("deploy settings read here are in the model");
    let rest = key.strip_prefix("deploy.").unwrap_or(key);
    let fallback = match &setting.default {
        DefaultValue::Value(v) => Some(v.clone()),
        _ => None,
    };
    let Some(entry) = table.get_path(rest) else {
        return fallback;
    };
    match check_setting(setting, &entry.node.value) {
        Ok(text) => Some(text),
        Err(problem) => {
            let code = if matches!(problem.message.as_str(), m if m.starts_with("expected")) {
                Code::WrongType
            } else if setting.ty == VarType::Integer {
                Code::OutOfRange
            } else {
                Code::BadFormat
            };
            let mut d = Diagnostic::new(code, format!("`{key}`: {}", problem.message))
                .at(entry.node.origin)
                .label(format!("expected {}", setting.ty.describe()))
                .help(setting.meaning.clone());
            if let Some(s) = problem.suggestion {
                d = d.help(format!("did you mean \"{s}\"?"));
            }
            diags.push(d);
            fallback
        }
    }
}

fn check_setting(setting: &Setting, value: &Value) -> Result<String, Problem> {
    let expected = |what: &str| Problem {
        message: format!("expected {what}, found {}", value.type_name()),
        suggestion: None,
    };
    if setting.ty == VarType::Integer {
        let Value::Integer(n) = value else {
            return Err(expected("an integer"));
        };
        let min = setting.min.unwrap_or(0);
        if *n < min {
            return Err(Problem {
                message: format!("{n} is below the minimum {min}"),
                suggestion: None,
            });
        }
        return Ok(n.to_string());
    }
    let Value::String(text) = value else {
        return Err(expected("a string"));
    };
    match setting.ty {
        VarType::K8sName => formats::k8s_label(text)?,
        VarType::Image => formats::image_repository(text)?,
        VarType::ImageTag => formats::image_tag(text)?,
        _ => {}
    }
    Ok(text.clone())
}
