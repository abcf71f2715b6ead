//! `svcgen render`: check a profile and write one target (stdout, `-o FILE`) or all of them
//! (`--out-dir DIR`); `--check` compares with what is on disk instead of writing.

use super::report::{io_error, report};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, ProfileArg};
use crate::diag::Diagnostics;
use crate::output::{unified_diff, write_atomic};
use crate::pipeline::check_layers;
use crate::render::{EnvOptions, RenderError, Target, Templates, environment, render};
use crate::source::Sources;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub profile: ProfileArg,
    /// The output format
    #[arg(short, long, value_enum, default_value_t = super::default_target())]
    pub target: Target,
    /// Write to this file (atomically) instead of stdout
    #[arg(short, long, conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Write every target into this folder (.env, ...)
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Do not write: exit 1 with a diff when the file(s) on disk differ from the rendering
    #[arg(long)]
    pub check: bool,
    /// Keep only the selectors and the values that differ from the spec's defaults
    #[arg(long)]
    pub minimal: bool,
    /// Write secret values in clear text (read from their { env } or { file } reference)
    #[arg(long)]
    pub include_secrets: bool,
    /// Use templates from this folder instead of the built-in ones of the same file name
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn run(args: &RenderArgs) -> u8 {
    if args.check && args.output.is_none() && args.out_dir.is_none() {
        io_error("--check compares files on disk: give -o FILE or --out-dir DIR");
        return EXIT_IO;
    }
    let mut sources = Sources::new();
    let checked = match check_layers(&args.profile.layers(), &mut sources) {
        Ok(c) => c,
        Err(message) => {
            io_error(&message);
            return EXIT_IO;
        }
    };
    let mut diags = checked.diagnostics;
    let Some(resolved) = checked.resolved else {
        return report(&diags, &sources, &args.diagnostics, false);
    };
    let templates = match Templates::load(args.templates.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            io_error(&format!("template {e}"));
            return EXIT_INVALID;
        }
    };
    let options = EnvOptions {
        minimal: args.minimal,
        include_secrets: args.include_secrets,
    };
    let outputs = environment(&resolved, options).and_then(|env| {
        let targets: Vec<Target> = if args.out_dir.is_some() {
            Target::ALL.to_vec()
        } else {
            vec![args.target]
        };
        let mut rendered = Vec::new();
        let mut failed = Diagnostics::default();
        for target in targets {
            match render(target, &resolved, &env, &templates) {
                Ok(text) => rendered.push((target, text)),
                Err(RenderError::Invalid(d)) => failed.extend(d),
                Err(RenderError::Template(e)) => {
                    io_error(&format!("template {e}"));
                    if !e.user {
                        io_error("this is a bug in svcgen's built-in template; please report it");
                    }
                    failed.push(crate::diag::Diagnostic::new(
                        crate::diag::Code::Unwritable,
                        format!("the {} target could not be rendered", target.name()),
                    ));
                }
            }
        }
        if failed.has_errors() {
            Err(failed)
        } else {
            Ok(rendered)
        }
    });
    let outputs = match outputs {
        Ok(o) => o,
        Err(more) => {
            diags.extend(more);
            return report(&diags, &sources, &args.diagnostics, false);
        }
    };
    let code = report(&diags, &sources, &args.diagnostics, false);
    if code != EXIT_OK {
        return code;
    }
    let files: Vec<(PathBuf, String)> = match (&args.out_dir, &args.output) {
        (Some(dir), _) => outputs
            .into_iter()
            .map(|(t, text)| (dir.join(t.file_name()), text))
            .collect(),
        (None, Some(file)) => outputs
            .into_iter()
            .map(|(_, text)| (file.clone(), text))
            .collect(),
        (None, None) => {
            for (_, text) in outputs {
                let _ = std::io::stdout().write_all(text.as_bytes());
            }
            return EXIT_OK;
        }
    };
    if args.check {
        return check_files(&files);
    }
    if let Some(dir) = &args.out_dir
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        io_error(&format!("{}: cannot create the folder: {e}", dir.display()));
        return EXIT_IO;
    }
    for (path, text) in &files {
        if let Err(e) = write_atomic(path, text, args.include_secrets) {
            io_error(&e);
            return EXIT_IO;
        }
    }
    EXIT_OK
}

/// Compares each file with its rendering; prints a diff of each stale one.
fn check_files(files: &[(PathBuf, String)]) -> u8 {
    let mut stale = 0;
    for (path, text) in files {
        let on_disk = read_or_empty(path);
        if on_disk.as_deref() != Some(text.as_str()) {
            stale += 1;
            let diff = unified_diff(
                &path.display().to_string(),
                on_disk.as_deref().unwrap_or(""),
                text,
            );
            let _ = std::io::stdout().write_all(diff.as_bytes());
        }
    }
    if stale == 0 {
        EXIT_OK
    } else {
        io_error(&format!(
            "{stale} file(s) are stale: render again without --check to update them"
        ));
        EXIT_INVALID
    }
}

fn read_or_empty(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}
