//! The `[deploy]` table: how the container is deployed (names, image, replicas) and where each
//! file it reads comes from. Not container variables, but checked like them, from the model.
//! This module reads the settings; `sources` reads `deploy.files` and `deploy.plugins`.

pub mod checks;
pub mod credentials;
#[cfg(feature = "host")]
mod host_checks;
pub mod image;
pub mod names;
mod settings;
mod source;
mod sources;
mod workload;

pub use settings::INT32_MAX;
pub use workload::{Probe, Resources, StartupBudget, Workload, default_build_allowance, periods};

use settings::SettingReader;
use sources::{file_sources, plugin_sources};

use super::{Extra, ResolvedVar};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, FileKind, Model};
use crate::profile::{Entry, Table, Value};
use crate::support::suggest::did_you_mean;

/// The setting of the image's repository: its default's last part names the Admin UI's image
/// in a stream of several workloads (`import::edition::is_admin_ui_image`).
pub const IMAGE_REPOSITORY_KEY: &str = "deploy.image.repository";

/// The deployment of one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Deploy {
    pub name: String,
    pub namespace: Option<String>,
    pub replicas: i64,
    /// `repository:tag`.
    pub image: String,
    /// The Kubernetes Secret holding secret variables.
    pub secret_name: String,
    /// Every declared file source, variables in model order, then plugins in list order.
    pub files: Vec<FileSource>,
    /// Port, Service, probes, resources and security context of the pod.
    pub workload: Workload,
    /// `deploy.service_account`: an existing account the pods use (svcgen then renders no RBAC).
    pub service_account: Option<String>,
    /// `deploy.preflight.repository`: where svcgen's own image is, for the preflight Job.
    pub preflight_repository: Option<String>,
    /// The objects the image reads and writes through the Kubernetes API (its `kubernetes`
    /// adapters), in the model's order.
    pub api_objects: Vec<ApiUse>,
    /// How the profile is deployed (`deploy.compose`, `deploy.kubernetes`): the ways its files
    /// are mounted that need a source for each file the image opens at start.
    pub deployed_by: Vec<Mounts>,
    /// Where the profile writes `[deploy]` (`None`: it does not; the defaults are used).
    pub declared_at: Option<crate::diag::source::Origin>,
    /// The workload checked against the real image (`image`): what it cannot run with (errors)
    /// and what is less than it runs with (warnings). Reported by the targets that render the
    /// workload only (`render::targets`, `renders_workload`), not by resolve.
    pub image_findings: Vec<Diagnostic>,
}

impl Deploy {
    /// Whether the profile is deployed the way a target starts the container (`how`, its row's
    /// `runs_container`; `None`: it starts nothing, and is always rendered). The one rule for a
    /// target of a deployment the profile opts out of (`deploy.compose = false`,
    /// `deploy.kubernetes = false`): `validate` and `render --out-dir` leave it out, and it is
    /// refused when asked for by name.
    pub fn deploys(&self, how: Option<Mounts>) -> bool {
        how.is_none_or(|how| self.deployed_by.contains(&how))
    }
}

/// An object a `kubernetes` adapter reads and writes: its resource, name and namespace as the
/// profile resolves them, and where they were set.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiUse {
    pub resource: String,
    pub name: String,
    pub namespace: String,
    /// The name the image reads instead (from a variable outside the spec: its `[env]` value,
    /// else the image's default), when it differs from `name`.
    pub image_name: Option<String>,
    /// Where `[env]` sets the image's name (`None`: the image's default).
    pub image_name_origin: Option<crate::diag::source::Origin>,
    /// The variables of the name and namespace (for diagnostics at them).
    pub name_var: ResolvedVar,
    pub namespace_var: ResolvedVar,
}

/// Where one file the container reads comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSource {
    /// The variable naming the file, or `None` for a plugin archive.
    pub env: Option<String>,
    /// The profile key (`secret.vault.role_id_file`) or `plugins.<name>`.
    pub key: String,
    pub kind: FileKind,
    /// Where the container reads it.
    pub container_path: String,
    /// Compose and kustomize: the host path, as written.
    pub host: Option<String>,
    /// The host path as an absolute path (relative ones joined to the folder of the profile file
    /// that wrote them), so that outputs can refer to it from wherever they are written.
    pub host_path: Option<std::path::PathBuf>,
    /// Where the host path is written: a problem of the file found later (it cannot be copied)
    /// replaces resolve's warning about the same path, one cause giving one diagnostic.
    pub host_origin: Option<crate::diag::source::Origin>,
    /// Kubernetes: the Secret or ConfigMap key mounted read-only.
    pub k8s: Option<K8sRef>,
    /// Where the source is declared (its key in `[deploy.files]` or `[deploy.plugins]`).
    pub origin: crate::diag::source::Origin,
}

/// How a target gives the container its files: compose binds the host file of a `host` source;
/// Kubernetes mounts the key of a `secret` or `configmap` source. A source of one kind does not
/// reach a target of the other (the renderers of each read only their own field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mounts {
    /// A bind of the host file (`host`): compose.
    HostFile,
    /// A volume of a Secret's or ConfigMap's key (`secret` / `configmap`): Kubernetes.
    ObjectKey,
}

impl Mounts {
    /// The deployment that mounts this way, for messages.
    pub fn deployment(self) -> &'static str {
        match self {
            Mounts::HostFile => "compose",
            Mounts::ObjectKey => "Kubernetes",
        }
    }

    /// The setting saying whether the profile is deployed this way.
    pub const fn setting(self) -> &'static str {
        match self {
            Mounts::HostFile => "deploy.compose",
            Mounts::ObjectKey => "deploy.kubernetes",
        }
    }

    /// The fields of a source it mounts, for messages.
    pub fn fields(self) -> &'static str {
        match self {
            Mounts::HostFile => "`host`",
            Mounts::ObjectKey => "`secret` or `configmap`",
        }
    }

    /// The source fields that reach it, as a profile writes them (for help).
    pub fn source_fields(self) -> &'static str {
        match self {
            Mounts::HostFile => "host = \"PATH\"",
            Mounts::ObjectKey => "secret = \"NAME\", key = \"KEY\"",
        }
    }
}

impl FileSource {
    /// Whether a target that mounts files the `mounts` way mounts this one.
    pub fn mounted_by(&self, mounts: Mounts) -> bool {
        match mounts {
            Mounts::HostFile => self.host.is_some(),
            Mounts::ObjectKey => self.k8s.is_some(),
        }
    }
}

/// A key of a Secret or ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct K8sRef {
    pub kind: K8sKind,
    pub name: String,
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K8sKind {
    Secret,
    ConfigMap,
}

const FILES: &str = "files";
const PLUGINS: &str = "plugins";

/// Reads `[deploy]` (or its defaults), given the resolved variables.
pub fn deploy(
    model: &'static Model,
    edition: Edition,
    table: Option<&Entry>,
    vars: &[ResolvedVar],
    extras: &[Extra],
    options: crate::resolve::Options<'_>,
    diags: &mut Diagnostics,
) -> Deploy {
    let sources = options.sources;
    let empty = Table::default();
    let table_entry = table;
    let table = match table.map(|e| (&e.node.value, e)) {
        None => &empty,
        Some((Value::Table(t), _)) => t,
        Some((other, entry)) => {
            diags.push(
                Diagnostic::wrong_type("deploy", "a table", other.type_name())
                    .at(entry.node.origin),
            );
            &empty
        }
    };
    check_keys(model, table, diags);
    let reader = SettingReader { model, table };
    let text = |key: &str, diags: &mut Diagnostics| reader.text(key, diags);
    let name = text(names::DEPLOYMENT_NAME_KEY, diags).unwrap_or_default();
    let namespace = text(NAMESPACE_KEY, diags);
    let repository = text(IMAGE_REPOSITORY_KEY, diags).unwrap_or_default();
    let tag =
        text("deploy.image.tag", diags).unwrap_or_else(|| model.edition(edition).image_tag.clone());
    let secret_name =
        text("deploy.secret_name", diags).unwrap_or_else(|| names::default_secret_name(&name));
    let replicas = reader.int("deploy.replicas", diags);
    let mut files = Vec::new();
    if let Some(entry) = table.get(FILES) {
        let known = (vars, extras);
        file_sources(model, edition, entry, known, sources, &mut files, diags);
    }
    plugin_sources(
        model,
        edition,
        table.get(PLUGINS),
        vars,
        options,
        &mut files,
        diags,
    );
    let workload = workload::workload(model, edition, &reader, vars, diags);
    let service_account = text("deploy.service_account", diags);
    let preflight_repository = text(PREFLIGHT_REPOSITORY_KEY, diags);
    let deployed_by = deployed_by(&reader, diags);
    let mut deploy = Deploy {
        name,
        namespace,
        replicas,
        image: format!("{repository}:{tag}"),
        secret_name,
        files,
        workload,
        service_account,
        preflight_repository,
        api_objects: api_objects(model, vars, extras),
        deployed_by,
        declared_at: table_entry.map(|e| e.key_origin),
        image_findings: Vec::new(),
    };
    checks::check(&deploy, vars, &reader, diags);
    #[cfg(feature = "host")]
    host_checks::check(model, edition, &deploy, diags);
    let mut findings = Diagnostics::default();
    image::check(&deploy, &reader, &mut findings);
    deploy.image_findings = findings.items;
    deploy
}

/// The deployments the profile is for (`deploy.compose`, `deploy.kubernetes`, both by default);
/// neither is refused: every check of what a deployment lacks would be off.
fn deployed_by(reader: &SettingReader<'_>, diags: &mut Diagnostics) -> Vec<Mounts> {
    let keys = [(COMPOSE, Mounts::HostFile), (KUBERNETES, Mounts::ObjectKey)];
    let out: Vec<Mounts> = (keys.iter())
        .filter(|(key, _)| reader.bool(key, diags))
        .map(|(_, how)| *how)
        .collect();
    if out.is_empty() {
        diags.push(
            Diagnostic::new(
                Code::Conflict,
                format!("`{COMPOSE}` and `{KUBERNETES}` are both false: the profile is deployed by nothing"),
            )
            .at_opt(reader.origin(COMPOSE).or(reader.origin(KUBERNETES)))
            .label("no deployment")
            .help("keep the one the profile is deployed with (remove its `= false`)"),
        );
    }
    out
}

/// The repository of svcgen's own image, which the preflight Job runs (no default: svcgen
/// names no registry).
pub const PREFLIGHT_REPOSITORY_KEY: &str = "deploy.preflight.repository";

/// The namespace setting: read here, and named by render checks that say it is unset.
pub const NAMESPACE_KEY: &str = "deploy.namespace";

const COMPOSE: &str = Mounts::HostFile.setting();
const KUBERNETES: &str = Mounts::ObjectKey.setting();

/// The model's API objects whose adapter is `kubernetes` (their name or namespace variable
/// applies). An emptied name or namespace is refused when resolved; the spec's default stands in
/// for it here, so that the other value is still checked as a Kubernetes name.
fn api_objects(model: &'static Model, vars: &[ResolvedVar], extras: &[Extra]) -> Vec<ApiUse> {
    let find = |key: &str| vars.iter().find(|rv| rv.var.key == key);
    let or_default = |key: &str| {
        find(key).cloned().or_else(|| {
            let var = model.vars.iter().find(|v| v.key == key)?;
            let text = var.default.value()?;
            Some(ResolvedVar {
                var,
                value: crate::value_type::Typed::Text(text.to_string()),
                origin: None,
            })
        })
    };
    model
        .container
        .api_objects
        .iter()
        .filter_map(|object| {
            find(&object.name).or_else(|| find(&object.namespace))?;
            let name_var = &or_default(&object.name)?;
            let namespace_var = &or_default(&object.namespace)?;
            let name = name_var.value.env_text()?;
            // A name filled in at deploy time is not known here: the Kubernetes targets refuse
            // the value itself, and compose and .env need no Role.
            let extra = (object.image_name.as_ref())
                .and_then(|image| extras.iter().find(|e| e.name == image.env));
            if extra.is_some_and(|e| e.deploy_env.is_some()) {
                return Some(ApiUse {
                    resource: object.resource.clone(),
                    image_name: None,
                    image_name_origin: None,
                    namespace: namespace_var.value.env_text()?,
                    name,
                    name_var: name_var.clone(),
                    namespace_var: namespace_var.clone(),
                });
            }
            let image_name = object
                .image_name
                .as_ref()
                .map(|image| extra.map_or_else(|| image.default.clone(), |e| e.value.clone()));
            Some(ApiUse {
                resource: object.resource.clone(),
                image_name: image_name.filter(|n| *n != name),
                image_name_origin: extra.map(|e| e.origin),
                name,
                namespace: namespace_var.value.env_text()?,
                name_var: name_var.clone(),
                namespace_var: namespace_var.clone(),
            })
        })
        .collect()
}

/// Unknown keys anywhere in `[deploy]` outside `files` and `plugins`.
fn check_keys(model: &Model, table: &Table, diags: &mut Diagnostics) {
    check_level(model, table, "deploy", diags);
}

fn check_level(model: &Model, table: &Table, prefix: &str, diags: &mut Diagnostics) {
    let below = format!("{prefix}.");
    let mut valid: Vec<&str> = Vec::new();
    for setting in &model.settings {
        if let Some(rest) = setting.key.strip_prefix(&below) {
            let next = rest.split('.').next().unwrap_or(rest);
            if !valid.contains(&next) {
                valid.push(next);
            }
        }
    }
    if prefix == "deploy" {
        valid.extend([FILES, PLUGINS]);
    }
    for entry in &table.entries {
        let path = format!("{prefix}.{}", entry.key);
        if !valid.contains(&entry.key.as_str()) {
            diags.push(
                Diagnostic::new(Code::UnknownKey, format!("unknown key `{path}`"))
                    .at(entry.key_origin)
                    .label("unknown key")
                    .suggest(did_you_mean(&entry.key, valid.iter().copied()))
                    .help(format!("keys valid in [{prefix}]: {}", valid.join(", "))),
            );
            continue;
        }
        let is_table_level = (model.settings.iter())
            .any(|s| (s.key.strip_prefix(path.as_str())).is_some_and(|rest| rest.starts_with('.')));
        if is_table_level {
            match &entry.node.value {
                Value::Table(inner) => check_level(model, inner, &path, diags),
                other => diags.push(
                    Diagnostic::wrong_type(&path, "a table", other.type_name())
                        .at(entry.node.origin),
                ),
            }
        }
    }
}
