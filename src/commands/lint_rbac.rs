//! The RBAC part of the workload lint: whether the stream's Roles grant the pod's service
//! account what the image calls on the objects of its `kubernetes` config and secret adapters
//! (the model's `[container] api_verbs`, on the objects resolve names: `Deploy::api_objects`).
//! A subject grants the pod's account when it is that `ServiceAccount`, the `User`
//! `system:serviceaccount:<ns>:<name>` or the `Group` `system:serviceaccounts[:<ns>]`; `*` verbs,
//! resources and API groups count; a binding to a Role or ClusterRole absent from the stream is
//! not judged. A stream with no RBAC objects at all gets a note, which never fails a run.

use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::import::k8s::{kind, meta};
use crate::import::yaml::Node;
use crate::model::Model;
use crate::resolve::Resolved;
use crate::resolve::deploy::ApiUse;

const RBAC_KINDS: &[&str] = &["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

/// The pod's account: its name, namespace (unknown: any), and where the stream names it.
struct Account<'a> {
    name: String,
    namespace: Option<&'a str>,
    at: Origin,
}

/// Reports each API object of the adapters the pod's account may not use as the image does.
pub(super) fn grants(
    (pod, container, namespace): (&Node, &Node, Option<&str>),
    objects: &[&Node],
    resolved: &Resolved,
    model: &Model,
    diags: &mut Diagnostics,
) {
    let uses = &resolved.deploy.api_objects;
    if uses.is_empty() {
        return;
    }
    let rbac: Vec<&Node> = (objects.iter().copied())
        .filter(|o| kind(o).is_some_and(|k| RBAC_KINDS.contains(&k)))
        .collect();
    if rbac.is_empty() {
        diags.push(no_rbac(uses, container.origin));
        return;
    }
    let field = pod
        .get("serviceAccountName")
        .or_else(|| pod.get("serviceAccount"));
    let account = Account {
        name: field
            .and_then(Node::as_str)
            .unwrap_or("default")
            .to_string(),
        namespace,
        at: field.map_or(container.origin, |f| f.origin),
    };
    for used in uses {
        let Some(granted) = granted(&account, used, &rbac, model) else {
            continue; // bound to a role the stream does not hold: not judged
        };
        let missing: Vec<&str> = (model.container.api_verbs.iter())
            .filter(|v| !granted.contains(v))
            .map(String::as_str)
            .collect();
        if missing.is_empty() {
            continue;
        }
        diags.push(
            Diagnostic::new(
                Code::RbacMissingGrant,
                format!(
                    "the pod's service account `{}` cannot {} {} `{}` (namespace {}): the image calls \
                     them for its kubernetes adapter",
                    account.name,
                    missing.join(", "),
                    used.resource,
                    object_name(used),
                    used.namespace
                ),
            )
            .at(account.at)
            .label("no grant in the stream's Roles")
            .help(format!(
                "bind a Role in namespace {} with the rule {{apiGroups: [\"\"], resources: [\"{}\"], \
                 verbs: [{}]}} to ServiceAccount `{}` (the upstream chart's config subchart does, \
                 through `<release>-<namespace>-cn-role`)",
                used.namespace,
                used.resource,
                (model.container.api_verbs.iter()).map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", "),
                account.name
            )),
        );
    }
}

/// The note of a stream with no RBAC objects at all: what the pod may do is not judged.
fn no_rbac(uses: &[ApiUse], at: Origin) -> Diagnostic {
    let named: Vec<String> = (uses.iter())
        .map(|u| format!("{} `{}`", u.resource, object_name(u)))
        .collect();
    Diagnostic::new(
        Code::NoRbacObjects,
        format!(
            "the stream has no Role, ClusterRole or binding: whether the pod may use {} \
             through the Kubernetes API is not checked",
            named.join(" and ")
        ),
    )
    .at(at)
    .label("RBAC not judged")
    .help(
        "include the Roles and RoleBindings (kubectl get deploy,cm,role,rolebinding -o yaml) to \
         have it checked",
    )
}

/// The name the image uses for the object.
fn object_name(used: &ApiUse) -> &str {
    used.image_name.as_deref().unwrap_or(&used.name)
}

/// The verbs the stream's bindings of the account grant on the object; `None` when a binding of
/// the account names a role the stream does not hold (what it grants is not known).
fn granted(
    account: &Account<'_>,
    used: &ApiUse,
    rbac: &[&Node],
    model: &Model,
) -> Option<Vec<String>> {
    let mut verbs = Vec::new();
    for binding in rbac
        .iter()
        .filter(|o| kind(o).is_some_and(|k| k.ends_with("Binding")))
    {
        let subjects = (binding.get("subjects").and_then(Node::items)).unwrap_or_default();
        if !subjects
            .iter()
            .any(|s| grants_account(s, account, meta(binding, "namespace").as_deref()))
        {
            continue;
        }
        let Some(role_ref) = binding.get("roleRef") else {
            continue;
        };
        let role_kind = role_ref
            .get("kind")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let role_name = role_ref
            .get("name")
            .and_then(Node::as_str)
            .unwrap_or_default();
        let binding_ns = meta(binding, "namespace");
        // A RoleBinding grants in its own namespace; a ClusterRoleBinding everywhere.
        if kind(binding) == Some("RoleBinding")
            && !same(binding_ns.as_deref(), Some(&used.namespace))
        {
            continue;
        }
        let role = rbac.iter().find(|r| {
            kind(r) == Some(role_kind)
                && meta(r, "name").as_deref() == Some(role_name)
                && (role_kind == "ClusterRole"
                    || same(meta(r, "namespace").as_deref(), binding_ns.as_deref()))
        })?;
        for rule in (role.get("rules").and_then(Node::items)).unwrap_or_default() {
            verbs.extend(rule_verbs(rule, used, model));
        }
    }
    Some(verbs)
}

/// Two namespaces that may be the same (an unset one may be any).
fn same(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// Whether a subject is the pod's account.
fn grants_account(subject: &Node, account: &Account<'_>, binding_ns: Option<&str>) -> bool {
    let text = |key: &str| subject.get(key).and_then(Node::as_str);
    let name = text("name").unwrap_or_default();
    match text("kind") {
        Some("ServiceAccount") => {
            name == account.name && same(text("namespace").or(binding_ns), account.namespace)
        }
        Some("User") => name
            .strip_prefix("system:serviceaccount:")
            .is_some_and(|rest| {
                rest.split_once(':')
                    .is_some_and(|(ns, sa)| sa == account.name && same(Some(ns), account.namespace))
            }),
        Some("Group") => {
            name == "system:serviceaccounts"
                || name
                    .strip_prefix("system:serviceaccounts:")
                    .is_some_and(|ns| same(Some(ns), account.namespace))
        }
        _ => false,
    }
}

/// The verbs one rule grants on the object: in the core API group, on its resource, and for a
/// verb Kubernetes restricts by name, on its name when the rule names any.
fn rule_verbs(rule: &Node, used: &ApiUse, model: &Model) -> Vec<String> {
    let list = |key: &str| -> Vec<String> {
        (rule.get(key).and_then(Node::items))
            .unwrap_or_default()
            .iter()
            .filter_map(|n| n.scalar_text().map(str::to_string))
            .collect()
    };
    let has = |items: &[String], want: &str| items.iter().any(|i| i == want || i == "*");
    if !has(&list("apiGroups"), "") || !has(&list("resources"), &used.resource) {
        return Vec::new();
    }
    let names = list("resourceNames");
    let verbs = list("verbs");
    (model.container.api_verbs.iter())
        .filter(|v| has(&verbs, v))
        .filter(|v| {
            names.is_empty()
                || (model.container.api_verbs_by_name.contains(v)
                    && names.iter().any(|n| n == object_name(used)))
        })
        .cloned()
        .collect()
}
