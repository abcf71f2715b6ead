//! The pod's workload (`[deploy]` port, user, root file system, resources) checked against the
//! real image (upstream behaviour, beyond the spec): what it cannot run with is refused, with the
//! reason and what is accepted; what is less than it is known to run with is a warning. The facts
//! are the image's (the model's `[image]`, and the settings' defaults, its upstream chart's), so
//! the settings' meanings in the model say them too. Only the targets that render the workload
//! (the Deployment of the kustomize base) report these: a `.env` or compose file carries none of
//! these settings (see `render::targets`, `renders_workload`).

use super::Deploy;
use super::settings::SettingReader;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Model};
use crate::value_type::formats;

const READ_ONLY: &str = "deploy.security.read_only_root_filesystem";
/// The settings whose model defaults are the image's own port and user (its upstream chart's).
pub const PORT: &str = "deploy.port";
pub const USER: &str = "deploy.security.run_as_user";
/// The Service's port: free, since the Service maps it to the container's.
const SERVICE_PORT: &str = "deploy.service.port";
const MEMORY_LIMIT: &str = "deploy.resources.limits.memory";
const CPU_LIMIT: &str = "deploy.resources.limits.cpu";

/// The workload's findings against the image, in the order of the settings.
pub(super) fn check(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    read_only_root(deploy, reader, diags);
    port(deploy, reader, diags);
    user(deploy, reader, diags);
    limits(reader, diags);
}

/// A file source mounted at a path the image writes (the model's `[image] writes`), or at a
/// folder above one: compose and Kubernetes mount it read-only (a folder mount hides what the
/// image keeps there), so the image cannot write there and stops. Inside a written folder, a
/// file elsewhere leaves the rest writable (the couchbase password's default is one).
pub(super) fn mounts_over_writes(deploy: &Deploy, model: &Model, diags: &mut Diagnostics) {
    if deploy.files.is_empty() {
        return;
    }
    // Each path the image writes with its identity, as Docker and Kubernetes see it, made once
    // for all the files.
    let written: Vec<_> = (model.image.writes.iter())
        .flat_map(|w| w.paths().map(move |path| (w, path)))
        .map(|(w, path)| {
            let identity = super::names::path_identity(&path).1;
            (w, path, identity)
        })
        .collect();
    for file in &deploy.files {
        // Paths as Docker and Kubernetes see them (a mount path with `.` or `..` is refused).
        let (_, mounted) = super::names::path_identity(&file.container_path);
        let below = format!("{mounted}/");
        // The path itself first, else the first one below it.
        let hit = (written.iter().find(|(_, _, identity)| *identity == mounted)).or_else(|| {
            (written.iter())
                .find(|(_, _, identity)| mounted.is_empty() || identity.starts_with(&below))
        });
        let Some((written, path, identity)) = hit else {
            continue;
        };
        let over = if *identity == mounted {
            String::new()
        } else {
            format!(", a folder above {path}")
        };
        diags.push(
            Diagnostic::new(
                Code::ImageRefuses,
                format!(
                    "`{}` is mounted at {}{over}, where the image writes {} at run time",
                    file.key, file.container_path, written.what
                ),
            )
            .at(file.origin)
            .label("read-only over a path the image writes")
            .help(format!(
                "the mount is read-only (and hides what was there): the image cannot write {path} and stops"
            ))
            .help(format!(
                "set the file's path ({}) to one the image does not write: not {path}, nor a folder above it",
                path_setting(file, model),
            )),
        );
    }
}

/// Where the profile sets the path of `file`: its variable's key, or for the image's SSA file
/// the `[env]` variable that moves it.
fn path_setting(file: &super::FileSource, model: &Model) -> String {
    let ssa = &model.image.ssa_file;
    if file.key == ssa.key {
        format!("[env] {}", ssa.env)
    } else {
        format!("`{}`", file.key)
    }
}

/// The image writes its configuration, its app's `env-config.js` (inside the built app, where a
/// writable volume would hide the app) and nginx's folders (the model's `[image] writes`): it
/// cannot start read-only.
fn read_only_root(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    if !deploy.workload.read_only_root_filesystem {
        return;
    }
    let fix = format!("remove `{READ_ONLY}` or set it to false");
    diags.push(
        read_only_refused(reader.model, &format!("`{READ_ONLY}` = true"), fix)
            .at_opt(reader.origin(READ_ONLY)),
    );
}

/// The one finding of a read-only root file system (`what` names the field as the input writes
/// it; `fix` says how to change it there): the image writes at run time.
pub fn read_only_refused(model: &Model, what: &str, fix: String) -> Diagnostic {
    Diagnostic::new(
        Code::ImageRefuses,
        format!(
            "{what}: the image writes at run time to {}",
            written_paths(model)
        ),
    )
    .label("the image cannot start with a read-only root file system")
    .help(format!(
        "it writes {}: a writable volume over the app's folder would hide the app",
        written_things(model)
    ))
    .help(fix)
}

/// The image's nginx listens on its own port whatever the pod says: on another container port the
/// TCP probes never connect (the pod is restarted for ever) and the Service reaches nothing.
fn port(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    let value = deploy.workload.port;
    let Some(image) = model_default(reader.model, PORT).filter(|image| *image != value) else {
        return;
    };
    let fix = format!(
        "accepted: {image} (or leave `{PORT}` out); to expose another port, set \
         `{SERVICE_PORT}` (the Service's port, mapped to the container's)"
    );
    if let Some(found) = port_refused(reader.model, value, &format!("`{PORT}`"), fix) {
        diags.push(found.at_opt(reader.origin(PORT)));
    }
}

/// The one finding of a port other than the one the image serves (`field` as the input names it,
/// `fix` in its terms); none for the image's own port.
pub fn port_refused(model: &Model, value: i64, field: &str, fix: String) -> Option<Diagnostic> {
    let image = model_default(model, PORT).filter(|image| *image != value)?;
    Some(
        Diagnostic::new(
            Code::ImageRefuses,
            format!("{field} = {value}: the image's nginx listens on port {image} only"),
        )
        .label(format!("the image serves HTTP on {image}, not {value}"))
        .help(format!(
            "the container port does not move nginx: the TCP probes on port {value} would never \
             connect, so the pod would be restarted for ever, and the Service would reach nothing"
        ))
        .help(fix),
    )
}

/// The folders the image writes belong to its user: another uid cannot write them, and the pod
/// svcgen renders has no setting that changes their owner (a pod's `fsGroup` changes volumes'
/// only, and a volume over the app's folder would hide the app).
fn user(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    let value = deploy.workload.run_as_user;
    let Some(image) = model_default(reader.model, USER) else {
        return;
    };
    let fix = format!(
        "accepted: {image} (or leave `{USER}` out), unless the image is rebuilt for another \
         user"
    );
    if let Some(found) = user_refused(reader.model, value, &format!("`{USER}`"), fix) {
        diags.push(found.at_opt(reader.origin(USER)));
    }
}

/// The one finding of a user other than the image's (`field` as the input names it, `fix` in its
/// terms); none for the image's own user.
pub fn user_refused(model: &Model, value: i64, field: &str, fix: String) -> Option<Diagnostic> {
    let image = model_default(model, USER).filter(|image| *image != value)?;
    Some(
        Diagnostic::new(
            Code::ImageRefuses,
            format!(
                "{field} = {value}: the folders the image writes belong to its user {image}: {}",
                written_paths(model)
            ),
        )
        .label(format!("the image runs as {image}"))
        .help(format!(
            "as uid {value} it cannot write {}, and the container stops; a pod's fsGroup changes \
             the owner of volumes only, not of the image's own folders",
            written_things(model)
        ))
        .help(fix),
    )
}

/// Resource limits: below the least memory limit any container starts with (a runtime's fact,
/// the model's `[image] least_memory_limit`) the container never starts: refused. Below the
/// image's upstream chart's limits (the settings' defaults) a warning: svcgen knows no smaller
/// amount the image is measured to start with, and the start (in edition A its production build)
/// is what a lower limit kills or slows past the startup probe's budget. Requests only reserve:
/// not checked here (a request above its limit is refused with the other Kubernetes limits).
fn limits(reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    let least = &reader.model.image.least_memory_limit;
    for key in [CPU_LIMIT, MEMORY_LIMIT] {
        let mut quiet = Diagnostics::default();
        let Some(text) = reader.text(key, &mut quiet) else {
            continue;
        };
        let Ok(value) = formats::k8s_quantity(&text) else {
            continue;
        };
        let amount = |t: &str| formats::k8s_quantity(t).ok();
        if key == MEMORY_LIMIT && amount(least).is_some_and(|least| value < least) {
            diags.push(
                Diagnostic::new(
                    Code::ImageRefuses,
                    format!("`{key}` = \"{text}\": no container starts with less than {least}"),
                )
                .at_opt(reader.origin(key))
                .label(format!("below {least}"))
                .help(
                    "the container runtime needs about 6 MiB to start any container (runc), and \
                     Docker refuses a lower limit (moby/moby#41168); the image runs nginx and its \
                     app besides",
                )
                .help(format!(
                    "accepted: {least} or more; the image's upstream chart gives it {}",
                    default_text(reader.model, key).unwrap_or_default()
                )),
            );
            continue;
        }
        let Some(chart) = default_text(reader.model, key) else {
            continue;
        };
        if amount(&chart).is_none_or(|chart| value >= chart) {
            continue;
        }
        let what = if key == MEMORY_LIMIT {
            "a start that needs more is killed"
        } else {
            "a lower CPU limit slows the start"
        };
        diags.push(
            Diagnostic::new(
                Code::ImageDiffers,
                format!(
                    "`{key}` = \"{text}\" is below the {chart} the image's upstream chart gives it"
                ),
            )
            .at_opt(reader.origin(key))
            .label("less than the image is known to run with")
            .help(format!(
                "svcgen knows no smaller amount the image starts with: {what} (in edition A its \
                 production build, at every start), and a start past the startup probe's budget \
                 is restarted"
            ))
            .help(format!(
                "keep {chart}, or, once a start with \"{text}\" is tried, acknowledge with \
                 allow = [\"{}\"]",
                Code::ImageDiffers.id()
            )),
        );
    }
}

/// The paths the image writes (the model's `[image] writes`), joined.
fn written_paths(model: &Model) -> String {
    let paths: Vec<&str> = model.image.writes.iter().map(|w| w.path.as_str()).collect();
    paths.join(", ")
}

/// What the image writes, each with its path.
fn written_things(model: &Model) -> String {
    let what: Vec<String> = (model.image.writes.iter())
        .map(|w| format!("{} ({})", w.what, w.path))
        .collect();
    what.join(", ")
}

/// The image's own value of an integer setting: its default in the model.
pub fn model_default(model: &Model, key: &str) -> Option<i64> {
    default_text(model, key)?.parse().ok()
}

/// A setting's default in the model, as text (the image's upstream chart's value).
fn default_text(model: &Model, key: &str) -> Option<String> {
    match &model.setting(key)?.default {
        DefaultValue::Value(v) => Some(v.clone()),
        _ => None,
    }
}
