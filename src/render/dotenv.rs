//! The `dotenv` target: one `NAME=value` line per variable, in the model's order.

use super::{EnvVar, RenderError, Templates, dotenv_quote};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::Resolved;
use minijinja::context;

const TEMPLATE: &str = "dotenv.env.j2";

pub fn render(
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
) -> Result<String, RenderError> {
    let diags = check(env);
    if diags.has_errors() {
        return Err(RenderError::Invalid(diags));
    }
    let context = context! { edition => resolved.edition.as_str(), env => super::to_value(env) };
    templates
        .render(TEMPLATE, context)
        .map_err(RenderError::Template)
}

/// Every value that `.env` quoting cannot carry unchanged, as diagnostics at the value.
fn check(env: &[EnvVar]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for var in env {
        let Some(value) = &var.value else { continue };
        if let Err(why) = dotenv_quote(value) {
            diags.push(
                Diagnostic::new(
                    Code::Unwritable,
                    format!("{} cannot be written to a .env file: {why}", var.name),
                )
                .at_opt(var.origin)
                .label("cannot be quoted safely")
                .help("use another target (compose, k8s) for this value, or change it"),
            );
        }
    }
    diags
}
