//! One variable's value as the container reads it, turned into the value a profile holds: the
//! container's reading of booleans and numbers, allowed values per edition, URL and path forms,
//! plugin lists, empty values, secrets (never copied into a profile).

use super::{EnvEntry, EnvValue};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Edition, Model, Var, VarType};
use crate::resolve::formats;
use crate::source::{Origin, Sources};

/// A value as the profile holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileValue {
    Text(String),
    Bool(bool),
    Int(i64),
    List(Vec<String>),
    /// The hybrid mapping, in the model's key order.
    Mapping(Vec<(String, String)>),
    /// A secret read from this environment variable: `{ env = "NAME" }`.
    EnvRef(String),
}

impl ProfileValue {
    /// The text the container gets (`None` for a reference).
    pub fn env_text(&self) -> Option<String> {
        match self {
            ProfileValue::Text(t) => Some(t.clone()),
            ProfileValue::Bool(b) => Some(b.to_string()),
            ProfileValue::Int(n) => Some(n.to_string()),
            ProfileValue::List(items) => Some(items.join(",")),
            ProfileValue::Mapping(pairs) => {
                let object: serde_json::Map<String, serde_json::Value> = pairs
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str())))
                    .collect();
                Some(serde_json::Value::Object(object).to_string())
            }
            ProfileValue::EnvRef(_) => None,
        }
    }
}

pub fn secret_ref_elsewhere(entry: &EnvEntry, secret: &str, key: &str) -> Diagnostic {
    Diagnostic::new(
        Code::NotImported,
        format!(
            "`{}` comes from key `{key}` of Secret `{secret}`: it is not imported",
            entry.name
        ),
    )
    .at(entry.origin)
    .label("secretKeyRef")
    .help("a profile takes only secret variables of the spec from a Secret; other values are written in it")
}

/// The profile value of one spec variable, or `None` (with diagnostics) when it has none.
pub fn value(
    var: &'static Var,
    entry: &EnvEntry,
    edition: Edition,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<ProfileValue> {
    let text = match text_or_reference(var, entry, diags) {
        Ok(text) => text,
        Err(reference) => return reference,
    };
    if let Some(done) = refused_text(var, entry, text, diags) {
        return done;
    }
    typed(var, entry, text, edition, sources, diags)
}

/// The text of the entry, or (`Err`) what a reference to a Secret or the environment gives.
fn text_or_reference<'e>(
    var: &Var,
    entry: &'e EnvEntry,
    diags: &mut Diagnostics,
) -> Result<&'e str, Option<ProfileValue>> {
    let name = &entry.name;
    match &entry.value {
        EnvValue::SecretRef { secret, key, .. } => {
            if var.secret {
                if key != &var.env {
                    diags.push(
                        Diagnostic::new(
                            Code::NotImported,
                            format!("`{name}` is read from key `{key}` of Secret `{secret}`; svcgen's manifests use the key `{}`", var.env),
                        )
                        .at(entry.origin)
                        .label("another key")
                        .help(format!("rename the key in the Secret to {}", var.env)),
                    );
                }
                return Err(Some(ProfileValue::EnvRef(var.env.clone())));
            }
            diags.push(secret_ref_elsewhere(entry, secret, key));
            Err(None)
        }
        EnvValue::FromEnv { var: shell, .. } if var.secret => {
            Err(Some(ProfileValue::EnvRef(shell.clone())))
        }
        EnvValue::FromEnv { text, .. } | EnvValue::Text(text) => Ok(text.as_str()),
    }
}

/// What a text that cannot be taken as it is gives (`Some`): nothing for a NUL or an empty
/// value, a reference to the environment for a secret written in clear text.
fn refused_text(
    var: &Var,
    entry: &EnvEntry,
    text: &str,
    diags: &mut Diagnostics,
) -> Option<Option<ProfileValue>> {
    let name = &entry.name;
    if text.contains('\0') {
        diags.push(
            Diagnostic::new(
                Code::ControlChar,
                format!("`{name}` contains a NUL character"),
            )
            .at(entry.origin)
            .help("environment variables cannot hold NUL"),
        );
        return Some(None);
    }
    if text.is_empty() {
        empty(var, entry, diags);
        return Some(None);
    }
    if var.secret {
        diags.push(
            Diagnostic::new(
                Code::SecretInProfile,
                format!("`{name}` is a secret written in clear text in this file"),
            )
            .at(entry.origin)
            .label("secret in clear text")
            .help(format!(
                "the profile reads it from the environment variable {} instead: set that variable when rendering or deploying",
                var.env
            )),
        );
        return Some(Some(ProfileValue::EnvRef(var.env.clone())));
    }
    None
}

/// The text read as the variable's type, as the container reads it.
fn typed(
    var: &'static Var,
    entry: &EnvEntry,
    text: &str,
    edition: Edition,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<ProfileValue> {
    let name = &entry.name;
    let at = entry.origin;
    match var.ty {
        VarType::Bool => Some(ProfileValue::Bool(boolean(name, text, at, diags))),
        VarType::Port => port(name, text, at, diags).map(ProfileValue::Int),
        VarType::Integer => integer(var, name, text, at, diags).map(ProfileValue::Int),
        VarType::Enum => allowed(var, name, text, at, edition, diags)
            .then(|| ProfileValue::Text(text.to_string())),
        VarType::HybridMapping => super::hybrid::mapping(var, entry, text, edition, sources, diags)
            .map(ProfileValue::Mapping),
        VarType::PluginList => plugins(name, text, at, diags).map(ProfileValue::List),
        VarType::String if var.allowed_not_shown && text.trim().is_empty() => {
            diags.push(
                Diagnostic::new(Code::NotAllowed, format!("`{name}` cannot be blank"))
                    .at(at)
                    .label("blank")
                    .help(format!(
                        "remove it to use the default, {}",
                        var.default.describe()
                    )),
            );
            None
        }
        _ => form(var, name, text, at, diags).then(|| ProfileValue::Text(text.to_string())),
    }
}

/// An empty value: left out of the profile (svcgen never writes one), with a warning where the
/// container tells empty from unset.
fn empty(var: &Var, entry: &EnvEntry, diags: &mut Diagnostics) {
    let name = &entry.name;
    let d = match (&var.ty, &var.default) {
        (VarType::Url | VarType::BaseUrl, _) => Diagnostic::new(
            Code::EmptyValue,
            format!("`{name}` is set to the empty string: the container treats an empty URL differently from an unset one"),
        )
        .help("remove the line to leave it unset (a profile never writes empty values)"),
        (_, DefaultValue::Value(d)) if d.is_empty() => return,
        (_, default) => Diagnostic::new(
            Code::EmptyValue,
            format!("`{name}` is set to the empty string: the container reads it as empty, not as its default ({})", default.describe()),
        )
        .help("remove the line to use the default, or give a value (a profile never writes empty values)"),
    };
    diags.push(d.at(entry.origin).label("empty"));
}

/// The container's reading of a boolean, with a warning for anything but `true` / `false`.
fn boolean(name: &str, text: &str, at: Origin, diags: &mut Diagnostics) -> bool {
    let words = &Model::get().container.true_words;
    let is_true = words.iter().any(|w| w == text);
    if text == "true" || text == "false" {
        return is_true;
    }
    let list = words.join(", ");
    let d = if is_true {
        Diagnostic::new(
            Code::NonCanonicalBool,
            format!("`{name}` = `{text}` is read as true by the container; write `true`"),
        )
        .label("read as true")
        .help("the profile writes it as true")
    } else {
        Diagnostic::new(
            Code::NonCanonicalBool,
            format!("`{text}` is read as false by the container"),
        )
        .label("read as false")
        .help(format!(
            "the container reads only {list} as true; anything else is false"
        ))
        .help(format!("write `false`, or `true` if `{name}` should be on"))
    };
    diags.push(d.at(at));
    is_true
}

fn port(name: &str, text: &str, at: Origin, diags: &mut Diagnostics) -> Option<i64> {
    let digits = text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<i64>() {
        Ok(n) if digits && (1..=65535).contains(&n) => Some(n),
        Ok(_) if digits => {
            diags.push(
                Diagnostic::new(
                    Code::OutOfRange,
                    format!("`{name}` = {text} is not a port from 1 to 65535"),
                )
                .at(at)
                .label("out of range"),
            );
            None
        }
        _ => {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    format!("`{name}` = `{text}` is not a port number"),
                )
                .at(at)
                .label("expected a port number")
                .help("a port is an integer from 1 to 65535"),
            );
            None
        }
    }
}

fn integer(var: &Var, name: &str, text: &str, at: Origin, diags: &mut Diagnostics) -> Option<i64> {
    let min = var.min.unwrap_or(1);
    let unit = var.unit.map_or("", |u| u.words());
    let parsed = text
        .strip_prefix('-')
        .unwrap_or(text)
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| text.parse::<i64>().ok())
        .flatten();
    match (parsed, var.falls_back) {
        (Some(n), _) if n >= min => Some(n),
        (Some(n), true) => {
            diags.push(
                Diagnostic::new(
                    Code::FallsBack,
                    format!("`{name}` = {n} is below {min}: the container uses {min}"),
                )
                .at(at)
                .label(format!("read as {min}"))
                .help(format!("the profile writes {min}")),
            );
            Some(min)
        }
        (Some(n), false) => {
            diags.push(
                Diagnostic::new(Code::OutOfRange, format!("`{name}` = {n} is below {min}"))
                    .at(at)
                    .label(format!("at least {min}"))
                    .help(format!("a whole number of {unit} of at least {min}")),
            );
            None
        }
        (None, true) => {
            let default = var.default.describe();
            diags.push(
                Diagnostic::new(
                    Code::FallsBack,
                    format!("`{name}` = `{text}` is not an integer: the container silently falls back to {default}"),
                )
                .at(at)
                .label("not an integer")
                .help(format!("write a whole number of {unit}; the profile leaves it out (the default)")),
            );
            None
        }
        (None, false) => {
            diags.push(
                Diagnostic::new(
                    Code::WrongType,
                    format!("`{name}` = `{text}` is not an integer"),
                )
                .at(at)
                .label("expected an integer")
                .help(format!("a whole number of {unit} of at least {min}")),
            );
            None
        }
    }
}

/// Checks an enum value for the edition, with "did you mean" and the other edition's values.
fn allowed(
    var: &Var,
    name: &str,
    text: &str,
    at: Origin,
    edition: Edition,
    diags: &mut Diagnostics,
) -> bool {
    let values = var.allowed.as_deref().unwrap_or_default();
    if values.iter().any(|a| a == text) {
        return true;
    }
    diags.push(not_allowed(var, name, values, text, at, edition));
    false
}

/// "Not an allowed value", naming the edition that allows it when one does.
pub fn not_allowed(
    var: &Var,
    name: &str,
    values: &[String],
    text: &str,
    at: Origin,
    edition: Edition,
) -> Diagnostic {
    let model = Model::get();
    let list = values
        .iter()
        .map(|a| format!("`{a}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let suggestion = var.suggest_value(text, values);
    let mut d = Diagnostic::new(
        Code::NotAllowed,
        format!("`{name}` cannot be `{text}` in edition {edition}"),
    )
    .at(at)
    .label("not an allowed value")
    .help(format!("allowed values: {list}"))
    .suggest(suggestion);
    if let Some(other) = model.entries_by_key(&var.key).find(|v| {
        v.editions != var.editions
            && v.allowed
                .as_ref()
                .is_some_and(|a| a.iter().any(|x| x == text))
    }) {
        d = d.help(format!(
            "`{text}` is a value of edition {}",
            other.editions_text()
        ));
    }
    d
}

fn plugins(name: &str, text: &str, at: Origin, diags: &mut Diagnostics) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let mut ok = true;
    for plugin in text.split(',') {
        let problem = formats::plugin_name(plugin)
            .err()
            .map(|p| p.message)
            .or_else(|| {
                names
                    .iter()
                    .any(|n| n == plugin)
                    .then(|| "it is listed twice".to_string())
            });
        match problem {
            Some(message) => {
                diags.push(
                    Diagnostic::new(
                        Code::PluginName,
                        format!("`{name}`: plugin \"{plugin}\": {message}"),
                    )
                    .at(at)
                    .label("invalid plugin list")
                    .help("a comma-separated list of plugin names, without spaces"),
                );
                ok = false;
            }
            None => names.push(plugin.to_string()),
        }
    }
    ok.then_some(names)
}

/// The form of URLs, host names, paths; strings pass.
fn form(var: &Var, name: &str, text: &str, at: Origin, diags: &mut Diagnostics) -> bool {
    let checked = formats::check(var.ty, text);
    match checked {
        Ok(()) => true,
        Err(problem) => {
            let mut d = Diagnostic::new(
                Code::BadFormat,
                format!("`{name}` = `{text}`: {}", problem.message),
            )
            .at(at)
            .label(format!("expected {}", var.ty.describe()));
            if let Some(s) = problem.suggestion {
                d = d.help(format!("did you mean `{s}`?"));
            }
            diags.push(d);
            false
        }
    }
}
