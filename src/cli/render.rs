//! `svcgen render`: check profiles and write one target (stdout, `-o FILE`) or all of them
//! (`--out-dir DIR`); `--check` compares with what is on disk instead of writing.
//!
//! Several profiles (or a folder of them) are a batch: each renders into `DIR/<profile name>/`,
//! in parallel, sharing the spec model and one compiled template set. A failing profile writes
//! nothing; the others still render.

use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, ProfileArg};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::output::write_all_atomic;
use crate::pipeline::check_layers;
use crate::render::{EnvOptions, RenderError, Target, Templates, environment, render};
use crate::source::Sources;
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

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
    /// Write every deployable target into this folder (.env, docker-compose.yml, k8s-env.yaml, k8s.yaml)
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

/// What became of one profile.
struct Outcome {
    sources: Sources,
    diagnostics: Diagnostics,
    /// The rendered files, when the profile is valid.
    files: Option<Vec<(Target, String)>>,
    /// Problems that are not the profile's (unreadable file, broken template).
    errors: Vec<String>,
    exit: u8,
}

pub fn run(args: &RenderArgs) -> u8 {
    let profiles = match args.profile.expand() {
        Ok(p) => p,
        Err(e) => {
            io_error(&e);
            return EXIT_IO;
        }
    };
    let batch = profiles.len() > 1 || args.profile.profiles.iter().any(|p| p.is_dir());
    if let Some(problem) = usage_problem(args, batch, &profiles) {
        io_error(&problem);
        return EXIT_IO;
    }
    let templates = match Templates::load(args.templates.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            io_error(&format!("template {e}"));
            return EXIT_INVALID;
        }
    };
    let outcomes = render_all(args, &profiles, &templates);
    let mut exit = EXIT_OK;
    let mut stale = 0;
    let mut rendered = 0;
    let mut reporter = Reporter::new(&args.diagnostics, false);
    for (profile, mut outcome) in profiles.iter().zip(outcomes) {
        for error in &outcome.errors {
            reporter.io_error(error);
        }
        let code = reporter.add(&outcome.diagnostics, &outcome.sources);
        exit = exit.max(code).max(outcome.exit);
        let Some(files) = outcome.files.take() else {
            continue;
        };
        if outcome.exit != EXIT_OK || code != EXIT_OK {
            continue;
        }
        rendered += 1;
        match destination(args, profile, batch) {
            None => {
                for (_, text) in files {
                    let _ = std::io::stdout().write_all(text.as_bytes());
                }
            }
            Some(dest) if args.check => stale += super::check::check_files(&dest.paths(files)),
            Some(dest) => {
                if let Err(e) = write_files(&dest, files, args.include_secrets) {
                    reporter.io_error(&e);
                    exit = exit.max(EXIT_IO);
                }
            }
        }
    }
    reporter.finish();
    if stale > 0 {
        io_error(&format!(
            "{stale} file(s) are stale: render again without --check to update them"
        ));
        exit = exit.max(EXIT_INVALID);
    }
    if batch && !args.diagnostics.quiet && args.diagnostics.format == super::Format::Human {
        let failed = profiles.len() - rendered;
        let _ = writeln!(
            std::io::stderr(),
            "rendered {rendered} profile(s), {failed} failed"
        );
    }
    exit
}

/// Combinations of options that cannot work, found before anything is read.
fn usage_problem(args: &RenderArgs, batch: bool, profiles: &[PathBuf]) -> Option<String> {
    if profiles.is_empty() {
        return Some(
            "no profile found (a folder argument takes the *.toml files in it)".to_string(),
        );
    }
    if args.check && args.output.is_none() && args.out_dir.is_none() {
        return Some("--check compares files on disk: give -o FILE or --out-dir DIR".to_string());
    }
    if batch && args.out_dir.is_none() {
        return Some("several profiles render into folders: give --out-dir DIR".to_string());
    }
    if batch {
        let mut names: Vec<&std::ffi::OsStr> =
            profiles.iter().filter_map(|p| p.file_stem()).collect();
        names.sort();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Some(format!(
                "two profiles are named {}: their outputs would share --out-dir/{}/",
                w[0].to_string_lossy(),
                w[0].to_string_lossy()
            ));
        }
    }
    None
}

/// Renders every profile, in parallel when there are several; results in input order.
fn render_all(args: &RenderArgs, profiles: &[PathBuf], templates: &Templates) -> Vec<Outcome> {
    if profiles.len() == 1 {
        return vec![render_one(args, &profiles[0], templates)];
    }
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(profiles.len());
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let show_progress =
        std::io::stderr().is_terminal() && profiles.len() >= 50 && !args.diagnostics.quiet;
    let mut results: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(profile) = profiles.get(i) else {
                            break;
                        };
                        mine.push((i, render_one(args, profile, templates)));
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    mine
                })
            })
            .collect();
        if show_progress {
            while handles.iter().any(|h| !h.is_finished()) {
                let _ = write!(
                    std::io::stderr(),
                    "\rrendering {}/{}",
                    done.load(Ordering::Relaxed),
                    profiles.len()
                );
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            let _ = writeln!(
                std::io::stderr(),
                "\rrendering {}/{}",
                profiles.len(),
                profiles.len()
            );
        }
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
}

/// Checks and renders one profile (with the command line's layers).
fn render_one(args: &RenderArgs, profile: &Path, templates: &Templates) -> Outcome {
    let mut sources = Sources::new();
    let outcome = |diagnostics, files, errors: Vec<String>, exit| Outcome {
        sources: Sources::new(),
        diagnostics,
        files,
        errors,
        exit,
    };
    let checked = match check_layers(&args.profile.layers.layers(profile), &mut sources) {
        Ok(c) => c,
        Err(message) => return outcome(Diagnostics::default(), None, vec![message], EXIT_IO),
    };
    let mut diags = checked.diagnostics;
    let Some(resolved) = checked.resolved else {
        let mut o = outcome(diags, None, Vec::new(), EXIT_OK);
        o.sources = sources;
        return o;
    };
    let options = EnvOptions {
        minimal: args.minimal,
        include_secrets: args.include_secrets,
    };
    let targets = if args.out_dir.is_some() {
        Target::ALL.to_vec()
    } else {
        vec![args.target]
    };
    let mut errors = Vec::new();
    let files = environment(&resolved, options).and_then(|env| {
        let mut rendered = Vec::new();
        let mut failed = Diagnostics::default();
        for target in targets {
            match render(target, &resolved, &env, templates) {
                Ok(text) => rendered.push((target, text)),
                Err(RenderError::Invalid(d)) => failed.extend(d),
                Err(RenderError::Template(e)) => {
                    errors.push(format!("template {e}"));
                    if !e.user {
                        errors.push(
                            "this is a bug in svcgen's built-in template; please report it"
                                .to_string(),
                        );
                    }
                    failed.push(Diagnostic::new(
                        Code::Unwritable,
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
    let files = match files {
        Ok(f) => Some(f),
        Err(more) => {
            diags.extend(more);
            None
        }
    };
    let mut o = outcome(diags, files, errors, EXIT_OK);
    o.sources = sources;
    o
}

/// Where one profile's files go.
struct Destination {
    /// A folder (`--out-dir`, or its sub-folder in a batch), or one file (`-o`).
    folder: Option<PathBuf>,
    file: Option<PathBuf>,
}

impl Destination {
    fn paths(&self, files: Vec<(Target, String)>) -> Vec<(PathBuf, String)> {
        files
            .into_iter()
            .map(|(target, text)| match (&self.folder, &self.file) {
                (Some(dir), _) => (dir.join(target.file_name()), text),
                (None, Some(file)) => (file.clone(), text),
                (None, None) => unreachable!("a destination has a folder or a file"),
            })
            .collect()
    }
}

fn destination(args: &RenderArgs, profile: &Path, batch: bool) -> Option<Destination> {
    match (&args.out_dir, &args.output) {
        (Some(dir), _) if batch => {
            let stem = profile.file_stem().map(PathBuf::from).unwrap_or_default();
            Some(Destination {
                folder: Some(dir.join(stem)),
                file: None,
            })
        }
        (Some(dir), _) => Some(Destination {
            folder: Some(dir.clone()),
            file: None,
        }),
        (None, Some(file)) => Some(Destination {
            folder: None,
            file: Some(file.clone()),
        }),
        (None, None) => None,
    }
}

fn write_files(
    dest: &Destination,
    files: Vec<(Target, String)>,
    private: bool,
) -> Result<(), String> {
    if let Some(dir) = &dest.folder {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create the folder: {e}", dir.display()))?;
    }
    write_all_atomic(&dest.paths(files), private)
}
