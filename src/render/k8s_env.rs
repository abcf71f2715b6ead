//! The `k8s-env` target: the `env:` list of a container spec, secrets as `secretKeyRef`.

use super::{EnvVar, Input, to_value};
use minijinja::Value;
use schemars::JsonSchema;
use serde::Serialize;

pub const TEMPLATE: &str = "k8s-env.yaml.j2";

/// The context of `k8s-env.yaml.j2`.
#[derive(Serialize, JsonSchema)]
pub struct Context<'a> {
    /// The profile's edition.
    pub edition: &'static str,
    /// The Secret of the secret variables, named as in k8s.yaml (content-hashed when svcgen
    /// generates it with --include-secrets, else deploy.secret_name).
    pub secret_name: &'a str,
    /// One item per variable, in the model's order (`[env]` extras last).
    #[schemars(with = "Vec<EnvVar>")]
    pub env: Value,
}

pub fn context(input: &Input) -> Value {
    to_value(&Context {
        edition: input.resolved.edition.as_str(),
        // The plan's name: the generated Secret's under --include-secrets, as k8s.yaml has it.
        secret_name: (input.plan.env_secret_name()).unwrap_or(&input.resolved.deploy.secret_name),
        env: input.env_value(),
    })
}
