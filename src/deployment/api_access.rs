//! The render-time checks of the pods' access to the Kubernetes API (the `kubernetes` config and
//! secret adapters): where the target runs the container, can the adapter's client load an API
//! configuration at all, and does the RoleBinding svcgen renders bind the account the pods run as.

use super::Carrier;
use super::k8s_plan::{renders_rbac, subject_namespace};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Model;
use crate::resolve::Resolved;
use crate::resolve::deploy::NAMESPACE_KEY;
use crate::value_type::Typed;

/// For a target that starts the container: each `kubernetes` adapter whose client would find no
/// API configuration there (W0341). In a pod, `use_kube_config = true` loads `$HOME/.kube/config`,
/// which the pod does not have; in compose, `false` loads the in-cluster configuration, which only
/// a pod has (`KUBERNETES_SERVICE_HOST` and the service account token).
pub fn kube_config(row: &Carrier, resolved: &Resolved) -> Diagnostics {
    let mut diags = Diagnostics::default();
    // A deployment the profile says it is not for (`deploy.compose = false`) starts nothing.
    let Some(how) = row
        .runs_container
        .filter(|how| resolved.deploy.deploys(Some(*how)))
    else {
        return diags;
    };
    for object in &Model::get().container.api_objects {
        let Some(switch) = (resolved.vars.iter()).find(|rv| rv.var.key == object.kube_config)
        else {
            continue;
        };
        let loads_kube_config = switch.value == Typed::Bool(true);
        let key = &switch.var.key;
        let diagnostic = match (row.in_cluster, loads_kube_config) {
            (true, true) => Diagnostic::new(
                Code::KubeApiConfig,
                format!(
                    "`{key}` = true in a pod: the client loads $HOME/.kube/config, which the pod does not have: the adapter cannot reach its {} and every try of its wait fails",
                    object.resource
                ),
            )
            .label("only useful outside a container")
            .help(format!(
                "remove `{key}` (false: the client uses the pod's service account, which svcgen grants)"
            )),
            (false, false) => Diagnostic::new(
                Code::KubeApiConfig,
                format!(
                    "a kubernetes adapter rendered for {}: with `{key}` = false its client loads the in-cluster configuration (KUBERNETES_SERVICE_HOST and a service account token), which only a Kubernetes pod has, so the container fails at its wait for the {}",
                    row.name, object.resource
                ),
            )
            .label("no Kubernetes API configuration here")
            .help(format!(
                "a profile deployed only on Kubernetes says so: `{}` = false in [deploy] (compose is then not rendered); or set `{key}` = true and give the container a kubeconfig at $HOME/.kube/config (a volume of your own)",
                how.setting()
            )),
            _ => continue,
        };
        diags.push(diagnostic.at(resolved.deployment_origin(switch)));
    }
    diags
}

/// The k8s target's RoleBindings when `deploy.namespace` ([`NAMESPACE_KEY`]) is unset and the profile writes an
/// adapter's namespace (W0340): the ServiceAccount and the Deployment land in kubectl's context
/// namespace, while each RoleBinding binds the account in the namespace svcgen guessed.
pub fn binding_namespace(resolved: &Resolved) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let deploy = &resolved.deploy;
    if !renders_rbac(deploy) || deploy.namespace.is_some() {
        return diags;
    }
    let Some(subject) = subject_namespace(deploy) else {
        return diags;
    };
    let Some(written) = (deploy.api_objects.iter()).find_map(|o| o.namespace_var.origin) else {
        return diags;
    };
    let account = crate::resolve::deploy::names::service_account_name(&deploy.name);
    diags.push(
        Diagnostic::new(
            Code::BindingNamespace,
            format!(
                "`{NAMESPACE_KEY}` is unset: the ServiceAccount `{account}` and the Deployment land in kubectl's context namespace, but the RoleBindings svcgen renders bind the service account `{subject}/{account}`"
            ),
        )
        .at(written)
        .label("the RoleBindings bind the service account in this namespace")
        .help(format!(
            "set `{NAMESPACE_KEY}` (e.g. \"{subject}\") so that the pods' service account is the one the RoleBindings bind"
        )),
    );
    diags
}
