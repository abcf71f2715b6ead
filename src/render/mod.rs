//! Rendering: the resolved environment formatted per target through a template.
//!
//! Renderers take only a [`Resolved`] profile (never the raw profile) and the environment built
//! from it once, so every target carries the same variables and values.

mod checked;
mod compose;
mod dotenv;
mod env;
mod hash;
mod k8s;
mod k8s_env;
pub mod k8s_plan;
mod paths;

pub use crate::templates::yaml_quote::quote as yaml_quote;
pub use crate::templates::{BUILTIN, TemplateError, Templates, dotenv_quote};
pub use checked::{Rendered, render_checked};
pub use dotenv_quote::quote as dotenv_quote;
pub use env::{EnvOptions, EnvVar, environment};

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
/// generator files) relative to it, so that the tools reading it there find them.
pub fn render_in(
    target: Target,
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
    folder: Option<&Path>,
    options: EnvOptions,
) -> Result<String, RenderError> {
    let k8s = |template| k8s::render(template, resolved, env, templates, folder, options);
    match target {
        Target::Dotenv => dotenv::render(resolved, env, templates),
        Target::Compose => compose::render(resolved, env, templates, folder),
        Target::K8sEnv => k8s_env::render(resolved, env, templates),
        Target::K8s => k8s(k8s::MANIFESTS_TEMPLATE),
        Target::Kustomization => k8s(k8s::KUSTOMIZATION_TEMPLATE),
        Target::DeployNotes => k8s(k8s::NOTES_TEMPLATE),
        Target::Schema => Ok(crate::schema::profile_schema_text()),
        Target::Docs => {
            crate::docs::reference(Some(resolved.edition), templates).map_err(RenderError::Template)
        }
    }
}

/// Any serializable value as a template value.
fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(value))
}
