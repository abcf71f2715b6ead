//! The deployment's checks: what a target cannot carry (or a reader would read differently) and
//! what a deployment lacks. Every diagnostic of a deployment is made here (or, for a secret
//! asked for that cannot be read, where the environment is built), once, by
//! [`decide`](super::decide), which `validate`, `render`, `krm`, the language server and the
//! playground all call, so that `validate` fails exactly where `render` would. Renderers only
//! format.

use super::Carrier;
use super::env::EnvVar;
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::Resolved;
use crate::resolve::deploy::Mounts;
use crate::templates::dotenv_quote;
use crate::value_type::formats;

/// Every diagnostic about `env` and the profile's host paths as `target` would carry them
/// (errors stop that target). What a deployment lacks is checked once for all the targets
/// rendered together ([`deployed`]).
pub fn target(row: &Carrier, resolved: &Resolved, env: &[EnvVar]) -> Diagnostics {
    if let Some(refused) = not_deployed(row, resolved) {
        return Diagnostics {
            items: vec![refused],
        };
    }
    let mut found = row
        .checks
        .map(|check| check(resolved, env))
        .unwrap_or_default();
    found.extend(super::api_access::kube_config(row, resolved));
    if row.renders_workload {
        (found.items).extend(resolved.deploy.image_findings.iter().cloned());
    }
    if row.in_cluster {
        for var in env {
            if let Some(from) = &var.deploy_env {
                found.push(deploy_time_refused(var, &from.name));
            }
        }
    }
    found
}

/// A target of a deployment the profile says it is not for (`deploy.compose = false`,
/// `deploy.kubernetes = false`), asked for by name (`validate` and `render --out-dir` leave it
/// out): refused. Rendered, it would be a file nothing checked (the deployment's checks, W0331,
/// W0341 and the workload's, are off by the profile's own word) that may not start.
fn not_deployed(row: &Carrier, resolved: &Resolved) -> Option<Diagnostic> {
    let how = row
        .runs_container
        .filter(|how| !resolved.deploy.deploys(Some(*how)))?;
    let setting = how.setting();
    Some(
        Diagnostic::new(
            Code::Unwritable,
            format!(
                "the profile says it is not deployed with {} (`{setting} = false`): target `{}` is not rendered",
                how.deployment(),
                row.name
            ),
        )
        .at_opt(resolved.deploy.declared_at)
        .label(format!("`{setting} = false`"))
        .help(format!(
            "remove `{} = false` from [deploy] to deploy it with {} too (its checks then apply), or render another target",
            setting.strip_prefix("deploy.").unwrap_or(setting),
            how.deployment()
        )),
    )
}

/// The checks of the `k8s` target: every variable a key of its ConfigMap or Secret, each
/// object within Kubernetes' size limit, the RoleBindings' namespace.
pub fn k8s(resolved: &Resolved, env: &[EnvVar]) -> Diagnostics {
    let mut diags = k8s_data_keys(env);
    diags.extend(k8s_object_sizes(env));
    diags.extend(super::api_access::binding_namespace(resolved));
    diags
}

/// The checks of the `dotenv` target ([`dotenv_values`]).
pub fn dotenv(_: &Resolved, env: &[EnvVar]) -> Diagnostics {
    dotenv_values(env)
}

/// The checks of the `deploy-notes` target ([`command_paths`]).
pub fn deploy_notes(resolved: &Resolved, _: &[EnvVar]) -> Diagnostics {
    command_paths(resolved)
}

/// What a deployment of `resolved` by `targets` lacks (warnings): a file the image opens at
/// start with no source that the targets mount (compose mounts `host` sources, Kubernetes
/// `secret` and `configmap` ones: their rows' `runs_container`; only the ways the profile says it
/// is deployed, `deploy.compose` and `deploy.kubernetes`), a host its users reach left at
/// loopback. Checked once for all the targets, so that one cause covering several gives one
/// warning naming them (`validate` renders them all: it says what `render --out-dir` says).
/// Nothing for targets that start no container.
pub fn deployed(resolved: &Resolved, targets: &[Carrier]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let mut mounts: Vec<(Mounts, Vec<&'static str>)> = Vec::new();
    let mut runs = false;
    for row in targets {
        let Some(how) = row.runs_container else {
            continue;
        };
        runs = true;
        if !resolved.deploy.deploys(Some(how)) {
            // The profile says it is not deployed this way (deploy.compose, deploy.kubernetes).
            continue;
        }
        match mounts.iter_mut().find(|(known, _)| *known == how) {
            Some((_, names)) => names.push(row.name),
            None => mounts.push((how, vec![row.name])),
        }
    }
    if !runs {
        return diags;
    }
    crate::resolve::deploy::credentials::check(resolved, &mounts, &mut diags);
    points_at_pod(resolved, &mut diags);
    diags
}

/// Whether a loopback value of `var` would point at the container once deployed (W0333): a host
/// its users reach, whatever wrote it, or a service it connects to left at its default (a value
/// the profile `written` may be a sidecar). `svcgen init` asks for such a key's real value.
pub fn must_not_be_loopback(var: &crate::model::Var, written: bool) -> bool {
    var.reached_from_outside || (var.reached_by_container && !written)
}

/// A host the image builds its users' URLs from (the model's `reached_from_outside`), left at
/// (or set to) a loopback name, or the address of a service the container connects to
/// (`reached_by_container`) left at its loopback default: in compose or Kubernetes each points at
/// the container itself. A loopback the profile writes for a service may be a sidecar: not
/// flagged. An empty value is left out, so the image uses its default: it is flagged as left.
fn points_at_pod(resolved: &Resolved, diags: &mut Diagnostics) {
    for var in resolved.vars.iter() {
        let flagged = must_not_be_loopback(var.var, var.origin.is_some());
        let Some(text) = var.value.env_text().filter(|_| flagged) else {
            continue;
        };
        let how = if var.origin.is_some() {
            "is"
        } else {
            "is left at"
        };
        if formats::is_loopback_url(&text) {
            diags.push(pod_warning(
                var.var,
                how,
                &text,
                resolved.deployment_origin(var),
            ));
        }
    }
    for (var, at) in &resolved.emptied {
        let default = var
            .default
            .value()
            .filter(|_| must_not_be_loopback(var, false));
        if let Some(text) = default.filter(|text| formats::is_loopback_url(text)) {
            let how = "is empty, so the image uses its default";
            diags.push(pod_warning(var, how, text, *at));
        }
    }
}

/// W0333 for `var`, whose value in effect (`how` it came to be) is the loopback `text`.
fn pod_warning(var: &crate::model::Var, how: &str, text: &str, at: Origin) -> Diagnostic {
    let (what, help) = if var.reached_from_outside {
        (
            "the endpoints built from it point at the container itself",
            "the host name the token server is reached at",
        )
    } else {
        (
            "the container would connect to itself",
            "the address of the service (a sidecar on loopback: write it explicitly)",
        )
    };
    Diagnostic::new(
        Code::PointsAtPod,
        format!(
            "`{}` {how} \"{}\": rendered for compose or Kubernetes, {what}",
            var.key,
            formats::without_password(text)
        ),
    )
    .at(at)
    .label("points at the pod")
    .help(format!("set `{}` to {help} ({})", var.key, var.env))
}

/// A deploy-time value (`{ deploy_env = "X" }`) asked of a Kubernetes target: a pod expands
/// `$(X)` only from its own variables, never from the deploying shell, so no spelling carries it.
fn deploy_time_refused(var: &EnvVar, from: &str) -> Diagnostic {
    // An `[env]` entry's profile key is `env.NAME` (what `--set` takes).
    let key = var
        .key
        .clone()
        .unwrap_or_else(|| format!("env.{}", var.name));
    Diagnostic::new(
        Code::Unwritable,
        format!(
            "`{key}` is filled in at deploy time from the variable {from}, which the Kubernetes targets cannot carry"
        ),
    )
    .at_opt(var.origin)
    .label(format!("from {from} at deploy time"))
    .help(format!(
        "Kubernetes expands $({from}) only from the container's own variables, never from the deploying shell: \
         give the value for this render (--set {key}=VALUE), or render the compose or dotenv target (-t compose,dotenv)"
    ))
}

/// What `validate` says of a deploy-time value, once: where it can be rendered and where not.
pub fn deploy_time_note(key: &str, origin: Option<Origin>, from: &str) -> Diagnostic {
    Diagnostic::new(
        Code::DeployTimeValue,
        format!(
            "`{key}` is filled in at deploy time from the variable {from}: compose and .env write ${{{from}}}; the Kubernetes targets refuse it"
        ),
    )
    .at_opt(origin)
    .label(format!("from {from} at deploy time"))
    .help(format!(
        "render --out-dir writes the targets that carry it (.env, docker-compose.yml) and leaves \
         out the Kubernetes ones, as -t compose or -t dotenv do; for Kubernetes, give the value \
         (--set {key}=VALUE). \
         `docker run --env-file` does not expand ${{{from}}}. Acknowledge with allow = [\"{}\"]",
        Code::DeployTimeValue.id()
    ))
}

/// DEPLOY.md prints host paths as shell words in the commands of a Markdown code block: a line
/// break there ends the command and lets the rest of the path close the block (a fence on its
/// own line) and write Markdown or commands of its own. Quoting cannot keep a line break inside
/// one line, so a host path with any control character is refused.
fn command_paths(resolved: &Resolved) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for file in &resolved.deploy.files {
        let Some(host) = &file.host else { continue };
        if let Some(c) = host
            .chars()
            .find(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
        {
            diags.push(
                Diagnostic::new(
                    Code::Unwritable,
                    format!(
                        "the host path of `{}` holds a control character ({}): DEPLOY.md cannot print it in a command",
                        file.key,
                        c.escape_default()
                    ),
                )
                .at(file.origin)
                .label("host path with a control character")
                .help("rename the file: a host path must be one line of printable characters"),
            );
        }
    }
    diags
}

/// Every value that `.env` cannot carry (an error) or that a reader people use would read
/// differently (a warning naming the reader), as diagnostics at the value.
fn dotenv_values(env: &[EnvVar]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for var in env {
        let Some(value) = &var.value else { continue };
        match dotenv_quote::quote_line(&var.name, value) {
            Err(why) => diags.push(
                Diagnostic::new(
                    Code::Unwritable,
                    format!("{} cannot be written to a .env file: {why}", var.name),
                )
                .at_opt(var.origin)
                .label("cannot be written to .env")
                .help("use another target (compose, k8s) for this value, or change it"),
            ),
            Ok(spelling) if !spelling.differs.is_empty() => {
                diags.push(reader_differs(var, &spelling.differs));
            }
            Ok(_) => {}
        }
    }
    diags
}

fn reader_differs(var: &EnvVar, readers: &[dotenv_quote::Reader]) -> Diagnostic {
    let names: Vec<&str> = readers.iter().map(|r| r.describe()).collect();
    Diagnostic::new(
        Code::DotenvReaderDiffers,
        format!(
            "{} in .env: {} would read a different value",
            var.name,
            names.join(" and ")
        ),
    )
    .at_opt(var.origin)
    .label("no .env spelling suits every reader")
    .help(
        "docker compose v2 reads the .env as written; give this value to the other readers \
         another way (the compose or k8s target, `docker run -e`), or change it",
    )
}

/// Every variable is a key of the ConfigMap or the Secret of `k8s.yaml`: its name must be a valid
/// key (an `[env]` name of 254 characters is a valid variable name, but not a key).
fn k8s_data_keys(env: &[EnvVar]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for var in env {
        if let Err(problem) = formats::k8s_data_key(&var.name) {
            diags.push(
                Diagnostic::new(
                    Code::K8sLimit,
                    format!(
                        "`{}` cannot be a ConfigMap or Secret key: {}",
                        var.name, problem.message
                    ),
                )
                .at_opt(var.origin)
                .label("not a Kubernetes key")
                .help("a key has at most 253 letters, digits, `-`, `_` and `.`"),
            );
        }
    }
    diags
}

/// The ConfigMap of the variables, and the Secret of the secret ones, must fit Kubernetes' limit
/// on one object's data; reported at the variable that passes it.
fn k8s_object_sizes(env: &[EnvVar]) -> Diagnostics {
    use crate::resolve::deploy::checks::{K8S_OBJECT_DATA_MAX, object_too_large};
    let mut diags = Diagnostics::default();
    for (secret, what) in [
        (false, "ConfigMap of the variables"),
        (true, "Secret of the secret variables"),
    ] {
        let mut total: u64 = 0;
        for var in env.iter().filter(|v| v.secret == secret) {
            let Some(value) = &var.value else { continue };
            let before = total;
            total = total.saturating_add((var.name.len() + value.len()) as u64);
            if before <= K8S_OBJECT_DATA_MAX
                && total > K8S_OBJECT_DATA_MAX
                && let Some(origin) = var.origin
            {
                diags.push(object_too_large(what, total, origin));
            }
        }
    }
    diags
}
