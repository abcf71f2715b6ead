//! Rendering: the deployment (decided once, by `crate::deployment`) formatted per target
//! through a template. Renderers read only a [`Deployment`]: the resolved profile, the
//! environment built from it once and the Kubernetes plan, so every target carries the same
//! variables, values and names. Nothing here checks or decides.

mod checked;
mod compose;
#[cfg(test)]
mod context_doc;
mod dotenv;
mod k8s;
mod k8s_env;
mod preflight_job;
pub mod targets;

pub use crate::deployment::{
    DeployEnv, EnvOptions, EnvVar, HostRead, HostReader, environment, host_files, k8s_plan,
};
pub use crate::templates::yaml_quote::quote as yaml_quote;
pub use crate::templates::{BUILTIN, TemplateError, Templates, dotenv_quote};
pub use checked::{HostCopy, Rendered, render_checked};
pub use dotenv_quote::quote as dotenv_quote;
pub use targets::{Target, carriers};

use crate::deployment::{Deployment, checks};
use crate::diag::Diagnostics;
use crate::resolve::Resolved;

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

    /// What the deployment stage needs of it (the deployment facts of its row).
    pub fn carrier(self) -> crate::deployment::Carrier {
        targets::row(self).carrier()
    }
}

/// Why rendering failed: the profile's values (diagnostics) or a template.
#[derive(Debug)]
pub enum RenderError {
    Invalid(Diagnostics),
    Template(TemplateError),
}

/// Renders one target of `env` (an environment of `resolved`, as [`environment`] builds it, or
/// made by hand in a test) for output to stdout: host paths as the profile wrote them. The
/// target's checks run first ([`checks::target`]); its warnings are dropped here
/// ([`render_checked`] reports them).
pub fn render(
    target: Target,
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
) -> Result<String, RenderError> {
    let found = checks::target(&targets::row(target).carrier(), resolved, env);
    if found.has_errors() {
        return Err(RenderError::Invalid(found));
    }
    let options = EnvOptions::default();
    let deployment = Deployment::planned(resolved, env.to_vec(), None, options, None);
    format(target, &Input::of(&deployment), templates).map_err(RenderError::Template)
}

/// What every renderer is given, read from the [`Deployment`]: the resolved profile, the
/// environment built from it once, where the output is written (`None`: stdout; host paths as
/// the profile wrote them), and the deployment's plan: every derived name a target writes comes
/// from it.
struct Input<'a> {
    resolved: &'a Resolved,
    env: &'a [EnvVar],
    folder: Option<&'a std::path::Path>,
    plan: &'a k8s_plan::Plan<'a>,
}

impl<'a> Input<'a> {
    /// The renderers' view of `deployment`.
    fn of(deployment: &'a Deployment<'a>) -> Input<'a> {
        Input {
            resolved: deployment.resolved,
            env: &deployment.env,
            folder: deployment.folder,
            plan: &deployment.plan,
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
    let yaml_file = k8s::TEMPLATES.contains(&template) || template == preflight_job::TEMPLATE;
    if yaml_file && !text.ends_with('\n') {
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
