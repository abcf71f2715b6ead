//! The Kubernetes objects of one profile, decided once and shared by `k8s.yaml`, the
//! `kustomization.yaml`, the deployment notes and `svcgen krm`: object names (content-hashed where
//! svcgen knows the content), labels, volumes, what kustomize generates from host files and what
//! the operator must create.

use super::env::{EnvOptions, EnvVar};
use super::host_files::{HostFile, HostReader, base_file, host_files};
use super::paths::host_reference;
use crate::resolve::Resolved;
use crate::resolve::deploy::{Deploy, FileSource, K8sKind, credentials, names};
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The name of the manifests file inside a kustomize base.
pub const MANIFESTS: &str = "k8s.yaml";

pub use super::host_files::{FILES_FOLDER, SECRETS_FOLDER};

/// The Kubernetes objects of one profile.
#[derive(Serialize, JsonSchema)]
pub struct Plan<'a> {
    /// The profile's edition.
    pub edition: &'static str,
    /// deploy.name (the Deployment, its container and its Service).
    pub name: &'a str,
    /// deploy.namespace.
    pub namespace: Option<&'a str>,
    /// The image, `repository:tag`.
    pub image: &'a str,
    /// deploy.replicas.
    pub replicas: i64,
    /// The app.kubernetes.io labels of every object.
    pub labels: Vec<Pair>,
    /// The labels that select the pods (the first of labels; never changed by an upgrade).
    pub selector: Vec<Pair>,
    /// The ConfigMap of the non-secret variables, named after its content.
    pub configmap_name: String,
    /// The ConfigMap's data in the model's order (variable and value).
    pub configmap_data: Vec<Pair>,
    /// The Secret of the secret variables; none when there are none.
    pub env_secret: Option<EnvSecret>,
    /// One per file the container reads from a Secret or ConfigMap key.
    pub volumes: Vec<Volume<'a>>,
    /// The Secrets and ConfigMaps kustomize generates from copies of host files.
    pub generators: Vec<Generated>,
    /// The Secrets and ConfigMaps the operator creates (their content is not in the profile).
    pub to_create: Vec<ToCreate>,
    /// Host files are copied into the base (--out-dir).
    pub copies: bool,
    /// Host paths are relative to the output folder (else to the profile's).
    pub paths_from_output: bool,
    /// The pod's settings (deploy.port, deploy.probe, deploy.resources, ...).
    pub workload: WorkloadView<'a>,
    /// The host files the base generates objects from, with their read status (not given to
    /// templates: the writer copies them, and an unreadable one is an error of every command).
    #[serde(skip)]
    pub host_files: Vec<HostFile<'a>>,
    /// The pods' service account and what it is granted.
    pub access: Access,
    /// The credential files the image opens at start, with their sources.
    pub credential_files: Vec<CredentialFile>,
    /// Plugin archives are mounted (edition A's plugin list).
    pub plugins: bool,
}

/// A file the image opens on every try of its startup wait.
#[derive(Serialize, JsonSchema)]
pub struct CredentialFile {
    /// The profile key naming the file.
    pub key: String,
    /// Its variable.
    pub env: String,
    /// The path in the container.
    pub path: String,
    /// `Secret NAME, key KEY` (or ConfigMap), or none when the profile gives no source.
    pub source: Option<String>,
}

/// The pods' access to the Kubernetes API: with a `kubernetes` adapter, a service account bound
/// to a Role per namespace of the adapters' objects; without one, no token mounted.
#[derive(Serialize, JsonSchema)]
pub struct Access {
    /// The service account the pods run as, or none (the namespace's default, token not mounted).
    pub service_account: Option<String>,
    /// svcgen renders the ServiceAccount, Roles and RoleBindings (false: an existing account is
    /// named by `deploy.service_account`, or no adapter needs the API).
    pub rendered: bool,
    /// The service account token is mounted (a `kubernetes` adapter calls the API).
    pub mount_token: bool,
    /// The grants the adapters need, one Role per namespace (rendered, or listed for an
    /// existing account).
    pub roles: Vec<Role>,
    /// The namespace of the service account in the RoleBindings.
    pub subject_namespace: Option<String>,
    /// The resources the adapters use (`configmaps`, `secrets`), in the model's order.
    pub resources: Vec<String>,
    /// A Role also names an object by the name the image reads where the spec's differs.
    pub image_names: bool,
    /// The verbs restricted to named objects.
    pub verbs_by_name: Vec<String>,
    /// The verbs Kubernetes cannot restrict by name (list, watch, create).
    pub verbs_unnamed: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
/// One Role, in one namespace of the adapters' objects.
pub struct Role {
    /// The Role's (and its RoleBinding's) name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
    /// One per resource and verb set.
    pub rules: Vec<Rule>,
}

#[derive(Serialize, JsonSchema)]
/// What a Role grants on one resource.
pub struct Rule {
    /// `configmaps` or `secrets`.
    pub resource: String,
    /// The verbs granted.
    pub verbs: Vec<String>,
    /// The objects the rule is restricted to (empty: every object of the resource).
    pub resource_names: Vec<String>,
    /// The variables naming the object (for DEPLOY.md).
    pub why: String,
}

impl Plan<'_> {
    /// The name of the Secret holding the secret variables, as every target refers to it:
    /// content-hashed when svcgen generates it, else `deploy.secret_name`.
    pub fn env_secret_name(&self) -> Option<&str> {
        self.env_secret.as_ref().map(|s| s.name.as_str())
    }
}

/// A name and its value (a label, a data key, a generator's file).
#[derive(Serialize, JsonSchema, Clone)]
pub struct Pair {
    /// The name (a label, a variable, a key).
    pub name: String,
    /// Its value (for a generator's file: the copy, relative to the output folder).
    pub value: String,
}

/// The Secret of the secret variables.
#[derive(Serialize, JsonSchema)]
pub struct EnvSecret {
    /// Its name: content-hashed when generated, else deploy.secret_name.
    pub name: String,
    /// svcgen writes it (--include-secrets), with the values in data.
    pub generated: bool,
    /// The values when generated (else empty).
    pub data: Vec<Pair>,
    /// The variables it holds (its keys).
    pub keys: Vec<String>,
}

/// A volume of one file the container reads from a Secret or ConfigMap key.
#[derive(Serialize, JsonSchema)]
pub struct Volume<'a> {
    /// The volume's name (a DNS label).
    pub name: String,
    /// secret or configmap.
    pub kind: &'static str,
    /// The Secret's or ConfigMap's name.
    pub source: &'a str,
    /// The key mounted.
    pub key: &'a str,
    /// The file name inside the volume, mounted as subPath.
    pub path: &'a str,
    /// Where the container reads the file.
    pub mount_path: &'a str,
}

/// A Secret or ConfigMap kustomize generates from copies of host files.
#[derive(Serialize, JsonSchema)]
pub struct Generated {
    /// secret or configmap (the generator's word).
    pub kind: &'static str,
    /// Secret or ConfigMap (the object's kind, as in to_create).
    pub kind_name: &'static str,
    /// The object's name.
    pub name: String,
    /// One per file: the key, and the copy relative to the output folder.
    pub files: Vec<Pair>,
}

/// A Secret or ConfigMap the operator creates.
#[derive(Serialize, JsonSchema)]
pub struct ToCreate {
    /// Secret or ConfigMap.
    pub kind: &'static str,
    /// The object's name.
    pub name: String,
    /// One per key.
    pub keys: Vec<CreateKey>,
}

/// A key of an object the operator creates.
#[derive(Serialize, JsonSchema)]
pub struct CreateKey {
    /// The key.
    pub name: String,
    /// What the key holds.
    pub value: String,
    /// The host file the profile names for it (relative to the output folder when known), for
    /// `kubectl create ... --from-file=KEY=PATH`.
    pub path: Option<String>,
}

/// The pod's settings.
#[derive(Serialize, JsonSchema)]
pub struct WorkloadView<'a> {
    /// The container's port.
    pub port: i64,
    /// The Service's port.
    pub service_port: i64,
    /// Probe period, in seconds.
    pub period: i64,
    /// Probe timeout, in seconds.
    pub timeout: i64,
    /// Readiness and liveness failures before acting.
    pub failure_threshold: i64,
    /// Startup probe failures allowed.
    pub startup_failure_threshold: i64,
    /// CPU request (a Kubernetes quantity).
    pub requests_cpu: &'a str,
    /// Memory request.
    pub requests_memory: &'a str,
    /// CPU limit.
    pub limits_cpu: &'a str,
    /// Memory limit.
    pub limits_memory: &'a str,
    /// The user the container runs as.
    pub run_as_user: i64,
    /// The root filesystem is read-only (svcgen refuses true: the image writes to it).
    pub read_only_root_filesystem: bool,
    /// The startup probe's budget and what it is made of.
    pub startup: crate::resolve::deploy::StartupBudget,
}

/// Plans the objects of outputs written into `folder`, once per render: every target reads its
/// names from here. With `options.copy_host_files` the base generates objects from copies of the
/// host files; those are read through `reader` whatever the options say of copying (see
/// [`host_files`]), so that `validate` finds an unreadable one exactly as `render --out-dir`.
pub fn plan_for<'a>(
    resolved: &'a Resolved,
    env: &[EnvVar],
    folder: Option<&Path>,
    options: EnvOptions,
    reader: Option<HostReader<'_>>,
) -> Plan<'a> {
    let deploy = &resolved.deploy;
    let labels = labels(resolved);
    let configmap_data: Vec<Pair> = env
        .iter()
        .filter(|v| !v.secret)
        .filter_map(|v| v.value.clone().map(|value| pair(&v.name, value)))
        .collect();
    let (generators, mut to_create) = file_objects(&deploy.files, folder, options);
    let env_secret = env_secret(resolved, env);
    if let Some(secret) = env_secret.as_ref().filter(|s| !s.generated) {
        // A file may come from the same Secret (deploy.secret_name): one object, created by one
        // command with every key (the variables' first), not a second `kubectl create` that
        // fails with AlreadyExists.
        let same = (to_create.iter())
            .position(|o| o.kind == K8sKind::Secret.name() && o.name == secret.name);
        let mut object = match same {
            Some(index) => to_create.remove(index),
            None => ToCreate {
                kind: K8sKind::Secret.name(),
                name: secret.name.clone(),
                keys: Vec::new(),
            },
        };
        let variables = secret.keys.iter().map(|k| CreateKey {
            name: k.clone(),
            value: format!("the value of {k}"),
            path: None,
        });
        object.keys.splice(0..0, variables);
        to_create.insert(0, object);
    }
    let w = &deploy.workload;
    Plan {
        edition: resolved.edition.as_str(),
        name: &deploy.name,
        namespace: deploy.namespace.as_deref(),
        image: &deploy.image,
        replicas: deploy.replicas,
        selector: labels[..names::SELECTOR_LABELS].to_vec(),
        labels,
        configmap_name: names::configmap_name(&deploy.name, pairs(&configmap_data)),
        configmap_data,
        env_secret,
        volumes: volumes(&deploy.files),
        generators,
        to_create,
        copies: options.copy_host_files,
        paths_from_output: folder.is_some(),
        workload: WorkloadView {
            port: w.port,
            service_port: w.service_port,
            period: w.probe.period,
            timeout: w.probe.timeout,
            failure_threshold: w.probe.failure_threshold,
            startup_failure_threshold: w.startup_failure_threshold,
            requests_cpu: &w.requests.cpu,
            requests_memory: &w.requests.memory,
            limits_cpu: &w.limits.cpu,
            limits_memory: &w.limits.memory,
            run_as_user: w.run_as_user,
            read_only_root_filesystem: w.read_only_root_filesystem,
            startup: w.startup.clone(),
        },
        host_files: host_files(&deploy.files, options, reader),
        access: access(resolved),
        credential_files: credential_files(resolved),
        plugins: deploy.files.iter().any(|f| f.env.is_none()),
    }
}

/// Every file the image opens at start ([`credentials::needed`]: its credential files and
/// edition A's SSA file) and where it comes from.
fn credential_files(resolved: &Resolved) -> Vec<CredentialFile> {
    let files = &resolved.deploy.files;
    credentials::needed(resolved)
        .into_iter()
        .map(|needed| {
            let file = files.iter().find(|f| f.key == needed.key);
            let source = file.map(|f| match (&f.k8s, &f.host) {
                (Some(k8s), _) => format!("{} `{}`, key `{}`", k8s.kind.name(), k8s.name, k8s.key),
                (None, Some(host)) => format!(
                    "host file `{host}`, which only compose mounts: **no source for Kubernetes** \
                     (`secret` or `configmap` in `[deploy.files]`)"
                ),
                (None, None) => "declared without an origin".to_string(),
            });
            CredentialFile {
                key: needed.key,
                env: needed.env,
                path: needed.path,
                source,
            }
        })
        .collect()
}

/// The service account, and a Role per namespace of the adapters' objects: the verbs Kubernetes
/// can restrict by name on the named object, the others on the resource.
fn access(resolved: &Resolved) -> Access {
    let deploy = &resolved.deploy;
    let facts = &crate::model::Model::get().container;
    let by_name = facts.api_verbs_by_name.clone();
    let unnamed: Vec<String> = (facts.api_verbs.iter())
        .filter(|v| !by_name.contains(v))
        .cloned()
        .collect();
    let mut roles: Vec<Role> = Vec::new();
    for object in &deploy.api_objects {
        // A Role per namespace: a handful at most (the config and the secret adapter's).
        let at = match roles.iter().position(|r| r.namespace == object.namespace) {
            Some(at) => at,
            None => {
                roles.push(Role {
                    name: names::adapter_role_name(&deploy.name),
                    namespace: object.namespace.clone(),
                    rules: Vec::new(),
                });
                roles.len() - 1
            }
        };
        let role = &mut roles[at];
        let why = format!(
            "`{}`, profile key `{}`",
            object.name_var.var.env, object.name_var.var.key
        );
        let mut resource_names = vec![object.name.clone()];
        resource_names.extend(object.image_name.clone());
        role.rules.push(Rule {
            resource: object.resource.clone(),
            verbs: by_name.clone(),
            resource_names,
            why: why.clone(),
        });
        role.rules.push(Rule {
            resource: object.resource.clone(),
            verbs: unnamed.clone(),
            resource_names: Vec::new(),
            why,
        });
    }
    let mount_token = !roles.is_empty();
    let rendered = renders_rbac(deploy);
    let service_account = deploy
        .service_account
        .clone()
        .or_else(|| rendered.then(|| names::service_account_name(&deploy.name)));
    let subject_namespace = subject_namespace(deploy).map(str::to_string);
    let mut resources: Vec<String> = Vec::new();
    for object in &deploy.api_objects {
        if !resources.contains(&object.resource) {
            resources.push(object.resource.clone());
        }
    }
    Access {
        image_names: deploy.api_objects.iter().any(|o| o.image_name.is_some()),
        resources,
        service_account,
        rendered,
        mount_token,
        roles,
        subject_namespace,
        verbs_by_name: by_name,
        verbs_unnamed: unnamed,
    }
}

/// svcgen renders the ServiceAccount, Roles and RoleBindings: a `kubernetes` adapter calls the
/// API and `deploy.service_account` names no existing account.
pub fn renders_rbac(deploy: &Deploy) -> bool {
    !deploy.api_objects.is_empty() && deploy.service_account.is_none()
}

/// The namespace of the service account in the RoleBindings: `deploy.namespace`, else (a guess:
/// the pods land in kubectl's context namespace) the namespace of the first adapter's objects.
pub fn subject_namespace(deploy: &Deploy) -> Option<&str> {
    (deploy.namespace.as_deref())
        .or_else(|| deploy.api_objects.first().map(|o| o.namespace.as_str()))
}

fn pair(name: &str, value: String) -> Pair {
    Pair {
        name: name.to_string(),
        value,
    }
}

fn pairs(items: &[Pair]) -> impl Iterator<Item = (&str, &str)> {
    items.iter().map(|p| (p.name.as_str(), p.value.as_str()))
}

/// The labels of every object ([`names::labels`]), as template pairs.
fn labels(resolved: &Resolved) -> Vec<Pair> {
    let deploy = &resolved.deploy;
    names::labels(&deploy.name, &deploy.image)
        .into_iter()
        .map(|(name, value)| pair(name, value))
        .collect()
}

/// The Secret of the secret variables: generated with their values under `--include-secrets`
/// (named after its content, like the ConfigMap), else the operator's `deploy.secret_name`.
fn env_secret(resolved: &Resolved, env: &[EnvVar]) -> Option<EnvSecret> {
    let secrets: Vec<&EnvVar> = env.iter().filter(|v| v.secret).collect();
    if secrets.is_empty() {
        return None;
    }
    let keys: Vec<String> = secrets.iter().map(|v| v.name.clone()).collect();
    let data: Vec<Pair> = secrets
        .iter()
        .filter_map(|v| v.value.clone().map(|value| pair(&v.name, value)))
        .collect();
    let base = &resolved.deploy.secret_name;
    if data.len() == secrets.len() {
        Some(EnvSecret {
            name: names::generated_secret_name(base, pairs(&data)),
            generated: true,
            data,
            keys,
        })
    } else {
        Some(EnvSecret {
            name: base.clone(),
            generated: false,
            data: Vec::new(),
            keys,
        })
    }
}

/// The volume of each file source that has a Kubernetes origin.
fn volumes(files: &[FileSource]) -> Vec<Volume<'_>> {
    files
        .iter()
        .enumerate()
        .filter_map(|(index, file)| {
            let k8s = file.k8s.as_ref()?;
            Some(Volume {
                name: names::volume_name(index, file),
                kind: k8s.kind.key(),
                source: &k8s.name,
                key: &k8s.key,
                path: names::file_name(&file.container_path),
                mount_path: &file.container_path,
            })
        })
        .collect()
}

/// Groups the file sources by object: generated from the copies of their host files (see
/// [`base_file`]; only with `options.copy_host_files`), else to be created by the operator (from the host file, when one is named).
fn file_objects(
    files: &[FileSource],
    folder: Option<&Path>,
    options: EnvOptions,
) -> (Vec<Generated>, Vec<ToCreate>) {
    let mut generated: Vec<Generated> = Vec::new();
    let mut to_create: Vec<ToCreate> = Vec::new();
    // Where each object is in its list, and the keys of objects to create listed so far: one
    // look-up per file, however many files and objects.
    let mut generated_at: HashMap<(&str, &str), usize> = HashMap::new();
    let mut to_create_at: HashMap<(&str, &str), usize> = HashMap::new();
    let mut keys_listed: HashSet<(&str, &str, &str)> = HashSet::new();
    for file in files {
        let Some(k8s) = &file.k8s else { continue };
        let id = (k8s.kind.key(), k8s.name.as_str());
        if let Some(copy) = base_file(file, options).filter(|_| options.copy_host_files) {
            let object = find_or_add(&mut generated, &mut generated_at, id, || Generated {
                kind: k8s.kind.key(),
                kind_name: k8s.kind.name(),
                name: k8s.name.clone(),
                files: Vec::new(),
            });
            object.files.push(pair(&k8s.key, copy.relative));
            continue;
        }
        let object = find_or_add(&mut to_create, &mut to_create_at, id, || ToCreate {
            kind: k8s.kind.name(),
            name: k8s.name.clone(),
            keys: Vec::new(),
        });
        if keys_listed.insert((id.0, id.1, k8s.key.as_str())) {
            object.keys.push(CreateKey {
                name: k8s.key.clone(),
                value: format!("the file {} reads", file.key),
                path: file
                    .host
                    .as_deref()
                    .map(|host| host_reference(host, file.host_path.as_deref(), folder)),
            });
        }
    }
    (generated, to_create)
}

/// The item of `items` known as `id` (its place in `at`), added (made by `new`) at the end when
/// there is none: the objects keep the order of their first file.
fn find_or_add<'a, 'k, T>(
    items: &'a mut Vec<T>,
    at: &mut HashMap<(&'k str, &'k str), usize>,
    id: (&'k str, &'k str),
    new: impl FnOnce() -> T,
) -> &'a mut T {
    let index = *at.entry(id).or_insert_with(|| {
        items.push(new());
        items.len() - 1
    });
    &mut items[index]
}
