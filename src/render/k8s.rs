//! The `k8s` target and the rest of the kustomize base: `k8s.yaml` (the ConfigMap of the
//! environment, named after its content, the Deployment and its Service), `kustomization.yaml`
//! (which lists it and generates Secrets and ConfigMaps from host files) and `DEPLOY.md` (what the
//! operator still creates, and how). The three share one context: the objects' plan.

use super::k8s_plan::{MANIFESTS, Plan};
use super::{Input, to_value};
use minijinja::Value;
use schemars::JsonSchema;
use serde::Serialize;

/// The templates of the base's files.
pub const MANIFESTS_TEMPLATE: &str = "k8s.yaml.j2";
pub const KUSTOMIZATION_TEMPLATE: &str = "kustomization.yaml.j2";
pub const NOTES_TEMPLATE: &str = "deploy.md.j2";
pub const TEMPLATES: [&str; 3] = [MANIFESTS_TEMPLATE, KUSTOMIZATION_TEMPLATE, NOTES_TEMPLATE];

/// The context of the kustomize base's templates (`k8s.yaml.j2`, `kustomization.yaml.j2`,
/// `deploy.md.j2`).
#[derive(Serialize, JsonSchema)]
pub struct Context<'a> {
    /// The Kubernetes objects of the profile, decided once for k8s.yaml, kustomization.yaml and
    /// DEPLOY.md (names come from svcgen's names module: content-hashed where known).
    pub plan: &'a Plan<'a>,
    /// The file name of the manifests in the base (k8s.yaml).
    pub manifests: &'static str,
}

pub fn context(input: &Input) -> Value {
    to_value(&Context {
        plan: &input.plan,
        manifests: MANIFESTS,
    })
}

#[cfg(test)]
mod tests {
    use crate::render::{EnvOptions, Target, Templates, environment, render};

    /// DEPLOY.md's `kubectl create ... --from-file=KEY=PATH` is run by the operator: a host path
    /// with a space, `$` or `'` must reach kubectl as one argument, as a real shell reads it.
    #[test]
    fn deploy_notes_quote_host_paths_for_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let host = "my files/it's $HOME;x.zip";
        std::fs::create_dir_all(dir.path().join("my files")).unwrap();
        std::fs::write(dir.path().join(host), "zip").unwrap();
        let profile = dir.path().join("p.toml");
        let example = std::fs::read_to_string("examples/a-ldap-plugins.toml").unwrap();
        let text = example
            .replace(
                "files/plugins/user-management.zip",
                &host.replace('\\', "\\\\"),
            )
            .replace("files/plugins/audit-log.zip", "plain.zip");
        std::fs::write(dir.path().join("plain.zip"), "zip").unwrap();
        std::fs::write(&profile, text).unwrap();
        let mut sources = crate::diag::source::Sources::new();
        let checked = crate::pipeline::check_profile(&profile, &mut sources).unwrap();
        let resolved = checked.resolved.expect("valid");
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        let notes = render(
            Target::DeployNotes,
            &resolved,
            &env,
            &Templates::load(None).unwrap(),
        )
        .unwrap();
        let line = notes
            .lines()
            .find(|l| l.contains("--from-file=user-management.zip="))
            .unwrap_or_else(|| panic!("{notes}"));
        let words = line.trim().trim_end_matches('\\');
        let shell = std::process::Command::new("sh")
            .args(["-c", &format!("printf '%s\\n' {words}")])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(shell.stdout).unwrap(),
            format!("--from-file=user-management.zip={host}\n"),
            "{line}"
        );
        assert!(
            notes.contains("--from-file=audit-log.zip=plain.zip\n"),
            "{notes}"
        );
    }
}
