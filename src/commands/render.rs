//! `render`'s library side: check one profile, render the targets asked, and deliver the files
//! (printed, written into a folder or a file, or compared with what is on disk by `--check`).
//! The command line (`cli::render`) parses the arguments, runs a batch through
//! [`crate::commands::batch`] and prints each [`Outcome`]; nothing here prints.
//!
//! Nothing on disk is trusted for a verdict: every profile is checked and rendered on every run,
//! and `--check` compares each file with its rendering. svcgen keeps no file of its own in an
//! output folder. It removes a file only when this render of the whole folder leaves out the
//! target that file is named for and the file holds exactly what svcgen renders for that target
//! now (so nothing is lost: `render -t` gives it back); any other file of such a name is left in
//! place and reported (`--check` fails on it), as git refuses to remove a modified file.

use crate::commands::stale::{Stale, check_files};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::output::{Contents, Durability, OutDir, WriteOptions, Written, write_files};
use crate::profile::{Layers, SetKind};
use crate::render::{EnvOptions, HostCopy, Target, Templates, render_checked};
use crate::resolve::Resolved;
use crate::resolve::deploy::Mounts;
use crate::support::inputs::Inputs;
use std::path::{Path, PathBuf};

/// What a render is asked to do, the same for every profile of a batch.
pub struct Job<'a> {
    /// The layers over each profile (`profile` is replaced by each profile's path).
    pub layers: &'a Layers,
    /// The targets to render: `-t`'s, or every deployable one into a folder.
    pub targets: &'a [Target],
    /// `-t` was given: only those targets' files are this render's business.
    pub targets_given: bool,
    pub minimal: bool,
    pub include_secrets: bool,
    pub check: bool,
    pub fsync: bool,
    pub deny_warnings: bool,
    /// Several profiles, each into its own folder under `out_dir`.
    pub batch: bool,
    pub out_dir: Option<&'a Path>,
    /// `-o FILE` (`None` or `-`: standard output).
    pub output: Option<&'a Path>,
    pub templates: &'a Templates,
    /// The output folder, created and locked (not with `--check`).
    pub locked: Option<&'a OutDir>,
    /// The command's inputs, shared by the workers: no profile's output replaces any of them.
    pub inputs: &'a Inputs,
}

/// What became of one profile.
pub struct Outcome {
    pub sources: Sources,
    pub diagnostics: Diagnostics,
    /// Problems that are not the profile's (unreadable file, broken template, unwritable output).
    pub errors: Vec<String>,
    /// An error of the host (read, write, usage), not of the profile.
    pub host_failed: bool,
    /// The rendering, for standard output.
    pub stdout: String,
    /// Files found stale by `--check`, with what differs.
    pub stale: Vec<Stale>,
    /// True when its files were delivered (written, checked or printed).
    pub rendered: bool,
    /// What was written, for people: `wrote DIR/: .env, … (2 already up to date)`.
    pub wrote: Option<String>,
    /// Notes for people: the targets `--out-dir` left out and why, files it left in place.
    pub notes: Vec<String>,
}

impl Outcome {
    fn new(sources: Sources, diagnostics: Diagnostics) -> Outcome {
        Outcome {
            sources,
            diagnostics,
            errors: Vec::new(),
            host_failed: false,
            stdout: String::new(),
            stale: Vec::new(),
            rendered: false,
            wrote: None,
            notes: Vec::new(),
        }
    }

    fn failed(mut self, error: String) -> Outcome {
        self.errors.push(error);
        self.host_failed = true;
        self
    }
}

/// A profile checked and rendered, before delivery.
struct Rendered {
    files: Vec<(String, Contents)>,
    /// Files of targets this render leaves out: (path, what svcgen renders for it now, if it can).
    left_behind: Vec<(PathBuf, Option<String>)>,
}

/// Renders one profile and delivers its files (written, checked or kept for stdout); what must
/// be printed is kept in the outcome, printed in order by the caller.
pub fn deliver(job: &Job<'_>, profile: &Path) -> Outcome {
    // Checking and rendering resolve the same few paths several times; writing is outside the
    // scope, so the writer's checks ask the file system.
    let (mut outcome, rendered) = crate::support::resolved::scope(|| render_one(job, profile));
    let blocked = outcome.host_failed
        || outcome.diagnostics.has_errors()
        || (job.deny_warnings && !outcome.diagnostics.is_empty());
    let Some(rendered) = rendered.filter(|_| !blocked) else {
        return outcome;
    };
    let dest = match destination(job, profile) {
        Ok(d) => d,
        Err(e) => return outcome.failed(e),
    };
    let Some(dest) = dest else {
        for (_, contents) in rendered.files {
            if let Contents::Text(text) = contents {
                outcome.stdout.push_str(&text);
            }
        }
        outcome.rendered = true;
        return outcome;
    };
    if let Some(folder) = &dest.folder {
        outcome.notes.extend(leftover_notes(folder));
    }
    let result = match job.check {
        true => {
            check_out(job, &dest, rendered, &mut outcome);
            Ok(())
        }
        false => write_out(job, &dest, rendered, &mut outcome),
    };
    match result {
        Ok(()) => {
            outcome.rendered = true;
            outcome
        }
        Err(e) => outcome.failed(e),
    }
}

/// Checks and renders one profile (with the command line's layers): its outcome so far, and its
/// files when it is valid.
fn render_one(job: &Job<'_>, profile: &Path) -> (Outcome, Option<Rendered>) {
    let view = job.inputs.for_profile();
    let mut sources = Sources::with_inputs(view.clone());
    let layers = Layers {
        profile: profile.to_path_buf(),
        ..job.layers.clone()
    };
    let checked = match check_layers(&layers, &mut sources) {
        Ok(c) => c,
        Err(message) => {
            return (
                Outcome::new(Sources::new(), Diagnostics::default()).failed(message),
                None,
            );
        }
    };
    let mut diags = checked.diagnostics;
    let root = checked.root;
    if let Some(resolved) = &checked.resolved {
        record_named_files(resolved, &view);
    }
    // An input inside any output folder of the batch.
    if let Err(e) = view.fenced() {
        return (
            Outcome::new(Sources::new(), Diagnostics::default()).failed(e),
            None,
        );
    }
    let Some(resolved) = checked.resolved else {
        return (Outcome::new(sources, diags), None);
    };
    if job.include_secrets {
        diags.extend(crate::deployment::env::secret_files_outside(
            &resolved,
            root.as_ref(),
            &sources,
        ));
    }
    let options = EnvOptions {
        minimal: job.minimal,
        include_secrets: job.include_secrets,
        copy_host_files: job.out_dir.is_some(),
    };
    // Host paths in the outputs are relative to the folder they are written to.
    let folder = output_folder(job, profile);
    let (targets, left_out) = chosen_targets(job, &resolved);
    let reader = |path: &Path| crate::profile::read_host_file(path, root.as_ref(), &view);
    let render = |resolved: &Resolved, targets: &[Target]| {
        render_checked(
            resolved,
            options,
            targets,
            job.templates,
            folder.as_deref(),
            Some(&reader),
        )
    };
    let rendered = render(&resolved, &targets);
    if let Err(e) = view.fenced() {
        return (
            Outcome::new(Sources::new(), Diagnostics::default()).failed(e),
            None,
        );
    }
    let errors = crate::templates::messages(&rendered.template_errors);
    diags.extend(rendered.diagnostics);
    let left_behind = match &folder {
        Some(folder) if !job.targets_given => left_behind(job, &resolved, folder, &targets, render),
        _ => Vec::new(),
    };
    let files = (!diags.has_errors()).then(|| {
        let mut files = named(rendered.files);
        files.extend(host_copies(rendered.copies, folder.as_deref()));
        Rendered { files, left_behind }
    });
    let mut outcome = Outcome::new(sources, diags);
    outcome.errors = errors;
    outcome.notes.extend(left_out);
    (outcome, files)
}

/// [`crate::pipeline::check_layers`] for the files named on the command line: a compose file,
/// `.env` or manifest given as a profile gets one error saying what it is and which command reads
/// it, instead of every TOML error of reading it as a profile. (Here, above the pipeline:
/// import's content detection uses the pipeline itself.)
pub fn check_layers(
    layers: &Layers,
    sources: &mut Sources,
) -> Result<crate::pipeline::Checked, String> {
    let first = sources.len();
    let mut checked = crate::pipeline::check_layers(layers, sources)?;
    if checked.diagnostics.has_errors()
        && let Some(diagnostics) =
            crate::import::kind::not_profiles(sources, first, &checked.diagnostics)
    {
        checked.resolved = None;
        checked.diagnostics = diagnostics;
    }
    Ok(checked)
}

/// The files in `folder` named for a target of `job` that this render leaves out, each with what
/// svcgen renders for that target now as if the profile still deployed with it (what a render
/// before the opt-out wrote, when nothing else changed); `None` when it cannot render it (a
/// deploy-time value the Kubernetes targets cannot carry). Only a render of the whole folder
/// asks: with `-t`, the other targets' files are not its business.
fn left_behind(
    job: &Job<'_>,
    resolved: &Resolved,
    folder: &Path,
    kept: &[Target],
    render: impl Fn(&Resolved, &[Target]) -> crate::render::Rendered,
) -> Vec<(PathBuf, Option<String>)> {
    let mut found = Vec::new();
    let mut lifted = None;
    for target in job.targets.iter().filter(|t| !kept.contains(t)) {
        let path = folder.join(target.file_name());
        if std::fs::symlink_metadata(&path).is_err() {
            continue;
        }
        let lifted: &Resolved = lifted.get_or_insert_with(|| {
            let mut all = resolved.clone();
            all.deploy.deployed_by = vec![Mounts::HostFile, Mounts::ObjectKey];
            all
        });
        let alone = render(lifted, &[*target]);
        let text = (!alone.diagnostics.has_errors() && alone.template_errors.is_empty())
            .then(|| alone.files.into_iter().next().map(|(_, text)| text))
            .flatten();
        found.push((path, text));
    }
    found
}

/// Which of the files left behind a render removes: a regular file that holds exactly what
/// svcgen renders for its target now. The others are reported, never removed.
fn removable(left_behind: &[(PathBuf, Option<String>)]) -> (Vec<(PathBuf, String)>, Vec<&Path>) {
    let mut remove = Vec::new();
    let mut kept = Vec::new();
    for (path, text) in left_behind {
        let plain = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
        match text {
            Some(text) if plain && crate::output::holds(path, text.as_bytes()) => {
                remove.push((path.clone(), text.clone()));
            }
            _ => kept.push(path.as_path()),
        }
    }
    (remove, kept)
}

/// What is said of a file left behind that svcgen does not remove.
fn left_in_place(path: &Path) -> String {
    format!(
        "{}: this profile no longer renders this file, and it is not what svcgen renders for its \
         target, so it may be yours: left in place; remove it if it is an old output",
        crate::support::escape::one_line(&path.display().to_string())
    )
}

/// A killed run's temporary files in `folder`, named for people (never removed: svcgen removes
/// only files whose content it knows).
fn leftover_notes(folder: &Path) -> Vec<String> {
    crate::output::leftovers(folder)
        .into_iter()
        .map(|path| {
            format!(
                "{}: a temporary file of an svcgen run that was killed; no reader takes it: \
                 remove it",
                crate::support::escape::one_line(&path.display().to_string())
            )
        })
        .collect()
}

/// `--check`: each file compared with its rendering; a link where a file belongs is stale (a
/// render refuses it), and so is a file of a target this render leaves out.
fn check_out(job: &Job<'_>, dest: &Destination, rendered: Rendered, outcome: &mut Outcome) {
    let paths = dest.paths(rendered.files);
    let (links, files): (Vec<_>, Vec<_>) = paths.into_iter().partition(|(path, _)| {
        dest.folder.is_some()
            && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    });
    outcome.stale = check_files(&files, job.include_secrets);
    outcome
        .stale
        .extend(links.into_iter().map(|(path, _)| Stale {
            diff: format!(
                "{}: is a link; svcgen writes no file through a link in its output folder: remove \
             the link\n",
                path.display()
            ),
            path,
        }));
    let (remove, kept) = removable(&rendered.left_behind);
    outcome
        .stale
        .extend(remove.into_iter().map(|(path, _)| Stale {
            diff: format!(
                "{}: this profile no longer renders it; a render removes it\n",
                path.display()
            ),
            path,
        }));
    outcome.stale.extend(kept.into_iter().map(|path| Stale {
        diff: format!("{}\n", left_in_place(path)),
        path: path.to_path_buf(),
    }));
}

/// Writes one profile's files to `dest`, and removes the files it leaves behind that hold what
/// svcgen renders for them, in the same commit.
fn write_out(
    job: &Job<'_>,
    dest: &Destination,
    rendered: Rendered,
    outcome: &mut Outcome,
) -> Result<(), String> {
    let within = job.locked.map(|d| d.root.as_path());
    // A batch checked each profile's inputs against every output folder as they were read
    // (`Inputs::fenced`), and the command's own at `OutDir::open`; one profile has only its own
    // to check here (the inputs read after the folder was opened).
    if let (Some(root), false) = (within, job.batch) {
        job.inputs.refuse_inside(root)?;
    }
    let (remove, kept) = removable(&rendered.left_behind);
    outcome.notes.extend(kept.into_iter().map(left_in_place));
    let options = WriteOptions {
        private: job.include_secrets,
        durability: match job.fsync {
            true => Durability::Fsync,
            false => Durability::Rename,
        },
        in_place: false,
        inputs: Some(job.inputs),
        remove: &remove,
    };
    let paths = dest.paths(rendered.files);
    // `-o FILE` into a folder that does not exist yet creates it, as `--out-dir` does
    // (and removes it again when the write fails).
    let made = match dest.file.as_deref().map(crate::output::create_parents) {
        Some(made) => made?,
        None => Vec::new(),
    };
    let written =
        write_files(&paths, within, options).inspect_err(|_| crate::output::remove_made(&made))?;
    let shown = job.out_dir.filter(|_| !job.batch);
    outcome.wrote = Some(wrote_line(dest, shown, &paths, &written));
    Ok(())
}

/// The targets to render for this profile, and what was left out and why. `--out-dir` without
/// `-t` writes what `validate` checks: the targets of the deployments the profile is for
/// (`deploy.compose`, `deploy.kubernetes`), and for a profile with a deploy-time value
/// (`{ deploy_env = "X" }`, which the Kubernetes targets cannot carry), the targets that carry
/// it. Targets named with `-t` are rendered or refused.
fn chosen_targets(job: &Job<'_>, resolved: &Resolved) -> (Vec<Target>, Option<String>) {
    let mut all = job.targets.to_vec();
    if job.targets_given || job.out_dir.is_none() {
        return (all, None);
    }
    all.extend(crate::render::targets::opted_in(resolved));
    let deployed = crate::commands::validate::deployed_targets(resolved, &all);
    let mut why = Vec::new();
    if let Some(target) = all.iter().find(|t| !deployed.contains(t)) {
        let how = crate::render::targets::row(*target).runs_container;
        why.push(format!(
            "left out {}: the profile says it is not deployed with {} (`{} = false`)",
            dropped_files(&all, &deployed),
            how.map_or("", |how| how.deployment()),
            how.map_or("", |how| how.setting()),
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
        .map(|t| t.file_name())
        .collect();
    dropped.join(", ")
}

/// The command's inputs, the files named on the command line recorded up front: in a batch, one
/// profile's outputs are written while later profiles are still to be read, and none may
/// replace them (`extends` bases are recorded as they are read). For a batch into `--out-dir`,
/// its output folders (`--out-dir` and each profile's folder in it) are known from the profile
/// list before any profile is read: no profile may read an input inside one of them.
pub fn command_inputs(
    out_dir: Option<&Path>,
    batch: bool,
    profiles: &[PathBuf],
    layers: &Layers,
) -> Inputs {
    let inputs = match out_dir.filter(|_| batch) {
        Some(dir) => Inputs::with_fences(
            dir,
            profiles
                .iter()
                .filter_map(|p| crate::output::batch_folder_name(p).ok()),
        ),
        None => Inputs::default(),
    };
    let set_files = layers
        .sets
        .iter()
        .filter(|(kind, _)| *kind == SetKind::File);
    let set_paths = set_files.filter_map(|(_, set)| Some(Path::new(set.split_once('=')?.1)));
    let named = profiles
        .iter()
        .chain(&layers.overlays)
        .map(PathBuf::as_path);
    for path in named.chain(set_paths) {
        inputs.record(path);
    }
    inputs
}

/// The files a profile names (host files, secret `{ file }` sources), recorded as inputs whether
/// or not this run reads them: no output may replace one, and no output folder may hold one.
fn record_named_files(resolved: &Resolved, inputs: &Inputs) {
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
    let mut out = Vec::with_capacity(copies.len());
    for copy in copies {
        let Some(host) = &copy.host else {
            out.push((copy.relative, Contents::Bytes(copy.bytes)));
            continue;
        };
        // The file itself (a hard link to it too), never a symbolic link to it: a link where
        // the copy belongs is no copy (kustomize refuses a link leading out of the base), and
        // the writer refuses to write through it.
        let is_itself = |f: &Path| {
            std::fs::symlink_metadata(f.join(&copy.relative))
                .is_ok_and(|m| crate::support::inputs::identity(&m) == host.identity)
        };
        if folder.is_some_and(is_itself) {
            continue;
        }
        // As private as the host file was when it was read (its handle's mode, not its path's
        // now): a `0600` key stays `0600` in the base, whatever the umask.
        let contents = match host.others_read {
            true => Contents::Bytes(copy.bytes),
            false => Contents::PrivateBytes(copy.bytes),
        };
        out.push((copy.relative, contents));
    }
    out
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
        let place = |name: String| match (&self.folder, &self.file) {
            (Some(dir), _) => dir.join(name),
            (None, Some(file)) => file.clone(),
            (None, None) => PathBuf::from(name),
        };
        files.into_iter().map(|(n, c)| (place(n), c)).collect()
    }
}

/// The folder one profile's files are written to (`-o FILE`: the file's folder; stdout: none),
/// known before anything is written: host paths in the outputs are made relative to it.
fn output_folder(job: &Job<'_>, profile: &Path) -> Option<PathBuf> {
    match (job.out_dir, job.output) {
        (Some(dir), _) if job.batch => crate::output::batch_folder_name(profile)
            .ok()
            .map(|n| dir.join(n)),
        (Some(dir), _) => Some(dir.to_path_buf()),
        (None, Some(file)) if !crate::profile::is_stdio(file) => {
            Some(crate::output::folder_of(file).to_path_buf())
        }
        _ => None,
    }
}

/// Where one profile's files go: `None` for stdout. In a batch, the profile's own folder under
/// `--out-dir` (created, locked, and checked to be inside it).
fn destination(job: &Job<'_>, profile: &Path) -> Result<Option<Destination>, String> {
    let at = |folder, file, lock| {
        Some(Destination {
            folder,
            file,
            _lock: lock,
        })
    };
    Ok(match (job.out_dir, job.output) {
        (Some(dir), _) if job.batch => {
            let name = crate::output::batch_folder_name(profile)?;
            match job.locked {
                Some(out) => {
                    let (folder, lock) = out.sub_folder(&name)?;
                    at(Some(folder), None, Some(lock))
                }
                None => at(Some(dir.join(name)), None, None), // --check: read only
            }
        }
        (Some(dir), _) => at(
            Some(
                job.locked
                    .map_or_else(|| dir.to_path_buf(), |d| d.root.clone()),
            ),
            None,
            None,
        ),
        (None, Some(file)) if !crate::profile::is_stdio(file) => {
            at(None, Some(file.to_path_buf()), None)
        }
        _ => None,
    })
}

/// `wrote DEST: a, b, c` (with how many were already up to date), for people.
/// `shown`: the folder as the command line wrote it.
fn wrote_line(
    dest: &Destination,
    shown: Option<&Path>,
    paths: &[(PathBuf, Contents)],
    written: &Written,
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

#[cfg(test)]
mod tests {
    use super::{Contents, HostCopy, host_copies};
    use crate::profile::FileAsRead;

    fn copy(others_read: bool) -> HostCopy {
        HostCopy {
            relative: "files/cm/key".into(),
            host: Some(FileAsRead {
                others_read,
                identity: (u64::MAX, u64::MAX),
            }),
            bytes: b"key".to_vec(),
        }
    }

    /// A copy is as private as its host file was when it was read (what the handle said): no
    /// path is asked again, so a file made readable, or swapped for one that is, after the read
    /// does not make the copy of what was read readable by others.
    #[test]
    fn a_host_copy_is_as_private_as_its_file_was_when_read() {
        let dir = tempfile::tempdir().unwrap();
        let copies = host_copies(vec![copy(false), copy(true)], Some(dir.path()));
        let kinds: Vec<bool> = (copies.iter())
            .map(|(_, c)| matches!(c, Contents::PrivateBytes(_)))
            .collect();
        assert_eq!(kinds, [true, false]);
    }

    /// A copy that would land on its own host file (rendered into the profile's own folder) is
    /// not written: the file is its copy already.
    #[test]
    fn a_host_copy_onto_its_own_file_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("files/cm/key");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "key").unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        let mut itself = copy(false);
        itself.host.as_mut().unwrap().identity = crate::support::inputs::identity(&meta);
        assert!(host_copies(vec![itself], Some(dir.path())).is_empty());
        assert_eq!(host_copies(vec![copy(false)], Some(dir.path())).len(), 1);
    }
}
