//! The `dotenv` target: one `NAME=value` line per variable, in the model's order. What `.env`
//! cannot carry is found before, by the check stage (`checks`).

use super::{Input, to_value};
use minijinja::{Value, context};

pub const TEMPLATE: &str = "dotenv.env.j2";

pub fn context(input: &Input) -> Value {
    context! { edition => input.resolved.edition.as_str(), env => to_value(input.env) }
}
