//! One file source `{ host, secret | configmap, key }`: its fields checked, its host path made
//! absolute, and its Kubernetes key (given, or derived from the container path and then checked
//! like a given one).

use super::{FileSource, K8sKind, K8sRef};
use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::FileKind;
use crate::profile::{Entry, Table, Value};
use crate::support::suggest::did_you_mean;
use crate::value_type::formats::{self, Problem};
use std::path::{Path, PathBuf};

/// The keys of one file source.
const SOURCE_KEYS: [&str; 4] = ["host", "secret", "configmap", "key"];

/// A form check of a name.
type NameCheck = fn(&str) -> Result<(), Problem>;

/// A field's text and where it is written.
type Field = Option<(String, Origin)>;

/// The fields of one source.
struct Fields {
    host: Field,
    secret: Field,
    configmap: Field,
    data_key: Field,
}

/// Reads one source; `None` (with diagnostics) when it is not usable.
pub(super) fn read_source(
    source: &Entry,
    key: &str,
    env: Option<String>,
    kind: FileKind,
    container_path: String,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<FileSource> {
    let fields = read_fields(source, key, diags)?;
    secret_in_configmap(&fields, key, kind, diags);
    let host_path = fields.host.as_ref().map(|h| host_path(h, sources));
    let k8s = k8s_ref(&fields, key, &container_path, diags).ok()?;
    Some(FileSource {
        env,
        key: key.to_string(),
        kind,
        container_path,
        host_origin: fields.host.as_ref().map(|h| h.1),
        host: fields.host.map(|h| h.0),
        host_path,
        k8s,
        origin: source.key_origin,
    })
}

fn read_fields(source: &Entry, key: &str, diags: &mut Diagnostics) -> Option<Fields> {
    let Value::Table(table) = &source.node.value else {
        diags.push(
            Diagnostic::wrong_type(key, "a table (its source)", source.node.value.type_name())
                .at(source.node.origin)
                .label("expected { host = \"...\", secret = \"...\", key = \"...\" }"),
        );
        return None;
    };
    let mut ok = true;
    let mut text = |name: &str| -> Field {
        let field = table.get(name)?;
        match &field.node.value {
            Value::String(s) if !s.is_empty() => Some((s.clone(), field.node.origin)),
            other => {
                let found = match other {
                    Value::String(_) => "an empty string",
                    other => other.type_name(),
                };
                diags.push(
                    Diagnostic::wrong_type(&format!("{key}.{name}"), "a non-empty string", found)
                        .at(field.node.origin),
                );
                ok = false;
                None
            }
        }
    };
    let fields = Fields {
        host: text("host"),
        secret: text("secret"),
        configmap: text("configmap"),
        data_key: text("key"),
    };
    ok &= known_keys(table, key, diags);
    ok &= consistent(&fields, source, key, ok, diags);
    ok &= names_valid(&fields, diags);
    ok.then_some(fields)
}

fn known_keys(table: &Table, key: &str, diags: &mut Diagnostics) -> bool {
    let mut ok = true;
    for field in &table.entries {
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
    ok
}

/// One object kind at most, some source at all, and a `key` only with an object.
fn consistent(
    fields: &Fields,
    source: &Entry,
    key: &str,
    ok_so_far: bool,
    diags: &mut Diagnostics,
) -> bool {
    let object = fields.secret.is_some() || fields.configmap.is_some();
    let mut ok = true;
    if fields.secret.is_some() && fields.configmap.is_some() {
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
    if fields.host.is_none() && !object && ok_so_far {
        diags.push(
            Diagnostic::new(Code::Required, format!("the source of `{key}` gives neither `host`, `secret` nor `configmap`"))
                .at(source.node.origin)
                .label("no source")
                .help("host = \"./path\" for compose; secret = \"name\" or configmap = \"name\" (and key) for Kubernetes"),
        );
        ok = false;
    }
    if let Some((_, origin)) = &fields.data_key
        && !object
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
    ok
}

fn names_valid(fields: &Fields, diags: &mut Diagnostics) -> bool {
    let checks: [(&Field, NameCheck, &str); 3] = [
        (&fields.secret, formats::k8s_subdomain, "Secret name"),
        (&fields.configmap, formats::k8s_subdomain, "ConfigMap name"),
        (&fields.data_key, formats::k8s_data_key, "key"),
    ];
    let mut ok = true;
    for (value, check, what) in checks {
        let Some((text, origin)) = value else {
            continue;
        };
        if let Err(problem) = check(text) {
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
            ok = false;
        }
    }
    ok
}

fn secret_in_configmap(fields: &Fields, key: &str, kind: FileKind, diags: &mut Diagnostics) {
    if let Some((name, origin)) = &fields.configmap
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
}

/// The host path, absolute: a relative one from the folder of the file that wrote it. Whether
/// a file is there is the deployment stage's to say (`deployment::host_files::missing`), once,
/// beside whether it could be read.
fn host_path((path, origin): &(String, Origin), sources: &Sources) -> PathBuf {
    let full = match sources.dir_of(*origin) {
        Some(dir) if Path::new(path).is_relative() => dir.join(path),
        _ => Path::new(path).to_path_buf(),
    };
    std::path::absolute(&full).unwrap_or(full)
}

/// The Secret or ConfigMap key: given, or the container file's name, which must then pass the
/// check a given key passes (`Err` after a diagnostic).
fn k8s_ref(
    fields: &Fields,
    key: &str,
    container_path: &str,
    diags: &mut Diagnostics,
) -> Result<Option<K8sRef>, ()> {
    let (kind, (name, origin)) = match (&fields.secret, &fields.configmap) {
        (Some(s), _) => (K8sKind::Secret, s),
        (None, Some(c)) => (K8sKind::ConfigMap, c),
        (None, None) => return Ok(None),
    };
    let data_key = match &fields.data_key {
        Some((given, _)) => given.clone(),
        None => {
            let derived = super::names::file_name(container_path);
            if let Err(problem) = formats::k8s_data_key(derived) {
                diags.push(
                    Diagnostic::new(
                        Code::DerivedName,
                        format!(
                            "the key \"{derived}\" derived from the container path \"{container_path}\" of `{key}`: {}",
                            problem.message
                        ),
                    )
                    .at(*origin)
                    .label("no valid key can be derived")
                    .help("give the key explicitly: key = \"name.ext\" (letters, digits, `-`, `_`, `.`)"),
                );
                return Err(());
            }
            derived.to_string()
        }
    };
    Ok(Some(K8sRef {
        kind,
        name: name.clone(),
        key: data_key,
    }))
}
