//! `svcgen render`: check profiles and write one target (stdout, `-o FILE`) or all of them
//! (`--out-dir DIR`); `--check` compares with what is on disk instead of writing.
//!
//! Several profiles (or a folder of them) are a batch: each renders into `DIR/<profile name>/`,
//! in parallel, sharing the spec model and one compiled template set. A failing profile writes
//! nothing; the others still render.

use super::check::{Stale, check_files, report_stale};
use super::check_layers;
use super::report::{Reporter, exit_code, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, ProfileArg};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::output::record::{self, Record};
use crate::output::{
    Contents, Durability, OutDir, Payload, WriteOptions, batch_folder_name, write_files,
};
use crate::render::{EnvOptions, HostCopy, Target, Templates, render_checked};
use clap::Args;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

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

/// What became of one profile.
struct Outcome {
    sources: Sources,
    diagnostics: Diagnostics,
    /// The rendered files (by name in the output folder), when the profile is valid.
    files: Option<Vec<(String, Contents)>>,
    /// Problems that are not the profile's (unreadable file, broken template, unwritable output).
    errors: Vec<String>,
    exit: u8,
    /// What goes to stdout for this profile, in input order: the rendering.
    stdout: String,
    /// Files found stale by `--check`, with what differs.
    stale: Vec<Stale>,
    /// True when its files were delivered (written, checked or printed).
    rendered: bool,
    /// What was written, for people: `wrote DIR/: .env, … (2 unchanged)`.
    wrote: Option<String>,
    /// The targets `--out-dir` left out, and why (see [`chosen_targets`]).
    left_out: Option<String>,
    /// The files the profile read or named (for its output folder's record).
    logged: Vec<crate::support::inputs::Logged>,
    /// Its diagnostics all come from checking the profile (none from rendering it), so checking
    /// it again reproduces them (an output folder's record may then hold them).
    replayable: bool,
    /// Its output folder's record holds: checked, not rendered, nothing to write.
    held: bool,
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
    let inputs = command_inputs(args, batch, &profiles);
    record_named_inputs(args, &profiles, &inputs);
    let targets = targets(args);
    let templates = match load_templates(args.templates.as_deref(), &inputs) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let record_options = record_options(args, batch, &targets, &templates);
    let out_dir = match (&args.out_dir, args.check) {
        (Some(dir), false) => match OutDir::open(dir, &inputs) {
            Ok(d) => Some(d),
            Err(e) => {
                io_error(&e);
                return EXIT_IO;
            }
        },
        _ => None,
    };
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
        args,
        batch,
        targets: &targets,
        templates: &templates,
        out_dir: out_dir.as_ref(),
        inputs: &inputs,
        record_options: record_options.as_deref(),
    };
    report_all(&job, &profiles)
}

/// The command's inputs. For a batch into `--out-dir`, its output folders (`--out-dir` and each
/// profile's folder in it) are known from the profile list before any profile is read: no
/// profile of the batch may read an input inside one of them, whichever profile writes it and
/// whenever (issue 20, class 5).
fn command_inputs(
    args: &RenderArgs,
    batch: bool,
    profiles: &[PathBuf],
) -> crate::support::inputs::Inputs {
    match args.out_dir.as_deref().filter(|_| batch) {
        Some(dir) => crate::support::inputs::Inputs::with_fences(
            dir,
            profiles.iter().filter_map(|p| batch_folder_name(p).ok()),
        ),
        None => crate::support::inputs::Inputs::default(),
    }
}

/// Everything besides the files a profile reads that changes its outputs, as text for the key
/// of an output folder's record (see `output::record`): the options, where the output folder
/// is, the current folder (when a relative path could be read through it), and the templates
/// folder's listing and contents. `None` when no record may be kept: not an `--out-dir` render,
/// secrets read from the environment (`--include-secrets`), a layer read from standard input,
/// or a templates folder that cannot be read again.
fn record_options(
    args: &RenderArgs,
    batch: bool,
    targets: &[Target],
    templates: &Templates,
) -> Option<String> {
    if args.out_dir.is_none() || args.include_secrets || reads_stdin(args) {
        return None;
    }
    // Where the outputs go (host paths in them are relative to it), wherever the command runs.
    let out_dir = args.out_dir.as_deref()?;
    let place = crate::support::inputs::canonical_path(out_dir)?;
    let mut text = format!(
        "targets {targets:?}\nlayers {:?}\nminimal {}\nout-dir {out_dir:?} {place:?}\nbatch {batch}\n",
        args.profile.layers, args.minimal
    );
    // A relative path on the command line names another file from another folder, and so may a
    // `--set` or `--set-file` value (a host path given with `--set` resolves against the current
    // folder): then the current folder is part of the key. Paths a profile names resolve against
    // its own folder; each input's name as given is re-resolved by the record (`output::record`),
    // so a relative name leading elsewhere from another folder never holds either.
    let layers = &args.profile.layers;
    let set_files = layers.set_files.iter().filter_map(|s| s.split_once('='));
    let named = (args.profile.profiles.iter().map(PathBuf::as_path))
        .chain(layers.overlays.iter().map(PathBuf::as_path))
        .chain(set_files.map(|(_, path)| Path::new(path)))
        .chain(args.templates.as_deref())
        .chain([out_dir]);
    let values = !layers.sets.is_empty() || !layers.set_files.is_empty();
    if values || named.into_iter().any(Path::is_relative) {
        text.push_str(&format!("cwd {:?}\n", std::env::current_dir().ok()?));
    }
    if let Some(dir) = &args.templates {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .ok()?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()
            .ok()?;
        names.sort();
        text.push_str(&format!("templates {dir:?} {names:?}\n"));
        for file in templates.files() {
            let bytes = crate::profile::read_regular(file).ok()?;
            text.push_str(&format!("{file:?} {}\n", record::digest(&bytes)));
        }
    }
    Some(text)
}

/// Whether a layer or a `--set-file` value is read from standard input, which no record can
/// vouch for: such runs neither trust nor write one.
fn reads_stdin(args: &RenderArgs) -> bool {
    let layers = &args.profile.layers;
    let set_files = layers.set_files.iter().filter_map(|s| s.split_once('='));
    (args.profile.profiles.iter().map(PathBuf::as_path))
        .chain(layers.overlays.iter().map(PathBuf::as_path))
        .chain(set_files.map(|(_, path)| Path::new(path)))
        .any(super::is_stdio)
}

/// Everything a worker needs to render and deliver one profile.
struct Job<'a> {
    args: &'a RenderArgs,
    batch: bool,
    targets: &'a [Target],
    templates: &'a Templates,
    out_dir: Option<&'a OutDir>,
    /// The command's inputs, shared by the workers: no profile's output replaces any of them.
    inputs: &'a crate::support::inputs::Inputs,
    /// The options part of each output folder's record key; `None`: no record is kept.
    record_options: Option<&'a str>,
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

/// Files named on the command line, recorded as inputs up front: in a batch, one profile's
/// outputs are written while later profiles are still to be read, and none may replace them.
/// (`extends` bases are recorded as they are read.)
fn record_named_inputs(
    args: &RenderArgs,
    profiles: &[PathBuf],
    inputs: &crate::support::inputs::Inputs,
) {
    for profile in profiles {
        inputs.record(profile);
    }
    for set in &args.profile.layers.set_files {
        if let Some((_, path)) = set.split_once('=') {
            inputs.record(Path::new(path));
        }
    }
    for overlay in &args.profile.layers.overlays {
        inputs.record(overlay);
    }
}

/// Renders and delivers every profile through the bounded pipeline, then prints, in input order,
/// each profile's diagnostics and output; returns the exit code.
fn report_all(job: &Job<'_>, profiles: &[PathBuf]) -> u8 {
    let args = job.args;
    let mut exit = EXIT_OK;
    let mut stale: Vec<Stale> = Vec::new();
    let mut rendered = 0;
    // The CI formats are one document of diagnostics and stale files: on stdout with --check
    // (which prints nothing else there), else on stderr as JSON is.
    let ci_to_stdout = args.check && args.diagnostics.format.for_ci();
    let mut reporter = Reporter::new(&args.diagnostics, ci_to_stdout);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(profiles.len());
    let mut progress = Progress::new(profiles.len(), args.diagnostics.quiet);
    crate::commands::batch::for_each_ordered(
        profiles.len(),
        workers,
        workers * IN_FLIGHT_PER_WORKER,
        |i| deliver(job, &profiles[i]),
        |_, outcome| {
            for error in &outcome.errors {
                reporter.io_error(error);
            }
            let code = reporter.add(&outcome.diagnostics, &outcome.sources);
            exit = exit.max(code).max(outcome.exit);
            let _ = std::io::stdout().write_all(outcome.stdout.as_bytes());
            // Diffs for people as they come; JSON is one report at the end.
            if args.diagnostics.format == super::Format::Human {
                report_stale(&outcome.stale, super::Format::Human);
            }
            stale.extend(outcome.stale);
            rendered += usize::from(outcome.rendered);
            // One profile says what it wrote (a batch sums up at the end).
            if let Some(wrote) = &outcome.wrote
                && !job.batch
                && !args.diagnostics.quiet
                && args.diagnostics.format == super::Format::Human
            {
                let _ = writeln!(std::io::stderr(), "{wrote}");
            }
            // What a profile's folder lacks, and why, in a batch too.
            if let Some(left_out) = outcome.left_out.as_ref().filter(|_| outcome.rendered)
                && !args.diagnostics.quiet
                && args.diagnostics.format == super::Format::Human
            {
                let _ = writeln!(
                    std::io::stderr(),
                    "note: {}",
                    crate::support::escape::one_line(left_out)
                );
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
    if job.batch && !args.diagnostics.quiet && args.diagnostics.format == super::Format::Human {
        let failed = profiles.len() - rendered;
        let _ = writeln!(
            std::io::stderr(),
            "rendered {rendered} profile(s), {failed} failed"
        );
    }
    exit
}

/// Renders one profile and delivers its files (written, checked or kept for stdout), on a
/// worker thread; what must be printed is kept in the outcome, printed in order by the caller.
fn deliver(job: &Job<'_>, profile: &Path) -> Outcome {
    let args = job.args;
    let key = record_key(job, profile);
    let mut early = None;
    let mut replay = None;
    if let Some(key) = &key {
        match from_record(job, profile, key) {
            FromRecord::Held(outcome) => return *outcome,
            FromRecord::Render { dest, replay: r } => (early, replay) = (dest, r),
        }
    }
    let held_by = replay
        .as_ref()
        .zip(early.as_ref())
        .and_then(|(record, dest)| Some((record, key.as_deref()?, dest.folder.as_deref()?)));
    let mut outcome = render_one(job, profile, held_by);
    let blocked =
        outcome.exit != EXIT_OK || exit_code(&outcome.diagnostics, &args.diagnostics) != EXIT_OK;
    if outcome.held {
        if !blocked && let Some(dest) = &early {
            outcome.rendered = true;
            outcome.wrote = up_to_date(job, dest, replay.as_ref());
        }
        return outcome;
    }
    let Some(files) = outcome.files.take().filter(|_| !blocked) else {
        return outcome;
    };
    let dest = match early.map_or_else(|| destination(job, profile), |d| Ok(Some(d))) {
        Ok(d) => d,
        Err(e) => {
            outcome.errors.push(e);
            outcome.exit = EXIT_IO;
            return outcome;
        }
    };
    match dest {
        None => {
            for (_, contents) in files {
                if let Contents::Text(text) = contents {
                    outcome.stdout.push_str(&text);
                }
            }
        }
        Some(dest) if args.check => {
            let paths = dest.paths(files);
            outcome.stale = check_files(&paths, args.include_secrets);
            let gone = no_longer_rendered(job, &dest, &paths);
            outcome.stale.extend(super::check::extra_files(&gone));
        }
        Some(dest) => {
            let clean = outcome.replayable && outcome.errors.is_empty();
            let key = key.filter(|_| clean);
            if let Err(e) = write_out(job, &dest, files, key.as_deref(), &mut outcome) {
                outcome.errors.push(e);
                outcome.exit = EXIT_IO;
                return outcome;
            }
        }
    }
    outcome.rendered = true;
    outcome
}

/// The key of `profile`'s output folder record, when one is kept (see [`record_options`]).
fn record_key(job: &Job<'_>, profile: &Path) -> Option<String> {
    let options = job.record_options?;
    (!super::is_stdio(profile)).then(|| record::key(&[options, &format!("{profile:?}")]))
}

/// The profile's outcome without checking or rendering it when its output folder's record
/// holds and the render reported nothing, or only warnings that `-q` hides (see
/// `output::record`). Otherwise its destination, if
/// it was locked on the way, and the record, when it holds only after checking the profile
/// again to report its diagnostics. The inputs the record names become inputs of this run, as a
/// render would have made them.
fn from_record(job: &Job<'_>, profile: &Path, key: &str) -> FromRecord {
    let render = |dest, replay| FromRecord::Render { dest, replay };
    let Some(folder) = output_folder(job, profile) else {
        return render(None, None);
    };
    let Some(found) = Record::load(&folder) else {
        return render(None, None);
    };
    let Ok(Some(dest)) = destination(job, profile) else {
        return render(None, None);
    };
    // Warnings need reporting unless `-q` hides them and they cannot fail the run.
    let hidden = job.args.diagnostics.quiet && !job.args.diagnostics.deny_warnings;
    if !found.quiet && !hidden {
        return render(Some(dest), Some(found));
    }
    if !dest.folder.as_deref().is_some_and(|f| found.holds(key, f)) {
        return render(Some(dest), None);
    }
    let view = job.inputs.for_profile();
    found.input_paths().for_each(|path| view.record(path));
    if view.fenced().is_err() {
        return render(Some(dest), None);
    }
    FromRecord::Held(Box::new(Outcome {
        sources: Sources::new(),
        diagnostics: Diagnostics::default(),
        files: None,
        errors: Vec::new(),
        exit: EXIT_OK,
        stdout: String::new(),
        stale: Vec::new(),
        rendered: true,
        wrote: up_to_date(job, &dest, Some(&found)),
        logged: Vec::new(),
        replayable: true,
        held: true,
        left_out: None,
    }))
}

/// What an output folder's record says of a profile before it is rendered.
enum FromRecord {
    /// It holds: the profile's outcome, nothing to render or write.
    Held(Box<Outcome>),
    /// Render (or, with `replay`, a record to check again once the profile's diagnostics are
    /// known), into `dest` when it was locked on the way.
    Render {
        dest: Option<Destination>,
        replay: Option<Record>,
    },
}

/// "DIR/: up to date, nothing written", for a profile whose record holds (nothing with --check).
fn up_to_date(job: &Job<'_>, dest: &Destination, found: Option<&Record>) -> Option<String> {
    let folder = dest.folder.as_deref()?;
    let unchanged = crate::output::Written {
        written: 0,
        unchanged: found.map_or(0, |r| r.output_paths(folder).len()),
        removed: 0,
    };
    let shown = job.args.out_dir.as_deref().filter(|_| !job.batch);
    (!job.args.check).then(|| wrote_line(dest, shown, &[], &unchanged))
}

/// Writes one profile's files to `dest`, with its output folder's record when `key` is given
/// (in the same commit, so the record never names files that are not there).
fn write_out(
    job: &Job<'_>,
    dest: &Destination,
    files: Vec<(String, Contents)>,
    key: Option<&str>,
    outcome: &mut Outcome,
) -> Result<(), String> {
    let args = job.args;
    let options = WriteOptions {
        private: args.include_secrets,
        durability: if args.fsync {
            Durability::Fsync
        } else {
            Durability::Rename
        },
        in_place: false,
        inputs: Some(job.inputs),
        remove: &[],
    };
    let within = job.out_dir.map(|d| d.root.as_path());
    // A batch checked each profile's inputs against every output folder as they were read
    // (`Inputs::fenced`), and the command's own at `OutDir::open`; one profile has only its own
    // to check here (the inputs read after the folder was opened).
    if let (Some(root), false) = (within, job.batch) {
        job.inputs.refuse_inside(root)?;
    }
    let mut paths = dest.paths(files);
    let outputs = paths.len();
    let gone = no_longer_rendered(job, dest, &paths);
    let options = WriteOptions {
        remove: &gone,
        ..options
    };
    // Whether the record on disk already holds this text (then it is not rewritten).
    let mut record_unchanged = None;
    if let (Some(key), Some(folder)) = (key, &dest.folder) {
        let listed: Vec<(PathBuf, &[u8], bool)> = paths
            .iter()
            .map(|(p, c)| (p.clone(), c.as_ref(), c.private() || options.private))
            .collect();
        let quiet = outcome.diagnostics.is_empty();
        let text = Record::new(key.to_string(), quiet, &outcome.logged, folder, &listed)
            .and_then(|r| r.to_text());
        if let Some(text) = text {
            let path = folder.join(record::FILE_NAME);
            record_unchanged =
                Some(crate::profile::read_regular(&path).is_ok_and(|old| old == text.as_bytes()));
            paths.push((path, Contents::Text(text)));
        }
    }
    // `-o FILE` into a folder that does not exist yet creates it, as `--out-dir` does
    // (and removes it again when the write fails).
    let made = match dest.file.as_deref().map(create_parents) {
        Some(made) => made?,
        None => Vec::new(),
    };
    let mut written = write_files(&paths, within, options).inspect_err(|_| remove_made(&made))?;
    match record_unchanged {
        Some(true) => written.unchanged -= 1,
        Some(false) => written.written -= 1,
        None => {}
    }
    let shown = args.out_dir.as_deref().filter(|_| !job.batch);
    outcome.wrote = Some(wrote_line(dest, shown, &paths[..outputs], &written));
    Ok(())
}

/// The files an earlier render wrote into `dest`'s folder (its `.svcgen-record` lists them)
/// that this one does not produce, and that are still there: a render of the whole folder (no
/// `-t`) removes them in its commit, and `--check` reports them, so a target left out (a
/// profile that gained a deploy-time value) never leaves its stale files behind. With `-t`,
/// the other targets' files are not this render's business and stay. Only the record's own
/// list is ever removed (plain names below the folder, see `output::record`).
fn no_longer_rendered(
    job: &Job<'_>,
    dest: &Destination,
    paths: &[(PathBuf, Contents)],
) -> Vec<PathBuf> {
    let Some(folder) = dest
        .folder
        .as_deref()
        .filter(|_| job.args.target.is_empty())
    else {
        return Vec::new();
    };
    let Some(found) = Record::load(folder) else {
        return Vec::new();
    };
    found
        .output_paths(folder)
        .into_iter()
        .filter(|old| !paths.iter().any(|(p, _)| p == old))
        .filter(|old| std::fs::symlink_metadata(old).is_ok())
        .collect()
}

/// The missing folders above `file`, created outermost first; returns them (to remove again).
/// Every `-o` does this (`render`, `import`, `migrate`, `docs`, `init`, `schema`), as
/// `--out-dir` creates its folder.
pub(super) fn create_parents(file: &Path) -> Result<Vec<PathBuf>, String> {
    let mut missing = Vec::new();
    let mut folder = file.parent().filter(|p| !p.as_os_str().is_empty());
    while let Some(dir) = folder {
        if std::fs::symlink_metadata(dir).is_ok() {
            break;
        }
        missing.push(dir.to_path_buf());
        folder = dir.parent().filter(|p| !p.as_os_str().is_empty());
    }
    missing.reverse();
    for (i, dir) in missing.iter().enumerate() {
        if let Err(e) = std::fs::create_dir(dir) {
            remove_made(&missing[..i]);
            return Err(format!(
                "{}: cannot create the folder: {e}; create it, or write elsewhere with -o",
                crate::support::escape::one_line(&dir.display().to_string())
            ));
        }
    }
    Ok(missing)
}

/// Removes the folders `create_parents` made, innermost first (each only if still empty).
pub(super) fn remove_made(made: &[PathBuf]) {
    for dir in made.iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// `wrote DEST: a, b, c` (with how many were already up to date), for people.
/// `shown`: the folder as the command line wrote it.
fn wrote_line(
    dest: &Destination,
    shown: Option<&Path>,
    paths: &[(PathBuf, Contents)],
    written: &crate::output::Written,
) -> String {
    let place = match (&dest.folder, &dest.file) {
        (Some(dir), _) => format!("{}/", shown.unwrap_or(dir).display()),
        (None, Some(file)) => file.display().to_string(),
        (None, None) => String::new(),
    };
    let names: Vec<String> = match &dest.folder {
        Some(dir) => paths
            .iter()
            .map(|(p, _)| p.strip_prefix(dir).unwrap_or(p).display().to_string())
            .collect(),
        None => Vec::new(),
    };
    let mut line = match written.written {
        0 => format!("{place}: up to date, nothing written"),
        _ if names.is_empty() => format!("wrote {place}"),
        _ => format!("wrote {place}: {}", names.join(", ")),
    };
    if written.written > 0 && written.unchanged > 0 {
        line.push_str(&format!(" ({} already up to date)", written.unchanged));
    }
    if written.removed > 0 {
        line.push_str(&format!(
            "; removed {} file(s) it no longer renders",
            written.removed
        ));
    }
    crate::support::escape::one_line(&line)
}

/// "rendering N/M" on a terminal for batches of 50 or more, at most ten times a second.
struct Progress {
    total: usize,
    done: usize,
    shown: Option<std::time::Instant>,
    enabled: bool,
}

impl Progress {
    fn new(total: usize, quiet: bool) -> Progress {
        Progress {
            total,
            done: 0,
            shown: None,
            enabled: std::io::stderr().is_terminal() && total >= 50 && !quiet,
        }
    }

    fn step(&mut self) {
        self.done += 1;
        if !self.enabled || self.shown.is_some_and(|t| t.elapsed().as_millis() < 100) {
            return;
        }
        self.shown = Some(std::time::Instant::now());
        let _ = write!(
            std::io::stderr(),
            "\rrendering {}/{}",
            self.done,
            self.total
        );
    }

    fn finish(&self) {
        if self.enabled {
            let _ = writeln!(
                std::io::stderr(),
                "\rrendering {}/{}",
                self.total,
                self.total
            );
        }
    }
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

/// Checks and renders one profile (with the command line's layers).
/// With `held_by` (a record whose profile reported diagnostics, its key and folder), the profile
/// is only checked when the record holds: its diagnostics are reported, nothing is rendered.
fn render_one(job: &Job<'_>, profile: &Path, held_by: Option<(&Record, &str, &Path)>) -> Outcome {
    let args = job.args;
    let view = job.inputs.for_profile();
    let mut sources = Sources::with_inputs(view.clone());
    let outcome = |diagnostics, files, errors: Vec<String>, exit| Outcome {
        sources: Sources::new(),
        diagnostics,
        files,
        errors,
        exit,
        stdout: String::new(),
        stale: Vec::new(),
        rendered: false,
        wrote: None,
        logged: Vec::new(),
        replayable: false,
        held: false,
        left_out: None,
    };
    let checked = match check_layers(&args.profile.layers.layers(profile), &mut sources) {
        Ok(c) => c,
        Err(message) => return outcome(Diagnostics::default(), None, vec![message], EXIT_IO),
    };
    let mut diags = checked.diagnostics;
    let root = checked.root;
    if let Some(resolved) = &checked.resolved {
        record_named_files(resolved, &view);
    }
    // Issue 20, class 5: an input inside any output folder of the batch.
    if let Err(e) = view.fenced() {
        return outcome(Diagnostics::default(), None, vec![e], EXIT_IO);
    }
    let held = held_by
        .is_some_and(|(record, key, folder)| !diags.has_errors() && record.holds(key, folder));
    if let (Some(resolved), true) = (&checked.resolved, held) {
        diags.extend(replayed(resolved, &chosen_targets(job, resolved).0));
    }
    let (Some(resolved), false) = (checked.resolved, held) else {
        let mut o = outcome(diags, None, Vec::new(), EXIT_OK);
        o.sources = sources;
        o.held = held;
        return o;
    };
    if args.include_secrets {
        diags.extend(secret_files_outside(&resolved, root.as_ref(), &sources));
    }
    let options = EnvOptions {
        minimal: args.minimal,
        include_secrets: args.include_secrets,
        copy_host_files: args.out_dir.is_some(),
    };
    // Host paths in the outputs are relative to the folder they are written to.
    let folder = output_folder(job, profile);
    let (targets, left_out) = chosen_targets(job, &resolved);
    let rendered = render_checked(
        &resolved,
        options,
        &targets,
        job.templates,
        folder.as_deref(),
        Some(&|path| super::read_host_file(path, root.as_ref(), &view)),
    );
    if let Err(e) = view.fenced() {
        return outcome(Diagnostics::default(), None, vec![e], EXIT_IO);
    }
    let errors = crate::templates::messages(&rendered.template_errors);
    let replay = replayed(&resolved, &targets);
    let replayable = rendered
        .diagnostics
        .items
        .iter()
        .all(|d| replay.items.contains(d));
    rendered.drop_superseded(&mut diags);
    diags.extend(rendered.diagnostics);
    let files = (!diags.has_errors()).then(|| {
        let mut files = named(rendered.files);
        files.extend(host_copies(rendered.copies, folder.as_deref()));
        files
    });
    let mut o = outcome(diags, files, errors, EXIT_OK);
    o.sources = sources;
    o.logged = view.logged();
    o.replayable = replayable;
    o.left_out = left_out;
    o
}

/// With `--include-secrets` a secret's `{ file = PATH }` that a profile writes is read into an
/// output: only from inside the profile's root, as a host file is (see
/// [`crate::support::root`]). A `--set-file` path is named on the command line, not by the
/// profile: it is the operator's own.
fn secret_files_outside(
    resolved: &crate::resolve::Resolved,
    root: Option<&crate::support::root::Root>,
    sources: &Sources,
) -> Diagnostics {
    use crate::value_type::{SecretSource, Typed};
    let mut diags = Diagnostics::default();
    let Some(root) = root else {
        return diags;
    };
    for rv in &resolved.vars {
        let Typed::Secret(SecretSource::File { path, .. }) = &rv.value else {
            continue;
        };
        let on_command_line =
            (rv.origin).is_some_and(|o| sources.get(o.source).name.starts_with("--"));
        if let (false, Err(why)) = (on_command_line, root.admit(path, "the secret file")) {
            diags.push(crate::render::checks::unreadable_secret(rv, &why));
        }
    }
    diags
}

/// The diagnostics of rendering `targets` that checking the profile alone reproduces: what a
/// deployment lacks (`checks::deployed`, for targets that start the container) and the
/// workload's findings against the image (for targets that render the workload), as the profile
/// acknowledges them. A profile whose rendering reported only these may be held by its folder's
/// record (see `output::record`): its replay reports them again without rendering.
fn replayed(resolved: &crate::resolve::Resolved, targets: &[Target]) -> Diagnostics {
    let mut found = crate::render::checks::deployed(resolved, targets);
    let rows = || targets.iter().map(|t| crate::render::targets::row(*t));
    if rows().any(|row| row.renders_workload) {
        (found.items).extend(resolved.deploy.image_findings.iter().cloned());
    }
    crate::resolve::allow::acknowledge(&mut found, &resolved.allow);
    found
}

/// The targets to render for this profile. `--out-dir` without `-t` writes what `validate`
/// checks: the targets of the deployments the profile is for (`deploy.compose`,
/// `deploy.kubernetes`), and for a profile with a deploy-time value (`{ deploy_env = "X" }`,
/// which `validate` accepts with W0334 and the Kubernetes targets cannot carry), the targets that
/// carry it; it says which it left out and why. Targets named with `-t` are rendered or refused.
fn chosen_targets(
    job: &Job<'_>,
    resolved: &crate::resolve::Resolved,
) -> (Vec<Target>, Option<String>) {
    let all = job.targets.to_vec();
    if !job.args.target.is_empty() || job.args.out_dir.is_none() {
        return (all, None);
    }
    let deployed = crate::commands::validate::deployed_targets(resolved, &all);
    let mut why = Vec::new();
    let opted_out = dropped_files(&all, &deployed);
    if let Some(target) = all.iter().find(|t| !deployed.contains(t)) {
        let how = crate::render::targets::row(*target).runs_container;
        let setting = how.map_or("", |how| how.setting());
        why.push(format!(
            "left out {opted_out}: the profile says it is not deployed with {} (`{setting} = \
             false`)",
            how.map_or("", |how| how.deployment())
        ));
    }
    let Some(first) = crate::commands::validate::deploy_time_values(resolved)
        .into_iter()
        .next()
    else {
        return (deployed, (!why.is_empty()).then(|| why.join("; ")));
    };
    let kept = crate::commands::validate::carrying_deploy_time(&deployed);
    why.push(format!(
        "left out {}: `{}` is filled in at deploy time from {}, which the Kubernetes targets \
         cannot carry; --set {}=VALUE renders them",
        dropped_files(&deployed, &kept),
        first.key,
        first.var,
        first.key
    ));
    (kept, Some(why.join("; ")))
}

/// The file names of the targets of `all` that `kept` leaves out, for people.
fn dropped_files(all: &[Target], kept: &[Target]) -> String {
    let dropped: Vec<&str> = all
        .iter()
        .filter(|t| !kept.contains(t))
        .map(|t| crate::render::targets::row(*t).file_name)
        .collect();
    dropped.join(", ")
}

/// The files a profile names (host files, secret `{ file }` sources), recorded as inputs whether
/// or not this run reads them: no output may replace one, and no output folder may hold one.
fn record_named_files(
    resolved: &crate::resolve::Resolved,
    inputs: &crate::support::inputs::Inputs,
) {
    for file in &resolved.deploy.files {
        if let Some(path) = &file.host_path {
            inputs.record(path);
        }
    }
    for var in &resolved.vars {
        if let crate::resolve::Typed::Secret(crate::resolve::SecretSource::File { path, .. }) =
            &var.value
        {
            inputs.record(path);
        }
    }
}

/// Each rendered target under its file name in an output folder.
fn named(files: Vec<(Target, String)>) -> Vec<(String, Contents)> {
    files
        .into_iter()
        .map(|(target, text)| (target.file_name().to_string(), Contents::Text(text)))
        .collect()
}

/// The copies of host files the kustomize base holds, to be written beside the targets. A host
/// file that already is its copy (rendered into the profile's own folder) is left as it is.
fn host_copies(copies: Vec<HostCopy>, folder: Option<&Path>) -> Vec<(String, Contents)> {
    copies
        .into_iter()
        .filter(|copy| {
            let is_itself =
                |host: &Path| folder.is_some_and(|f| same_file(host, &f.join(&copy.relative)));
            !copy.host_path.as_deref().is_some_and(is_itself)
        })
        .map(|copy| {
            let contents = match &copy.host_path {
                Some(host) => copied(host, copy.bytes),
                None => Contents::Bytes(copy.bytes),
            };
            (copy.relative, contents)
        })
        .collect()
}

/// A host file's copy: as private as the file (readable by its owner only when others cannot
/// read the host file: a `0600` key stays `0600` in the base, whatever the umask).
fn copied(host_path: &Path, bytes: Vec<u8>) -> Contents {
    use std::os::unix::fs::PermissionsExt;
    let others_read =
        std::fs::metadata(host_path).is_ok_and(|m| m.permissions().mode() & 0o004 != 0);
    if others_read {
        Contents::Bytes(bytes)
    } else {
        Contents::PrivateBytes(bytes)
    }
}

/// True when both paths name one existing file (device and inode).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
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

/// Where one profile's files go.
struct Destination {
    /// A folder (`--out-dir`, or its sub-folder in a batch), or one file (`-o`).
    folder: Option<PathBuf>,
    file: Option<PathBuf>,
    /// A batch profile's folder is locked while its files are written.
    _lock: Option<std::fs::File>,
}

impl Destination {
    fn paths(&self, files: Vec<(String, Contents)>) -> Vec<(PathBuf, Contents)> {
        files
            .into_iter()
            .map(|(name, text)| match (&self.folder, &self.file) {
                (Some(dir), _) => (dir.join(name), text),
                (None, Some(file)) => (file.clone(), text),
                (None, None) => unreachable!("a destination has a folder or a file"),
            })
            .collect()
    }
}

/// The folder one profile's files are written to (`-o FILE`: the file's folder; stdout: none),
/// known before anything is written: host paths in the outputs are made relative to it.
fn output_folder(job: &Job<'_>, profile: &Path) -> Option<PathBuf> {
    let args = job.args;
    match (&args.out_dir, &args.output) {
        (Some(dir), _) if job.batch => batch_folder_name(profile).ok().map(|n| dir.join(n)),
        (Some(dir), _) => Some(dir.clone()),
        (None, Some(file)) if super::is_stdio(file) => None,
        (None, Some(file)) => Some(match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }),
        (None, None) => None,
    }
}

/// Where one profile's files go: `None` for stdout. In a batch, the profile's own folder under
/// `--out-dir` (created, and checked to be inside it).
fn destination(job: &Job<'_>, profile: &Path) -> Result<Option<Destination>, String> {
    let args = job.args;
    Ok(match (&args.out_dir, &args.output) {
        (Some(dir), _) if job.batch => {
            let name = batch_folder_name(profile)?;
            let (folder, lock) = match job.out_dir {
                Some(out) => {
                    let (folder, lock) = out.sub_folder(&name)?;
                    (folder, Some(lock))
                }
                None => (dir.join(name), None), // --check: read only
            };
            Some(Destination {
                folder: Some(folder),
                file: None,
                _lock: lock,
            })
        }
        (Some(dir), _) => Some(Destination {
            folder: Some(job.out_dir.map_or_else(|| dir.clone(), |d| d.root.clone())),
            file: None,
            _lock: None,
        }),
        (None, Some(file)) if super::is_stdio(file) => None,
        (None, Some(file)) => Some(Destination {
            folder: None,
            file: Some(file.clone()),
            _lock: None,
        }),
        (None, None) => None,
    })
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
