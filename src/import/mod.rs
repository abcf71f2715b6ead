//! Bringing an existing deployment in: readers that turn a `.env` file, a compose file or
//! Kubernetes manifests into the environment the container gets, with the origin of every name and
//! value, and [`import()`] that writes that environment as a profile.
//!
//! Readers never expand placeholders and never guess: what they cannot read is a diagnostic at
//! its line and column. `lint` runs the spec model's checks on the same entries.

mod analyze;
mod compose;
mod compose_scalar;
mod dotenv;
pub(crate) mod edition;
pub mod formats;
mod interpolate;
pub(crate) mod k8s;
pub mod kind;
mod left_out;
mod names;
mod profile;
mod unread;
mod values;
pub(crate) mod yaml;

pub(crate) use analyze::analyze;
pub use edition::{Inferred, infer_edition};
pub use formats::Format;
pub use names::in_variable_names;
pub use profile::{ImportOptions, Imported, draft, import, resolve_environment};
pub(crate) use profile::{profile_check, reading_failed};

use crate::diag::source::{Origin, SourceId, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use std::path::Path;

/// One variable as the container would get it, and where its name and value are written.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvEntry {
    pub name: String,
    pub value: EnvValue,
    pub name_origin: Origin,
    /// The value's text in the file (inside quotes when quoted).
    pub origin: Origin,
}

/// A value as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    /// The value itself (a placeholder that is only part of it stays as literal text).
    Text(String),
    /// The whole value is a compose placeholder of one variable of the deploying shell
    /// (`${NAME}`, `${NAME:?message}`): `text` as written.
    FromEnv { var: String, text: String },
    /// A Kubernetes `secretKeyRef`: the value lives in a Secret. `whole` when the Secret is
    /// handed over whole (`envFrom: secretRef`): the variable may not be in it at all.
    SecretRef {
        secret: String,
        key: String,
        whole: bool,
    },
}

impl EnvValue {
    /// The literal text, when the value is not a reference.
    pub fn text(&self) -> Option<&str> {
        match self {
            EnvValue::Text(t) => Some(t),
            EnvValue::FromEnv { text, .. } => Some(text),
            EnvValue::SecretRef { .. } => None,
        }
    }
}

/// Deployment settings read along with the environment (service, workload, Secret names).
#[derive(Debug, Clone, Default)]
pub struct DeployHints {
    /// The compose service or Kubernetes workload name.
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// The Secret of the first `secretKeyRef`.
    pub secret_name: Option<String>,
    /// The container's image as written (`ghcr.io/…/admin-ui:1.0.0_dev`), and where: its tag
    /// names the edition when the variables do not (`edition::from_image`).
    pub image: Option<(String, Origin)>,
    /// The Kubernetes container read (its node in the stream), for the workload lint.
    pub container: Option<Origin>,
    /// The workload's replica count as written (a Deployment's `spec.replicas`, compose's
    /// `deploy.replicas`): carried into `deploy.replicas` when that setting takes it.
    pub replicas: Option<(String, Origin)>,
    /// What the file sets that a profile cannot carry (ports, probes, resources, ...): `import`
    /// names it as left out; `lint`, which writes no profile, does not.
    pub left_out: Diagnostics,
}

/// How to read a file.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions<'a> {
    /// The format; `None` detects it from the file name and content.
    pub format: Option<Format>,
    /// The compose service, or the Kubernetes container / workload / ConfigMap, to read; needed
    /// when the file has several.
    pub service: Option<&'a str>,
    /// The folder compose `env_file` paths are relative to (the compose file's folder).
    pub base_dir: Option<&'a Path>,
}

/// What a reader found.
#[derive(Debug, Clone)]
pub struct Read {
    pub format: Format,
    /// The file read (further sources are env_files).
    pub source: SourceId,
    /// The environment, each variable once (the definition that wins), in order.
    pub entries: Vec<EnvEntry>,
    pub deploy: DeployHints,
    /// Problems of the file itself (syntax, placeholders, overridden definitions, ...).
    pub diagnostics: Diagnostics,
}

/// Reads a file. `Err` is an I/O problem with the file itself (exit code 2); everything else is
/// diagnostics in the result.
pub fn read_file(
    path: &Path,
    options: &ReadOptions<'_>,
    sources: &mut Sources,
) -> Result<Read, String> {
    let (display, bytes) =
        crate::profile::read_input_or_stdin(path, sources.inputs()).map_err(|e| e.0)?;
    let base_dir = options.base_dir.or_else(|| path.parent());
    let options = ReadOptions {
        base_dir,
        ..*options
    };
    Ok(read_bytes(&display, bytes, &options, sources))
}

/// Reads file content that came from `name`.
pub fn read_bytes(
    name: &str,
    bytes: Vec<u8>,
    options: &ReadOptions<'_>,
    sources: &mut Sources,
) -> Read {
    match String::from_utf8(bytes) {
        Ok(text) => read_text(name, &text, options, sources),
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let source = sources.add(name, text);
            let mut diagnostics = Diagnostics::default();
            diagnostics.push(
                Diagnostic::new(Code::InputSyntax, "the file is not valid UTF-8")
                    .at(Origin::new(
                        source,
                        at..at + char::REPLACEMENT_CHARACTER.len_utf8(),
                    ))
                    .label("invalid byte here"),
            );
            Read {
                format: options.format.unwrap_or(Format::Dotenv),
                source,
                entries: Vec::new(),
                deploy: DeployHints::default(),
                diagnostics,
            }
        }
    }
}

/// Reads text that came from `name` (the name is shown in diagnostics and used for detection).
pub fn read_text(name: &str, text: &str, options: &ReadOptions<'_>, sources: &mut Sources) -> Read {
    let source = sources.add(name, text);
    let mut diagnostics = Diagnostics::default();
    let mut deploy = DeployHints::default();
    let format = match options.format.or_else(|| format_by_name(name)) {
        Some(format) => Ok(format),
        None => detect(name, text, source),
    };
    let (format, entries) = match format {
        Err(diags) => {
            diagnostics.extend(diags);
            (Format::Dotenv, Vec::new())
        }
        Ok(Format::Dotenv) => {
            let (entries, diags) = dotenv::read(text, source);
            diagnostics.extend(diags);
            (Format::Dotenv, entries)
        }
        Ok(format) => match yaml::parse(text, source) {
            Err(diags) => {
                diagnostics.extend(diags);
                (format, Vec::new())
            }
            Ok(docs) if format == Format::Compose => {
                let entries = compose::read(
                    &docs,
                    source,
                    options,
                    &mut deploy,
                    sources,
                    &mut diagnostics,
                );
                (format, entries)
            }
            Ok(docs) => {
                let entries = k8s::read(&docs, source, options, &mut deploy, &mut diagnostics);
                (format, entries)
            }
        },
    };
    let entries = kept_secret(entries, sources, &mut diagnostics);
    Read {
        format,
        source,
        entries,
        deploy,
        diagnostics,
    }
}

/// A process's own environment (`preflight --from-env`), read as a `.env` file of its
/// `NAME=value` pairs would be, each value taken as it is (no quotes, escapes or `$`): the
/// diagnostics point at `name:line:col` of that text, and a secret's value is never shown.
/// Line N is the Nth variable: a line break (or other control character) inside a name or a
/// value is shown escaped (`\n`), so it cannot shift the lines of the variables after it.
pub fn read_environment(name: &str, pairs: &[(String, String)], sources: &mut Sources) -> Read {
    use crate::support::escape::one_line;
    let mut text = String::new();
    let mut spans = Vec::with_capacity(pairs.len());
    for (var, value) in pairs {
        let (var_shown, value_shown) = (one_line(var), one_line(value));
        let at = text.len();
        text.push_str(&var_shown);
        text.push('=');
        let value_at = text.len();
        spans.push((
            at..at + var_shown.len(),
            value_at..value_at + value_shown.len(),
        ));
        text.push_str(&value_shown);
        text.push('\n');
    }
    let source = sources.add(name, text);
    let entries = (pairs.iter().zip(spans))
        .map(|((var, value), (name_span, value_span))| EnvEntry {
            name: var.clone(),
            value: EnvValue::Text(value.clone()),
            name_origin: Origin::new(source, name_span),
            origin: Origin::new(source, value_span),
        })
        .collect();
    let mut diagnostics = Diagnostics::default();
    let entries = kept_secret(entries, sources, &mut diagnostics);
    Read {
        format: Format::Dotenv,
        source,
        entries,
        deploy: DeployHints::default(),
        diagnostics,
    }
}

/// Marks every secret value read as one no printer shows, then keeps each variable once.
fn kept_secret(
    entries: Vec<EnvEntry>,
    sources: &mut Sources,
    diagnostics: &mut Diagnostics,
) -> Vec<EnvEntry> {
    for entry in &entries {
        let secret_name = crate::diag::redact::secret_var_of_env(&entry.name).is_some()
            || crate::diag::redact::nearly_names_a_secret(&entry.name)
            || crate::diag::redact::names_a_credential(&entry.name);
        if secret_name && !matches!(entry.value, EnvValue::SecretRef { .. }) {
            sources.mark_secret(entry.origin);
        } else if let Some(text) = entry.value.text() {
            sources.mark_url_password(entry.origin, text);
        }
    }
    effective(entries, sources, diagnostics)
}

/// The format by content: YAML with `services` is compose, with `kind` (or `env`) Kubernetes;
/// anything that is not a YAML mapping is a `.env` file.
fn detect(name: &str, text: &str, source: SourceId) -> Result<Format, Diagnostics> {
    let yaml_name = [".yml", ".yaml", ".json"]
        .iter()
        .any(|ext| name.to_ascii_lowercase().ends_with(ext));
    match yaml::parse(text, source) {
        Ok(docs) => match format_by_content(&docs) {
            Some(format) => Ok(format),
            None if yaml_name || is_yaml_mapping(&docs) => {
                let mut diags = Diagnostics::default();
                diags.push(
                    Diagnostic::new(
                        Code::InputShape,
                        "this YAML is neither a compose file nor Kubernetes manifests",
                    )
                    .at(Origin::new(source, 0..0))
                    .help("a compose file has `services:`; a manifest has `kind:` (ConfigMap, Pod, Deployment, ...)"),
                );
                Err(diags)
            }
            None => Ok(Format::Dotenv),
        },
        Err(diags) if yaml_name => Err(diags),
        Err(_) => Ok(Format::Dotenv),
    }
}

/// The format a file name says: `.env` files, YAML files (content decides which), or nothing.
fn format_by_name(name: &str) -> Option<Format> {
    let file = Path::new(name)
        .file_name()
        .map(|f| f.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if file == ".env" || file.starts_with(".env.") || file.ends_with(".env") || file == "env" {
        return Some(Format::Dotenv);
    }
    if file.contains("compose") && (file.ends_with(".yml") || file.ends_with(".yaml")) {
        return Some(Format::Compose);
    }
    None
}

fn is_yaml_mapping(docs: &[yaml::Node]) -> bool {
    docs.first().is_some_and(|d| d.entries().is_some())
}

/// Compose has `services`; a manifest has `kind` (or is a bare `env:` list).
fn format_by_content(docs: &[yaml::Node]) -> Option<Format> {
    if docs.iter().any(|d| d.get("services").is_some()) {
        return Some(Format::Compose);
    }
    if docs
        .iter()
        .any(|d| d.get("kind").is_some() || d.get("env").is_some())
    {
        return Some(Format::Kubernetes);
    }
    None
}

/// Each variable once: a later definition wins, as in every reader of these formats; the ones it
/// overrides are reported. Names are indexed, so this is linear in the number of entries.
fn effective(entries: Vec<EnvEntry>, sources: &Sources, diags: &mut Diagnostics) -> Vec<EnvEntry> {
    let mut slots: Vec<Option<EnvEntry>> = Vec::with_capacity(entries.len());
    let mut slot_of: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for entry in entries {
        if let Some(earlier) = slot_of.get(&entry.name).and_then(|&i| slots[i].take()) {
            let at = sources.line_col(entry.name_origin.source, entry.name_origin.start);
            let file = &sources.get(entry.name_origin.source).name;
            diags.push(
                Diagnostic::new(
                    Code::Overridden,
                    format!(
                        "`{}` is set again at {file}:{}:{}: this value is not used",
                        entry.name, at.line, at.column
                    ),
                )
                .at(earlier.name_origin)
                .label("overridden")
                .help("remove one of the two definitions"),
            );
        }
        slot_of.insert(entry.name.clone(), slots.len());
        slots.push(Some(entry));
    }
    slots.into_iter().flatten().collect()
}

/// Reads `text` as `format` (the readers' unit tests).
#[cfg(test)]
fn read_as(
    format: Format,
    name: &str,
    text: &str,
    service: Option<&str>,
    dir: Option<&Path>,
) -> Read {
    let options = ReadOptions {
        format: Some(format),
        service,
        base_dir: dir,
    };
    read_text(name, text, &options, &mut Sources::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name() {
        assert_eq!(format_by_name("x/.env"), Some(Format::Dotenv));
        assert_eq!(format_by_name("prod.env"), Some(Format::Dotenv));
        assert_eq!(format_by_name(".env.local"), Some(Format::Dotenv));
        assert_eq!(format_by_name("docker-compose.yml"), Some(Format::Compose));
        assert_eq!(format_by_name("k8s.yaml"), None);
    }

    #[test]
    fn content_decides_without_a_telling_name() {
        let cases = [
            ("a", "A=1\nB='x'\n", Format::Dotenv, 2),
            (
                "b.yaml",
                "kind: ConfigMap\nmetadata: {name: x}\ndata:\n  A: \"1\"\n",
                Format::Kubernetes,
                1,
            ),
            (
                "c",
                "services:\n  s:\n    environment:\n      A: x\n",
                Format::Compose,
                1,
            ),
        ];
        for (name, text, format, count) in cases {
            let mut sources = Sources::new();
            let read = read_text(name, text, &ReadOptions::default(), &mut sources);
            assert_eq!(read.format, format, "{name}");
            assert_eq!(read.entries.len(), count, "{name}");
            assert_eq!(read.entries[0].name, "A", "{name}");
            assert!(!read.diagnostics.has_errors(), "{name}");
        }
    }

    #[test]
    fn the_last_definition_wins_and_the_others_are_reported() {
        let mut sources = Sources::new();
        let read = read_text(
            ".env",
            "A=1\nB=2\nA=3\n",
            &ReadOptions::default(),
            &mut sources,
        );
        let pairs: Vec<_> = read
            .entries
            .iter()
            .map(|e| (e.name.as_str(), e.value.text().unwrap()))
            .collect();
        assert_eq!(pairs, [("B", "2"), ("A", "3")]);
        assert_eq!(read.diagnostics.items[0].code, Code::Overridden);
        assert!(read.diagnostics.items[0].message.contains(".env:3:1"));
    }
}
