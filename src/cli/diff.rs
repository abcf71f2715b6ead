//! `svcgen diff OLD NEW`: the difference of two profiles' resolved environments.

use super::check_layers;
use super::report::{io_error, report};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, Format};
use crate::commands::diff::diff;
use crate::diag::source::Sources;
use crate::profile::Layers;
use crate::render::{EnvOptions, environment};
use crate::resolve::Resolved;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The old profile, or a layer stack `base.toml+overlay.toml+...` (a file that exists under the whole name is that file)
    pub old: String,
    /// The new profile, or a layer stack `base.toml+overlay.toml+...` (a file that exists under the whole name is that file)
    pub new: String,
    /// Exit 1 when the environments differ (like `git diff --exit-code`)
    #[arg(long)]
    pub exit_code: bool,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

/// `a.toml+b.toml` as a profile with overlays. A file that exists under the whole name as
/// written (`eu+us.toml`) is that one file: `+` separates layers only when it does not.
fn stack(spec: &str) -> Layers {
    if std::path::Path::new(spec).exists() {
        return Layers::single(spec);
    }
    let mut files = spec.split('+').map(PathBuf::from);
    let profile = files.next().unwrap_or_default();
    Layers {
        profile,
        overlays: files.collect(),
        sets: Vec::new(),
        root: None,
    }
}

fn resolve(spec: &str, args: &DiffArgs) -> Result<Resolved, u8> {
    if !std::path::Path::new(spec).exists() && spec.split('+').any(str::is_empty) {
        io_error(&format!(
            "`{}`: a layer stack names a file on each side of every `+` (base.toml+eu.toml)",
            spec.escape_debug()
        ));
        return Err(EXIT_IO);
    }
    let mut sources = Sources::new();
    let checked = check_layers(&stack(spec), &mut sources).map_err(|e| {
        io_error(&e);
        EXIT_IO
    })?;
    if checked.diagnostics.has_errors() {
        report(&checked.diagnostics, &sources, &args.diagnostics, false);
    }
    checked.resolved.ok_or(EXIT_INVALID)
}

pub fn run(args: &DiffArgs) -> u8 {
    if args.diagnostics.format.for_ci() {
        io_error(
            "diff prints a difference, which is no diagnostic for a CI dashboard: give --format \
             human or --format json",
        );
        return EXIT_IO;
    }
    let old = match resolve(&args.old, args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let new = match resolve(&args.new, args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let envs = environment(&old, EnvOptions::default())
        .and_then(|o| Ok((o, environment(&new, EnvOptions::default())?)));
    let Ok((old_env, new_env)) = envs else {
        io_error("cannot build the environments");
        return EXIT_INVALID;
    };
    let result = diff(&old, &old_env, &new, &new_env);
    let text = match args.diagnostics.format {
        Format::Json => serde_json::to_string_pretty(&result).unwrap_or_default() + "\n",
        Format::Human | Format::Sarif | Format::Gitlab => result.to_text(),
    };
    // Not `print!`: a closed pipe (`| head`) must not panic.
    let _ = std::io::stdout().write_all(text.as_bytes());
    if args.exit_code && !result.changes.is_empty() {
        EXIT_INVALID
    } else {
        EXIT_OK
    }
}
