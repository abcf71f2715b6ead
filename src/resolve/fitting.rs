//! Spec defaults that do not fit another choice of the profile: the image uses the default
//! whatever the choice, so a variable left unset dials the wrong port or looks in the wrong
//! namespace. svcgen follows the spec (it renders the default) and warns with the value that fits.

use super::Resolved;
use super::deploy::NAMESPACE_KEY;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Model;

/// Runs both checks: the model's `misfit_defaults`, and the kubernetes adapters' namespaces.
pub fn check(resolved: &Resolved, diags: &mut Diagnostics) {
    misfit_defaults(resolved, diags);
    adapter_namespaces(resolved, diags);
}

/// A variable of the model's `misfit_defaults` left unset while its choice has the value the
/// default does not fit.
fn misfit_defaults(resolved: &Resolved, diags: &mut Diagnostics) {
    for misfit in &Model::get().container.misfit_defaults {
        let find = |key: &str| resolved.vars.iter().find(|v| v.var.key == key);
        let (Some(var), Some(choice)) = (find(&misfit.key), find(&misfit.when)) else {
            continue;
        };
        let chosen = choice.value.env_text();
        if var.origin.is_some() || chosen.as_deref() != Some(misfit.equals.as_str()) {
            continue;
        }
        let default = var.var.default.describe();
        diags.push(
            Diagnostic::new(
                Code::DefaultMisfits,
                format!(
                    "`{}` is unset, so its default {default} is deployed with `{}` = \"{}\": {}",
                    misfit.key, misfit.when, misfit.equals, misfit.why
                ),
            )
            .at(resolved.deployment_origin(choice))
            .label(format!("`{}` is left at {default}", misfit.key))
            .help(format!(
                "set `{}` = {} (the value that fits), or the port your server listens on",
                misfit.key, misfit.fits
            )),
        );
    }
}

/// `deploy.namespace` set while a `kubernetes` adapter's namespace is left at its default: the
/// adapter's client reads and writes its object there, not where the pod runs (the upstream
/// chart sets both to the release namespace). svcgen renders the spec's default and warns.
fn adapter_namespaces(resolved: &Resolved, diags: &mut Diagnostics) {
    let deploy = &resolved.deploy;
    let Some(namespace) = &deploy.namespace else {
        return;
    };
    for object in &deploy.api_objects {
        let var = &object.namespace_var;
        if var.origin.is_some() || &object.namespace == namespace {
            continue;
        }
        diags.push(
            Diagnostic::new(
                Code::DefaultMisfits,
                format!(
                    "`{}` is unset: the adapter reads and writes its {} in the namespace `{}`, while `{NAMESPACE_KEY}` puts the pod in `{namespace}`",
                    var.var.key, object.resource, object.namespace
                ),
            )
            .at(resolved.deployment_origin(var))
            .label(format!("`{}` is left at `{}`", var.var.key, object.namespace))
            .help(format!(
                "set `{}` = \"{namespace}\" (as the upstream chart does), or to the namespace that holds the {}",
                var.var.key, object.resource
            )),
        );
    }
}
