//! What a compose service or a Kubernetes container holds beyond its environment and image that
//! a profile does not take as written (ports, resources, probes, a health check, a user): each
//! is named as left out (W0320) with the `[deploy]` settings that say it in a profile, so that
//! nothing read is dropped without a word. The replica count is carried (`DeployHints`).

use super::DeployHints;
use super::yaml::Node;
use crate::diag::{Code, Diagnostic, Diagnostics};

/// Fields of a Kubernetes container svcgen renders from `[deploy]` settings instead.
const CONTAINER: &[(&str, &str)] = &[
    (
        "ports",
        "svcgen renders the image's port from `deploy.port` (8080) and the Service's from `deploy.service.port`",
    ),
    (
        "resources",
        "set `deploy.resources.requests.cpu`/`.memory` and `deploy.resources.limits.cpu`/`.memory`",
    ),
    (
        "livenessProbe",
        "svcgen renders TCP probes from `deploy.probes.period`, `.timeout` and `.failure_threshold`",
    ),
    (
        "readinessProbe",
        "svcgen renders TCP probes from `deploy.probes.period`, `.timeout` and `.failure_threshold`",
    ),
    (
        "startupProbe",
        "svcgen sizes the startup probe from the startup checks' budget and `deploy.probes.startup_margin`",
    ),
    (
        "securityContext",
        "svcgen renders the image's user from `deploy.security.run_as_user` and `deploy.security.read_only_root_filesystem`",
    ),
];

/// Fields of a compose service svcgen renders from `[deploy]` settings instead (`deploy` is
/// looked into: its `replicas` is carried).
const SERVICE: &[(&str, &str)] = &[
    (
        "ports",
        "svcgen renders the image's port from `deploy.port` (8080); publish it from the rendered compose file",
    ),
    (
        "healthcheck",
        "svcgen's compose file relies on the image's start-up checks; the probes are `deploy.probes.*`",
    ),
    (
        "user",
        "svcgen renders the image's user from `deploy.security.run_as_user`",
    ),
];

/// Fields of compose's `deploy` other than `replicas` (which is carried).
const SERVICE_DEPLOY: &[(&str, &str)] = &[(
    "resources",
    "set `deploy.resources.requests.cpu`/`.memory` and `deploy.resources.limits.cpu`/`.memory`",
)];

fn name_left_out(node: &Node, fields: &[(&str, &str)], of: &str, diags: &mut Diagnostics) {
    for (field, how) in fields {
        let Some(value) = node.get(field) else {
            continue;
        };
        diags.push(
            Diagnostic::new(
                Code::NotImported,
                format!(
                    "`{field}` of the {of} is not imported: the profile does not take it as written"
                ),
            )
            .at(value.origin)
            .label("left out")
            .help(*how),
        );
    }
}

/// Names what a Kubernetes container holds that the profile leaves out.
pub fn container(node: &Node, diags: &mut Diagnostics) {
    name_left_out(node, CONTAINER, "container", diags);
}

/// Names what a compose service holds that the profile leaves out, and takes its replica count.
pub fn service(node: &Node, deploy: &mut DeployHints, diags: &mut Diagnostics) {
    name_left_out(node, SERVICE, "service", diags);
    let Some(compose_deploy) = node.get("deploy") else {
        return;
    };
    name_left_out(compose_deploy, SERVICE_DEPLOY, "service's `deploy`", diags);
    if let Some(replicas) = compose_deploy.get("replicas") {
        deploy.replicas = (replicas.scalar_text()).map(|t| (t.to_string(), replicas.origin));
    }
}
