//! What `validate` checks beyond resolution: the checks of rendering, for every deployable
//! target, so that a profile `validate` accepts is one `render` renders. [`report`] is the one
//! function giving a checked profile's diagnostics: the command line, the language server and
//! the browser playground call it, so all report the same.

use crate::diag::Diagnostics;
use crate::pipeline::Checked;
use crate::render::checks;
use crate::render::{EnvOptions, HostReader, Rendered, Target, Templates, render_checked};
use crate::resolve::{Resolved, Typed};

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
    let vars = resolved.vars.iter().filter_map(|rv| match &rv.value {
        Typed::Deferred(d) => Some(checks::deploy_time_note(&rv.var.key, rv.origin, &d.var)),
        _ => None,
    });
    let extras = resolved.extras.iter().filter_map(|extra| {
        let d = extra.deploy_env.as_ref()?;
        let key = format!("env.{}", extra.name);
        Some(checks::deploy_time_note(&key, Some(extra.origin), &d.var))
    });
    let deferred: Vec<_> = vars.chain(extras).collect();
    if deferred.is_empty() {
        return render_checked(resolved, options, &Target::ALL, templates, None, reader);
    }
    let targets: Vec<Target> = Target::ALL
        .into_iter()
        .filter(|t| !t.in_cluster())
        .collect();
    let mut out = render_checked(resolved, options, &targets, templates, None, reader);
    out.diagnostics.items.extend(deferred);
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    out
}
