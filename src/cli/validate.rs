//! `svcgen validate`: check a profile, print every problem.

use super::report::{io_error, report};
use super::{DiagnosticArgs, EXIT_IO, ProfileArg};
use crate::pipeline::check_layers;
use crate::source::Sources;
use clap::Args;
use std::io::Write;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub profile: ProfileArg,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn run(args: &ValidateArgs) -> u8 {
    let mut sources = Sources::new();
    let checked = match check_layers(&args.profile.layers(), &mut sources) {
        Ok(c) => c,
        Err(message) => {
            io_error(&message);
            return EXIT_IO;
        }
    };
    let code = report(&checked.diagnostics, &sources, &args.diagnostics, true);
    if code == 0
        && args.diagnostics.format == super::Format::Human
        && !args.diagnostics.quiet
        && let Some(resolved) = &checked.resolved
    {
        let _ = writeln!(
            std::io::stderr(),
            "{}: valid, edition {}, {} variables",
            args.profile.profile.display(),
            resolved.edition,
            resolved.vars.len() + resolved.extras.len()
        );
    }
    code
}
