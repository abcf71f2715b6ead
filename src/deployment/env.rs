//! The environment as renderers see it: one ordered list of names and string values, computed once
//! from a [`Resolved`] profile and shared by every target.

use crate::diag::Diagnostics;
use crate::diag::{Code, Diagnostic};
use crate::resolve::{Resolved, ResolvedVar, SecretSource, Typed};

use crate::diag::source::Origin;
use serde::Serialize;

/// One variable of the rendered environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EnvVar {
    /// The variable's name.
    pub name: String,
    /// The value, as the container reads it; none for a secret that is not written (see
    /// `secret_from`).
    pub value: Option<String>,
    /// For a secret not written: where the operator supplies it from (one line of text).
    pub secret_from: Option<String>,
    /// For a secret not written: the variable the operator sets when deploying (the profile's
    /// `{ env = "NAME" }`, else the variable's own name).
    pub supply_as: Option<String>,
    /// For a value filled in at deploy time (`{ deploy_env = "X" }`): the variable that fills it.
    pub deploy_env: Option<DeployEnv>,
    /// The profile key; none for an `[env]` extra.
    pub key: Option<String>,
    /// The value is the spec's default.
    pub default: bool,
    /// The variable's value is a secret.
    pub secret: bool,
    /// Where the value was set, for diagnostics; `None` for defaults.
    #[serde(skip)]
    pub origin: Option<Origin>,
}

/// A value the deploying environment fills in: its variable and the default (the container's
/// text) used when that variable is unset or empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DeployEnv {
    /// The variable of the deploying environment that fills the value in.
    pub name: String,
    /// The value used when that variable is unset or empty (the container's text); none: the
    /// deployment fails when it is unset.
    pub default: Option<String>,
}

/// What goes into the environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnvOptions {
    /// Keep only selectors and values that differ from the defaults.
    pub minimal: bool,
    /// Read secret values and write them in clear text.
    pub include_secrets: bool,
    /// The outputs go into a folder of their own (`--out-dir`): the kustomize base refers to
    /// copies of the host files there (secret ones only with `include_secrets`).
    pub copy_host_files: bool,
}

/// Builds the environment; reading a secret that is asked for may fail.
pub fn environment(resolved: &Resolved, options: EnvOptions) -> Result<Vec<EnvVar>, Diagnostics> {
    let mut diags = Diagnostics::default();
    let mut out = Vec::with_capacity(resolved.vars.len() + resolved.extras.len());
    for rv in &resolved.vars {
        let default = rv.is_default();
        if options.minimal && default && !rv.var.selector {
            continue;
        }
        let (value, secret_from) = match &rv.value {
            Typed::Secret(source) if options.include_secrets => match source.read() {
                Ok(v) => (Some(v), None::<String>),
                Err(why) => {
                    diags.push(unreadable_secret(rv, &why));
                    continue;
                }
            },
            Typed::Secret(source) => (None, Some(one_line(&source.describe()))),
            other => (other.env_text(), None),
        };
        let supply_as = match &rv.value {
            Typed::Secret(SecretSource::Env(name)) if value.is_none() => Some(name.clone()),
            Typed::Secret(_) if value.is_none() => Some(rv.var.env.clone()),
            _ => None,
        };
        let deploy_env = match &rv.value {
            Typed::Deferred(deferred) => Some(DeployEnv {
                name: deferred.var.clone(),
                default: deferred.default_text(),
            }),
            _ => None,
        };
        out.push(EnvVar {
            name: rv.var.env.clone(),
            value,
            secret_from,
            supply_as,
            deploy_env,
            key: Some(rv.var.key.clone()),
            default,
            secret: rv.var.secret,
            origin: rv.origin,
        });
    }
    for extra in &resolved.extras {
        let deploy_env = extra.deploy_env.as_ref().map(|d| DeployEnv {
            name: d.var.clone(),
            default: d.default_text(),
        });
        out.push(EnvVar {
            name: extra.name.clone(),
            value: Some(extra.value.clone()).filter(|_| deploy_env.is_none()),
            secret_from: None,
            supply_as: None,
            deploy_env,
            key: None,
            default: false,
            secret: false,
            origin: Some(extra.origin),
        });
    }
    if diags.has_errors() {
        Err(diags)
    } else {
        Ok(out)
    }
}

/// A secret that `--include-secrets` asks for and that cannot be read.
pub fn unreadable_secret(var: &ResolvedVar, why: &str) -> Diagnostic {
    Diagnostic::new(
        Code::SecretUnavailable,
        format!("cannot read `{}`: {why}", var.var.key),
    )
    .at_opt(var.origin)
    .label("secret reference")
    .help("set the variable or create the file, or render without --include-secrets")
}

/// With `--include-secrets` a secret's `{ file = PATH }` that a profile writes is read into an
/// output: only from inside the profile's root, as a host file is (see
/// [`crate::support::root`]). A `--set-file` path is named on the command line, not by the
/// profile: it is the operator's own.
pub fn secret_files_outside(
    resolved: &Resolved,
    root: Option<&crate::support::root::Root>,
    sources: &crate::diag::source::Sources,
) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let Some(root) = root else {
        return diags;
    };
    for rv in &resolved.vars {
        let Typed::Secret(SecretSource::File { path, .. }) = &rv.value else {
            continue;
        };
        let on_command_line =
            (rv.origin).is_some_and(|o| sources.get(o.source).name.starts_with("--"));
        if let (false, Err(why)) = (on_command_line, root.admit(path, "the secret file")) {
            diags.push(unreadable_secret(rv, &why));
        }
    }
    diags
}

/// Text made safe for a one-line comment.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
