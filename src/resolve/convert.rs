//! Turning one profile value into the typed value of its variable, with every per-value check.

use super::formats::{self, Problem};
use super::typed::{SecretSource, Typed};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Unit, Var, VarType};
use crate::profile::{Entry, Node, Table, Value};
use crate::source::Origin;
use crate::suggest::did_you_mean;
use std::path::Path;

/// What conversion needs besides the value.
pub struct Context<'a> {
    /// The texts of the profile, for the folder of relative `{ file = "..." }` secrets.
    pub sources: &'a crate::source::Sources,
}

/// Converts `entry` for `var`; `None` (with diagnostics) when the value is not acceptable.
pub fn convert(
    var: &Var,
    entry: &Entry,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<Typed> {
    let node = &entry.node;
    let key = &var.key;
    match var.ty {
        VarType::Bool => match &node.value {
            Value::Bool(b) => Some(Typed::Bool(*b)),
            other => wrong_type(var, node, other, diags),
        },
        VarType::Port => integer(var, node, 1, 65535, diags).map(Typed::Int),
        VarType::Integer => {
            integer(var, node, var.min.unwrap_or(1), i64::MAX, diags).map(Typed::Int)
        }
        VarType::PluginList => plugin_list(var, node, diags).map(Typed::List),
        VarType::HybridMapping => hybrid_mapping(var, node, diags).map(Typed::Mapping),
        VarType::Secret => secret(var, node, cx, diags).map(Typed::Secret),
        _ => {
            let text = match &node.value {
                Value::String(s) => s,
                other => return wrong_type(var, node, other, diags),
            };
            if text.contains('\0') {
                diags.push(
                    Diagnostic::new(
                        Code::ControlChar,
                        format!("`{key}` contains a NUL character"),
                    )
                    .at(node.origin)
                    .help("environment variables cannot hold NUL"),
                );
                return None;
            }
            string_form(var, text, node.origin, diags).then(|| Typed::Text(text.clone()))
        }
    }
}

/// Checks a string value against its type's form; false (with a diagnostic) when it fails.
fn string_form(var: &Var, text: &str, origin: Origin, diags: &mut Diagnostics) -> bool {
    let key = &var.key;
    if var.ty == VarType::Enum {
        return allowed_value(var, text, origin, diags);
    }
    if text.trim().is_empty() {
        if var.allowed_not_shown {
            diags.push(
                Diagnostic::new(Code::NotAllowed, format!("`{key}` cannot be empty"))
                    .at(origin)
                    .label("empty")
                    .help("the spec does not show the allowed values: any non-empty string is accepted")
                    .help(format!("remove the key to use the default, {}", var.default.describe())),
            );
            return false;
        }
        // The empty string means "leave unset"; its form does not matter.
        if text.is_empty() {
            return true;
        }
    }
    let checked = formats::check(var.ty, text);
    match checked {
        Ok(()) => true,
        Err(Problem {
            message,
            suggestion,
        }) => {
            let mut d =
                Diagnostic::new(Code::BadFormat, format!("`{key}` = \"{text}\": {message}"))
                    .at(origin)
                    .label(format!("expected {}", var.ty.describe()));
            if let Some(s) = suggestion {
                d = d.help(format!("did you mean \"{s}\"?"));
            }
            if var.ty == VarType::Hostname && message.contains("port") {
                let model = crate::model::Model::get();
                let port_key = var
                    .key
                    .rsplit_once('.')
                    .map(|(table, _)| format!("{table}.port"));
                if let Some(port_key) =
                    port_key.filter(|k| model.entries_by_key(k).next().is_some())
                {
                    d = d.help(format!("the port has its own key, `{port_key}`"));
                }
            }
            diags.push(d);
            false
        }
    }
}

/// Checks a value against the variable's allowed list for this edition, with "did you mean".
fn allowed_value(var: &Var, text: &str, origin: Origin, diags: &mut Diagnostics) -> bool {
    let allowed = var.allowed.as_deref().unwrap_or_default();
    if allowed.iter().any(|a| a == text) {
        return true;
    }
    diags.push(not_allowed(var, allowed, text, origin));
    false
}

/// The "value not allowed" diagnostic, shared by enums and the hybrid mapping's backends.
pub fn not_allowed(var: &Var, allowed: &[String], text: &str, origin: Origin) -> Diagnostic {
    let list = allowed
        .iter()
        .map(|a| format!("\"{a}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let suggestion = var.suggest_value(text, allowed);
    // Name the edition only when the allowed values are the edition's own.
    let in_edition = match var.editions.as_slice() {
        [one] => format!(" in edition {one}"),
        _ => String::new(),
    };
    Diagnostic::new(
        Code::NotAllowed,
        format!("`{}` cannot be \"{text}\"{in_edition}", var.key),
    )
    .at(origin)
    .label("not an allowed value")
    .help(format!("allowed values: {list}"))
    .suggest_value(origin, suggestion)
}

fn wrong_type<T>(var: &Var, node: &Node, found: &Value, diags: &mut Diagnostics) -> Option<T> {
    let mut d = Diagnostic::new(
        Code::WrongType,
        format!(
            "`{}` must be {}, found {}",
            var.key,
            var.ty.describe(),
            found.type_name()
        ),
    )
    .at(node.origin)
    .label(format!("expected {}", var.ty.name()));
    if let Value::Float(f) = found
        && matches!(var.ty, VarType::Port | VarType::Integer)
        && f.fract() == 0.0
        && f.abs() < 1e15
    {
        d = d.help(format!(
            "write {} (an integer, without a decimal point)",
            *f as i64
        ));
    }
    if let Value::String(s) = found {
        match var.ty {
            VarType::Bool if matches!(s.as_str(), "true" | "false") => {
                d = d.help(format!("write {s} without quotes"));
            }
            VarType::Bool => {
                d = d.help("write true or false, without quotes (the container reads any other text as false)");
            }
            VarType::Port | VarType::Integer => {
                if let Some(n) = as_count(s, var.unit) {
                    d = d.help(format!("write {n} without quotes"));
                }
                if let Some(unit) = var.unit {
                    d = d.help(format!("the value is a whole number of {}", unit.words()));
                }
            }
            _ => {}
        }
    }
    diags.push(d);
    None
}

/// A quoted number or duration (`"10s"`) read as a count in `unit`, for the help text.
fn as_count(text: &str, unit: Option<Unit>) -> Option<i64> {
    let text = text.trim();
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: i64 = digits.trim().parse().ok()?;
    let suffix = &text[digits.len()..];
    let millis = match suffix {
        "" => return Some(n),
        "ms" => n,
        "s" => n.checked_mul(1000)?,
        "m" | "min" => n.checked_mul(60_000)?,
        _ => return None,
    };
    match unit? {
        Unit::Milliseconds => Some(millis),
        Unit::Seconds if millis % 1000 == 0 => Some(millis / 1000),
        Unit::Seconds => None,
    }
}

fn integer(var: &Var, node: &Node, min: i64, max: i64, diags: &mut Diagnostics) -> Option<i64> {
    let n = match &node.value {
        Value::Integer(n) => *n,
        other => return wrong_type(var, node, other, diags),
    };
    if (min..=max).contains(&n) {
        return Some(n);
    }
    let range = if max == i64::MAX {
        match var.unit {
            Some(unit) => format!("a whole number of {} of at least {min}", unit.words()),
            None => format!("at least {min}"),
        }
    } else {
        format!("from {min} to {max}")
    };
    diags.push(
        Diagnostic::new(
            Code::OutOfRange,
            format!("`{}` = {n} is out of range", var.key),
        )
        .at(node.origin)
        .label(format!("expected {range}"))
        .help(format!("{} must be {range}", var.key)),
    );
    None
}

fn plugin_list(var: &Var, node: &Node, diags: &mut Diagnostics) -> Option<Vec<String>> {
    let items = match &node.value {
        Value::Array(items) => items,
        other => return wrong_type(var, node, other, diags),
    };
    let mut names: Vec<(String, Origin)> = Vec::new();
    let mut ok = true;
    for item in items {
        let Value::String(name) = &item.value else {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    format!(
                        "each of `{}` must be a string, found {}",
                        var.key,
                        item.value.type_name()
                    ),
                )
                .at(item.origin)
                .label("expected a plugin name"),
            );
            ok = false;
            continue;
        };
        if let Err(Problem {
            message,
            suggestion,
        }) = formats::plugin_name(name)
        {
            let mut d = Diagnostic::new(
                Code::PluginName,
                format!("plugin name \"{name}\": {message}"),
            )
            .at(item.origin)
            .label("invalid plugin name")
            .help("a plugin is an archive <name>.zip; list <name> only");
            if let Some(s) = suggestion {
                d = d.help(format!("did you mean \"{s}\"?"));
            }
            diags.push(d);
            ok = false;
            continue;
        }
        if names.iter().any(|(n, _)| n == name) {
            diags.push(
                Diagnostic::new(
                    Code::PluginName,
                    format!("plugin \"{name}\" is listed twice"),
                )
                .at(item.origin)
                .label("duplicate")
                .help("list each plugin once"),
            );
            ok = false;
            continue;
        }
        names.push((name.clone(), item.origin));
    }
    ok.then(|| names.into_iter().map(|(n, _)| n).collect())
}

fn hybrid_mapping(
    var: &Var,
    node: &Node,
    diags: &mut Diagnostics,
) -> Option<Vec<(String, String)>> {
    let table: &Table = match &node.value {
        Value::Table(t) => t,
        other => return wrong_type(var, node, other, diags),
    };
    let mut ok = known_categories(var, table, diags);
    let mut pairs = Vec::with_capacity(var.mapping_keys.len());
    for category in &var.mapping_keys {
        match category_backend(var, node, table, category, diags) {
            Some(backend) => pairs.push((category.clone(), backend)),
            None => ok = false,
        }
    }
    ok.then_some(pairs)
}

/// True when every key of the mapping is a data category; reports the others.
fn known_categories(var: &Var, table: &Table, diags: &mut Diagnostics) -> bool {
    let mut ok = true;
    for entry in &table.entries {
        if !var.mapping_keys.contains(&entry.key) {
            let suggestion = did_you_mean(&entry.key, var.mapping_keys.iter().map(String::as_str));
            let keys = var.mapping_keys.join(", ");
            diags.push(
                Diagnostic::new(
                    Code::HybridKeyUnknown,
                    format!("`{}` has no data category `{}`", var.key, entry.key),
                )
                .at(entry.key_origin)
                .label("not a data category")
                .help(format!("the mapping has exactly these keys: {keys}"))
                .suggest(suggestion)
                .replace_with_opt(entry.key_origin, suggestion),
            );
            ok = false;
        }
    }
    ok
}

/// The backend the mapping (`node`, `table`) names for one data category, or `None` with a
/// diagnostic when it is missing, not a string or not a backend of the edition.
fn category_backend(
    var: &Var,
    node: &Node,
    table: &Table,
    category: &str,
    diags: &mut Diagnostics,
) -> Option<String> {
    let allowed = var.allowed.as_deref().unwrap_or_default();
    let Some(entry) = table.get(category) else {
        diags.push(
            Diagnostic::new(
                Code::HybridKeyMissing,
                format!("`{}` is missing the data category `{category}`", var.key),
            )
            .at(node.origin)
            .label(format!("no `{category}` here"))
            .help(format!(
                "add `{category} = \"<backend>\"`; backends: {}",
                allowed.join(", ")
            ))
            .fix(crate::diag::Fix::AddKey {
                key: format!("{}.{category}", var.key),
            }),
        );
        return None;
    };
    match &entry.node.value {
        Value::String(backend) if allowed.contains(backend) => Some(backend.clone()),
        Value::String(backend) => {
            let mut d = not_allowed(var, allowed, backend, entry.node.origin);
            if *backend == crate::model::Model::get().backends.mixed {
                d = d.help(format!(
                    "\"{backend}\" is a persistence type, not a backend"
                ));
            }
            d.message = format!(
                "`{}.{category}` cannot be \"{backend}\": not a backend of edition {}",
                var.key,
                var.editions_text()
            );
            diags.push(d);
            None
        }
        other => {
            diags.push(backend_not_a_string(
                format!(
                    "`{}.{category}` must be a backend name, found {}",
                    var.key,
                    other.type_name()
                ),
                entry.node.origin,
                allowed,
            ));
            None
        }
    }
}

/// A value of the hybrid mapping that is not a string (read from a profile or from JSON text).
pub fn backend_not_a_string(message: String, at: Origin, allowed: &[String]) -> Diagnostic {
    Diagnostic::new(Code::WrongType, message)
        .at(at)
        .label("expected a string")
        .help(format!("backends: {}", allowed.join(", ")))
}

const REFERENCE_HELP: &str = "write { env = \"NAME\" } to read it from an environment variable, or { file = \"PATH\" } to read it from a file";

fn secret(
    var: &Var,
    node: &Node,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<SecretSource> {
    match &node.value {
        Value::String(s) => {
            diags.push(
                Diagnostic::new(
                    Code::SecretInProfile,
                    format!(
                        "`{}` is a secret written in clear text in the profile",
                        var.key
                    ),
                )
                .at(node.origin)
                .label("secret in clear text")
                .help(REFERENCE_HELP)
                .replace_with(node.origin, format!("{{ env = \"{}\" }}", var.env)),
            );
            Some(SecretSource::Literal(s.clone()))
        }
        Value::Table(table) if table.entries.len() == 1 => {
            secret_reference(var, &table.entries[0], cx, diags)
        }
        _ => {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    format!("`{}` must be {}", var.key, var.ty.describe()),
                )
                .at(node.origin)
                .label(format!("found {}", node.value.type_name()))
                .help(REFERENCE_HELP),
            );
            None
        }
    }
}

/// A secret given by reference: `{ env = "NAME" }` or `{ file = "PATH" }` (a relative path is
/// relative to the folder of the file that wrote it).
fn secret_reference(
    var: &Var,
    entry: &crate::profile::Entry,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<SecretSource> {
    match (entry.key.as_str(), &entry.node.value) {
        ("env", Value::String(name)) if is_env_name(name) => Some(SecretSource::Env(name.clone())),
        ("env", _) => {
            diags.push(
                Diagnostic::new(
                    Code::EnvName,
                    format!("`{}`: `env` must name an environment variable", var.key),
                )
                .at(entry.node.origin)
                .label("expected a name like MY_PASSPHRASE"),
            );
            None
        }
        ("file", Value::String(path)) if !path.is_empty() => {
            let path = Path::new(path);
            let full = match cx.sources.dir_of(entry.node.origin) {
                Some(dir) if path.is_relative() => dir.join(path),
                _ => path.to_path_buf(),
            };
            Some(SecretSource::File {
                written: path.display().to_string(),
                path: full,
            })
        }
        ("file", _) => {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    format!("`{}`: `file` must be a path", var.key),
                )
                .at(entry.node.origin)
                .label("expected a path string"),
            );
            None
        }
        (other, _) => {
            diags.push(
                Diagnostic::new(
                    Code::UnknownKey,
                    format!("`{}` has no key `{other}`", var.key),
                )
                .at(entry.key_origin)
                .label("unknown key")
                .help("a secret reference is { env = \"NAME\" } or { file = \"PATH\" }")
                .suggest(did_you_mean(other, ["env", "file"])),
            );
            None
        }
    }
}

/// A valid environment variable name: a letter or `_`, then letters, digits and `_`.
pub fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_strings_become_counts_for_help() {
        assert_eq!(as_count("10s", Some(Unit::Milliseconds)), Some(10_000));
        assert_eq!(as_count("10s", Some(Unit::Seconds)), Some(10));
        assert_eq!(as_count("2m", Some(Unit::Seconds)), Some(120));
        assert_eq!(as_count("8500", None), Some(8500));
        assert_eq!(as_count("1500ms", Some(Unit::Seconds)), None);
        assert_eq!(as_count("abc", None), None);
    }

    #[test]
    fn env_names() {
        assert!(is_env_name("MY_VAR1"));
        assert!(is_env_name("_X"));
        assert!(!is_env_name("1X"));
        assert!(!is_env_name("MY-VAR"));
        assert!(!is_env_name(""));
    }
}
