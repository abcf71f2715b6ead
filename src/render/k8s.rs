//! The `k8s` target and the rest of the kustomize base: `k8s.yaml` (the ConfigMap of the
//! environment, named after its content, the Deployment and its Service), `kustomization.yaml`
//! (which lists it and generates Secrets and ConfigMaps from host files) and `DEPLOY.md` (what the
//! operator still creates, and how).

use super::k8s_plan::{MANIFESTS, plan_for};
use super::{EnvOptions, EnvVar, RenderError, Templates, to_value};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::{Resolved, formats};
use minijinja::context;
use std::path::Path;

/// The templates of the base's files.
pub const MANIFESTS_TEMPLATE: &str = "k8s.yaml.j2";
pub const KUSTOMIZATION_TEMPLATE: &str = "kustomization.yaml.j2";
pub const NOTES_TEMPLATE: &str = "deploy.md.j2";

/// Renders one file of the base from its template.
pub fn render(
    template: &str,
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
    folder: Option<&Path>,
    options: EnvOptions,
) -> Result<String, RenderError> {
    if template == MANIFESTS_TEMPLATE {
        data_keys(env)?;
    }
    let plan = plan_for(resolved, env, folder, options);
    let context = context! {
        plan => to_value(&plan),
        manifests => MANIFESTS,
    };
    let mut text = templates
        .render(template, context)
        .map_err(RenderError::Template)?;
    // The template engine drops the template's last newline; YAML readers want one.
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// Every variable is a key of the ConfigMap or the Secret: its name must be a valid key (an
/// `[env]` name of 254 characters is a valid variable name, but not a key).
fn data_keys(env: &[EnvVar]) -> Result<(), RenderError> {
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
    if diags.is_empty() {
        Ok(())
    } else {
        Err(RenderError::Invalid(diags))
    }
}
