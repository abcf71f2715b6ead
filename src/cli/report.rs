//! Printing diagnostics of a run, for people or as JSON, and choosing the exit code.

use super::{DiagnosticArgs, EXIT_INVALID, EXIT_OK, Format};
use crate::diag::{Diagnostics, human};
use crate::source::Sources;
use std::io::{IsTerminal, Write};

/// Whether stderr gets ANSI colors: only on a terminal, never with `NO_COLOR`.
pub fn use_color() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

/// Prints the diagnostics (JSON goes to stdout when `json_to_stdout`, else stderr) and returns
/// the exit code they call for.
pub fn report(
    diags: &Diagnostics,
    sources: &Sources,
    args: &DiagnosticArgs,
    json_to_stdout: bool,
) -> u8 {
    let mut shown = diags.clone();
    if args.quiet {
        shown.items.retain(|d| d.is_error());
    }
    match args.format {
        Format::Json => {
            let json = crate::diag::json::to_json(&shown, sources);
            let text = format!(
                "{}\n",
                serde_json::to_string_pretty(&json).unwrap_or_default()
            );
            if json_to_stdout {
                let _ = std::io::stdout().write_all(text.as_bytes());
            } else {
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
        }
        Format::Human => {
            let mut text = human::render(&shown, sources, use_color());
            if !args.quiet
                && let Some(summary) = human::summary(diags)
            {
                text.push_str(&format!("{summary}\n"));
            }
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
    exit_code(diags, args)
}

/// 1 when there is an error (or a warning with `--deny-warnings`), else 0.
pub fn exit_code(diags: &Diagnostics, args: &DiagnosticArgs) -> u8 {
    if diags.has_errors() || (args.deny_warnings && !diags.is_empty()) {
        EXIT_INVALID
    } else {
        EXIT_OK
    }
}

/// Prints an I/O or usage error.
pub fn io_error(message: &str) {
    let _ = writeln!(std::io::stderr(), "error: {message}");
}
