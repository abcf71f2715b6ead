//! `{ deploy_env = "DB_HOST" }` (optionally with `default = ...`): a value filled in at deploy
//! time from a variable of the deploying environment, as compose's `${DB_HOST}` and
//! `${DB_PORT:-5432}` are. svcgen never knows the value: it checks the default through the
//! variable's type, keeps the variable's name, and each target writes it in its own syntax
//! (compose `${X:?…}` / `${X:-d}`, `.env` `${X}` / `${X:-d}`); Kubernetes has no such step and
//! its targets refuse it, naming the variable (`deployment::checks`).
//!
//! A selector (an adapter, the persistence type, the hybrid mapping) decides which variables
//! apply and a secret is already read from the environment (`{ env = "NAME" }`): neither can be
//! deferred.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Condition, Model, Var};
use crate::profile::{Entry, Node, Value};
use crate::value_type::Typed;
use crate::value_type::{Context, is_env_name};

/// The key naming the deploying environment's variable.
pub const DEPLOY_ENV: &str = "deploy_env";
/// The key of the value used when that variable is unset or empty.
pub const DEFAULT: &str = "default";

pub use crate::value_type::Deferred;

/// `Some` when `node` is the deferred form (a table with `deploy_env`): its typed value, or
/// `None` inside when it is malformed (with diagnostics). `None` for any other value.
pub fn read(
    var: &Var,
    node: &Node,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<Option<Typed>> {
    let Value::Table(table) = &node.value else {
        return None;
    };
    table.get(DEPLOY_ENV)?;
    if let Some(why) = cannot_defer(var) {
        diags.push(
            Diagnostic::new(
                Code::NotAllowed,
                format!("`{}` cannot be filled in at deploy time: {why}", var.key),
            )
            .at(node.origin)
            .label("deploy-time value")
            .help(match var.secret {
                true => format!("write {{ env = \"{}\" }}", var.env),
                false => "write the value itself".to_string(),
            }),
        );
        return Some(None);
    }
    let read_default = |entry: &Entry, diags: &mut Diagnostics| default_of(var, entry, cx, diags);
    Some(read_form(&var.key, table, read_default, diags).map(Typed::Deferred))
}

/// The form's two keys, for the key `key` (a profile key or `env.NAME`); the default is read by
/// `read_default`. `None` (with diagnostics) when malformed.
pub fn read_form(
    key: &str,
    table: &crate::profile::Table,
    mut read_default: impl FnMut(&Entry, &mut Diagnostics) -> Option<Typed>,
    diags: &mut Diagnostics,
) -> Option<Deferred> {
    let mut ok = true;
    let mut name = None;
    let mut default = None;
    for entry in &table.entries {
        match entry.key.as_str() {
            DEPLOY_ENV => match &entry.node.value {
                Value::String(text) if is_env_name(text) => name = Some(text.clone()),
                value => {
                    ok = false;
                    let field = format!("{key}.{DEPLOY_ENV}");
                    // A string that is no variable's name is E0212, as a secret's `env` is.
                    let d = match value {
                        Value::String(_) => Diagnostic::new(
                            Code::EnvName,
                            format!("`{field}` must name an environment variable"),
                        ),
                        other => Diagnostic::wrong_type(
                            &field,
                            "the name of an environment variable",
                            other.type_name(),
                        ),
                    };
                    diags.push(
                        d.at(entry.node.origin)
                        .label("not a variable name")
                        .help("letters, digits and `_`, not starting with a digit: { deploy_env = \"DB_HOST\" }"),
                    );
                }
            },
            DEFAULT => match read_default(entry, diags) {
                Some(typed) => default = Some(Box::new(typed)),
                None => ok = false,
            },
            other => {
                ok = false;
                diags.push(
                    Diagnostic::new(Code::UnknownKey, format!("`{key}` has no `{other}`"))
                        .at(entry.key_origin)
                        .label("unknown key")
                        .help(format!(
                            "a deploy-time value is {{ {DEPLOY_ENV} = \"NAME\" }}, with an optional {DEFAULT} = VALUE"
                        )),
                );
            }
        }
    }
    Some(Deferred {
        var: name?,
        default,
    })
    .filter(|_| ok)
}

/// A default as text fits inside `${X:-…}` for every reader of compose and `.env` files.
pub fn default_text_problem(text: &str) -> Option<String> {
    let bad = text
        .chars()
        .find(|c| c.is_whitespace() || c.is_control() || "${}\"'\\#`".contains(*c));
    match bad {
        Some(c) => Some(format!("holds {c:?}")),
        None if text.is_empty() => Some("empty".to_string()),
        None => None,
    }
}

/// The default of `key` refused because its text cannot go inside `${X:-…}`.
pub fn unwritable_default(
    key: &str,
    problem: String,
    at: crate::diag::source::Origin,
) -> Diagnostic {
    Diagnostic::new(
        Code::Unwritable,
        format!("the default of `{key}` cannot be written inside `${{NAME:-…}}`"),
    )
    .at(at)
    .label(problem)
    .help("a default of letters, digits and `.:/@%+,-_=` reads the same in compose and .env; write the value itself otherwise")
}

/// Why `var` cannot be deferred, if it cannot.
pub fn cannot_defer(var: &Var) -> Option<&'static str> {
    let model = Model::get();
    if var.secret {
        return Some("it is a secret, which is always supplied from the environment");
    }
    let decides = var.selector
        || var.key == model.backends.mapping
        || model.groups.iter().any(|g| {
            g.when
                .iter()
                .any(|c| matches!(c, Condition::KeyEquals { key, .. } if *key == var.key))
        });
    decides.then_some("it decides which variables apply, which svcgen must know when rendering")
}

/// The default, read by the variable's type; its text must also fit inside `${X:-…}` as every
/// reader of compose files and `.env` files reads it.
fn default_of(
    var: &Var,
    entry: &Entry,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<Typed> {
    let typed = var.ty.rules().read(var, &entry.node, cx, diags)?;
    match default_text_problem(&typed.env_text()?) {
        None => Some(typed),
        Some(problem) => {
            diags.push(unwritable_default(&var.key, problem, entry.node.origin));
            None
        }
    }
}
