//! `svcgen validate`: check profiles, print every problem.

use super::report::{Reporter, io_error};
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
    let profiles = match args.profile.expand() {
        Ok(p) => p,
        Err(e) => {
            io_error(&e);
            return EXIT_IO;
        }
    };
    let mut exit = 0;
    let mut reporter = Reporter::new(&args.diagnostics, true);
    for profile in &profiles {
        let mut sources = Sources::new();
        let checked = match check_layers(&args.profile.layers.layers(profile), &mut sources) {
            Ok(c) => c,
            Err(message) => {
                reporter.io_error(&message);
                exit = EXIT_IO;
                continue;
            }
        };
        let code = reporter.add(&checked.diagnostics, &sources);
        exit = exit.max(code);
        if code == 0
            && args.diagnostics.format == super::Format::Human
            && !args.diagnostics.quiet
            && let Some(resolved) = &checked.resolved
        {
            let _ = writeln!(
                std::io::stderr(),
                "{}: valid, edition {}, {} variables",
                profile.display(),
                resolved.edition,
                resolved.vars.len() + resolved.extras.len()
            );
        }
    }
    reporter.finish();
    exit
}
