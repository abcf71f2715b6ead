//! `deploy.files` and `deploy.plugins`: where each file the container reads comes from.

use super::{FileSource, K8sKind, K8sRef};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, FileKind, Model, VarType};
use crate::profile::{Entry, Value};
use crate::resolve::formats::{self, Problem};
use crate::resolve::{ResolvedVar, Typed};
use crate::source::{Origin, Sources};
use crate::suggest::did_you_mean;
use std::path::Path;

/// The keys of one file source.
const SOURCE_KEYS: [&str; 4] = ["host", "secret", "configmap", "key"];

pub(super) fn file_sources(
    model: &Model,
    edition: Edition,
    entry: &Entry,
    vars: &[ResolvedVar],
    sources: &Sources,
    out: &mut Vec<FileSource>,
    diags: &mut Diagnostics,
) {
    let Value::Table(table) = &entry.node.value else {
        diags.push(
            Diagnostic::new(Code::WrongType, "`deploy.files` must be a table of file sources")
                .at(entry.node.origin)
                .label("expected a table")
                .help("write [deploy.files] then \"<profile key>\" = { host = \"...\", secret = \"...\" }"),
        );
        return;
    };
    let file_keys: Vec<&str> = model
        .vars_of(edition)
        .filter(|v| v.ty == VarType::File)
        .map(|v| v.key.as_str())
        .collect();
    let mut found: Vec<(usize, FileSource)> = Vec::new();
    for source in &table.entries {
        let key = source.key.as_str();
        let Some(var) = model
            .var_by_key(key, edition)
            .filter(|v| v.ty == VarType::File)
        else {
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
            diags.push(d.at(source.key_origin).label("not a file variable"));
            continue;
        };
        let Some(position) = vars.iter().position(|rv| rv.var.key == var.key) else {
            diags.push(
                Diagnostic::new(
                    Code::UnusedSource,
                    format!("a source is declared for `{key}`, but that variable does not apply to this profile"),
                )
                .at(source.key_origin)
                .label("unused")
                .help("remove it, or choose the adapter or backend that reads this file"),
            );
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

pub(super) fn plugin_sources(
    model: &Model,
    edition: Edition,
    entry: Option<&Entry>,
    vars: &[ResolvedVar],
    sources: &Sources,
    out: &mut Vec<FileSource>,
    diags: &mut Diagnostics,
) {
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
        Some((_, e)) => {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    "`deploy.plugins` must be a table: <name> = { host = \"...\" }",
                )
                .at(e.node.origin)
                .label("expected a table"),
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
    let mount = var.mount_path.clone().unwrap_or_default();
    let mut by_name: Vec<(String, FileSource)> = Vec::new();
    for source in table.map(|t| t.entries.as_slice()).unwrap_or_default() {
        let name = &source.key;
        if !listed.contains(name) {
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
            by_name.push((name.clone(), file));
        }
    }
    for name in &listed {
        match by_name.iter().position(|(n, _)| n == name) {
            Some(i) => out.push(by_name[i].1.clone()),
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

/// Reads one `{ host, secret | configmap, key }` source.
fn read_source(
    source: &Entry,
    key: &str,
    env: Option<String>,
    kind: FileKind,
    container_path: String,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<FileSource> {
    let Value::Table(fields) = &source.node.value else {
        diags.push(
            Diagnostic::new(
                Code::WrongType,
                format!("the source of `{key}` must be a table"),
            )
            .at(source.node.origin)
            .label("expected { host = \"...\", secret = \"...\", key = \"...\" }"),
        );
        return None;
    };
    let mut ok = true;
    let mut text = |name: &str, diags: &mut Diagnostics| -> Option<(String, Origin)> {
        let field = fields.get(name)?;
        match &field.node.value {
            Value::String(s) if !s.is_empty() => Some((s.clone(), field.node.origin)),
            other => {
                diags.push(
                    Diagnostic::new(
                        Code::WrongType,
                        format!(
                            "`{key}.{name}` must be a non-empty string, found {}",
                            other.type_name()
                        ),
                    )
                    .at(field.node.origin)
                    .label("expected a string"),
                );
                ok = false;
                None
            }
        }
    };
    let host = text("host", diags);
    let secret = text("secret", diags);
    let configmap = text("configmap", diags);
    let data_key = text("key", diags);
    for field in &fields.entries {
        if !SOURCE_KEYS.contains(&field.key.as_str()) {
            diags.push(
                Diagnostic::new(
                    Code::UnknownKey,
                    format!("unknown key `{}` in the source of `{key}`", field.key),
                )
                .at(field.key_origin)
                .label("unknown key")
                .suggest(did_you_mean(&field.key, SOURCE_KEYS))
                .help("a file source has: host (compose), secret or configmap (Kubernetes), key"),
            );
            ok = false;
        }
    }
    if secret.is_some() && configmap.is_some() {
        diags.push(
            Diagnostic::new(
                Code::Conflict,
                format!("the source of `{key}` gives both `secret` and `configmap`"),
            )
            .at(source.node.origin)
            .label("choose one")
            .help("a file comes from one Kubernetes Secret or one ConfigMap"),
        );
        ok = false;
    }
    if host.is_none() && secret.is_none() && configmap.is_none() && ok {
        diags.push(
            Diagnostic::new(Code::Required, format!("the source of `{key}` gives neither `host`, `secret` nor `configmap`"))
                .at(source.node.origin)
                .label("no source")
                .help("host = \"./path\" for compose; secret = \"name\" or configmap = \"name\" (and key) for Kubernetes"),
        );
        ok = false;
    }
    if let Some((_, origin)) = &data_key
        && secret.is_none()
        && configmap.is_none()
    {
        diags.push(
            Diagnostic::new(
                Code::Conflict,
                format!("`{key}.key` needs `secret` or `configmap`"),
            )
            .at(*origin)
            .label("key of what?"),
        );
        ok = false;
    }
    let check = |value: &Option<(String, Origin)>,
                 f: fn(&str) -> Result<(), Problem>,
                 what: &str,
                 diags: &mut Diagnostics|
     -> bool {
        let Some((text, origin)) = value else {
            return true;
        };
        match f(text) {
            Ok(()) => true,
            Err(problem) => {
                let mut d = Diagnostic::new(
                    Code::BadFormat,
                    format!("{what} \"{text}\": {}", problem.message),
                )
                .at(*origin)
                .label("invalid name");
                if let Some(s) = problem.suggestion {
                    d = d.help(format!("did you mean \"{s}\"?"));
                }
                diags.push(d);
                false
            }
        }
    };
    ok &= check(&secret, formats::k8s_subdomain, "Secret name", diags);
    ok &= check(&configmap, formats::k8s_subdomain, "ConfigMap name", diags);
    ok &= check(&data_key, formats::k8s_data_key, "key", diags);
    if !ok {
        return None;
    }
    if let Some((name, origin)) = &configmap
        && matches!(kind, FileKind::Secret | FileKind::Key)
    {
        diags.push(
            Diagnostic::new(
                Code::SecretInConfigMap,
                format!(
                    "`{key}` is a {} file, but it comes from the ConfigMap \"{name}\"",
                    kind.name()
                ),
            )
            .at(*origin)
            .label("stored in clear")
            .help("ConfigMaps are not meant for secrets: use secret = \"...\" instead"),
        );
    }
    let host_path = host.as_ref().map(|(path, origin)| {
        let full = match sources.dir_of(*origin) {
            Some(dir) if Path::new(path).is_relative() => dir.join(path),
            _ => Path::new(path).to_path_buf(),
        };
        if !full.exists() {
            diags.push(
                Diagnostic::new(Code::HostPathMissing, format!("the host path \"{path}\" does not exist"))
                    .at(*origin)
                    .label("not found")
                    .help("relative paths are checked from the profile's folder; svcgen writes them relative to the output's folder"),
            );
        }
        std::path::absolute(&full).unwrap_or(full)
    });
    let file_name = container_path
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let k8s_origin = secret.as_ref().or(configmap.as_ref()).map(|(_, o)| *o);
    let derived_key = data_key.is_none() && k8s_origin.is_some();
    let k8s = match (secret, configmap) {
        (Some((name, _)), _) => Some(K8sRef {
            kind: K8sKind::Secret,
            name,
            key: data_key.map_or(file_name.clone(), |k| k.0),
        }),
        (None, Some((name, _))) => Some(K8sRef {
            kind: K8sKind::ConfigMap,
            name,
            key: data_key.map_or(file_name, |k| k.0),
        }),
        (None, None) => None,
    };
    if let (true, Some(k8s), Some(origin)) = (derived_key, &k8s, k8s_origin)
        && let Err(problem) = formats::k8s_data_key(&k8s.key)
    {
        diags.push(
            Diagnostic::new(
                Code::DerivedName,
                format!(
                    "the key \"{}\" derived from the container path \"{container_path}\" of `{key}`: {}",
                    k8s.key, problem.message
                ),
            )
            .at(origin)
            .label("no valid key can be derived")
            .help("give the key explicitly: key = \"name.ext\" (letters, digits, `-`, `_`, `.`)"),
        );
        return None;
    }
    Some(FileSource {
        env,
        key: key.to_string(),
        kind,
        container_path,
        host: host.map(|h| h.0),
        host_path,
        k8s,
        origin: source.key_origin,
    })
}
