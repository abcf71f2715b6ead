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
    let input = Input::of(&deployment);
    format(target, &input, templates, &mut Contexts::default()).map_err(RenderError::Template)
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
    /// The environment and the plan as template values, each made on first use and then shared
    /// by every context that holds it (the `.env`, compose and `env:` list contexts hold the
    /// same environment; the kustomize base's and the preflight Job's the same plan): turning
    /// them into template values is most of a context's cost.
    env_value: std::cell::OnceCell<minijinja::Value>,
    plan_value: std::cell::OnceCell<minijinja::Value>,
}

impl<'a> Input<'a> {
    /// The renderers' view of `deployment`.
    fn of(deployment: &'a Deployment<'a>) -> Input<'a> {
        Input {
            resolved: deployment.resolved,
            env: &deployment.env,
            folder: deployment.folder,
            plan: &deployment.plan,
            env_value: std::cell::OnceCell::new(),
            plan_value: std::cell::OnceCell::new(),
        }
    }

    /// The environment as a template value (made once).
    fn env_value(&self) -> minijinja::Value {
        (self.env_value.get_or_init(|| to_value(self.env))).clone()
    }

    /// The plan as a template value (made once).
    fn plan_value(&self) -> minijinja::Value {
        (self.plan_value.get_or_init(|| to_value(self.plan))).clone()
    }
}

/// The template contexts made for one deployment's targets: targets whose templates share a
/// context function (the kustomize base's three) are given one context, made once: a context is
/// read only by the templates, and serializing the plan into template values is most of its cost.
#[derive(Default)]
struct Contexts(Vec<(targets::ContextFn, minijinja::Value)>);

impl Contexts {
    /// The context `make` builds of `input`, made on its first use.
    fn of(&mut self, make: targets::ContextFn, input: &Input) -> minijinja::Value {
        if let Some((_, made)) = self.0.iter().find(|(f, _)| std::ptr::fn_addr_eq(*f, make)) {
            return made.clone();
        }
        let made = make(input);
        self.0.push((make, made.clone()));
        made
    }
}

/// Formats one target whose values the check stage ([`checks::target`]) has passed, by its
/// template (the built-in one, or the user's of the same name), with its context from
/// `contexts` (made there on first use).
fn format(
    target: Target,
    input: &Input,
    templates: &Templates,
    contexts: &mut Contexts,
) -> Result<String, TemplateError> {
    let row = targets::row(target);
    let (template, context) = match row.renders {
        targets::Renders::Template(template, context) => (template, context),
        targets::Renders::Model(render) => return render(input.resolved.edition, templates),
    };
    let text = templates.render(template, contexts.of(context, input))?;
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

#[cfg(test)]
mod tests {
    use super::{Contexts, Input, environment};
    use crate::deployment::{Deployment, EnvOptions};
    use std::sync::atomic::{AtomicUsize, Ordering};

    static MADE: AtomicUsize = AtomicUsize::new(0);

    fn counted(_: &Input) -> minijinja::Value {
        MADE.fetch_add(1, Ordering::Relaxed);
        minijinja::Value::from("shared")
    }

    fn another(_: &Input) -> minijinja::Value {
        minijinja::Value::from("its own")
    }

    /// Targets whose templates share a context function get one context, made once per
    /// deployment; another function gets its own.
    #[test]
    fn a_shared_context_is_made_once_per_deployment() {
        let mut sources = crate::diag::source::Sources::new();
        let profile = std::path::Path::new("examples/b-consul-vault-sql.toml");
        let checked = crate::pipeline::check_profile(profile, &mut sources).unwrap();
        let resolved = checked.resolved.expect("the example is valid");
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        let deployment = Deployment::planned(&resolved, env, None, EnvOptions::default(), None);
        let input = Input::of(&deployment);
        let mut contexts = Contexts::default();
        for _ in 0..3 {
            assert_eq!(contexts.of(counted, &input).as_str(), Some("shared"));
        }
        assert_eq!(contexts.of(another, &input).as_str(), Some("its own"));
        assert_eq!(MADE.load(Ordering::Relaxed), 1);
    }
}
