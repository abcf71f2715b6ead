//! `lint` of a Kubernetes stream: the workload of the Admin UI container in it, checked as
//! `validate` checks svcgen's own `[deploy]` (the same rules: the start's timeline, the image's
//! port, user and read-only root, the files it opens, the API objects of its `kubernetes`
//! adapters), each finding at the line and column of the field in the stream, with the fix in
//! the stream's terms. Foreign manifests (`helm template … | svcgen lint -`) are judged without
//! changing how they are deployed.

use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::import::k8s::{POD_SPECS, collect, kind, meta};
use crate::import::yaml::{self, Node};
use crate::import::{Format, Read};
use crate::model::Model;
use crate::resolve::Resolved;
use crate::resolve::deploy::image::{port_refused, read_only_refused, user_refused};
use crate::resolve::deploy::{credentials, periods};
use crate::resolve::timeline;

/// The workload that holds the container lint read, as the stream writes it.
struct Workload<'a> {
    container: &'a Node,
    pod: &'a Node,
    namespace: Option<String>,
    /// Every object of the stream (the items of a `List` included).
    objects: Vec<&'a Node>,
}

/// The findings of the workload of the container `read` took its environment from; none for a
/// file that is not a Kubernetes stream or holds no workload. When the environment could not be
/// read `complete`ly (an error of the reading), the checks that need every value (the probes'
/// worst case, the files, the API objects) are left out, as resolve leaves out its own.
pub fn check(read: &Read, resolved: &Resolved, sources: &Sources, complete: bool) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let Some(container) = read
        .deploy
        .container
        .filter(|_| read.format == Format::Kubernetes)
    else {
        return diags;
    };
    let Ok(docs) = yaml::parse(&sources.get(read.source).text, read.source) else {
        return diags;
    };
    let Some(workload) = find(&docs, container) else {
        return diags;
    };
    let model = Model::get();
    security(&workload, model, &mut diags);
    ports(&workload, model, &mut diags);
    if !complete {
        return diags;
    }
    probes(&workload, resolved, model, &mut diags);
    files(&workload, resolved, &mut diags);
    super::lint_rbac::grants(
        (
            workload.pod,
            workload.container,
            workload.namespace.as_deref(),
        ),
        &workload.objects,
        resolved,
        model,
        &mut diags,
    );
    diags
}

/// The workload whose pod spec holds the container at `at`.
fn find(docs: &[Node], at: Origin) -> Option<Workload<'_>> {
    let mut objects = Vec::new();
    for doc in docs {
        collect(doc, &mut objects);
    }
    for object in &objects {
        let Some((_, path)) = kind(object).and_then(|k| POD_SPECS.iter().find(|(p, _)| *p == k))
        else {
            continue;
        };
        let pod = (path.iter()).try_fold(*object, |node, step| node.get(step));
        let Some(pod) = pod else { continue };
        let containers = pod
            .get("containers")
            .and_then(Node::items)
            .unwrap_or_default();
        if let Some(container) = containers.iter().find(|c| c.origin == at) {
            return Some(Workload {
                container,
                pod,
                namespace: meta(object, "namespace"),
                objects: objects.clone(),
            });
        }
    }
    None
}

/// An integer field of a node (a number or a numeric string), with where it is written.
pub(super) fn int(node: &Node, key: &str) -> Option<(i64, Origin)> {
    let field = node.get(key)?;
    Some((field.scalar_text()?.trim().parse().ok()?, field.origin))
}

/// Probes that end a start before the image's worst case (its timeline, computed from the
/// stream's own wait values, adapters and backends): a startup probe too short, or, without one,
/// a liveness or readiness probe. A probe ends a start at initialDelaySeconds +
/// failureThreshold × periodSeconds (Kubernetes' defaults 0, 3 and 10).
fn probes(workload: &Workload<'_>, resolved: &Resolved, model: &Model, diags: &mut Diagnostics) {
    let build = crate::resolve::deploy::default_build_allowance(model);
    let worst = timeline::of_vars(model, resolved.edition, &resolved.vars, build).worst_case_s;
    let container = workload.container;
    let judged: Vec<&str> = if container.get("startupProbe").is_some() {
        vec!["startupProbe"]
    } else {
        vec!["livenessProbe", "readinessProbe"]
    };
    for name in judged {
        let Some(probe) = container.get(name).filter(|p| !p.is_null()) else {
            continue;
        };
        let delay = int(probe, "initialDelaySeconds").map_or(0, |(v, _)| v);
        let period = int(probe, "periodSeconds").map_or(10, |(v, _)| v.max(1));
        let threshold = int(probe, "failureThreshold");
        let failures = threshold.map_or(3, |(v, _)| v);
        let ends = delay.saturating_add(failures.saturating_mul(period));
        if ends >= worst {
            continue;
        }
        let needed = periods(worst.saturating_sub(delay), period);
        let fix = if name == "startupProbe" {
            format!(
                "set startupProbe.failureThreshold to {needed} (× periodSeconds {period} covers {worst} s)"
            )
        } else {
            format!(
                "add a startupProbe with failureThreshold {needed} × periodSeconds {period} \
                 (liveness and readiness start after it), or raise {name}.failureThreshold to {needed}"
            )
        };
        diags.push(
            Diagnostic::new(
                Code::ProbeEndsStart,
                format!(
                    "{name} ends the start at {ends} s (initialDelaySeconds {delay} + failureThreshold \
                     {failures} × periodSeconds {period}), before the image's worst case of {worst} s"
                ),
            )
            .at(threshold.map_or(probe.origin, |(_, at)| at))
            .label(if name == "startupProbe" {
                "too short for the start"
            } else {
                "no startup probe: this one ends the start"
            })
            .help(
                "the image waits for each backend and lock one after another \
                 (`svcgen explain --start` with a profile of these values lists the waits)",
            )
            .help(fix),
        );
    }
}

/// The container's security context against the image: a user other than the image's (the
/// container's `runAsUser`, else the pod's, else the image's own), and a read-only root file
/// system without a writable mount for each path the image writes.
fn security(workload: &Workload<'_>, model: &Model, diags: &mut Diagnostics) {
    fn context(node: &Node) -> Option<&Node> {
        node.get("securityContext").filter(|c| !c.is_null())
    }
    let own = context(workload.container);
    let user = own
        .and_then(|c| int(c, "runAsUser").map(|u| (u, "securityContext.runAsUser")))
        .or_else(|| {
            context(workload.pod).and_then(|c| {
                int(c, "runAsUser").map(|u| (u, "the pod's securityContext.runAsUser"))
            })
        });
    if let Some(((value, at), field)) = user {
        let fix = format!(
            "remove {field} or set it to the image's user (the chart's `securityContext.runAsUser`)"
        );
        if let Some(found) = user_refused(model, value, field, fix) {
            diags.push(found.at(at));
        }
    }
    let Some(read_only) = own.and_then(|c| c.get("readOnlyRootFilesystem")) else {
        return;
    };
    if read_only.scalar_text() != Some("true") {
        return;
    }
    let writable = writable_mounts(workload.container);
    let covered = |path: &str| mounted_at(path, &writable);
    let uncovered: Vec<String> = (model.image.writes.iter())
        .map(|w| w.path.clone())
        .filter(|p| !covered(p))
        .collect();
    if uncovered.is_empty() {
        return;
    }
    let fix = format!(
        "set securityContext.readOnlyRootFilesystem to false (no writable mount at {})",
        uncovered.join(", ")
    );
    diags.push(
        read_only_refused(model, "securityContext.readOnlyRootFilesystem = true", fix)
            .at(read_only.origin),
    );
}

/// The paths of the container's volume mounts that are not read-only.
fn writable_mounts(container: &Node) -> Vec<String> {
    mounts(container)
        .filter(|m| m.get("readOnly").and_then(Node::scalar_text) != Some("true"))
        .filter_map(|m| m.get("mountPath")?.scalar_text().map(str::to_string))
        .collect()
}

/// Whether one of the mount paths is `path` or a folder above it.
fn mounted_at(path: &str, mounts: &[String]) -> bool {
    (mounts.iter()).any(|m| path == m || path.starts_with(&format!("{}/", m.trim_end_matches('/'))))
}

fn mounts(container: &Node) -> impl Iterator<Item = &Node> {
    (container.get("volumeMounts").and_then(Node::items))
        .unwrap_or_default()
        .iter()
}

/// Container ports and probe ports other than the one the image serves (a named probe port is
/// its container port's, checked there).
fn ports(workload: &Workload<'_>, model: &Model, diags: &mut Diagnostics) {
    let container = workload.container;
    let mut found: Vec<(i64, Origin, String)> = Vec::new();
    for port in (container.get("ports").and_then(Node::items)).unwrap_or_default() {
        if let Some((value, at)) = int(port, "containerPort") {
            found.push((value, at, "ports[].containerPort".to_string()));
        }
    }
    for name in ["startupProbe", "livenessProbe", "readinessProbe"] {
        let Some(probe) = container.get(name) else {
            continue;
        };
        for action in ["tcpSocket", "httpGet"] {
            if let Some((value, at)) = probe.get(action).and_then(|a| int(a, "port")) {
                found.push((value, at, format!("{name}.{action}.port")));
            }
        }
    }
    for (value, at, field) in found {
        let fix = format!("set {field} to the image's port (the Service maps its own port to it)");
        if let Some(finding) = port_refused(model, value, &field, fix) {
            diags.push(finding.at(at));
        }
    }
}

/// Files the image opens at start (credential files, edition A's SSA file) with no volume
/// mounted at their path or a folder above it.
fn files(workload: &Workload<'_>, resolved: &Resolved, diags: &mut Diagnostics) {
    let mounted: Vec<String> = mounts(workload.container)
        .filter_map(|m| m.get("mountPath")?.scalar_text().map(str::to_string))
        .collect();
    let covered = |path: &str| mounted_at(path, &mounted);
    let at = workload
        .container
        .get("volumeMounts")
        .filter(|m| !m.is_null())
        .map_or(workload.container.origin, |m| m.origin);
    for file in credentials::needed(resolved) {
        if covered(&file.path) {
            continue;
        }
        diags.push(
            Diagnostic::new(
                Code::CredentialFileMissing,
                format!(
                    "{} (`{}`) has no volume mounted at {}",
                    file.what, file.env, file.path
                ),
            )
            .at(at)
            .label("no volumeMount for it")
            .help(file.failure.clone())
            .help(format!(
                "mount it from a Secret: a volumeMounts entry with mountPath {} (and subPath), \
                 or set `{}` to where it is mounted",
                file.path, file.env
            )),
        );
    }
}
