//! Printing diagnostics of a run, for people or machines (JSON, SARIF, GitLab), and choosing
//! the exit code.

use super::command::ColorWhen;
use super::{EXIT_INVALID, EXIT_OK, choice};
use crate::diag::json::{self, Item};
use crate::diag::source::Sources;
use crate::diag::{Diagnostics, gitlab, human, location, sarif};
use clap::{Args, ValueEnum};
use std::io::{IsTerminal, Write};

/// The global `--color` of this run, set once by `cli::main`.
/// How diagnostics are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// rustc-style text for people
    #[default]
    Human,
    /// a JSON array, one object per diagnostic
    Json,
    /// SARIF 2.1.0, for code scanning (GitHub, Azure DevOps): one result per diagnostic
    Sarif,
    /// a GitLab code-quality report (the JSON array the merge-request widget reads)
    Gitlab,
}

impl Format {
    /// True for the formats CI dashboards read: one document for the whole run, diagnostics
    /// and stale files (`--check`) alike.
    pub fn for_ci(self) -> bool {
        matches!(self, Format::Sarif | Format::Gitlab)
    }
}

// Options every command that checks a profile shares. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug, Clone)]
pub struct DiagnosticArgs {
    /// How to print diagnostics
    #[arg(long, value_enum, value_parser = choice::enum_of::<Format>(), default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when there is any warning not acknowledged by the profile's `allow = ["W0306"]`
    #[arg(long)]
    pub deny_warnings: bool,
    /// Print errors only: set by the global `-q/--quiet`
    #[arg(skip)]
    pub quiet: bool,
}

static COLOR: std::sync::OnceLock<ColorWhen> = std::sync::OnceLock::new();

/// Records the global `--color` (the first call wins).
pub fn set_color(color: ColorWhen) {
    let _ = COLOR.set(color);
}

/// Whether stderr gets ANSI colors: `--color always|never`, else (auto) never with a non-empty
/// `NO_COLOR`, always with a non-empty `CLICOLOR_FORCE` other than `0`, else on a terminal.
pub fn use_color() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    match COLOR.get().copied().unwrap_or_default() {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto if set("NO_COLOR") => false,
        ColorWhen::Auto if set("CLICOLOR_FORCE") => {
            std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| v != "0")
        }
        ColorWhen::Auto => std::io::stderr().is_terminal(),
    }
}

/// Prints the diagnostics of one or more profiles: for people at once on stderr; for machines
/// (JSON, SARIF, GitLab) one document of every profile's diagnostics at [`Reporter::finish`]
/// (stdout or stderr).
pub struct Reporter<'a> {
    args: &'a DiagnosticArgs,
    to_stdout: bool,
    /// Every diagnostic so far, placed and scrubbed (JSON lists problems outside the inputs
    /// among them, as `io` items).
    items: Vec<Item>,
    /// Problems outside the inputs, for SARIF's notifications.
    io_errors: Vec<String>,
}

impl<'a> Reporter<'a> {
    pub fn new(args: &'a DiagnosticArgs, to_stdout: bool) -> Reporter<'a> {
        Reporter {
            args,
            to_stdout,
            items: Vec::new(),
            io_errors: Vec::new(),
        }
    }

    /// Reports one profile's diagnostics; returns the exit code they call for (the same in
    /// every format).
    pub fn add(&mut self, diags: &Diagnostics, sources: &Sources) -> u8 {
        // `-q` hides warnings, except those that fail the run (`--deny-warnings`) in a machine
        // format (json, sarif, gitlab: the report is the only place that says why); what is
        // hidden is neither copied nor formatted.
        let keep_warnings =
            !self.args.quiet || (self.args.deny_warnings && self.args.format != Format::Human);
        let shown = Diagnostics {
            items: (diags.items.iter())
                .filter(|d| keep_warnings || d.is_error())
                .cloned()
                .collect(),
        };
        if self.args.format == Format::Human {
            let mut text = human::render(&shown, sources, use_color());
            if !self.args.quiet
                && let Some(summary) = human::summary(diags)
            {
                text.push_str(&format!("{summary}\n"));
            }
            if let Some(why) = denied_warnings(diags, self.args) {
                text.push_str(&format!("error: {why}\n"));
            }
            let _ = std::io::stderr().write_all(text.as_bytes());
        } else {
            self.items.extend(json::items(&shown, sources));
        }
        exit_code(diags, self.args)
    }

    /// Reports files `--check` found stale, one finding each (for the CI formats; people and
    /// JSON get the diffs from `check::report_stale`).
    pub fn stale(&mut self, items: impl IntoIterator<Item = Item>) {
        if self.args.format.for_ci() {
            self.items.extend(items);
        }
    }

    /// Reports a problem that is not in a profile (an unreadable file, a broken template).
    pub fn io_error(&mut self, message: &str) {
        match self.args.format {
            Format::Json => self.items.push(Item::io(message)),
            Format::Sarif => self.io_errors.push(message.to_string()),
            // A code-quality issue needs a file: the problem goes to stderr, for the job's log.
            Format::Human | Format::Gitlab => io_error(message),
        }
    }

    /// Prints the document of a machine format, if one was asked for.
    pub fn finish(self) {
        let document = match self.args.format {
            Format::Human => return,
            Format::Json => serde_json::to_value(&self.items).unwrap_or_default(),
            Format::Sarif => sarif::to_sarif(&findings(self.items), &self.io_errors),
            Format::Gitlab => gitlab::to_gitlab(&findings(self.items)),
        };
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&document).unwrap_or_default()
        );
        if self.to_stdout {
            let _ = std::io::stdout().write_all(text.as_bytes());
        } else {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
}

/// The items placed against the repository root (see [`crate::diag::location`]).
fn findings(items: Vec<Item>) -> Vec<location::Finding> {
    let cwd = std::env::current_dir().unwrap_or_default();
    location::findings(items, &location::repository_root(), &cwd)
}

/// Prints one profile's diagnostics (see [`Reporter`]) and returns the exit code they call for.
pub fn report(
    diags: &Diagnostics,
    sources: &Sources,
    args: &DiagnosticArgs,
    json_to_stdout: bool,
) -> u8 {
    let mut reporter = Reporter::new(args, json_to_stdout);
    let code = reporter.add(diags, sources);
    reporter.finish();
    code
}

/// Why a run with no error fails: its warnings under `--deny-warnings` (said even with `-q`,
/// which hides the warnings themselves), with the two ways out.
fn denied_warnings(diags: &Diagnostics, args: &DiagnosticArgs) -> Option<String> {
    if !args.deny_warnings || diags.has_errors() || diags.warning_count() == 0 {
        return None;
    }
    let mut codes: Vec<&str> = (diags.items.iter())
        .filter(|d| d.severity() == crate::diag::Severity::Warning)
        .map(|d| d.code.id())
        .collect();
    codes.sort_unstable();
    codes.dedup();
    let count = diags.warning_count();
    Some(format!(
        "{count} warning{} ({}) fail{} this run because of --deny-warnings{}: fix {}, or \
         acknowledge a warning you accept in the profile with allow = [\"{}\"]",
        if count == 1 { "" } else { "s" },
        codes.join(", "),
        if count == 1 { "s" } else { "" },
        if args.quiet {
            " (-q hides the warnings)"
        } else {
            ""
        },
        if count == 1 { "it" } else { "them" },
        codes[0],
    ))
}

/// 1 when there is an error (or a warning with `--deny-warnings`), else 0.
pub fn exit_code(diags: &Diagnostics, args: &DiagnosticArgs) -> u8 {
    if diags.has_errors() || (args.deny_warnings && diags.warning_count() > 0) {
        EXIT_INVALID
    } else {
        EXIT_OK
    }
}

/// Prints an I/O or usage error.
pub fn io_error(message: &str) {
    let _ = writeln!(std::io::stderr(), "error: {message}");
}
