//! The Kubernetes reader: a container's `envFrom` ConfigMaps (later ones winning) and then its
//! `env` (which wins over every envFrom), as the kubelet builds the environment; or the data of a
//! ConfigMap read on its own. ConfigMaps are looked up in the same file (every document, and the
//! items of a `List`). `secretKeyRef` values become secret references.

use super::compose::{not_a_string, typed};
use super::yaml::{Node, Yaml};
use super::{DeployHints, EnvEntry, EnvValue, ReadOptions, interpolate};
use crate::diag::source::{Origin, SourceId};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::support::suggest::did_you_mean;

/// Workload kinds and the path from the object to its pod spec.
pub(crate) const POD_SPECS: &[(&str, &[&str])] = &[
    ("Pod", &["spec"]),
    ("Deployment", &["spec", "template", "spec"]),
    ("StatefulSet", &["spec", "template", "spec"]),
    ("DaemonSet", &["spec", "template", "spec"]),
    ("ReplicaSet", &["spec", "template", "spec"]),
    ("Job", &["spec", "template", "spec"]),
    (
        "CronJob",
        &["spec", "jobTemplate", "spec", "template", "spec"],
    ),
];

/// A container found in the file, with its workload.
struct Container<'a> {
    workload: String,
    name: String,
    namespace: Option<String>,
    node: &'a Node,
    /// The workload's `spec.replicas`, when it has one.
    replicas: Option<&'a Node>,
}

/// A ConfigMap found in the file.
struct ConfigMap<'a> {
    name: String,
    data: Option<&'a Node>,
}

pub fn read(
    docs: &[Node],
    source: SourceId,
    options: &ReadOptions<'_>,
    deploy: &mut DeployHints,
    diags: &mut Diagnostics,
) -> Vec<EnvEntry> {
    let mut objects = Vec::new();
    for doc in docs {
        collect(doc, &mut objects);
    }
    let configmaps: Vec<ConfigMap<'_>> = objects
        .iter()
        .filter(|o| kind(o) == Some("ConfigMap"))
        .map(|o| ConfigMap {
            name: meta(o, "name").unwrap_or_default(),
            data: o.get("data"),
        })
        .collect();
    let mut containers = Vec::new();
    for object in &objects {
        containers_of(object, &mut containers);
    }
    let here = Origin::new(source, 0..0);
    if containers.is_empty() {
        return read_configmap_alone(&configmaps, options.service, here, diags);
    }
    let chosen = match options.service {
        Some(wanted) => containers
            .iter()
            .find(|c| c.name == wanted || c.workload == wanted),
        None if containers.len() == 1 => containers.first(),
        None if admin_ui(&containers).is_some() => admin_ui(&containers),
        None => {
            diags.push(
                Diagnostic::new(
                    Code::InputShape,
                    format!("this file has {} containers: choose one", containers.len()),
                )
                .at(here)
                .help(format!("containers: {}", list(&containers)))
                .help("pass --service with a container or workload name"),
            );
            return Vec::new();
        }
    };
    let Some(container) = chosen else {
        let wanted = options.service.unwrap_or_default();
        let names: Vec<&str> = containers.iter().map(|c| c.name.as_str()).collect();
        diags.push(
            Diagnostic::new(
                Code::InputShape,
                format!("this file has no container or workload `{wanted}`"),
            )
            .at(here)
            .help(format!("containers: {}", list(&containers)))
            .suggest(did_you_mean(wanted, names)),
        );
        return Vec::new();
    };
    carry_deployment(container, deploy);
    let mut entries = Vec::new();
    // A null `env` or `envFrom` (the chart renders `env:` empty) is an empty list.
    if let Some(env_from) = container.node.get("envFrom").filter(|n| !n.is_null()) {
        read_env_from(env_from, &configmaps, &mut entries, diags);
    }
    let mut carriers = Vec::new();
    if let Some(env) = container.node.get("env").filter(|n| !n.is_null()) {
        read_env(env, &configmaps, deploy, &mut entries, &mut carriers, diags);
    }
    withhold_secret_carriers(&mut entries, &carriers, diags);
    entries
}

/// What the chosen container tells of its deployment, carried into the profile's `[deploy]`
/// (its workload's name and namespace, image and replicas); what a profile cannot carry is
/// named as left out.
fn carry_deployment(container: &Container<'_>, deploy: &mut DeployHints) {
    if !container.workload.is_empty() {
        deploy.name = Some(container.workload.clone());
    }
    deploy.namespace = container.namespace.clone();
    deploy.container = Some(container.node.origin);
    deploy.image = container
        .node
        .get("image")
        .and_then(|i| Some((i.scalar_text()?.to_string(), i.origin)));
    super::left_out::container(container.node, &mut deploy.left_out);
    if let Some(replicas) = container.replicas {
        deploy.replicas = (replicas.scalar_text()).map(|t| (t.to_string(), replicas.origin));
    }
}

/// A variable outside the spec whose value a secret variable takes (`value: $(PASS)`, or the
/// same ConfigMap value read under another `envFrom` prefix) holds the secret: it is left out of
/// the import, with a warning, so that the secret never lands in the profile's `[env]` and from
/// there in a ConfigMap. `carriers` are (referred name, secret variable) pairs from `$(NAME)`.
fn withhold_secret_carriers(
    entries: &mut Vec<EnvEntry>,
    carriers: &[(String, String)],
    diags: &mut Diagnostics,
) {
    let model = crate::model::Model::get();
    let secret = |name: &str| model.vars.iter().any(|v| v.secret && v.env == name);
    let in_spec = |name: &str| model.vars.iter().any(|v| v.env == name);
    let same_value: Vec<(Origin, String)> = entries
        .iter()
        .filter(|e| secret(&e.name) && matches!(e.value, EnvValue::Text(_)))
        .map(|e| (e.origin, e.name.clone()))
        .collect();
    entries.retain(|e| {
        if in_spec(&e.name) {
            return true;
        }
        let by_value = same_value.iter().find(|(o, _)| *o == e.origin);
        let by_name = carriers.iter().find(|(n, _)| *n == e.name);
        let Some(holder) = by_value.map(|(_, s)| s).or(by_name.map(|(_, s)| s)) else {
            return true;
        };
        diags.push(
            Diagnostic::new(
                Code::NotImported,
                format!("`{}` holds the value of the secret `{holder}`: it is not imported", e.name),
            )
            .at(e.origin)
            .label("a secret's value")
            .help(format!(
                "a secret never goes into the profile or a ConfigMap: the profile takes `{holder}` as a reference; supply the value from a Secret"
            )),
        );
        false
    });
}

fn list(containers: &[Container<'_>]) -> String {
    containers
        .iter()
        .map(|c| {
            if c.workload.is_empty() {
                c.name.clone()
            } else {
                format!("{} (in {})", c.name, c.workload)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one container whose image is the Admin UI's, among several.
fn admin_ui<'c, 'a>(containers: &'c [Container<'a>]) -> Option<&'c Container<'a>> {
    let image = |c: &Container<'_>| {
        c.node
            .get("image")
            .and_then(Node::scalar_text)
            .map(str::to_string)
    };
    let mut found = (containers.iter())
        .filter(|c| image(c).is_some_and(|i| super::edition::is_admin_ui_image(&i)));
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

pub(crate) fn kind(node: &Node) -> Option<&str> {
    node.get("kind").and_then(Node::as_str)
}

pub(crate) fn meta(node: &Node, key: &str) -> Option<String> {
    node.get("metadata")?.get(key)?.as_str().map(str::to_string)
}

/// Every object of a document, the items of a `List` included.
pub(crate) fn collect<'a>(doc: &'a Node, out: &mut Vec<&'a Node>) {
    if kind(doc).is_some_and(|k| k.ends_with("List"))
        && let Some(items) = doc.get("items").and_then(Node::items)
    {
        for item in items {
            collect(item, out);
        }
        return;
    }
    out.push(doc);
}

/// The containers of a workload, or the document itself when it is a bare `env:` list.
fn containers_of<'a>(object: &'a Node, out: &mut Vec<Container<'a>>) {
    let Some(kind) = kind(object) else {
        if object.get("env").is_some() {
            out.push(Container {
                workload: String::new(),
                name: String::new(),
                namespace: None,
                node: object,
                replicas: None,
            });
        }
        return;
    };
    let Some((_, path)) = POD_SPECS.iter().find(|(k, _)| *k == kind) else {
        return;
    };
    let mut spec = Some(object);
    for step in *path {
        spec = spec.and_then(|s| s.get(step));
    }
    let Some(items) = spec.and_then(|s| s.get("containers")).and_then(Node::items) else {
        return;
    };
    let workload = meta(object, "name").unwrap_or_default();
    for node in items {
        out.push(Container {
            workload: workload.clone(),
            name: node
                .get("name")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string(),
            namespace: meta(object, "namespace"),
            node,
            replicas: object.get("spec").and_then(|s| s.get("replicas")),
        });
    }
}

/// Without a container: the one ConfigMap, or the one `--service` names.
fn read_configmap_alone(
    configmaps: &[ConfigMap<'_>],
    wanted: Option<&str>,
    here: Origin,
    diags: &mut Diagnostics,
) -> Vec<EnvEntry> {
    let names: Vec<&str> = configmaps.iter().map(|c| c.name.as_str()).collect();
    let chosen = match (wanted, configmaps) {
        (Some(w), _) => configmaps.iter().find(|c| c.name == w),
        (None, [one]) => Some(one),
        (None, []) => {
            diags.push(
                Diagnostic::new(
                    Code::InputShape,
                    "this file has no ConfigMap, Pod or Deployment",
                )
                .at(here)
                .help("import a ConfigMap, a Pod or a workload (Deployment, StatefulSet, ...) with `env` / `envFrom`"),
            );
            return Vec::new();
        }
        (None, _) => {
            diags.push(
                Diagnostic::new(
                    Code::InputShape,
                    format!(
                        "this file has {} ConfigMaps and no container: choose one",
                        configmaps.len()
                    ),
                )
                .at(here)
                .help(format!("ConfigMaps: {}", names.join(", ")))
                .help("pass --service with a ConfigMap name"),
            );
            return Vec::new();
        }
    };
    let Some(configmap) = chosen else {
        let w = wanted.unwrap_or_default();
        diags.push(
            Diagnostic::new(
                Code::InputShape,
                format!("this file has no ConfigMap `{w}`"),
            )
            .at(here)
            .help(format!("ConfigMaps: {}", names.join(", ")))
            .suggest(did_you_mean(w, names.iter().copied())),
        );
        return Vec::new();
    };
    let mut entries = Vec::new();
    data_entries(configmap, "", &mut entries, diags);
    entries
}

/// The data of a ConfigMap as entries (keys prefixed by an envFrom `prefix`).
fn data_entries(
    configmap: &ConfigMap<'_>,
    prefix: &str,
    entries: &mut Vec<EnvEntry>,
    diags: &mut Diagnostics,
) {
    let Some(data) = configmap.data else {
        return;
    };
    let Some(pairs) = data.entries() else {
        diags.push(
            Diagnostic::new(
                Code::InputShape,
                format!(
                    "`data` of ConfigMap `{}` must be a map, found {}",
                    configmap.name,
                    data.kind()
                ),
            )
            .at(data.origin)
            .label("expected a map"),
        );
        return;
    };
    for (key, value) in pairs {
        let Some(name) = key.scalar_text() else {
            continue;
        };
        let Some(text) = scalar(name, value, diags) else {
            continue;
        };
        entries.push(EnvEntry {
            name: format!("{prefix}{name}"),
            value: EnvValue::Text(text.to_string()),
            name_origin: key.origin,
            origin: value.origin,
        });
    }
}

/// The text of a scalar value, warning when YAML does not read it as a string.
fn scalar<'a>(name: &str, value: &'a Node, diags: &mut Diagnostics) -> Option<&'a str> {
    match &value.value {
        Yaml::Scalar { text, typed: None } => Some(text),
        Yaml::Scalar {
            text,
            typed: Some(t),
        } => {
            diags.push(typed(name, *t, text, value.origin).help(
                "Kubernetes accepts only strings here: the API server rejects a number or boolean",
            ));
            Some(text)
        }
        _ => {
            diags.push(not_a_string(name, value));
            None
        }
    }
}

fn read_env_from(
    env_from: &Node,
    configmaps: &[ConfigMap<'_>],
    entries: &mut Vec<EnvEntry>,
    diags: &mut Diagnostics,
) {
    for item in env_from.items().unwrap_or_default() {
        let prefix = item
            .get("prefix")
            .and_then(Node::as_str)
            .unwrap_or_default();
        if let Some(reference) = item.get("configMapRef") {
            let name = reference
                .get("name")
                .and_then(Node::as_str)
                .unwrap_or_default();
            match configmaps.iter().find(|c| c.name == name) {
                Some(configmap) => data_entries(configmap, prefix, entries, diags),
                None if optional(reference) => {}
                None => diags.push(missing_configmap(name, reference.origin, configmaps)),
            }
        } else if let Some(reference) = item.get("secretRef") {
            let name = reference
                .get("name")
                .and_then(Node::as_str)
                .unwrap_or_default();
            diags.push(
                Diagnostic::new(
                    Code::NotImported,
                    format!("the variables of Secret `{name}` cannot be read from this file"),
                )
                .at(reference.origin)
                .label("not imported")
                .help("list the secret variables the container needs one by one with secretKeyRef; the passphrase is kept as a reference to this Secret"),
            );
            secret_vars_from(name, prefix, reference.origin, entries);
        }
    }
}

/// The spec's secret variables a whole Secret (`envFrom: secretRef`) may hand the container:
/// each becomes a reference to its key in that Secret, never a value (its data is not read).
fn secret_vars_from(secret: &str, prefix: &str, at: Origin, entries: &mut Vec<EnvEntry>) {
    let mut names: Vec<&str> = Vec::new();
    for var in crate::model::Model::get().vars.iter().filter(|v| v.secret) {
        if names.contains(&var.env.as_str()) {
            continue;
        }
        names.push(&var.env);
        let Some(key) = var.env.strip_prefix(prefix) else {
            continue;
        };
        entries.push(EnvEntry {
            name: var.env.clone(),
            value: EnvValue::SecretRef {
                secret: secret.to_string(),
                key: key.to_string(),
                whole: true,
            },
            name_origin: at,
            origin: at,
        });
    }
}

fn optional(reference: &Node) -> bool {
    reference.get("optional").and_then(Node::scalar_text) == Some("true")
}

fn missing_configmap(name: &str, at: Origin, configmaps: &[ConfigMap<'_>]) -> Diagnostic {
    Diagnostic::new(
        Code::InputShape,
        format!("ConfigMap `{name}` is not in this file"),
    )
    .at(at)
    .label("not found here")
    .help("put the ConfigMap in the same file (as another `---` document) to import its variables")
    .suggest(did_you_mean(
        name,
        configmaps.iter().map(|c| c.name.as_str()),
    ))
}

/// What becomes of a `$(NAME)` reference in `name`'s value: `expanded` as Kubernetes expands
/// it (a variable defined before), or kept as written.
fn reference_note(name: &str, expanded: bool) -> Diagnostic {
    if expanded {
        Diagnostic::new(
            Code::Placeholder,
            format!("`{name}` refers to another variable with $(NAME): the profile holds the expanded value"),
        )
        .help("the profile cannot refer to other variables; keep the two values in step when editing")
    } else {
        Diagnostic::new(
            Code::Placeholder,
            format!("`{name}` holds $(NAME) of a variable not defined before it: Kubernetes leaves it as written"),
        )
        .help("the profile keeps it as literal text")
    }
}

fn read_env(
    env: &Node,
    configmaps: &[ConfigMap<'_>],
    deploy: &mut DeployHints,
    entries: &mut Vec<EnvEntry>,
    carriers: &mut Vec<(String, String)>,
    diags: &mut Diagnostics,
) {
    let model = crate::model::Model::get();
    let Some(items) = env.items() else {
        diags.push(
            Diagnostic::new(
                Code::InputShape,
                format!("`env` must be a list, found {}", env.kind()),
            )
            .at(env.origin)
            .label("expected a list"),
        );
        return;
    };
    for item in items {
        let Some(name_node) = item.get("name") else {
            diags.push(
                Diagnostic::new(Code::InputShape, "an `env` item without `name`")
                    .at(item.origin)
                    .label("no name"),
            );
            continue;
        };
        let name = name_node.scalar_text().unwrap_or_default().to_string();
        if let Some(from) = item.get("valueFrom") {
            if let Some(entry) = value_from(&name, name_node, from, configmaps, deploy, diags) {
                entries.push(entry);
            }
            continue;
        }
        let (raw, origin) = match item.get("value") {
            Some(value) => match scalar(&name, value, diags) {
                Some(text) => (text.to_string(), value.origin),
                None => continue,
            },
            None => (String::new(), name_node.origin),
        };
        let defined = |n: &str| {
            entries
                .iter()
                .rev()
                .find(|e| e.name == n)
                .and_then(|e| e.value.text().map(str::to_string))
        };
        let (value, refs) = interpolate::kubernetes(&raw, defined);
        if model.vars.iter().any(|v| v.secret && v.env == name) {
            for (span, _) in refs.iter().filter(|(_, expanded)| *expanded) {
                let referred = raw.get(span.start + 2..span.end - 1).unwrap_or_default();
                carriers.push((referred.to_string(), name.clone()));
            }
        }
        for (_, expanded) in refs {
            diags.push(
                reference_note(&name, expanded)
                    .at(origin)
                    .label("$(NAME) reference"),
            );
        }
        entries.push(EnvEntry {
            name,
            value: EnvValue::Text(value),
            name_origin: name_node.origin,
            origin,
        });
    }
}

fn value_from(
    name: &str,
    name_node: &Node,
    from: &Node,
    configmaps: &[ConfigMap<'_>],
    deploy: &mut DeployHints,
    diags: &mut Diagnostics,
) -> Option<EnvEntry> {
    let key_of = |r: &Node| {
        (
            r.get("name")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string(),
            r.get("key")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string(),
        )
    };
    if let Some(reference) = from.get("secretKeyRef") {
        let (secret, key) = key_of(reference);
        if deploy.secret_name.is_none() {
            deploy.secret_name = Some(secret.clone());
        }
        return Some(EnvEntry {
            name: name.to_string(),
            value: EnvValue::SecretRef {
                secret,
                key,
                whole: false,
            },
            name_origin: name_node.origin,
            origin: reference.origin,
        });
    }
    if let Some(reference) = from.get("configMapKeyRef") {
        let (configmap, key) = key_of(reference);
        let Some(found) = configmaps.iter().find(|c| c.name == configmap) else {
            if !optional(reference) {
                diags.push(missing_configmap(&configmap, reference.origin, configmaps));
            }
            return None;
        };
        let value = found.data.and_then(|d| d.get(&key));
        let Some(value) = value else {
            if !optional(reference) {
                diags.push(
                    Diagnostic::new(
                        Code::InputShape,
                        format!("ConfigMap `{configmap}` has no key `{key}`"),
                    )
                    .at(reference.origin)
                    .label("key not found"),
                );
            }
            return None;
        };
        let text = scalar(name, value, diags)?;
        return Some(EnvEntry {
            name: name.to_string(),
            value: EnvValue::Text(text.to_string()),
            name_origin: name_node.origin,
            origin: value.origin,
        });
    }
    diags.push(
        Diagnostic::new(
            Code::NotImported,
            format!(
                "`{name}` comes from the pod (fieldRef or resourceFieldRef): it is not imported"
            ),
        )
        .at(from.origin)
        .label("not imported")
        .help("a profile holds values, not references to the pod"),
    );
    None
}

#[cfg(test)]
mod tests {
    use super::super::{Format, Read, read_as};
    use super::*;

    fn read(text: &str, service: Option<&str>) -> Read {
        read_as(Format::Kubernetes, "k8s.yaml", text, service, None)
    }

    const MANIFEST: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: env}\ndata:\n  A: \"1\"\n  B: \"from map\"\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app, namespace: ns}\nspec:\n  template:\n    spec:\n      containers:\n        - name: main\n          envFrom:\n            - configMapRef: {name: env}\n          env:\n            - name: B\n              value: \"x $$(A) $(A)\"\n            - name: S\n              valueFrom:\n                secretKeyRef: {name: sec, key: S}\n";

    #[test]
    fn env_wins_over_env_from_and_secrets_are_references() {
        let read = read(MANIFEST, None);
        let got: Vec<_> = read
            .entries
            .iter()
            .map(|e| (e.name.as_str(), e.value.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("A", EnvValue::Text("1".into())),
                ("B", EnvValue::Text("x $(A) 1".into())),
                (
                    "S",
                    EnvValue::SecretRef {
                        secret: "sec".into(),
                        key: "S".into(),
                        whole: false,
                    }
                ),
            ]
        );
        assert_eq!(read.deploy.name.as_deref(), Some("app"));
        assert_eq!(read.deploy.namespace.as_deref(), Some("ns"));
        assert_eq!(read.deploy.secret_name.as_deref(), Some("sec"));
    }

    #[test]
    fn a_configmap_alone_is_read() {
        let read = read(
            "kind: ConfigMap\nmetadata: {name: x}\ndata:\n  PORT: 8500\n",
            None,
        );
        assert_eq!(read.entries[0].value, EnvValue::Text("8500".into()));
        assert_eq!(read.diagnostics.items[0].code, Code::YamlTyped);
    }

    #[test]
    fn a_missing_configmap_is_an_error() {
        let read = read(
            "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      envFrom:\n        - configMapRef: {name: gone}\n",
            None,
        );
        assert_eq!(read.diagnostics.items[0].code, Code::InputShape);
    }
}
