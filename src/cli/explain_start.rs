//! `svcgen explain --start PROFILE`: prints the start of the profile's image as a timeline
//! (`commands::start`), for people or as JSON.

use super::report::{io_error, report};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, Format, check_layers};
use crate::commands::start;
use crate::diag::source::Sources;
use std::io::Write;
use std::path::Path;

/// Checks the profile (its layers over it), then prints its start; an invalid profile prints its
/// diagnostics as `validate` does and exits 1.
pub fn run(profile: &Path, layers: &super::LayerArgs, json: bool) -> u8 {
    let mut sources = Sources::new();
    let checked = match check_layers(&layers.layers(profile), &mut sources) {
        Ok(checked) => checked,
        Err(e) => {
            io_error(&e);
            return EXIT_IO;
        }
    };
    let Some(resolved) = checked
        .resolved
        .as_ref()
        .filter(|_| !checked.diagnostics.has_errors())
    else {
        let args = DiagnosticArgs {
            format: Format::Human,
            deny_warnings: false,
            quiet: true,
        };
        report(&checked.diagnostics, &sources, &args, false);
        return EXIT_INVALID;
    };
    let shown = start::report(resolved);
    let text = if json {
        let mut text = serde_json::to_string_pretty(&shown).unwrap_or_default();
        text.push('\n');
        text
    } else {
        start::human(&shown)
    };
    // A closed pipe (`| head`) ends the output quietly.
    let _ = std::io::stdout().write_all(text.as_bytes());
    EXIT_OK
}
