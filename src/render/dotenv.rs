//! The `dotenv` target: one `NAME=value` line per variable, in the model's order. What `.env`
//! cannot carry is found before, by the check stage (`checks`).

use super::{EnvVar, Input, to_value};
use minijinja::Value;
use schemars::JsonSchema;
use serde::Serialize;

pub const TEMPLATE: &str = "dotenv.env.j2";

/// The context of `dotenv.env.j2`.
#[derive(Serialize, JsonSchema)]
pub struct Context {
    /// The profile's edition.
    pub edition: &'static str,
    /// One item per variable, in the model's order (`[env]` extras last).
    #[schemars(with = "Vec<EnvVar>")]
    pub env: Value,
}

pub fn context(input: &Input) -> Value {
    to_value(&Context {
        edition: input.resolved.edition.as_str(),
        env: input.env_value(),
    })
}
