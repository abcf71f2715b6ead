//! Every check that rendering makes, in one function that both `validate` and `render` call, so
//! that `validate` fails wherever `render` would: reading secrets that are asked for, values a
//! target cannot carry (or that a reader would read differently), and each template rendered.

use super::{EnvOptions, Input, Target, TemplateError, Templates, checks, environment, format};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::Resolved;
use std::path::Path;

/// The outcome of rendering some targets of one profile.
pub struct Rendered {
    /// Every target's text, in the order asked; empty when there is any error.
    pub files: Vec<(Target, String)>,
    pub diagnostics: Diagnostics,
    /// Templates that failed (each also counted as an error diagnostic).
    pub template_errors: Vec<TemplateError>,
}

/// Renders `targets` of `resolved`, to be written into `folder` (host paths are relative to it;
/// `None`: the profile's own folder), and gathers every diagnostic rendering produces.
pub fn render_checked(
    resolved: &Resolved,
    options: EnvOptions,
    targets: &[Target],
    templates: &Templates,
    folder: Option<&Path>,
) -> Rendered {
    let mut out = Rendered {
        files: Vec::new(),
        diagnostics: Diagnostics::default(),
        template_errors: Vec::new(),
    };
    let env = match environment(resolved, options) {
        Ok(env) => env,
        Err(diags) => {
            out.diagnostics = diags;
            return out;
        }
    };
    let input = Input {
        resolved,
        env: &env,
        folder,
        options,
    };
    for &target in targets {
        let found = checks::target(target, &env);
        let stop = found.has_errors();
        out.diagnostics.extend(found);
        if stop {
            continue;
        }
        match format(target, &input, templates) {
            Ok(text) => out.files.push((target, text)),
            Err(error) => {
                out.diagnostics.push(Diagnostic::new(
                    Code::Unwritable,
                    format!("the {} target could not be rendered", target.name()),
                ));
                out.template_errors.push(error);
            }
        }
    }
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    if out.diagnostics.has_errors() {
        out.files.clear();
    }
    out
}
