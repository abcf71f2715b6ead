//! Rendering: the resolved environment formatted per target through a template.
//!
//! Renderers take only a [`Resolved`] profile (never the raw profile) and the environment built
//! from it once, so every target carries the same variables and values.

mod api_access;
mod checked;
pub(crate) mod checks;
mod compose;
#[cfg(test)]
mod context_doc;
mod dotenv;
mod env;
pub mod host_files;
mod k8s;
mod k8s_env;
pub mod k8s_plan;
mod paths;
pub mod targets;

pub use crate::templates::yaml_quote::quote as yaml_quote;
pub use crate::templates::{BUILTIN, TemplateError, Templates, dotenv_quote};
pub use checked::{HostCopy, Rendered, render_checked};
pub use dotenv_quote::quote as dotenv_quote;
pub use env::{DeployEnv, EnvOptions, EnvVar, environment};
pub use host_files::{HostRead, HostReader};

use crate::diag::Diagnostics;
use crate::resolve::Resolved;
use std::path::Path;

/// An output format; its name, help, file and template are its row in [`targets::TARGETS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Dotenv,
    Compose,
    K8sEnv,
    K8s,
    Kustomization,
    DeployNotes,
    Schema,
    Docs,
}

impl Target {
    /// The targets `--out-dir` writes, in order: the deployable ones, which `validate` checks.
    pub const ALL: [Target; 6] = targets::deployable();

    /// The file name used by `--out-dir`.
    pub fn file_name(self) -> &'static str {
        targets::row(self).file_name
    }

    /// The name on the command line (`--target`).
    pub fn name(self) -> &'static str {
        targets::row(self).name
    }

    /// True for a target a Kubernetes cluster reads (no deploy-time step fills a value in).
    pub fn in_cluster(self) -> bool {
        targets::row(self).in_cluster
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
    let found = checks::target(target, resolved, env);
    if found.has_errors() {
        return Err(RenderError::Invalid(found));
    }
    let input = Input::new(resolved, env, folder, options, None);
    format(target, &input, templates).map_err(RenderError::Template)
}

/// What every renderer is given: the resolved profile, the environment built from it once,
/// where the output is written (`None`: stdout; host paths as the profile wrote them), and the
/// deployment's plan, made once from them: every derived name a target writes comes from it.
struct Input<'a> {
    resolved: &'a Resolved,
    env: &'a [EnvVar],
    folder: Option<&'a Path>,
    plan: k8s_plan::Plan<'a>,
}

impl<'a> Input<'a> {
    /// Plans the deployment once; host files are read through `reader` (none: not read).
    fn new(
        resolved: &'a Resolved,
        env: &'a [EnvVar],
        folder: Option<&'a Path>,
        options: EnvOptions,
        reader: Option<HostReader<'_>>,
    ) -> Input<'a> {
        Input {
            resolved,
            env,
            folder,
            plan: k8s_plan::plan_for(resolved, env, folder, options, reader),
        }
    }
}

/// Formats one target whose values the check stage ([`checks::target`]) has passed, by its
/// template (the built-in one, or the user's of the same name).
fn format(target: Target, input: &Input, templates: &Templates) -> Result<String, TemplateError> {
    let row = targets::row(target);
    let (template, context) = match row.renders {
        targets::Renders::Template(template, context) => (template, context),
        targets::Renders::Model(render) => return render(input.resolved.edition, templates),
    };
    let text = templates.render(template, context(input))?;
    Ok(finish(template, text))
}

/// A template's output as the target's file: the template engine drops a template's last
/// newline, and the kustomize base's readers want one.
fn finish(template: &str, mut text: String) -> String {
    if k8s::TEMPLATES.contains(&template) && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The template of a target that renders the environment, and the context it is given (see
/// `docs/templates.md`); `None` for the schema and docs. (The context reference's tests.)
#[cfg(test)]
fn template_context(target: Target, input: &Input) -> Option<(&'static str, minijinja::Value)> {
    match targets::row(target).renders {
        targets::Renders::Template(template, context) => Some((template, context(input))),
        targets::Renders::Model(_) => None,
    }
}

/// Any serializable value as a template value.
fn to_value<T: serde::Serialize + ?Sized>(value: &T) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(value))
}
