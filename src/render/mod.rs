//! Rendering: the resolved environment formatted per target through a template.
//!
//! Renderers take only a [`Resolved`] profile (never the raw profile) and the environment built
//! from it once, so every target carries the same variables and values.

mod checked;
mod checks;
mod compose;
#[cfg(test)]
mod context_doc;
mod dotenv;
mod env;
mod k8s;
mod k8s_env;
pub mod k8s_plan;
mod paths;

pub use crate::templates::yaml_quote::quote as yaml_quote;
pub use crate::templates::{BUILTIN, TemplateError, Templates, dotenv_quote};
pub use checked::{Rendered, render_checked, validate_checked};
pub use dotenv_quote::quote as dotenv_quote;
pub use env::{DeployEnv, EnvOptions, EnvVar, environment};

use crate::diag::Diagnostics;
use crate::resolve::Resolved;
use std::path::Path;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// `.env` file (compose v2 env_file, python-dotenv, docker run --env-file)
    Dotenv,
    /// docker-compose.yml with the service, its environment and read-only file mounts
    Compose,
    /// the `env:` list of a Kubernetes container spec
    K8sEnv,
    /// Kubernetes ConfigMap (named after its content), Deployment and Service (secrets only as
    /// references unless --include-secrets)
    K8s,
    /// kustomization.yaml of the kustomize base --out-dir writes (generators of host files)
    Kustomization,
    /// DEPLOY.md: how to apply the kustomize base, and the objects to create by hand
    DeployNotes,
    /// the JSON Schema of profiles, for editors (same as `svcgen schema`)
    Schema,
    /// Markdown reference of the profile's edition (same as `svcgen docs --edition`)
    Docs,
}

impl Target {
    /// The targets `--out-dir` writes, in order: the deployable ones, which `validate` checks.
    pub const ALL: [Target; 6] = [
        Target::Dotenv,
        Target::Compose,
        Target::K8sEnv,
        Target::K8s,
        Target::Kustomization,
        Target::DeployNotes,
    ];

    /// The file name used by `--out-dir`.
    pub fn file_name(self) -> &'static str {
        match self {
            Target::Dotenv => ".env",
            Target::Compose => "docker-compose.yml",
            Target::K8sEnv => "k8s-env.yaml",
            Target::K8s => k8s_plan::MANIFESTS,
            Target::Kustomization => "kustomization.yaml",
            Target::DeployNotes => "DEPLOY.md",
            Target::Schema => "profile.schema.json",
            Target::Docs => "reference.md",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Dotenv => "dotenv",
            Target::Compose => "compose",
            Target::K8sEnv => "k8s-env",
            Target::K8s => "k8s",
            Target::Kustomization => "kustomization",
            Target::DeployNotes => "deploy-notes",
            Target::Schema => "schema",
            Target::Docs => "docs",
        }
    }
}

/// Why rendering failed: the profile's values (diagnostics) or a template.
#[derive(Debug)]
pub enum RenderError {
    Invalid(Diagnostics),
    Template(TemplateError),
}

/// Renders one target, for output to stdout: host paths as the profile wrote them.
pub fn render(
    target: Target,
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
) -> Result<String, RenderError> {
    render_in(
        target,
        resolved,
        env,
        templates,
        None,
        EnvOptions::default(),
    )
}

/// Renders one target written into `folder`: host paths (compose bind sources, kustomize
/// generator files) relative to it, so that the tools reading it there find them. The check
/// stage runs first, as in [`render_checked`]; its warnings are dropped here (`render_checked`
/// reports them).
pub fn render_in(
    target: Target,
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
    folder: Option<&Path>,
    options: EnvOptions,
) -> Result<String, RenderError> {
    let found = checks::target(target, env);
    if found.has_errors() {
        return Err(RenderError::Invalid(found));
    }
    let input = Input {
        resolved,
        env,
        folder,
        options,
    };
    format(target, &input, templates).map_err(RenderError::Template)
}

/// What every renderer is given: the resolved profile, the environment built from it once, and
/// where the output is written (`None`: stdout; host paths as the profile wrote them).
struct Input<'a> {
    resolved: &'a Resolved,
    env: &'a [EnvVar],
    folder: Option<&'a Path>,
    options: EnvOptions,
}

/// Formats one target whose values the check stage ([`checks::target`]) has passed.
fn format(target: Target, input: &Input, templates: &Templates) -> Result<String, TemplateError> {
    let Some((template, context)) = template_context(target, input) else {
        return match target {
            Target::Docs => crate::docs::reference(Some(input.resolved.edition), templates),
            _ => Ok(crate::schema::profile_schema_text()),
        };
    };
    let mut text = templates.render(template, context)?;
    // The template engine drops a template's last newline; the kustomize base's readers want one.
    if k8s::TEMPLATES.contains(&template) && !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// The template of a target that renders the environment, and the context it is given (the
/// comment at the top of each template describes its context); `None` for the schema and docs.
fn template_context(target: Target, input: &Input) -> Option<(&'static str, minijinja::Value)> {
    Some(match target {
        Target::Dotenv => (dotenv::TEMPLATE, dotenv::context(input)),
        Target::Compose => (compose::TEMPLATE, compose::context(input)),
        Target::K8sEnv => (k8s_env::TEMPLATE, k8s_env::context(input)),
        Target::K8s => (k8s::MANIFESTS_TEMPLATE, k8s::context(input)),
        Target::Kustomization => (k8s::KUSTOMIZATION_TEMPLATE, k8s::context(input)),
        Target::DeployNotes => (k8s::NOTES_TEMPLATE, k8s::context(input)),
        Target::Schema | Target::Docs => return None,
    })
}

/// Any serializable value as a template value.
fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(value))
}
