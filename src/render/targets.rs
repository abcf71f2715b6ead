//! Every target is one row of [`TARGETS`]: its name on the command line, its help line, the
//! file `--out-dir` writes, whether `--out-dir` and `validate` take it by default, whether a
//! cluster reads it, its own checks, and what renders it (a template with the context given to
//! it, or the spec model alone). The CLI's `--target` values, help, completions and man page,
//! `Target::ALL`, the file names, the deployment's checks (each row's [`Carrier`]) and the
//! renderer's dispatch all read this table (the one table pattern, `support::table`): a new
//! target is a row here, plus its template and its context file.

use super::{Input, TemplateError, Templates, compose, dotenv, k8s, k8s_env, preflight_job};
use crate::deployment::{Carrier, CheckFn, checks, k8s_plan};
use crate::model::Edition;
use crate::resolve::deploy::Mounts;
use minijinja::Value;

/// How a target's template is given its context.
pub(super) type ContextFn = fn(&Input) -> Value;

/// What renders a target.
#[derive(Clone, Copy)]
pub(super) enum Renders {
    /// A template, and the context it is given.
    Template(&'static str, ContextFn),
    /// The spec model of the profile's edition alone (the schema, the reference).
    Model(fn(Edition, &Templates) -> Result<String, TemplateError>),
}

/// One target's row.
pub struct TargetDef {
    /// Its `--target` value.
    pub name: &'static str,
    /// Its help line (`svcgen render --help`, completions, the man page).
    pub help: &'static str,
    /// The file name `--out-dir` writes it to.
    pub file_name: &'static str,
    /// `--out-dir` writes it and `validate` checks it when no `-t` is given.
    pub deployable: bool,
    /// A target the profile opts into: `--out-dir` without `-t` also writes it when this says
    /// the profile asks for it (the preflight Job, once svcgen's image is named).
    pub opted_in: Option<fn(&crate::resolve::Resolved) -> bool>,
    /// A Kubernetes cluster reads it: it has no deploy-time step to fill a value in.
    pub in_cluster: bool,
    /// It starts the container (compose, Kubernetes, the kustomize base and its notes), and how
    /// the container is given its files there (compose binds `host` sources; Kubernetes mounts
    /// `secret` and `configmap` ones): what a deployment needs beyond the variables is checked
    /// for it (`checks::deployed`), defaults the profile never wrote included. A `.env`, the
    /// docs and the schema start nothing (`None`).
    pub runs_container: Option<Mounts>,
    /// It renders the pod's workload (port, user, root file system, resources, the startup
    /// probe) or states it (the kustomize base and its notes): the workload's findings against
    /// the real image (`resolve::deploy::image`) are reported for it. `.env`, compose and the
    /// `env:` list carry none of these settings.
    pub renders_workload: bool,
    /// What it cannot carry, beyond what every target checks.
    pub(super) checks: Option<CheckFn>,
    /// What renders it.
    pub(super) renders: Renders,
}

crate::support::table::table! {
    /// An output format; its name, help, file and template are its row in [`TARGETS`], in
    /// the order of `--help` and of `--out-dir`.
    pub enum Target in TARGETS: [TargetDef] {
        Dotenv => TargetDef {
            name: "dotenv",
            help: "`.env` file (compose v2 env_file, python-dotenv, docker run --env-file)",
            file_name: ".env",
            deployable: true,
            opted_in: None,
            renders_workload: false,
            runs_container: None,
            in_cluster: false,
            checks: Some(checks::dotenv),
            renders: Renders::Template(dotenv::TEMPLATE, dotenv::context),
        },
        Compose => TargetDef {
            name: "compose",
            help: "docker-compose.yml with the service, its environment and read-only file mounts",
            file_name: "docker-compose.yml",
            deployable: true,
            opted_in: None,
            renders_workload: false,
            runs_container: Some(Mounts::HostFile),
            in_cluster: false,
            checks: None,
            renders: Renders::Template(compose::TEMPLATE, compose::context),
        },
        K8sEnv => TargetDef {
            name: "k8s-env",
            help: "the `env:` list of a Kubernetes container spec",
            file_name: "k8s-env.yaml",
            deployable: true,
            opted_in: None,
            renders_workload: false,
            runs_container: Some(Mounts::ObjectKey),
            in_cluster: true,
            checks: None,
            renders: Renders::Template(k8s_env::TEMPLATE, k8s_env::context),
        },
        K8s => TargetDef {
            name: "k8s",
            help: "Kubernetes ConfigMap (named after its content), Deployment and Service (secrets \
                   only as references unless --include-secrets)",
            file_name: k8s_plan::MANIFESTS,
            deployable: true,
            opted_in: None,
            renders_workload: true,
            runs_container: Some(Mounts::ObjectKey),
            in_cluster: true,
            checks: Some(checks::k8s),
            renders: Renders::Template(k8s::MANIFESTS_TEMPLATE, k8s::context),
        },
        Kustomization => TargetDef {
            name: "kustomization",
            help: "kustomization.yaml of the kustomize base --out-dir writes (generators of host \
                   files)",
            file_name: "kustomization.yaml",
            deployable: true,
            opted_in: None,
            renders_workload: true,
            runs_container: Some(Mounts::ObjectKey),
            in_cluster: true,
            checks: None,
            renders: Renders::Template(k8s::KUSTOMIZATION_TEMPLATE, k8s::context),
        },
        DeployNotes => TargetDef {
            name: "deploy-notes",
            help: "DEPLOY.md: how to apply the kustomize base, and the objects to create by hand",
            file_name: "DEPLOY.md",
            deployable: true,
            opted_in: None,
            renders_workload: true,
            runs_container: Some(Mounts::ObjectKey),
            in_cluster: true,
            checks: Some(checks::deploy_notes),
            renders: Renders::Template(k8s::NOTES_TEMPLATE, k8s::context),
        },
        PreflightJob => TargetDef {
            name: "preflight-job",
            help: "a Kubernetes Job (an Argo CD PreSync hook) running `svcgen preflight --from-env` \
                   in svcgen's image with the Deployment's environment and files",
            file_name: "preflight-job.yaml",
            deployable: false,
            opted_in: Some(preflight_job::wanted),
            renders_workload: false,
            runs_container: Some(Mounts::ObjectKey),
            in_cluster: true,
            checks: Some(crate::deployment::preflight_job::check),
            renders: Renders::Template(preflight_job::TEMPLATE, preflight_job::context),
        },
        Schema => TargetDef {
            name: "schema",
            help: "the JSON Schema of profiles, for editors (same as `svcgen schema`)",
            file_name: "profile.schema.json",
            deployable: false,
            opted_in: None,
            renders_workload: false,
            runs_container: None,
            in_cluster: false,
            checks: None,
            renders: Renders::Model(|_, _| Ok(crate::artifacts::schema::profile_schema_text())),
        },
        Docs => TargetDef {
            name: "docs",
            help: "Markdown reference of the profile's edition (same as `svcgen docs --edition`)",
            file_name: "reference.md",
            deployable: false,
            opted_in: None,
            renders_workload: false,
            runs_container: None,
            in_cluster: false,
            checks: None,
            renders: Renders::Model(|edition, templates| {
                crate::artifacts::docs::reference(Some(edition), templates)
            }),
        },
    }
}

crate::support::table::value_enum!(Target, name, help);

impl TargetDef {
    /// What the deployment stage needs of this target.
    pub fn carrier(&self) -> Carrier {
        Carrier {
            name: self.name,
            in_cluster: self.in_cluster,
            runs_container: self.runs_container,
            renders_workload: self.renders_workload,
            checks: self.checks,
        }
    }
}

/// What the deployment stage needs of each of `targets`, in order.
pub fn carriers(targets: &[Target]) -> Vec<Carrier> {
    targets.iter().map(|t| row(*t).carrier()).collect()
}

/// The row of `target`.
pub fn row(target: Target) -> &'static TargetDef {
    target.row()
}

/// The targets `resolved` opts into (`opted_in`), in the table's order.
pub fn opted_in(resolved: &crate::resolve::Resolved) -> Vec<Target> {
    (Target::VARIANTS.iter().copied())
        .filter(|t| row(*t).opted_in.is_some_and(|wanted| wanted(resolved)))
        .collect()
}

/// The deployable targets, in the table's order.
pub const fn deployable<const N: usize>() -> [Target; N] {
    let mut out = [Target::Dotenv; N];
    let (mut i, mut n) = (0, 0);
    while i < TARGETS.len() {
        if TARGETS[i].deployable {
            out[n] = Target::VARIANTS[i];
            n += 1;
        }
        i += 1;
    }
    assert!(
        n == N,
        "Target::ALL's length is the number of deployable rows"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_table_has_distinct_names_and_files_that_parse_back() {
        use clap::ValueEnum;
        for target in Target::value_variants() {
            assert_eq!(Target::from_str(target.name(), false).unwrap(), *target);
        }
        let names: std::collections::BTreeSet<_> = TARGETS.iter().map(|r| r.name).collect();
        let files: std::collections::BTreeSet<_> = TARGETS.iter().map(|r| r.file_name).collect();
        assert_eq!((names.len(), files.len()), (TARGETS.len(), TARGETS.len()));
        assert_eq!(Target::from_str("k8s-env", false).unwrap(), Target::K8sEnv);
    }
}
