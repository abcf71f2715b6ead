//! `secret`: a reference read at render time (`{ env = "NAME" }`, `{ file = "PATH" }`), or the
//! value itself in clear text (warned about). Never written in clear text unless asked.

use super::{Context, Offer, TypeRules, ValueDoc, object, patterns};
use super::{SecretSource, Typed};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Var;
use crate::profile::{Entry, Node, Table, Value};
use crate::support::suggest::did_you_mean;
use serde_json::{Map, Value as Json, json};
use std::path::Path;

pub(super) struct Secret;

const REFERENCE_HELP: &str = "write { env = \"NAME\" } to read it from an environment variable, or { file = \"PATH\" } to read it from a file";

impl TypeRules for Secret {
    words!(
        "secret",
        "a secret: { env = \"NAME\" }, { file = \"PATH\" } or a string (not recommended)"
    );

    fn read(&self, var: &Var, node: &Node, cx: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        let source = match &node.value {
            Value::String(s) => {
                diags.push(in_clear_text(var, node.origin));
                Some(SecretSource::Literal(s.clone()))
            }
            Value::Table(table) if table.entries.len() == 1 => {
                reference(var, &table.entries[0], cx, diags)
            }
            other => {
                // A reference is a table of one key: say how many this one has.
                let found = match other {
                    Value::Table(table) => format!("a table of {} keys", table.entries.len()),
                    other => other.type_name().to_string(),
                };
                diags.push(
                    Diagnostic::wrong_type(&var.key, self.describe(), &found)
                        .at(node.origin)
                        .label(format!("found {found}"))
                        .help(REFERENCE_HELP),
                );
                None
            }
        };
        source.map(Typed::Secret)
    }

    /// `--set-file` gives the path of the file holding the secret: a `{ file = PATH }`
    /// reference, so that its value is never copied into the profile.
    fn set_file_value(&self, path: &str, origin: Origin) -> Option<Value> {
        Some(Value::Table(Table {
            entries: vec![Entry {
                key: "file".to_string(),
                key_origin: origin,
                node: Node {
                    value: Value::String(path.to_string()),
                    origin,
                },
            }],
        }))
    }

    fn schema(&self, var: &Var) -> Map<String, Json> {
        object(json!({
            "type": ["string", "object"],
            "properties": {
                "env": {
                    "type": "string",
                    "pattern": patterns::ENV_NAME,
                    "description": "Read the value from this environment variable when rendering."
                },
                "file": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Read the value from this file (relative to the profile) when rendering."
                }
            },
            "additionalProperties": false,
            "minProperties": 1,
            "maxProperties": 1,
            "examples": [{ "env": var.env }]
        }))
    }

    /// A default shown by the spec is no value to put in a schema.
    fn json_default(&self, _text: &str) -> Option<Json> {
        None
    }

    /// A reference to an environment variable named after the key (`MY_PASSPHRASE`).
    fn init_placeholder(&self, _var: &Var, word: &str) -> Option<toml::Value> {
        let mut table = toml::Table::new();
        let name = word.replace('-', "_").to_ascii_uppercase();
        table.insert("env".to_string(), toml::Value::from(name));
        Some(toml::Value::Table(table))
    }

    fn init_form_hint(&self, _var: &Var) -> Option<String> {
        Some(format!("The value is {}", self.describe()))
    }

    /// A reference to the environment variable of the container's own name.
    fn editor_placeholder(&self, var: &Var) -> toml_edit::Value {
        let mut table = toml_edit::InlineTable::new();
        table.insert("env", toml_edit::Value::from(var.env.as_str()));
        toml_edit::Value::InlineTable(table)
    }

    fn editor_values(&self, var: &Var, _doc: ValueDoc<'_>) -> Vec<Offer> {
        vec![(
            format!("{{ env = \"{}\" }}", var.env),
            Some("read the secret from this environment variable at render time".to_string()),
        )]
    }
}

/// The warning of a secret written in clear text, with the reference to write instead.
fn in_clear_text(var: &Var, origin: Origin) -> Diagnostic {
    Diagnostic::new(
        Code::SecretInProfile,
        format!(
            "`{}` is a secret written in clear text in the profile",
            var.key
        ),
    )
    .at(origin)
    .label("secret in clear text")
    .help(REFERENCE_HELP)
    .replace_with(origin, format!("{{ env = \"{}\" }}", var.env))
}

/// A secret given by reference: `{ env = "NAME" }` or `{ file = "PATH" }` (a relative path is
/// relative to the folder of the file that wrote it).
fn reference(
    var: &Var,
    entry: &Entry,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<SecretSource> {
    match (entry.key.as_str(), &entry.node.value) {
        ("env", Value::String(name)) if is_env_name(name) => Some(SecretSource::Env(name.clone())),
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
        ("env" | "file", _) => {
            diags.push(bad_reference(var, entry));
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

/// A reference whose `env` is not an environment variable's name, or whose `file` is not a
/// path: what was found, and what is accepted.
fn bad_reference(var: &Var, entry: &Entry) -> Diagnostic {
    let found = match &entry.node.value {
        Value::String(text) if text.is_empty() => "an empty string".to_string(),
        Value::String(text) => format!("\"{text}\""),
        other => other.type_name().to_string(),
    };
    if entry.key != "env" {
        let key = format!("{}.{}", var.key, entry.key);
        return Diagnostic::wrong_type(&key, "a path", &found)
            .at(entry.node.origin)
            .label("expected a path string");
    }
    Diagnostic::new(
        Code::EnvName,
        format!(
            "`{}`: `{}` must name an environment variable, found {found}",
            var.key, entry.key
        ),
    )
    .at(entry.node.origin)
    .label("expected a name like MY_PASSPHRASE")
    .help("a name is letters, digits and `_`, not starting with a digit")
}

/// The rule of environment variable names is the model's (the loader needs it too).
pub use crate::model::is_env_name;

#[cfg(test)]
mod tests {
    use super::*;

    /// The diagnostic of a one-entry reference `{ key = value }` of a secret variable.
    fn refused(key: &str, value: Value) -> Diagnostic {
        let var = (crate::model::Model::get().vars.iter())
            .find(|v| v.ty == crate::model::VarType::Secret)
            .expect("the model has a secret");
        let mut sources = crate::diag::source::Sources::new();
        let at = Origin::new(sources.add("p.toml", "x"), 0..1);
        let node = Node { value, origin: at };
        let table = Table {
            entries: vec![Entry {
                key: key.to_string(),
                key_origin: at,
                node,
            }],
        };
        let node = Node {
            value: Value::Table(table),
            origin: at,
        };
        let mut diags = Diagnostics::default();
        let cx = Context { sources: &sources };
        assert!(Secret.read(var, &node, &cx, &mut diags).is_none());
        assert_eq!(diags.items.len(), 1, "{:?}", diags.items);
        diags.items.remove(0)
    }

    /// A reference that is not a name or a path says what it found and what is accepted.
    #[test]
    fn a_bad_reference_names_what_was_found() {
        let text = |t: &str| Value::String(t.to_string());
        for (key, value, code, found) in [
            ("env", text("1-X"), Code::EnvName, "found \"1-X\""),
            ("env", Value::Integer(5), Code::EnvName, "found an integer"),
            ("file", text(""), Code::WrongType, "found an empty string"),
            (
                "file",
                Value::Bool(true),
                Code::WrongType,
                "found a boolean",
            ),
        ] {
            let d = refused(key, value);
            assert_eq!(d.code, code, "{key}");
            assert!(d.message.contains(found), "{}", d.message);
            let accepted = if key == "env" {
                "must name an environment variable"
            } else {
                "must be a path"
            };
            assert!(d.message.contains(accepted), "{}", d.message);
        }
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
