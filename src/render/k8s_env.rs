//! The `k8s-env` target: the `env:` list of a container spec, secrets as `secretKeyRef`.

use super::{EnvVar, RenderError, Templates, to_value};
use crate::resolve::Resolved;
use minijinja::context;

const TEMPLATE: &str = "k8s-env.yaml.j2";

pub fn render(
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
) -> Result<String, RenderError> {
    let context = context! {
        edition => resolved.edition.as_str(),
        secret_name => &resolved.deploy.secret_name,
        env => to_value(env),
    };
    templates
        .render(TEMPLATE, context)
        .map_err(RenderError::Template)
}
