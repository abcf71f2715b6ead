//! `svcgen render`: check profiles and write one target (stdout, `-o FILE`) or all of them
//! (`--out-dir DIR`); `--check` compares with what is on disk instead of writing.
//!
//! Several profiles (or a folder of them) are a batch: each renders into `DIR/<profile name>/`,
//! in parallel, sharing the spec model and one compiled template set. A failing profile writes
//! nothing; the others still render. What one profile's render does is `commands::render`; this
//! file parses, runs the batch and prints.

use super::check::{Stale, report_stale};
use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, ProfileArg};
use crate::commands::render::{Job, Outcome, deliver};
use crate::output::{OutDir, batch_folder_name};
use crate::render::{Target, Templates};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(super) use crate::output::{create_parents, remove_made};

#[derive(Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub profile: ProfileArg,
    /// The output format (default: dotenv); with --out-dir, the targets to write (repeatable or comma-separated)
    #[arg(short, long, value_parser = super::choice::enum_of::<Target>(), value_delimiter = ',')]
    pub target: Vec<Target>,
    /// Write to this file (atomically) instead of stdout; `-o -` is stdout
    #[arg(short, long, conflicts_with = "out_dir", value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
    /// Write the deployable targets into this folder (.env, docker-compose.yml, k8s-env.yaml and a kustomize base: k8s.yaml, kustomization.yaml, DEPLOY.md), or only those given with -t
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::WriteFolder))]
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
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::ReadFolder))]
    pub templates: Option<PathBuf>,
    /// Flush each written file to disk (fsync) before it replaces the old one: slower, survives
    /// a power loss; without it a file is still never seen half-written
    #[arg(long)]
    pub fsync: bool,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

/// Results in flight per worker thread: enough to keep every thread busy while the main thread
/// prints, few enough that a batch's memory does not grow with its size.
const IN_FLIGHT_PER_WORKER: usize = 4;

pub fn run(args: &RenderArgs) -> u8 {
    let profiles = match args.profile.expand_or_exit() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let batch = profiles.len() > 1 || args.profile.profiles.iter().any(|p| p.is_dir());
    if let Some(problem) = usage_problem(args, batch, &profiles) {
        io_error(&problem);
        return EXIT_IO;
    }
    let layers = args.profile.layers.layers(Path::new(""));
    let out_dir = args.out_dir.as_deref();
    let inputs = crate::commands::render::command_inputs(out_dir, batch, &profiles, &layers);
    let targets = targets(args);
    let templates = match load_templates(args.templates.as_deref(), &inputs) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let locked = match (&args.out_dir, args.check) {
        (Some(dir), false) => match OutDir::open(dir, &inputs) {
            Ok(d) => Some(d),
            Err(e) => {
                io_error(&e);
                return EXIT_IO;
            }
        },
        _ => None,
    };
    // `--check` reads a folder only while no run writes it, so it never compares a mix.
    let _read_lock = match (&args.out_dir, args.check) {
        (Some(dir), true) => match OutDir::read_lock(dir) {
            Ok(lock) => lock,
            Err(e) => {
                io_error(&e);
                return EXIT_IO;
            }
        },
        _ => None,
    };
    let job = Job {
        layers: &layers,
        targets: &targets,
        targets_given: !args.target.is_empty(),
        minimal: args.minimal,
        include_secrets: args.include_secrets,
        check: args.check,
        fsync: args.fsync,
        deny_warnings: args.diagnostics.deny_warnings,
        batch,
        out_dir: args.out_dir.as_deref(),
        output: args.output.as_deref(),
        templates: &templates,
        locked: locked.as_ref(),
        inputs: &inputs,
    };
    report_all(args, &job, &profiles)
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

/// Renders and delivers every profile through the bounded pipeline, then prints, in input order,
/// each profile's diagnostics and output; returns the exit code.
fn report_all(args: &RenderArgs, job: &Job<'_>, profiles: &[PathBuf]) -> u8 {
    let mut exit = EXIT_OK;
    let mut stale: Vec<Stale> = Vec::new();
    let mut rendered = 0;
    // The CI formats are one document of diagnostics and stale files: on stdout with --check
    // (which prints nothing else there), else on stderr as JSON is.
    let ci_to_stdout = args.check && args.diagnostics.format.for_ci();
    let mut reporter = Reporter::new(&args.diagnostics, ci_to_stdout);
    // One profile is rendered on this thread: the machine's parallelism (read from the
    // cgroup's files) is asked only for a batch.
    let workers = match profiles.len() {
        0 | 1 => 1,
        n => std::thread::available_parallelism().map_or(2, |p| p.get().min(n)),
    };
    let mut progress = super::progress::Progress::new(profiles.len(), args.diagnostics.quiet);
    let human = args.diagnostics.format == super::Format::Human;
    let talk = human && !args.diagnostics.quiet;
    crate::commands::batch::for_each_ordered(
        profiles.len(),
        workers,
        workers * IN_FLIGHT_PER_WORKER,
        |i| deliver(job, &profiles[i]),
        |_, outcome: Outcome| {
            for error in &outcome.errors {
                reporter.io_error(error);
            }
            let code = reporter.add(&outcome.diagnostics, &outcome.sources);
            exit = exit.max(code);
            if outcome.host_failed {
                exit = exit.max(EXIT_IO);
            }
            let _ = std::io::stdout().write_all(outcome.stdout.as_bytes());
            // Diffs for people as they come; JSON is one report at the end.
            if human {
                report_stale(&outcome.stale, super::Format::Human);
            }
            stale.extend(outcome.stale);
            rendered += usize::from(outcome.rendered);
            // One profile says what it wrote (a batch sums up at the end).
            if let (Some(wrote), false, true) = (&outcome.wrote, job.batch, talk) {
                let _ = writeln!(std::io::stderr(), "{wrote}");
            }
            for note in outcome.notes.iter().filter(|_| outcome.rendered && talk) {
                let one_line = crate::support::escape::one_line(note);
                let _ = writeln!(std::io::stderr(), "note: {one_line}");
            }
            progress.step();
        },
    );
    progress.finish();
    reporter.stale(stale.iter().map(super::check::stale_item));
    reporter.finish();
    if args.check && args.diagnostics.format == super::Format::Json {
        report_stale(&stale, super::Format::Json);
    }
    if !stale.is_empty() {
        io_error(&format!(
            "{} file(s) are stale: render again without --check to update them",
            stale.len()
        ));
        exit = exit.max(EXIT_INVALID);
    }
    if job.batch && talk {
        let failed = profiles.len() - rendered;
        let _ = writeln!(
            std::io::stderr(),
            "rendered {rendered} profile(s), {failed} failed"
        );
    }
    exit
}

/// The templates of a run; a `--templates DIR` that is not a folder is a usage error (exit 2),
/// a template that does not compile is invalid input (exit 1).
pub(super) fn load_templates(
    dir: Option<&Path>,
    inputs: &crate::support::inputs::Inputs,
) -> Result<Templates, u8> {
    if let Some(dir) = dir
        && !dir.is_dir()
    {
        io_error(&format!(
            "--templates {}: no such folder (give a folder of templates named like the built-in ones)",
            dir.display()
        ));
        return Err(EXIT_IO);
    }
    let templates = Templates::load(dir).map_err(|e| {
        io_error(&format!("template {e}"));
        EXIT_INVALID
    })?;
    templates.files().for_each(|file| inputs.record(file));
    Ok(templates)
}

/// Combinations of options that cannot work, found before anything is read.
fn usage_problem(args: &RenderArgs, batch: bool, profiles: &[PathBuf]) -> Option<String> {
    if profiles.is_empty() {
        return Some(
            "no profile found (a folder argument takes the *.toml files in it)".to_string(),
        );
    }
    if let Some(Err(problem)) = args.out_dir.as_deref().map(super::refuse_stdio_folder) {
        return Some(problem);
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
        let mut names = Vec::with_capacity(profiles.len());
        for profile in profiles {
            match batch_folder_name(profile) {
                Ok(name) => names.push(name),
                Err(e) => return Some(e),
            }
        }
        names.sort();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Some(format!(
                "two profiles are named {}: their outputs would share --out-dir/{}/",
                w[0], w[0]
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_args(argv: &[&str]) -> RenderArgs {
        match super::super::tests::command(argv) {
            super::super::Command::Render(args) => args,
            other => panic!("not a render command line: {other:?}"),
        }
    }

    #[test]
    fn out_dir_dash_is_refused_not_made_a_folder() {
        for argv in [
            &["svcgen", "render", "p.toml", "--out-dir", "-"][..],
            &["svcgen", "render", "p.toml", "--out-dir", "-", "--check"][..],
        ] {
            let args = render_args(argv);
            let problem = usage_problem(&args, false, &args.profile.profiles);
            assert!(
                problem
                    .as_deref()
                    .is_some_and(|p| p.starts_with("--out-dir -:")),
                "{argv:?}: {problem:?}"
            );
        }
        let args = render_args(&["svcgen", "render", "p.toml", "--out-dir", "./-"]);
        assert_eq!(usage_problem(&args, false, &args.profile.profiles), None);
    }
}
