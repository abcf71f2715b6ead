//! Every name svcgen derives instead of reading it from the profile, in one place: the default
//! Secret of the secret variables, the content-named ConfigMap and Secret, the labels, the volumes,
//! the key and item path taken from a container path, and where the kustomize base keeps a copy of
//! a host file. The resolver, the checks, the Kubernetes plan (and through it `k8s.yaml`,
//! `kustomization.yaml`, `DEPLOY.md` and `svcgen krm`) all ask here, so they cannot disagree.
//!
//! The Deployment, its container, its Service and the compose service take `deploy.name` as it
//! is: no name is derived for them.

use super::{FileSource, K8sKind};
use sha2::{Digest, Sha256};

/// The setting that names the deployment.
pub const DEPLOYMENT_NAME_KEY: &str = "deploy.name";

/// The deployment's name when the profile gives none: the model's default of `deploy.name`.
pub fn default_deployment_name(model: &crate::model::Model) -> &str {
    (model.setting(DEPLOYMENT_NAME_KEY))
        .and_then(|s| s.default.value())
        .unwrap_or_default()
}

/// True when the Service, which takes the Deployment's name, can be named `deployment`: a
/// Service name (DNS-1035 label) must not start with a digit.
pub fn is_service_name(deployment: &str) -> bool {
    !deployment.starts_with(|c: char| c.is_ascii_digit())
}

/// The Secret of the secret variables when `deploy.secret_name` is not given.
pub fn default_secret_name(deployment: &str) -> String {
    format!("{deployment}-secrets")
}

/// The ConfigMap of the non-secret variables: named after the deployment and its content, so any
/// change of the environment renames it and rolls the pods.
pub fn configmap_name<'a>(
    deployment: &str,
    data: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    hashed_name(&format!("{deployment}-env"), data)
}

/// The Secret svcgen writes under `--include-secrets`: `deploy.secret_name` plus a hash of the
/// values, like the ConfigMap.
pub fn generated_secret_name<'a>(
    secret_name: &str,
    data: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    hashed_name(secret_name, data)
}

/// The Secret `svcgen init` names as the source of the credential files the image opens at start
/// (the vault AppRole files, a password file): one Secret the operator creates, a key per file.
pub fn credentials_secret_name(deployment: &str) -> String {
    format!("{deployment}-credentials")
}

/// The service account svcgen renders for the pods when a `kubernetes` adapter needs one and
/// `deploy.service_account` is not given.
pub fn service_account_name(deployment: &str) -> String {
    deployment.to_string()
}

/// The Role (and its RoleBinding) granting the pods' service account the objects of the
/// `kubernetes` adapters, in each namespace they are in.
pub fn adapter_role_name(deployment: &str) -> String {
    format!("{deployment}-kubernetes-adapters")
}

/// How many of [`labels`] (the first ones) select the pods: never changed by an upgrade.
pub const SELECTOR_LABELS: usize = 2;

/// The `app.kubernetes.io/*` labels of every object: the selector's first, then the version (the
/// image tag, when it is a valid label value) and the manager.
pub fn labels(deployment: &str, image: &str) -> Vec<(&'static str, String)> {
    let mut labels = vec![
        ("app.kubernetes.io/name", deployment.to_string()),
        ("app.kubernetes.io/instance", deployment.to_string()),
    ];
    let tag = image.rsplit(':').next().unwrap_or_default();
    if crate::value_type::formats::k8s_label_value(tag).is_ok() {
        labels.push(("app.kubernetes.io/version", tag.to_string()));
    }
    labels.push(("app.kubernetes.io/managed-by", "svcgen".to_string()));
    labels
}

/// The last part of a container path: the default key of its Secret or ConfigMap, and the item
/// path (the file name inside the volume, mounted as `subPath`).
pub fn file_name(container_path: &str) -> &str {
    container_path.rsplit('/').next().unwrap_or_default()
}

/// A readable, unique DNS-1123 label for the volume of `files[index]`: the variable's name, or the
/// plugin's, plus its position.
pub fn volume_name(index: usize, file: &FileSource) -> String {
    let base = file
        .env
        .as_deref()
        .unwrap_or(&file.key)
        .to_ascii_lowercase();
    let mut name: String = base
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name.truncate(50);
    format!("{}-{index}", name.trim_matches('-'))
}

/// Where `--out-dir` copies a host file of a kustomize generator, relative to the output folder:
/// `<folder>/<object>/<key>`.
pub fn host_copy_path(folder: &str, object: &str, key: &str) -> String {
    format!("{folder}/{object}/{key}")
}

impl K8sKind {
    /// The object's kind as Kubernetes names it (`Secret`, `ConfigMap`).
    pub fn name(self) -> &'static str {
        match self {
            K8sKind::Secret => "Secret",
            K8sKind::ConfigMap => "ConfigMap",
        }
    }

    /// The profile's (and kustomize generator's) lower-case word for it (`secret`, `configmap`).
    pub fn key(self) -> &'static str {
        match self {
            K8sKind::Secret => "secret",
            K8sKind::ConfigMap => "configmap",
        }
    }
}

/// `base-<10 characters>`, as kustomize's generators name objects: the first 10 hex digits of the
/// SHA-256 of `content`, with the letters kustomize substitutes so that the suffix never spells a
/// word or is all digits. Any change of the content changes the name, so the Deployment's pod
/// template changes and Kubernetes rolls the pods, and a rollback returns to the old object,
/// which is never edited in place.
fn hashed_name<'a>(base: &str, content: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    // The bytes are gathered first and hashed in one call: the hasher's cost per call passes
    // that of copying a short key or value.
    let mut bytes = Vec::with_capacity(4096);
    bytes.extend_from_slice(base.as_bytes());
    for (key, value) in content {
        // Length prefixes: ("ab", "c") and ("a", "bc") must not hash alike.
        for part in [key, value] {
            bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
            bytes.extend_from_slice(part.as_bytes());
        }
    }
    let digest = Sha256::digest(&bytes);
    let suffix: String = digest
        .iter()
        .flat_map(|b| [b >> 4, b & 0xf])
        .take(10)
        .map(|nibble| match nibble {
            0 => 'g',
            1 => 'h',
            3 => 'k',
            10 => 'm',
            14 => 't',
            n => char::from_digit(u32::from(n), 16).unwrap_or('x'),
        })
        .collect();
    format!("{base}-{suffix}")
}

/// A container path as Docker and Kubernetes see it: whether it is absolute, and its parts
/// joined by single slashes. Two paths with the same identity name one file: repeated and
/// trailing slashes do not count (`/etc//certs/x` is `/etc/certs/x`).
pub fn path_identity(path: &str) -> (bool, String) {
    let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    (path.starts_with('/'), parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileKind;

    fn pairs<'a>(items: &'a [(&'a str, &'a str)]) -> impl Iterator<Item = (&'a str, &'a str)> {
        items.iter().copied()
    }

    #[test]
    fn any_change_changes_the_name() {
        let a = hashed_name("env", pairs(&[("A", "1"), ("B", "2")]));
        assert_eq!(a, hashed_name("env", pairs(&[("A", "1"), ("B", "2")])));
        assert_ne!(a, hashed_name("env", pairs(&[("A", "1"), ("B", "3")])));
        assert_ne!(
            hashed_name("env", pairs(&[("ab", "c")])),
            hashed_name("env", pairs(&[("a", "bc")]))
        );
        assert_eq!(a.len(), "env-".len() + 10);
        assert!(crate::value_type::formats::k8s_label(&a).is_ok());
    }

    #[test]
    fn volume_names_are_dns_labels() {
        let file = FileSource {
            env: None,
            key: "deploy.plugins.User_Mgmt".into(),
            kind: FileKind::Certificate,
            container_path: "/app/plugins/User_Mgmt.zip".into(),
            host: None,
            host_path: None,
            host_origin: None,
            k8s: None,
            origin: crate::diag::source::Origin::new(
                crate::diag::source::Sources::new().add("p", "x"),
                0..1,
            ),
        };
        let name = volume_name(3, &file);
        assert_eq!(name, "deploy-plugins-user-mgmt-3");
        assert!(crate::value_type::formats::k8s_label(&name).is_ok());
    }
}
