//! Every target is one row of [`TARGETS`]: its name on the command line, its help line, the
//! file `--out-dir` writes, whether `--out-dir` and `validate` take it by default, whether a
//! cluster reads it, its own checks, and what renders it (a template with the context given to
//! it, or the spec model alone). The CLI's `--target` values, help, completions and man page,
//! `Target::ALL`, the file names, the check stage and the renderer's dispatch all read this
//! table (ripgrep's `FLAGS` is the model): a new target is a row here, plus its own file.

use super::{EnvVar, Input, Target, TemplateError, Templates, checks, compose, dotenv, k8s};
use super::{k8s_env, k8s_plan};
use crate::diag::Diagnostics;
use crate::model::Edition;
use crate::resolve::Resolved;
use crate::resolve::deploy::Mounts;
use minijinja::Value;

/// How a target's template is given its context.
type ContextFn = fn(&Input) -> Value;

/// The checks of what one target cannot carry (`checks::target` runs them).
type CheckFn = fn(&Resolved, &[EnvVar]) -> Diagnostics;

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
    pub target: Target,
    /// Its `--target` value.
    pub name: &'static str,
    /// Its help line (`svcgen render --help`, completions, the man page).
    pub help: &'static str,
    /// The file name `--out-dir` writes it to.
    pub file_name: &'static str,
    /// `--out-dir` writes it and `validate` checks it when no `-t` is given.
    pub deployable: bool,
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

/// Every target, in the order of `--help` and of `--out-dir`.
pub const TARGETS: [TargetDef; 8] = [
    TargetDef {
        target: Target::Dotenv,
        name: "dotenv",
        help: "`.env` file (compose v2 env_file, python-dotenv, docker run --env-file)",
        file_name: ".env",
        deployable: true,
        renders_workload: false,
        runs_container: None,
        in_cluster: false,
        checks: Some(checks::dotenv),
        renders: Renders::Template(dotenv::TEMPLATE, dotenv::context),
    },
    TargetDef {
        target: Target::Compose,
        name: "compose",
        help: "docker-compose.yml with the service, its environment and read-only file mounts",
        file_name: "docker-compose.yml",
        deployable: true,
        renders_workload: false,
        runs_container: Some(Mounts::HostFile),
        in_cluster: false,
        checks: None,
        renders: Renders::Template(compose::TEMPLATE, compose::context),
    },
    TargetDef {
        target: Target::K8sEnv,
        name: "k8s-env",
        help: "the `env:` list of a Kubernetes container spec",
        file_name: "k8s-env.yaml",
        deployable: true,
        renders_workload: false,
        runs_container: Some(Mounts::ObjectKey),
        in_cluster: true,
        checks: None,
        renders: Renders::Template(k8s_env::TEMPLATE, k8s_env::context),
    },
    TargetDef {
        target: Target::K8s,
        name: "k8s",
        help: "Kubernetes ConfigMap (named after its content), Deployment and Service (secrets \
               only as references unless --include-secrets)",
        file_name: k8s_plan::MANIFESTS,
        deployable: true,
        renders_workload: true,
        runs_container: Some(Mounts::ObjectKey),
        in_cluster: true,
        checks: Some(checks::k8s),
        renders: Renders::Template(k8s::MANIFESTS_TEMPLATE, k8s::context),
    },
    TargetDef {
        target: Target::Kustomization,
        name: "kustomization",
        help: "kustomization.yaml of the kustomize base --out-dir writes (generators of host \
               files)",
        file_name: "kustomization.yaml",
        deployable: true,
        renders_workload: true,
        runs_container: Some(Mounts::ObjectKey),
        in_cluster: true,
        checks: None,
        renders: Renders::Template(k8s::KUSTOMIZATION_TEMPLATE, k8s::context),
    },
    TargetDef {
        target: Target::DeployNotes,
        name: "deploy-notes",
        help: "DEPLOY.md: how to apply the kustomize base, and the objects to create by hand",
        file_name: "DEPLOY.md",
        deployable: true,
        renders_workload: true,
        runs_container: Some(Mounts::ObjectKey),
        in_cluster: true,
        checks: Some(checks::deploy_notes),
        renders: Renders::Template(k8s::NOTES_TEMPLATE, k8s::context),
    },
    TargetDef {
        target: Target::Schema,
        name: "schema",
        help: "the JSON Schema of profiles, for editors (same as `svcgen schema`)",
        file_name: "profile.schema.json",
        deployable: false,
        renders_workload: false,
        runs_container: None,
        in_cluster: false,
        checks: None,
        renders: Renders::Model(|_, _| Ok(crate::artifacts::schema::profile_schema_text())),
    },
    TargetDef {
        target: Target::Docs,
        name: "docs",
        help: "Markdown reference of the profile's edition (same as `svcgen docs --edition`)",
        file_name: "reference.md",
        deployable: false,
        renders_workload: false,
        runs_container: None,
        in_cluster: false,
        checks: None,
        renders: Renders::Model(|edition, templates| {
            crate::artifacts::docs::reference(Some(edition), templates)
        }),
    },
];

/// The row of `target`.
pub fn row(target: Target) -> &'static TargetDef {
    TARGETS
        .iter()
        .find(|row| row.target == target)
        .expect("every target has its row (checked by a test)")
}

/// The deployable targets, in the table's order.
pub const fn deployable<const N: usize>() -> [Target; N] {
    let mut out = [Target::Dotenv; N];
    let (mut i, mut n) = (0, 0);
    while i < TARGETS.len() {
        if TARGETS[i].deployable {
            out[n] = TARGETS[i].target;
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

impl clap::ValueEnum for Target {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [Target; TARGETS.len()] = {
            let mut out = [Target::Dotenv; TARGETS.len()];
            let mut i = 0;
            while i < TARGETS.len() {
                out[i] = TARGETS[i].target;
                i += 1;
            }
            out
        };
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let row = row(*self);
        Some(clap::builder::PossibleValue::new(row.name).help(row.help))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_table_has_one_row_per_target_with_distinct_names_and_files() {
        use clap::ValueEnum;
        for target in Target::value_variants() {
            assert_eq!(
                TARGETS.iter().filter(|r| r.target == *target).count(),
                1,
                "{target:?}"
            );
        }
        let names: std::collections::BTreeSet<_> = TARGETS.iter().map(|r| r.name).collect();
        let files: std::collections::BTreeSet<_> = TARGETS.iter().map(|r| r.file_name).collect();
        assert_eq!((names.len(), files.len()), (TARGETS.len(), TARGETS.len()));
        assert_eq!(Target::from_str("k8s-env", false).unwrap(), Target::K8sEnv);
    }
}
