//! `[deploy]` settings checked against the real image (upstream behaviour, beyond the spec): what
//! it cannot run with is refused, what differs from how it runs is a warning. The facts are the
//! image's, so the settings' meanings in the model say them too.

use super::Deploy;
use super::settings::SettingReader;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Model};

/// What the image writes at run time: a read-only root file system stops it at start.
pub const WRITTEN_PATHS: [&str; 6] = [
    "/etc/jans/conf",
    "/opt/flex/admin-ui",
    "/var/lib/nginx/html/admin",
    "/var/lib/nginx",
    "/run/nginx/nginx.pid",
    "/tmp",
];

const READ_ONLY: &str = "deploy.security.read_only_root_filesystem";

pub(super) fn check(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    read_only_root(deploy, reader, diags);
    as_the_image_runs(deploy, reader, diags);
}

/// The image writes its configuration, its app's `env-config.js` (inside the built app, where a
/// writable volume would hide the app) and nginx's folders: it cannot start read-only.
fn read_only_root(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    if !deploy.workload.read_only_root_filesystem {
        return;
    }
    diags.push(
        Diagnostic::new(
            Code::ImageRefuses,
            format!(
                "`{READ_ONLY}` = true: the image writes at run time to {}",
                WRITTEN_PATHS.join(", ")
            ),
        )
        .at_opt(reader.origin(READ_ONLY))
        .label("the image cannot start with a read-only root file system")
        .help(
            "its configuration (/etc/jans/conf), its app's env-config.js under /opt/flex/admin-ui \
             (in edition A the whole build there), nginx's html and pid folders and /tmp: a \
             writable volume over the app's folder would hide the app",
        )
        .help(format!("remove `{READ_ONLY}` or set it to false")),
    );
}

/// The image serves HTTP on the port, and runs as the user, of its upstream chart (the model's
/// defaults): another value is a warning at the setting.
fn as_the_image_runs(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    let w = &deploy.workload;
    let checks = [
        (
            "deploy.port",
            w.port,
            "the image's nginx serves HTTP on this port only: the probes and the Service reach nothing elsewhere",
        ),
        (
            "deploy.security.run_as_user",
            w.run_as_user,
            "the image's writable folders (/etc/jans/conf, nginx's) belong to this user: another one cannot write them",
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

fn model_default(model: &Model, key: &str) -> Option<i64> {
    match &model.setting(key)?.default {
        DefaultValue::Value(v) => v.parse().ok(),
        _ => None,
    }
}
