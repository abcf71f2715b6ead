//! Rendering: the resolved environment formatted per target through a template.
//!
//! Renderers take only a [`Resolved`] profile (never the raw profile) and the environment built
//! from it once, so every target carries the same variables and values.

mod dotenv;
mod dotenv_quote;
mod env;
pub mod filters;
mod templates;

pub use dotenv_quote::quote as dotenv_quote;
pub use env::{EnvOptions, EnvVar, environment};
pub use templates::{BUILTIN, TemplateError, Templates};

use crate::diag::Diagnostics;
use crate::resolve::Resolved;

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// `.env` file for docker compose's env_file and python-dotenv
    Dotenv,
}

impl Target {
    pub const ALL: [Target; 1] = [Target::Dotenv];

    /// The file name used by `--out-dir`.
    pub fn file_name(self) -> &'static str {
        match self {
            Target::Dotenv => ".env",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Dotenv => "dotenv",
        }
    }
}

/// Why rendering failed: the profile's values (diagnostics) or a template.
#[derive(Debug)]
pub enum RenderError {
    Invalid(Diagnostics),
    Template(TemplateError),
}

/// Renders one target.
pub fn render(
    target: Target,
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
) -> Result<String, RenderError> {
    match target {
        Target::Dotenv => dotenv::render(resolved, env, templates),
    }
}
