//! Printing diagnostics of a run, for people or as JSON, and choosing the exit code.

use super::{ColorWhen, DiagnosticArgs, EXIT_INVALID, EXIT_OK, Format};
use crate::diag::{Diagnostics, human};
use crate::source::Sources;
use std::io::{IsTerminal, Write};

/// The global `--color` of this run, set once by `cli::main`.
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

/// Prints the diagnostics of one or more profiles: for people at once on stderr; as JSON, one
/// array of every profile's diagnostics at [`Reporter::finish`] (stdout or stderr).
pub struct Reporter<'a> {
    args: &'a DiagnosticArgs,
    json_to_stdout: bool,
    json: Vec<serde_json::Value>,
}

impl<'a> Reporter<'a> {
    pub fn new(args: &'a DiagnosticArgs, json_to_stdout: bool) -> Reporter<'a> {
        Reporter {
            args,
            json_to_stdout,
            json: Vec::new(),
        }
    }

    /// Reports one profile's diagnostics; returns the exit code they call for.
    pub fn add(&mut self, diags: &Diagnostics, sources: &Sources) -> u8 {
        // Under -q only the errors are copied: the warnings are neither kept nor formatted.
        let shown = Diagnostics {
            items: (diags.items.iter())
                .filter(|d| !self.args.quiet || d.is_error())
                .cloned()
                .collect(),
        };
        match self.args.format {
            Format::Json => {
                if let serde_json::Value::Array(items) = crate::diag::json::to_json(&shown, sources)
                {
                    self.json.extend(items);
                }
            }
            Format::Human => {
                let mut text = human::render(&shown, sources, use_color());
                if !self.args.quiet
                    && let Some(summary) = human::summary(diags)
                {
                    text.push_str(&format!("{summary}\n"));
                }
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
        }
        exit_code(diags, self.args)
    }

    /// Reports a problem that is not in a profile (an unreadable file, a broken template).
    pub fn io_error(&mut self, message: &str) {
        match self.args.format {
            Format::Json => self.json.push(serde_json::json!({
                "code": "io",
                "name": "io",
                "severity": "error",
                "message": message,
                "file": null,
                "line": null,
                "column": null,
                "end_line": null,
                "end_column": null,
                "label": null,
                "help": null,
            })),
            Format::Human => io_error(message),
        }
    }

    /// Prints the JSON array, if JSON was asked for.
    pub fn finish(self) {
        if self.args.format != Format::Json {
            return;
        }
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&self.json).unwrap_or_default()
        );
        if self.json_to_stdout {
            let _ = std::io::stdout().write_all(text.as_bytes());
        } else {
            let _ = std::io::stderr().write_all(text.as_bytes());
        }
    }
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
