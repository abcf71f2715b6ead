//! The `compose` target: one docker compose service with its image, environment and read-only
//! bind mounts of every file the container reads that has a host path.

use super::{EnvVar, Input, to_value};
use crate::deployment::paths::host_reference;
use minijinja::Value;
use schemars::JsonSchema;
use serde::Serialize;

pub const TEMPLATE: &str = "compose.yaml.j2";

/// The context of `compose.yaml.j2`.
#[derive(Serialize, JsonSchema)]
pub struct Context<'a> {
    /// The profile's edition.
    pub edition: &'static str,
    /// The compose service's name (deploy.name).
    pub name: &'a str,
    /// The image, `repository:tag`.
    pub image: &'a str,
    /// One item per variable, in the model's order (`[env]` extras last).
    #[schemars(with = "Vec<EnvVar>")]
    pub env: Value,
    /// One per file the container reads that has a host path.
    pub mounts: Vec<Mount<'a>>,
}

/// A read-only bind mount of a host file.
#[derive(Serialize, JsonSchema)]
pub struct Mount<'a> {
    /// The bind source: relative to the compose file's folder when it is known, else as the
    /// profile writes it.
    pub host: String,
    /// Where the container reads the file.
    pub container_path: &'a str,
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
    to_value(&Context {
        edition: input.resolved.edition.as_str(),
        name: &deploy.name,
        image: &deploy.image,
        env: input.env_value(),
        mounts,
    })
}
