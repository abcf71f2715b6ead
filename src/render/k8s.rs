//! The `k8s` target and the rest of the kustomize base: `k8s.yaml` (the ConfigMap of the
//! environment, named after its content, the Deployment and its Service), `kustomization.yaml`
//! (which lists it and generates Secrets and ConfigMaps from host files) and `DEPLOY.md` (what the
//! operator still creates, and how). The three share one context: the objects' plan.

use super::k8s_plan::{MANIFESTS, plan_for};
use super::{Input, to_value};
use minijinja::{Value, context};

/// The templates of the base's files.
pub const MANIFESTS_TEMPLATE: &str = "k8s.yaml.j2";
pub const KUSTOMIZATION_TEMPLATE: &str = "kustomization.yaml.j2";
pub const NOTES_TEMPLATE: &str = "deploy.md.j2";
pub const TEMPLATES: [&str; 3] = [MANIFESTS_TEMPLATE, KUSTOMIZATION_TEMPLATE, NOTES_TEMPLATE];

pub fn context(input: &Input) -> Value {
    let plan = plan_for(input.resolved, input.env, input.folder, input.options);
    context! {
        plan => to_value(&plan),
        manifests => MANIFESTS,
    }
}
