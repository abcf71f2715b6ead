//! What Kubernetes, kustomize and compose would refuse in a deployment, found before anything is
//! written: mount paths, two files at one path, names and label values, requests above limits, and
//! files of one generated object that cannot be generated together.

use super::names::path_identity;
use super::settings::SettingReader;
use super::{Deploy, FileSource, K8sKind};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::ResolvedVar;
use crate::value_type::formats;
use std::collections::{HashMap, HashSet};

pub(super) fn check(
    deploy: &Deploy,
    vars: &[ResolvedVar],
    reader: &SettingReader<'_>,
    diags: &mut Diagnostics,
) {
    // The first file at each path, by the path as Docker and Kubernetes see it: one look-up per
    // file, not a scan of the files before it.
    let mut mounted: HashMap<(bool, String), &FileSource> = HashMap::new();
    for file in &deploy.files {
        mount_path(file, diags);
        if let Some(first) = mounted.get(&path_identity(&file.container_path)).copied() {
            diags.push(
                Diagnostic::new(
                    Code::MountCollision,
                    format!(
                        "`{}` and `{}` are both mounted at \"{}\"",
                        first.key, file.key, file.container_path
                    ),
                )
                .at(file.origin)
                .label("second file at this path")
                .help("Kubernetes and Docker refuse two mounts at one path: give the variables different paths"),
            );
        } else {
            mounted.insert(path_identity(&file.container_path), file);
        }
    }
    service_name(deploy, reader, diags);
    requests_within_limits(reader, diags);
    generators(deploy, diags);
    secret_variable_keys(deploy, vars, diags);
    // Every deployment mounts its files: reported for all, not only with the workload's findings.
    super::image::mounts_over_writes(deploy, reader.model, diags);
    api_object_names(deploy, diags);
    object_sizes(deploy, diags);
}

/// The most data (keys and values) Kubernetes takes in one ConfigMap or Secret: 1 MiB.
pub const K8S_OBJECT_DATA_MAX: u64 = 1 << 20;

/// The Secret or ConfigMap made from host files (by kustomize's generator, or by the operator's
/// `kubectl create --from-file`) must fit Kubernetes' limit: plugin archives easily do not.
/// Measured from the files' sizes (not read); reported once, at the file that passes the limit.
fn object_sizes(deploy: &Deploy, diags: &mut Diagnostics) {
    let mut totals: Vec<(&super::K8sRef, u64)> = Vec::new();
    for file in &deploy.files {
        let (Some(k8s), Some(path)) = (&file.k8s, &file.host_path) else {
            continue;
        };
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let size = meta.len().saturating_add(k8s.key.len() as u64);
        let index = match totals
            .iter()
            .position(|(o, _)| o.kind == k8s.kind && o.name == k8s.name)
        {
            Some(index) => index,
            None => {
                totals.push((k8s, 0));
                totals.len() - 1
            }
        };
        let before = totals[index].1;
        let after = before.saturating_add(size);
        totals[index].1 = after;
        if before <= K8S_OBJECT_DATA_MAX && after > K8S_OBJECT_DATA_MAX {
            let what = format!("{} \"{}\"", k8s.kind.name(), k8s.name);
            diags.push(object_too_large(&what, after, file.origin));
        }
    }
}

/// A ConfigMap or Secret (`what`) whose data passes Kubernetes' limit (size in bytes).
pub fn object_too_large(what: &str, size: u64, origin: crate::diag::source::Origin) -> Diagnostic {
    Diagnostic::new(
        Code::K8sLimit,
        format!(
            "the {what} would hold {size} bytes of data: Kubernetes takes at most {K8S_OBJECT_DATA_MAX} bytes (1 MiB) in one ConfigMap or Secret"
        ),
    )
    .at(origin)
    .label("too large for one object")
    .help("split the files over several objects (another `secret` or `configmap` name), or mount a volume the operator provides")
}

/// The objects of a `kubernetes` adapter are named in the Role (`resourceNames`) and its
/// namespace: each must be a name Kubernetes accepts, or the Role is refused (or never matches).
fn api_object_names(deploy: &Deploy, diags: &mut Diagnostics) {
    for object in &deploy.api_objects {
        if let (Some(name), Some(origin)) = (&object.image_name, object.image_name_origin)
            && let Err(problem) = formats::k8s_subdomain(name)
        {
            diags.push(
                Diagnostic::new(
                    Code::K8sLimit,
                    format!("\"{name}\": {}", problem.message),
                )
                .at(origin)
                .label("not a Kubernetes name")
                .help(format!(
                    "the image reads this {} by this name, and the Role svcgen renders names it",
                    object.resource
                )),
            );
        }
        let checks = [
            (
                &object.name_var,
                &object.name,
                formats::k8s_subdomain as fn(&str) -> _,
            ),
            (&object.namespace_var, &object.namespace, formats::k8s_label),
        ];
        for (var, value, check) in checks {
            let Err(problem) = check(value) else { continue };
            diags.push(
                Diagnostic::new(
                    Code::K8sLimit,
                    format!("`{}` = \"{value}\": {}", var.var.key, problem.message),
                )
                .at_opt(var.origin)
                .label("not a Kubernetes name")
                .help(format!(
                    "the image reads and writes this {} through the Kubernetes API, and the Role svcgen renders names it",
                    object.resource
                )),
            );
        }
    }
}

/// A mounted file's container path: an absolute path naming a file (its last part is the
/// Secret/ConfigMap item's path and the `subPath`), without `.` or `..` parts.
fn mount_path(file: &FileSource, diags: &mut Diagnostics) {
    let path = &file.container_path;
    let name = super::names::file_name(path);
    let problem = if !path.starts_with('/') {
        Some("it is not absolute")
    } else if name.is_empty() {
        Some("it names a folder (ends with `/`), not a file")
    } else if path.split('/').any(|part| part == ".." || part == ".") {
        Some("it has a `.` or `..` part, which Kubernetes refuses in a mounted file's path")
    } else {
        None
    };
    if let Some(why) = problem {
        diags.push(
            Diagnostic::new(
                Code::DerivedName,
                format!("`{}` is mounted at \"{path}\": {why}", file.key),
            )
            .at(file.origin)
            .label("cannot be mounted there")
            .help("set the variable to an absolute file path such as /etc/certs/name.crt"),
        );
    }
}

/// The Service takes the Deployment's name, and a Service name must start with a letter.
fn service_name(deploy: &Deploy, reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    if !super::names::is_service_name(&deploy.name) {
        diags.push(
            Diagnostic::new(
                Code::K8sLimit,
                format!(
                    "`deploy.name` \"{}\" starts with a digit: a Kubernetes Service name must start with a letter",
                    deploy.name
                ),
            )
            .at_opt(reader.origin(super::names::DEPLOYMENT_NAME_KEY))
            .label("not a Service name (DNS-1035 label)")
            .help("start the name with a lower-case letter"),
        );
    }
}

/// Kubernetes refuses a request above its limit.
fn requests_within_limits(reader: &SettingReader<'_>, diags: &mut Diagnostics) {
    for what in ["cpu", "memory"] {
        let request_key = format!("deploy.resources.requests.{what}");
        let limit_key = format!("deploy.resources.limits.{what}");
        let mut quiet = Diagnostics::default();
        let request = reader.text(&request_key, &mut quiet);
        let limit = reader.text(&limit_key, &mut quiet);
        let value = |t: &Option<String>| t.as_deref().and_then(|t| formats::k8s_quantity(t).ok());
        if let (Some(r), Some(l)) = (value(&request), value(&limit))
            && r > l
        {
            diags.push(
                Diagnostic::new(
                    Code::K8sLimit,
                    format!(
                        "`{request_key}` ({}) is above `{limit_key}` ({})",
                        request.unwrap_or_default(),
                        limit.unwrap_or_default()
                    ),
                )
                .at_opt(
                    reader
                        .origin(&request_key)
                        .or_else(|| reader.origin(&limit_key)),
                )
                .label("request above limit")
                .help("Kubernetes refuses a request above its limit: lower the request or raise the limit"),
            );
        }
    }
}

/// The files of one Secret or ConfigMap that kustomize generates (every file has a host path):
/// all or none of its files have one, no key twice, no `=` in a path (kustomize's separator), and
/// not the Secret of the secret variables (it would replace it).
fn generators(deploy: &Deploy, diags: &mut Diagnostics) {
    // Each object's files, grouped once (by kind and name), and the keys taken so far.
    let mut objects: HashMap<(&str, &str), Vec<&FileSource>> = HashMap::new();
    for file in &deploy.files {
        if let Some(k8s) = &file.k8s {
            objects
                .entry((k8s.kind.key(), k8s.name.as_str()))
                .or_default()
                .push(file);
        }
    }
    let mut keys: HashSet<(&str, &str, &str)> = HashSet::new();
    for file in &deploy.files {
        let Some(k8s) = &file.k8s else { continue };
        let same = &objects[&(k8s.kind.key(), k8s.name.as_str())];
        let first = std::ptr::eq(same[0], file);
        // A key before this file in the same object, whether or not that file had a host path.
        let key_taken = !keys.insert((k8s.kind.key(), k8s.name.as_str(), k8s.key.as_str()));
        let kind = k8s.kind.name();
        let problem = if first && same.iter().any(|f| f.host.is_some() != file.host.is_some()) {
            Some(format!(
                "some files of the {kind} \"{}\" have a host path and some do not: svcgen generates it only when all do",
                k8s.name
            ))
        } else if file.host.as_deref().is_some_and(|h| h.contains('=')) {
            Some(format!(
                "the host path of `{}` contains `=`, which kustomize's generator reads as a separator",
                file.key
            ))
        } else if file.host.is_some() && key_taken {
            Some(format!(
                "the {kind} \"{}\" would get the key \"{}\" twice",
                k8s.name, k8s.key
            ))
        } else if first
            && file.host.is_some()
            && k8s.kind == K8sKind::Secret
            && k8s.name == deploy.secret_name
        {
            Some(format!(
                "the Secret \"{}\" generated from host files is also the Secret of the secret variables (deploy.secret_name)",
                k8s.name
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            diags.push(
                Diagnostic::new(Code::Generator, message)
                    .at(file.origin)
                    .label("cannot be generated")
                    .help("give every file of the object a host path (or none, and create the object yourself), each with its own key"),
            );
        }
    }
}

/// A file from the Secret of the secret variables (deploy.secret_name) under the key of one of
/// them: the one key would hold two contents (the variable's value and the file).
fn secret_variable_keys(deploy: &Deploy, vars: &[ResolvedVar], diags: &mut Diagnostics) {
    for file in &deploy.files {
        let Some(k8s) = &file.k8s else { continue };
        if k8s.kind != K8sKind::Secret || k8s.name != deploy.secret_name {
            continue;
        }
        let Some(var) = vars
            .iter()
            .find(|rv| rv.var.secret && rv.var.env == k8s.key)
        else {
            continue;
        };
        diags.push(
            Diagnostic::new(
                Code::Conflict,
                format!(
                    "`{}` comes from the key \"{}\" of the Secret \"{}\", which holds the value of the secret variable {} (deploy.secret_name)",
                    file.key, k8s.key, k8s.name, var.var.env
                ),
            )
            .at(file.origin)
            .label("one key, two contents")
            .help("give the file another key (key = \"...\"), or another Secret"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::path_identity;

    fn same_path(a: &str, b: &str) -> bool {
        path_identity(a) == path_identity(b)
    }

    #[test]
    fn repeated_slashes_name_the_same_mount_path() {
        assert!(same_path("/etc/certs/x", "/etc//certs/x"));
        assert!(same_path("/etc/certs/x", "//etc/certs/x/"));
        assert!(!same_path("/etc/certs/x", "/etc/certs/y"));
        assert!(!same_path("/etc/certs/x", "etc/certs/x"));
    }
}
