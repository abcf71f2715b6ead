//! Every check that rendering makes, in one function that both `validate` and `render` call, so
//! that `validate` fails wherever `render` would: reading secrets that are asked for, values a
//! target cannot carry (or that a reader would read differently), and each template rendered.

use super::{EnvOptions, Input, Target, TemplateError, Templates, checks, environment, format};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::{Resolved, Typed};
use std::path::Path;

/// What `validate` checks: every deployable target, as `render --out-dir` would; a profile with
/// deploy-time values (`{ deploy_env = "X" }`) is checked for the targets that carry them, with
/// one warning per value saying the Kubernetes targets refuse it (as `render -t k8s` does).
pub fn validate_checked(
    resolved: &Resolved,
    options: EnvOptions,
    templates: &Templates,
) -> Rendered {
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
        return render_checked(resolved, options, &Target::ALL, templates, None);
    }
    let targets: Vec<Target> = Target::ALL
        .into_iter()
        .filter(|t| !checks::KUBERNETES.contains(t))
        .collect();
    let mut out = render_checked(resolved, options, &targets, templates, None);
    out.diagnostics.items.extend(deferred);
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    out
}

/// The outcome of rendering some targets of one profile.
pub struct Rendered {
    /// Every target's text, in the order asked; empty when there is any error.
    pub files: Vec<(Target, String)>,
    pub diagnostics: Diagnostics,
    /// Templates that failed (each also counted as an error diagnostic).
    pub template_errors: Vec<TemplateError>,
}

/// Renders `targets` of `resolved`, to be written into `folder` (host paths are relative to it;
/// `None`: the profile's own folder), and gathers every diagnostic rendering produces.
pub fn render_checked(
    resolved: &Resolved,
    options: EnvOptions,
    targets: &[Target],
    templates: &Templates,
    folder: Option<&Path>,
) -> Rendered {
    let mut out = Rendered {
        files: Vec::new(),
        diagnostics: Diagnostics::default(),
        template_errors: Vec::new(),
    };
    let env = match environment(resolved, options) {
        Ok(env) => env,
        Err(diags) => {
            out.diagnostics = diags;
            return out;
        }
    };
    let input = Input {
        resolved,
        env: &env,
        folder,
        options,
    };
    for &target in targets {
        let found = checks::target(target, &env);
        let stop = found.has_errors();
        // The same problem of several targets (a value no Kubernetes target carries) once.
        out.diagnostics.extend_new(found.items);
        if stop {
            continue;
        }
        match format(target, &input, templates) {
            Ok(text) => out.files.push((target, text)),
            Err(error) => {
                out.diagnostics.push(Diagnostic::new(
                    Code::Unwritable,
                    format!("the {} target could not be rendered", target.name()),
                ));
                out.template_errors.push(error);
            }
        }
    }
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    if out.diagnostics.has_errors() {
        out.files.clear();
    }
    out
}
