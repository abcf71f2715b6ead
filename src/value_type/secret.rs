//! `secret`: a reference read at render time (`{ env = "NAME" }`, `{ file = "PATH" }`), or the
//! value itself in clear text (warned about). Never written in clear text unless asked.

use super::{Context, Offer, TypeRules, ValueDoc, object, patterns};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Var;
use crate::profile::{Entry, Node, Table, Value};
use crate::resolve::{SecretSource, Typed};
use crate::source::Origin;
use crate::suggest::did_you_mean;
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
            _ => {
                diags.push(
                    Diagnostic::new(
                        Code::WrongType,
                        format!("`{}` must be {}", var.key, self.describe()),
                    )
                    .at(node.origin)
                    .label(format!("found {}", node.value.type_name()))
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
    fn env_names() {
        assert!(is_env_name("MY_VAR1"));
        assert!(is_env_name("_X"));
        assert!(!is_env_name("1X"));
        assert!(!is_env_name("MY-VAR"));
        assert!(!is_env_name(""));
    }
}
