//! The `compose` target: one docker compose service with its image, environment and read-only
//! bind mounts of every file the container reads that has a host path.

use super::paths::host_reference;
use super::{Input, to_value};
use minijinja::{Value, context};
use serde::Serialize;

pub const TEMPLATE: &str = "compose.yaml.j2";

#[derive(Serialize)]
struct Mount<'a> {
    /// The bind source, relative to the compose file's folder when it is known.
    host: String,
    container_path: &'a str,
}

pub fn context(input: &Input) -> Value {
    let deploy = &input.resolved.deploy;
    let mounts: Vec<Mount<'_>> = deploy
        .files
        .iter()
        .filter_map(|f| {
            f.host.as_deref().map(|host| Mount {
                host: host_reference(host, f.host_path.as_deref(), input.folder),
                container_path: &f.container_path,
            })
        })
        .collect();
    context! {
        edition => input.resolved.edition.as_str(),
        name => &deploy.name,
        image => &deploy.image,
        env => to_value(input.env),
        mounts => to_value(&mounts),
    }
}
