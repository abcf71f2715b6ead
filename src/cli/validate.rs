//! `svcgen validate`: check profiles, print every problem.

use super::check_layers;
use super::report::Reporter;
use super::{DiagnosticArgs, EXIT_IO, ProfileArg};
use crate::diag::source::Sources;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub profile: ProfileArg,
    /// Also read every secret reference, as `render --include-secrets` would
    #[arg(long)]
    pub include_secrets: bool,
    /// Check with the templates of this folder, as `render --templates DIR` would
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::ReadFolder))]
    pub templates: Option<PathBuf>,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn run(args: &ValidateArgs) -> u8 {
    let profiles = match args.profile.expand_or_exit() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let inputs = crate::support::inputs::Inputs::default();
    let templates = match super::render::load_templates(args.templates.as_deref(), &inputs) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut exit = 0;
    let mut reporter = Reporter::new(&args.diagnostics, true);
    for profile in &profiles {
        let mut sources = Sources::with_inputs(inputs.clone());
        let mut checked = match check_layers(&args.profile.layers.layers(profile), &mut sources) {
            Ok(c) => c,
            Err(message) => {
                reporter.io_error(&message);
                exit = EXIT_IO;
                continue;
            }
        };
        // The checks of rendering, for every deployable target: validate == render.
        let root = checked.root.clone();
        let reader = |path: &std::path::Path| super::read_host_file(path, root.as_ref(), &inputs);
        let report = crate::commands::validate::report(
            &checked,
            args.include_secrets,
            &templates,
            Some(&reader),
        );
        for message in &report.template_errors {
            reporter.io_error(message);
        }
        checked.diagnostics = report.diagnostics;
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
                super::display_name(profile),
                resolved.edition,
                resolved.vars.len() + resolved.extras.len()
            );
        }
    }
    reporter.finish();
    exit
}
