//! `[deploy]` settings checked against the real image (upstream behaviour, beyond the spec): what
//! it cannot run with is refused, what differs from how it runs is a warning. The facts are the
//! image's (the model's `[image]`), so the settings' meanings in the model say them too.

use super::Deploy;
use super::settings::SettingReader;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Model};

const READ_ONLY: &str = "deploy.security.read_only_root_filesystem";
/// The settings whose model defaults are the image's own port and user (its upstream chart's).
pub const PORT: &str = "deploy.port";
pub const USER: &str = "deploy.security.run_as_user";

pub(super) fn check(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    read_only_root(deploy, reader, diags);
    as_the_image_runs(deploy, reader, diags);
    mounts_over_writes(deploy, reader.model, diags);
}

/// A file source mounted at a path the image writes (the model's `[image] writes`), or at a
/// folder above one: compose and Kubernetes mount it read-only (a folder mount hides what the
/// image keeps there), so the image cannot write there and stops. Inside a written folder, a
/// file elsewhere leaves the rest writable (the couchbase password's default is one).
fn mounts_over_writes(deploy: &Deploy, model: &Model, diags: &mut Diagnostics) {
    for file in &deploy.files {
        // Paths as Docker and Kubernetes see them (a mount path with `.` or `..` is refused).
        let (_, mounted) = super::checks::path_identity(&file.container_path);
        let written =
            || (model.image.writes.iter()).flat_map(|w| w.paths().map(move |path| (w, path)));
        let identity = |path: &str| super::checks::path_identity(path).1;
        // The path itself first, else the first one below it.
        let hit = (written().find(|(_, path)| identity(path) == mounted)).or_else(|| {
            written().find(|(_, path)| {
                mounted.is_empty() || identity(path).starts_with(&format!("{mounted}/"))
            })
        });
        let Some((written, path)) = hit else { continue };
        let over = if identity(&path) == mounted {
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
    let writes = &reader.model.image.writes;
    let paths: Vec<&str> = writes.iter().map(|w| w.path.as_str()).collect();
    let what: Vec<String> = (writes.iter())
        .map(|w| format!("{} ({})", w.what, w.path))
        .collect();
    diags.push(
        Diagnostic::new(
            Code::ImageRefuses,
            format!(
                "`{READ_ONLY}` = true: the image writes at run time to {}",
                paths.join(", ")
            ),
        )
        .at_opt(reader.origin(READ_ONLY))
        .label("the image cannot start with a read-only root file system")
        .help(format!(
            "it writes {}: a writable volume over the app's folder would hide the app",
            what.join(", ")
        ))
        .help(format!("remove `{READ_ONLY}` or set it to false")),
    );
}

/// The image serves HTTP on the port, and runs as the user, of its upstream chart (the model's
/// defaults): another value is a warning at the setting.
fn as_the_image_runs(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    let w = &deploy.workload;
    let checks = [
        (
            PORT,
            w.port,
            "the image's nginx serves HTTP on this port only: the probes and the Service reach nothing elsewhere",
        ),
        (
            USER,
            w.run_as_user,
            "the folders the image writes (its configuration's, nginx's) belong to this user: another one cannot write them",
        ),
    ];
    for (key, value, why) in checks {
        let Some(image) = model_default(reader.model, key) else {
            continue;
        };
        if value == image {
            continue;
        }
        diags.push(
            Diagnostic::new(
                Code::ImageDiffers,
                format!("`{key}` = {value}: the image runs with {image}"),
            )
            .at_opt(reader.origin(key))
            .label(format!("the image expects {image}"))
            .help(why)
            .help(format!(
                "keep {image} unless the image is rebuilt for {value}"
            )),
        );
    }
}

/// The image's own value of a setting: its default in the model.
pub fn model_default(model: &Model, key: &str) -> Option<i64> {
    match &model.setting(key)?.default {
        DefaultValue::Value(v) => v.parse().ok(),
        _ => None,
    }
}
