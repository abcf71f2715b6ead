//! One variable's entry turned into the value a profile holds, as far as reading the file
//! decides it: secrets (never copied into a profile) become references to the environment, a
//! reference to another Secret key or an empty value is reported, and the text is read the way
//! the container reads it (its type's `read_env_text`): nothing here checks the value.

use super::interpolate::deploy_form;
use super::{EnvEntry, EnvValue};
use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Var};
use crate::profile::{Entry, Node, Table, Value};
use crate::value_type::EnvText;
use crate::value_type::env_text::string;

/// `{ env = "NAME" }`: a secret read from an environment variable, written at `at`.
fn env_reference(name: &str, at: Origin) -> Node {
    Node {
        value: Value::Table(Table {
            entries: vec![Entry {
                key: "env".to_string(),
                key_origin: at,
                node: string(name, at),
            }],
        }),
        origin: at,
    }
}

/// True when a profile can say that `var` is filled in at deploy time (see `resolve::deferred`).
pub fn can_defer(var: &Var) -> bool {
    crate::resolve::deferred::cannot_defer(var).is_none()
}

/// `{ deploy_env = "NAME" }`, with `default = VALUE` (read as the container reads the text)
/// when the placeholder has one.
fn deploy_env(
    var: &Var,
    entry: &EnvEntry,
    shell: &str,
    default: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<Node> {
    use crate::resolve::deferred::{DEFAULT, DEPLOY_ENV};
    let at = entry.origin;
    let mut entries = vec![Entry {
        key: DEPLOY_ENV.to_string(),
        key_origin: at,
        node: string(shell, at),
    }];
    if let Some(text) = default {
        let env = EnvText::new(&entry.name, text, at, None);
        let node = var.ty.rules().read_env_text(var, &env, diags)?;
        entries.push(Entry {
            key: DEFAULT.to_string(),
            key_origin: at,
            node,
        });
    }
    Some(Node {
        value: Value::Table(Table { entries }),
        origin: at,
    })
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
    var: &Var,
    entry: &EnvEntry,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<Node> {
    let text = match text_or_reference(var, entry, diags) {
        Ok(text) => text,
        Err(reference) => return reference,
    };
    if let Some(done) = refused_text(var, entry, text, diags) {
        return done;
    }
    // The container's reading of the text is its type's rule; resolve checks the value.
    let written = sources
        .get(entry.origin.source)
        .text
        .get(entry.origin.span());
    let env = EnvText::new(&entry.name, text, entry.origin, written);
    var.ty.rules().read_env_text(var, &env, diags)
}

/// The text of the entry, or (`Err`) what a reference to a Secret or the environment gives.
fn text_or_reference<'e>(
    var: &Var,
    entry: &'e EnvEntry,
    diags: &mut Diagnostics,
) -> Result<&'e str, Option<Node>> {
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
                return Err(Some(env_reference(&var.env, entry.origin)));
            }
            diags.push(secret_ref_elsewhere(entry, secret, key));
            Err(None)
        }
        EnvValue::FromEnv { var: shell, text } if var.secret => {
            // A secret is only ever read from the environment: a default written after the
            // placeholder (`${PASS:-…}`) cannot be kept, and is said to be dropped (not shown).
            if deploy_form(text).is_some_and(|(_, default)| default.is_some()) {
                diags.push(
                    Diagnostic::new(
                        Code::NotImported,
                        format!(
                            "`{name}` takes a default when ${shell} is unset; a secret comes only \
                             from the environment, so the default is left out"
                        ),
                    )
                    .at(entry.origin)
                    .label("default left out")
                    .help(format!(
                        "set {shell} wherever the container is deployed: the profile reads it as \
                         {{ env = \"{shell}\" }}"
                    )),
                );
            }
            Err(Some(env_reference(shell, entry.origin)))
        }
        EnvValue::FromEnv { text, .. } if can_defer(var) => match deploy_form(text) {
            Some((shell, default)) => Err(deploy_env(var, entry, shell, default, diags)),
            None => Ok(text.as_str()),
        },
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
) -> Option<Option<Node>> {
    let name = &entry.name;
    if text.contains('\0') {
        diags.push(Diagnostic::nul_char(name).at(entry.origin));
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
        return Some(Some(env_reference(&var.env, entry.origin)));
    }
    None
}

/// An empty value: left out of the profile (svcgen never writes one), with a warning where the
/// container tells empty from unset (its type's rule, or a default that is not empty).
fn empty(var: &Var, entry: &EnvEntry, diags: &mut Diagnostics) {
    let name = &entry.name;
    let rules = var.ty.rules();
    let d = match &var.default {
        _ if rules.empty_env_text_differs() => Diagnostic::new(
            Code::EmptyValue,
            format!("`{name}` is set to the empty string: the container treats an empty {} differently from an unset one", rules.name()),
        )
        .help("remove the line to leave it unset (a profile never writes empty values)"),
        DefaultValue::Value(d) if d.is_empty() => return,
        default => Diagnostic::new(
            Code::EmptyValue,
            format!("`{name}` is set to the empty string: the container reads it as empty, not as its default ({})", default.describe()),
        )
        .help("remove the line to use the default, or give a value (a profile never writes empty values)"),
    };
    diags.push(d.at(entry.origin).label("empty"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Model, VarType};

    /// The warning an empty value of `var` gets, if any.
    fn empty_warning(var: &Var) -> Option<String> {
        let mut sources = Sources::new();
        let line = format!("{}=\n", var.env);
        let id = sources.add("a.env", line.clone());
        let entry = EnvEntry {
            name: var.env.clone(),
            value: EnvValue::Text(String::new()),
            name_origin: Origin::new(id, 0..var.env.len()),
            origin: Origin::new(id, line.len() - 1..line.len() - 1),
        };
        let mut diags = Diagnostics::default();
        assert!(value(var, &entry, &sources, &mut diags).is_none());
        assert!(diags.items.len() <= 1, "{:?}", diags.items);
        let d = diags.items.first()?;
        assert_eq!((d.code, d.origin), (Code::EmptyValue, Some(entry.origin)));
        Some(d.message.clone())
    }

    /// An empty URL is told from an unset one whatever its default; another empty value only
    /// where its default is not empty.
    #[test]
    fn an_empty_value_is_warned_of_where_the_container_tells_it_from_unset() {
        let model = Model::get();
        let of_type = |ty| {
            (model.vars.iter())
                .find(|v| v.ty == ty && !v.secret)
                .expect("a var")
        };
        for (ty, words) in [
            (VarType::Url, "an empty URL"),
            (VarType::BaseUrl, "an empty base URL"),
        ] {
            let message = empty_warning(of_type(ty)).expect("a warning");
            assert!(message.contains(words), "{message}");
        }
        let with_default = (model.vars.iter())
            .find(|v| {
                v.ty == VarType::String
                    && !v.secret
                    && v.default.value().is_some_and(|d| !d.is_empty())
            })
            .expect("a string with a default");
        let message = empty_warning(with_default).expect("a warning");
        assert!(message.contains("not as its default"), "{message}");
        let empty_default = (model.vars.iter())
            .find(|v| v.ty == VarType::String && !v.secret && v.default.value() == Some(""))
            .expect("a string whose default is empty");
        assert_eq!(empty_warning(empty_default), None);
    }
}
