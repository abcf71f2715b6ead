//! What `validate` checks beyond resolution: the checks of rendering, for every deployable
//! target, so that a profile `validate` accepts is one `render` renders. Shared by the command
//! line and the browser playground, so both report the same.

use crate::render::checks;
use crate::render::{EnvOptions, HostReader, Rendered, Target, Templates, render_checked};
use crate::resolve::{Resolved, Typed};

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
        .filter(|t| !checks::KUBERNETES.contains(t))
        .collect();
    let mut out = render_checked(resolved, options, &targets, templates, None, reader);
    out.diagnostics.items.extend(deferred);
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    out
}
