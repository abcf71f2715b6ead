//! The `k8s` target: a ConfigMap with the non-secret environment and a Deployment that reads it
//! with `envFrom`, takes secrets through `secretKeyRef` and mounts every declared file read-only.

use super::{EnvVar, RenderError, Templates, to_value};
use crate::resolve::Resolved;
use crate::resolve::deploy::{FileSource, K8sKind};
use minijinja::context;
use serde::Serialize;

const TEMPLATE: &str = "k8s.yaml.j2";

#[derive(Serialize)]
struct Label<'a> {
    name: &'a str,
    value: &'a str,
}

#[derive(Serialize)]
struct Volume<'a> {
    name: String,
    kind: &'static str,
    source: &'a str,
    key: &'a str,
    /// The file name inside the volume, and the `subPath` mounted.
    path: &'a str,
    mount_path: &'a str,
}

pub fn render(
    resolved: &Resolved,
    env: &[EnvVar],
    templates: &Templates,
) -> Result<String, RenderError> {
    let deploy = &resolved.deploy;
    let labels = [
        Label {
            name: "app.kubernetes.io/name",
            value: &deploy.name,
        },
        Label {
            name: "app.kubernetes.io/instance",
            value: &deploy.name,
        },
        Label {
            name: "app.kubernetes.io/managed-by",
            value: "svcgen",
        },
    ];
    let secrets: Vec<&EnvVar> = env.iter().filter(|v| v.secret).collect();
    let volumes: Vec<Volume<'_>> = deploy
        .files
        .iter()
        .enumerate()
        .filter_map(|(i, f)| volume(i, f))
        .collect();
    let context = context! {
        edition => resolved.edition.as_str(),
        name => &deploy.name,
        namespace => &deploy.namespace,
        image => &deploy.image,
        replicas => &deploy.replicas,
        configmap_name => format!("{}-env", deploy.name),
        secret_name => &deploy.secret_name,
        labels => to_value(&labels),
        selector => to_value(&labels[..2]),
        env => to_value(env),
        secrets => to_value(&secrets),
        volumes => to_value(&volumes),
    };
    templates
        .render(TEMPLATE, context)
        .map_err(RenderError::Template)
}

/// The volume of one file source that has a Kubernetes origin.
fn volume(index: usize, file: &FileSource) -> Option<Volume<'_>> {
    let k8s = file.k8s.as_ref()?;
    let path = file.container_path.rsplit('/').next().unwrap_or("file");
    Some(Volume {
        name: volume_name(index, file),
        kind: match k8s.kind {
            K8sKind::Secret => "secret",
            K8sKind::ConfigMap => "configmap",
        },
        source: &k8s.name,
        key: &k8s.key,
        path,
        mount_path: &file.container_path,
    })
}

/// A readable, unique DNS-1123 label: the variable's name, or the plugin's, plus its position.
fn volume_name(index: usize, file: &FileSource) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FileKind;

    #[test]
    fn volume_names_are_dns_labels() {
        let file = FileSource {
            env: None,
            key: "deploy.plugins.User_Mgmt".into(),
            kind: FileKind::Certificate,
            container_path: "/app/plugins/User_Mgmt.zip".into(),
            host: None,
            k8s: None,
        };
        let name = volume_name(3, &file);
        assert_eq!(name, "deploy-plugins-user-mgmt-3");
        assert!(crate::resolve::formats::k8s_label(&name).is_ok());
    }
}
