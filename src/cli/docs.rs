//! `svcgen docs`: the Markdown reference of every variable (the library side is
//! `crate::artifacts::docs`), printed, written, or compared with a file (`--check`).

use super::emit::emit;
use super::{EXIT_IO, EXIT_OK};
use crate::support::inputs::Inputs;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DocsArgs {
    /// Only this edition's variables (default: both, edition-only rows marked)
    #[arg(long, value_parser = super::editions())]
    pub edition: Option<String>,
    /// Write to this file (atomically) instead of stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
    /// Use templates from this folder instead of the built-in ones of the same file name
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::ReadFolder))]
    pub templates: Option<PathBuf>,
    /// Do not write: exit 1 with a diff when the file of -o differs from the reference
    #[arg(long, requires = "output")]
    pub check: bool,
    /// How --check reports a stale file (json: {"stale": [{"file", "diff"}]} on stdout; sarif,
    /// gitlab: one finding per stale file, on stdout)
    #[arg(long, value_enum, value_parser = super::choice::enum_of::<super::Format>(), default_value_t = super::Format::Human, requires = "check")]
    pub format: super::Format,
}

pub fn docs(args: &DocsArgs) -> u8 {
    if args.check {
        return check_docs(args);
    }
    let edition = args
        .edition
        .as_deref()
        .and_then(crate::model::Edition::parse);
    let inputs = Inputs::default();
    let templates = match super::render::load_templates(args.templates.as_deref(), &inputs) {
        Ok(t) => t,
        Err(code) => return code,
    };
    match crate::artifacts::docs::reference(edition, &templates) {
        Ok(text) => emit(&text, args.output.as_ref(), &inputs),
        Err(e) => {
            super::report::io_error(&format!("template {e}"));
            super::EXIT_INVALID
        }
    }
}

/// `docs -o FILE --check`: compares FILE with the reference (through the one bounded reader,
/// as `render --check` does) and reports it in `--format` when stale.
fn check_docs(args: &DocsArgs) -> u8 {
    use super::check::{check_files, report_stale, stale_item};
    let Some(path) = args.output.as_ref().filter(|p| !super::is_stdio(p)) else {
        super::report::io_error("--check compares a file on disk: give -o FILE");
        return EXIT_IO;
    };
    let diagnostics = super::DiagnosticArgs {
        format: args.format,
        deny_warnings: false,
        quiet: false,
    };
    let mut reporter = super::report::Reporter::new(&diagnostics, true);
    let edition = args
        .edition
        .as_deref()
        .and_then(crate::model::Edition::parse);
    let reference = super::render::load_templates(args.templates.as_deref(), &Inputs::default())
        .and_then(|t| {
            crate::artifacts::docs::reference(edition, &t).map_err(|e| {
                reporter.io_error(&format!("template {e}"));
                super::EXIT_INVALID
            })
        });
    let text = match reference {
        Ok(text) => text,
        Err(code) => {
            reporter.finish();
            return code;
        }
    };
    let stale = check_files(
        &[(path.clone(), crate::output::Contents::Text(text))],
        false,
    );
    report_stale(&stale, args.format);
    reporter.stale(stale.iter().map(stale_item));
    reporter.finish();
    if stale.is_empty() {
        return EXIT_OK;
    }
    super::report::io_error(&format!(
        "{} is stale: run svcgen docs again without --check to update it",
        path.display()
    ));
    super::EXIT_INVALID
}
