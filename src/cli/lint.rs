//! `svcgen lint`: an existing .env, compose file or Kubernetes manifest checked as the
//! container would read it (the library side is `crate::commands::lint`).

use super::import::InputArgs;
use super::report::Reporter;
use super::{DiagnosticArgs, EXIT_IO, EXIT_OK};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::import::kind::{ENVIRONMENT_WANTED, Kind, wrong_file_diagnostic};
use clap::Args;

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn lint_command(args: &LintArgs) -> u8 {
    let file = &args.input.file;
    let mut sources = Sources::new();
    let mut reporter = Reporter::new(&args.diagnostics, true);
    if file.extension().is_some_and(|x| x == "toml") {
        let mut wrong = Diagnostics::default();
        wrong.push(wrong_file_diagnostic(
            None,
            &file.display().to_string(),
            Kind::Profile,
            ENVIRONMENT_WANTED,
        ));
        let code = reporter.add(&wrong, &sources);
        reporter.finish();
        return code;
    }
    let read = match args.input.read(&mut sources) {
        Ok(r) => r,
        Err(e) => {
            // In the report: a CI format still prints its document (the run failed).
            reporter.io_error(&e);
            reporter.finish();
            return EXIT_IO;
        }
    };
    if let Some(wrong) = args.input.wrong_file(&read, &sources) {
        let code = reporter.add(&wrong, &sources);
        reporter.finish();
        return code;
    }
    let diags = crate::commands::lint::lint(&read, args.input.edition(), &sources);
    let code = reporter.add(&diags, &sources);
    reporter.finish();
    if code == EXIT_OK
        && diags.is_empty()
        && args.diagnostics.format == super::Format::Human
        && !args.diagnostics.quiet
    {
        eprintln!("{}: no problems found", super::display_name(file));
    }
    code
}
