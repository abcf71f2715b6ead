//! What `validate` checks beyond resolution: the checks of rendering, for every deployable
//! target, so that a profile `validate` accepts is one `render` renders. [`report`] is the one
//! function giving a checked profile's diagnostics: the command line, the language server and
//! the browser playground call it, so all report the same.

use crate::deployment::checks;
use crate::diag::Diagnostics;
use crate::pipeline::Checked;
use crate::render::{EnvOptions, HostReader, Rendered, Target, Templates, render_checked};
use crate::resolve::{Resolved, Typed};

/// A value filled in at deploy time (`{ deploy_env = "X" }`): its profile key, where it is
/// written, and the variable it comes from.
pub struct DeployTimeValue {
    pub key: String,
    pub origin: Option<crate::diag::source::Origin>,
    pub var: String,
}

/// Every deploy-time value of `resolved`, spec variables first, then `[env]` entries.
pub fn deploy_time_values(resolved: &Resolved) -> Vec<DeployTimeValue> {
    let vars = resolved.vars.iter().filter_map(|rv| match &rv.value {
        Typed::Deferred(d) => Some(DeployTimeValue {
            key: rv.var.key.clone(),
            origin: rv.origin,
            var: d.var.clone(),
        }),
        _ => None,
    });
    let extras = resolved.extras.iter().filter_map(|extra| {
        Some(DeployTimeValue {
            key: format!("env.{}", extra.name),
            origin: Some(extra.origin),
            var: extra.deploy_env.as_ref()?.var.clone(),
        })
    });
    vars.chain(extras).collect()
}

/// The targets of `targets` that can carry a deploy-time value (not the Kubernetes ones): what
/// `validate` checks and `render --out-dir` writes, without `-t`, for a profile that has one.
pub fn carrying_deploy_time(targets: &[Target]) -> Vec<Target> {
    targets
        .iter()
        .copied()
        .filter(|t| !t.in_cluster())
        .collect()
}

/// The targets of `targets` of the deployments the profile is for (`Deploy::deploys`): what
/// `validate` checks and `render --out-dir` writes without `-t`.
pub fn deployed_targets(resolved: &Resolved, targets: &[Target]) -> Vec<Target> {
    targets
        .iter()
        .copied()
        .filter(|t| (resolved.deploy).deploys(crate::render::targets::row(*t).runs_container))
        .collect()
}

/// What `validate` reports on a profile the pipeline checked.
pub struct Report {
    /// Resolve's diagnostics, then those of the render checks (for a resolved profile).
    pub diagnostics: Diagnostics,
    /// Templates that failed, worded for people (each also an error among `diagnostics`).
    pub template_errors: Vec<String>,
}

/// Every diagnostic `validate` gives for `checked`: resolve's, and for a profile that resolved,
/// those of [`render_checks`] (host files read through `reader`, `None` where there is no file
/// system).
pub fn report(
    checked: &Checked,
    include_secrets: bool,
    templates: &Templates,
    reader: Option<HostReader<'_>>,
) -> Report {
    let mut diagnostics = checked.diagnostics.clone();
    let mut template_errors = Vec::new();
    if let Some(resolved) = &checked.resolved {
        let rendered = render_checks(resolved, include_secrets, templates, reader);
        template_errors = crate::templates::messages(&rendered.template_errors);
        diagnostics.extend(rendered.diagnostics);
    }
    Report {
        diagnostics,
        template_errors,
    }
}

/// Renders every deployable target of `resolved` as `render --out-dir` would (host paths as
/// written, no host file copied) and keeps what it found: diagnostics and template errors. Host
/// files are read through `reader` (`None` in the browser, which has no file system). A profile
/// with deploy-time values (`{ deploy_env = "X" }`) is checked for the targets that carry them,
/// with one warning per value saying the Kubernetes targets refuse it (as `render -t k8s` does).
pub fn render_checks(
    resolved: &Resolved,
    include_secrets: bool,
    templates: &Templates,
    reader: Option<HostReader<'_>>,
) -> Rendered {
    let options = EnvOptions {
        minimal: false,
        include_secrets,
        copy_host_files: false,
    };
    let deferred: Vec<_> = deploy_time_values(resolved)
        .into_iter()
        .map(|v| checks::deploy_time_note(&v.key, v.origin, &v.var))
        .collect();
    // What `render --out-dir` writes: the deployable targets and those the profile opts into.
    let mut all = Target::ALL.to_vec();
    all.extend(crate::render::targets::opted_in(resolved));
    let deployed = deployed_targets(resolved, &all);
    if deferred.is_empty() {
        return render_checked(resolved, options, &deployed, templates, None, reader);
    }
    let targets = carrying_deploy_time(&deployed);
    let mut out = render_checked(resolved, options, &targets, templates, None, reader);
    out.diagnostics.items.extend(deferred);
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    out
}
