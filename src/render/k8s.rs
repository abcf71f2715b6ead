//! The `k8s` target and the rest of the kustomize base: `k8s.yaml` (the ConfigMap of the
//! environment, named after its content, the Deployment and its Service), `kustomization.yaml`
//! (which lists it and generates Secrets and ConfigMaps from host files) and `DEPLOY.md` (what the
//! operator still creates, and how).

use super::k8s_plan::{MANIFESTS, plan};
use super::{EnvVar, RenderError, Templates, to_value};
use crate::resolve::Resolved;
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
) -> Result<String, RenderError> {
    let plan = plan(resolved, env, folder);
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
