//! The `k8s-env` target: the `env:` list of a container spec, secrets as `secretKeyRef`.

use super::{Input, to_value};
use minijinja::{Value, context};

pub const TEMPLATE: &str = "k8s-env.yaml.j2";

pub fn context(input: &Input) -> Value {
    context! {
        edition => input.resolved.edition.as_str(),
        // The plan's name: the generated Secret's under --include-secrets, as k8s.yaml has it.
        secret_name => input.plan.env_secret_name().unwrap_or(&input.resolved.deploy.secret_name),
        env => to_value(input.env),
    }
}
