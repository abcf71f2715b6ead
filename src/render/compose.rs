//! The `compose` target: one docker compose service with its image, environment and read-only
//! bind mounts of every file the container reads that has a host path.

use super::paths::host_reference;
use super::{EnvVar, RenderError, Templates, to_value};
use crate::resolve::Resolved;
use minijinja::context;
use serde::Serialize;
use std::path::Path;

const TEMPLATE: &str = "compose.yaml.j2";

#[derive(Serialize)]
struct Mount<'a> {
    /// The bind source, relative to the compose file's folder when it is known.
    host: String,
    container_path: &'a str,
}

pub fn render(
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
    folder: Option<&Path>,
) -> Result<String, RenderError> {
    let deploy = &resolved.deploy;
    let mounts: Vec<Mount<'_>> = deploy
        .files
        .iter()
        .filter_map(|f| {
            f.host.as_deref().map(|host| Mount {
                host: host_reference(host, f.host_path.as_deref(), folder),
                container_path: &f.container_path,
            })
        })
        .collect();
    let context = context! {
        edition => resolved.edition.as_str(),
        name => &deploy.name,
        image => &deploy.image,
        env => to_value(env),
        mounts => to_value(&mounts),
    };
    templates
        .render(TEMPLATE, context)
        .map_err(RenderError::Template)
}
