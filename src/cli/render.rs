//! `svcgen render`: check profiles and write one target (stdout, `-o FILE`) or all of them
//! (`--out-dir DIR`); `--check` compares with what is on disk instead of writing.
//!
//! Several profiles (or a folder of them) are a batch: each renders into `DIR/<profile name>/`,
//! in parallel, sharing the spec model and one compiled template set. A failing profile writes
//! nothing; the others still render.

use super::check::{check_files, report_stale};
use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, ProfileArg};
use crate::diag::Diagnostics;
use crate::output::write_all_atomic;
use crate::pipeline::check_layers;
use crate::render::{EnvOptions, Target, TemplateError, Templates, render_checked};
use crate::source::Sources;
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub profile: ProfileArg,
    /// The output format (default: dotenv); with --out-dir, the targets to write (repeatable or comma-separated)
    #[arg(short, long, value_parser = super::TargetParser, value_delimiter = ',')]
    pub target: Vec<Target>,
    /// Write to this file (atomically) instead of stdout; `-o -` is stdout
    #[arg(short, long, conflicts_with = "out_dir")]
    pub output: Option<PathBuf>,
    /// Write the deployable targets into this folder (.env, docker-compose.yml, k8s-env.yaml and a kustomize base: k8s.yaml, kustomization.yaml, DEPLOY.md), or only those given with -t
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Do not write: exit 1 with a diff when the file(s) on disk differ from the rendering (with --format json: the stale files and diffs as JSON on stdout)
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
    let templates = match load_templates(args.templates.as_deref()) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let outcomes = render_all(args, &profiles, &templates, batch);
    let mut exit = EXIT_OK;
    let mut stale = Vec::new();
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
            Some(dest) if args.check => stale.extend(check_files(&dest.paths(files))),
            Some(dest) => {
                if let Err(e) = write_files(&dest, files, args.include_secrets) {
                    reporter.io_error(&e);
                    exit = exit.max(EXIT_IO);
                }
            }
        }
    }
    reporter.finish();
    if args.check {
        report_stale(&stale, args.diagnostics.format);
    }
    if !stale.is_empty() {
        io_error(&format!(
            "{} file(s) are stale: render again without --check to update them",
            stale.len()
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

/// The targets to render: those of `-t` (one without --out-dir), else the default one, or every
/// deployable target with --out-dir.
fn targets(args: &RenderArgs) -> Vec<Target> {
    let mut chosen = args.target.clone();
    chosen.dedup();
    match (chosen.is_empty(), args.out_dir.is_some()) {
        (true, true) => Target::ALL.to_vec(),
        (true, false) => vec![super::default_target()],
        (false, _) => chosen,
    }
}

/// Combinations of options that cannot work, found before anything is read.
fn usage_problem(args: &RenderArgs, batch: bool, profiles: &[PathBuf]) -> Option<String> {
    if profiles.is_empty() {
        return Some(
            "no profile found (a folder argument takes the *.toml files in it)".to_string(),
        );
    }
    let to_stdout = args.output.as_deref().is_none_or(super::is_stdio);
    if args.check && to_stdout && args.out_dir.is_none() {
        return Some("--check compares files on disk: give -o FILE or --out-dir DIR".to_string());
    }
    if args.out_dir.is_none() && args.target.len() > 1 {
        return Some(
            "several targets (-t) render into a folder: give --out-dir DIR, or one -t".to_string(),
        );
    }
    if batch && profiles.iter().any(|p| super::is_stdio(p)) {
        return Some("standard input (-) is one profile, not part of a batch".to_string());
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
fn render_all(
    args: &RenderArgs,
    profiles: &[PathBuf],
    templates: &Templates,
    batch: bool,
) -> Vec<Outcome> {
    if profiles.len() == 1 {
        return vec![render_one(args, &profiles[0], templates, batch)];
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
                        mine.push((i, render_one(args, profile, templates, batch)));
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
fn render_one(args: &RenderArgs, profile: &Path, templates: &Templates, batch: bool) -> Outcome {
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
    let targets = targets(args);
    // Host paths in the outputs are relative to the folder they are written to.
    let folder = destination(args, profile, batch).and_then(|d| d.output_folder());
    let rendered = render_checked(&resolved, options, &targets, templates, folder.as_deref());
    let errors = template_messages(&rendered.template_errors);
    let files = (!rendered.diagnostics.has_errors()).then_some(rendered.files);
    diags.extend(rendered.diagnostics);
    let mut o = outcome(diags, files, errors, EXIT_OK);
    o.sources = sources;
    o
}

/// The templates of a run; a `--templates DIR` that is not a folder is a usage error (exit 2),
/// a template that does not compile is invalid input (exit 1).
pub(super) fn load_templates(dir: Option<&Path>) -> Result<Templates, u8> {
    if let Some(dir) = dir
        && !dir.is_dir()
    {
        io_error(&format!(
            "--templates {}: no such folder (give a folder of templates named like the built-in ones)",
            dir.display()
        ));
        return Err(EXIT_IO);
    }
    Templates::load(dir).map_err(|e| {
        io_error(&format!("template {e}"));
        EXIT_INVALID
    })
}

/// What to print for each failed template: where it failed, and whose fault it is.
pub(super) fn template_messages(errors: &[TemplateError]) -> Vec<String> {
    let mut out = Vec::new();
    for e in errors {
        out.push(format!("template {e}"));
        if !e.user {
            out.push("this is a bug in svcgen's built-in template; please report it".to_string());
        }
    }
    out
}

/// Where one profile's files go.
struct Destination {
    /// A folder (`--out-dir`, or its sub-folder in a batch), or one file (`-o`).
    folder: Option<PathBuf>,
    file: Option<PathBuf>,
}

impl Destination {
    /// The folder the outputs are written to (`-o FILE`: the file's folder).
    fn output_folder(&self) -> Option<PathBuf> {
        match (&self.folder, &self.file) {
            (Some(dir), _) => Some(dir.clone()),
            (None, Some(file)) => Some(match file.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            }),
            (None, None) => None,
        }
    }

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
        (None, Some(file)) if super::is_stdio(file) => None,
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
