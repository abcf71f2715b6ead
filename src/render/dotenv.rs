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

/// Every value that `.env` cannot carry (an error) or that a reader people use would read
/// differently (a warning naming the reader), as diagnostics at the value.
pub fn check(env: &[EnvVar]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for var in env {
        let Some(value) = &var.value else { continue };
        match dotenv_quote::quote_line(&var.name, value) {
            Err(why) => diags.push(
                Diagnostic::new(
                    Code::Unwritable,
                    format!("{} cannot be written to a .env file: {why}", var.name),
                )
                .at_opt(var.origin)
                .label("cannot be written to .env")
                .help("use another target (compose, k8s) for this value, or change it"),
            ),
            Ok(spelling) if !spelling.differs.is_empty() => {
                diags.push(reader_differs(var, &spelling.differs));
            }
            Ok(_) => {}
        }
    }
    diags
}

fn reader_differs(var: &EnvVar, readers: &[dotenv_quote::Reader]) -> Diagnostic {
    let names: Vec<&str> = readers.iter().map(|r| r.describe()).collect();
    Diagnostic::new(
        Code::DotenvReaderDiffers,
        format!(
            "{} in .env: {} would read a different value",
            var.name,
            names.join(" and ")
        ),
    )
    .at_opt(var.origin)
    .label("no .env spelling suits every reader")
    .help(
        "docker compose v2 reads the .env as written; give this value to the other readers \
         another way (the compose or k8s target, `docker run -e`), or change it",
    )
}
