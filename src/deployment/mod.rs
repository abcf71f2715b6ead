//! The deployment of one profile, decided once, right after resolve: the environment with its
//! secret decisions ([`environment`]), the Kubernetes plan with every derived name and object
//! ([`k8s_plan`]), the host files with their read status ([`host_files`]), what the operator
//! must create, and every check of what the targets asked for cannot carry or lack
//! ([`checks`]). Every target, `validate`, `krm`, the language server and the playground only
//! read a [`Deployment`]: `render` formats it and decides nothing.
//!
//! What a target is to this stage is the deployment part of its row ([`Carrier`]), passed in
//! as a value by `render`'s target table, so this stage does not know the templates.

mod api_access;
pub mod checks;
pub mod env;
pub mod host_files;
pub mod k8s_plan;
pub mod paths;
pub mod preflight_job;

pub use env::{DeployEnv, EnvOptions, EnvVar, environment};
pub use host_files::{HostRead, HostReader};

use crate::diag::Diagnostics;
use crate::resolve::Resolved;
use crate::resolve::deploy::Mounts;
use std::path::Path;

/// The checks of what one target cannot carry, beyond what every target checks.
pub type CheckFn = fn(&Resolved, &[EnvVar]) -> Diagnostics;

/// What the deployment stage needs of a target: the deployment facts of its row in `render`'s
/// target table.
#[derive(Clone, Copy)]
pub struct Carrier {
    /// Its `--target` value (messages name the target by it).
    pub name: &'static str,
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
    pub checks: Option<CheckFn>,
}

/// The deployment of one profile for the targets asked, decided once.
pub struct Deployment<'a> {
    pub resolved: &'a Resolved,
    /// The environment, built once: every target carries the same variables and values.
    pub env: Vec<EnvVar>,
    /// Where the outputs are written (`None`: stdout; host paths as the profile wrote them).
    pub folder: Option<&'a Path>,
    /// The Kubernetes plan: every derived name and object, the host files read.
    pub plan: k8s_plan::Plan<'a>,
    /// Every diagnostic of the deployment, in order: the host files that cannot be read, each
    /// target's checks (a problem several targets share once), then what the deployment lacks;
    /// the profile's `allow` list applied.
    pub diagnostics: Diagnostics,
    /// One per target asked, in order: whether its checks passed, so that it may be formatted.
    pub verdicts: Vec<Verdict>,
}

/// What the checks of one target asked for decided.
#[derive(Clone, Copy, Debug)]
pub struct Verdict {
    /// No error: the target may be formatted.
    pub renders: bool,
    /// Where its diagnostics end in [`Deployment::diagnostics`] (a diagnostic of formatting it
    /// goes there).
    pub diagnostics_end: usize,
}

/// Decides the deployment of `resolved` for `targets`, written into `folder` (host paths are
/// relative to it; `None`: the profile's own folder), its host files read through `reader`
/// (`None` where there is no file system, the browser playground, and in `krm`: host files are
/// then not read, and not reported). `Err`: a secret asked for cannot be read, so there is no
/// environment to deploy.
pub fn decide<'a>(
    resolved: &'a Resolved,
    options: EnvOptions,
    targets: &[Carrier],
    folder: Option<&'a Path>,
    reader: Option<HostReader<'_>>,
) -> Result<Deployment<'a>, Diagnostics> {
    let env = environment(resolved, options)?;
    let mut out = Deployment::planned(resolved, env, folder, options, reader);
    out.diagnostics = host_files::unreadable(&out.plan.host_files);
    (out.diagnostics).extend(host_files::missing(
        &resolved.deploy.files,
        &out.plan.host_files,
    ));
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    for carrier in targets {
        let mut found = checks::target(carrier, resolved, &out.env);
        let renders = !found.has_errors();
        crate::resolve::allow::acknowledge(&mut found, &resolved.allow);
        // The same problem of several targets (a value no Kubernetes target carries) once.
        out.diagnostics.extend_new(found.items);
        let diagnostics_end = out.diagnostics.items.len();
        out.verdicts.push(Verdict {
            renders,
            diagnostics_end,
        });
    }
    let mut lacks = checks::deployed(resolved, targets);
    crate::resolve::allow::acknowledge(&mut lacks, &resolved.allow);
    out.diagnostics.extend_new(lacks.items);
    Ok(out)
}

impl<'a> Deployment<'a> {
    /// The plan of `env` (not checked: no diagnostics, no verdicts); [`decide`] checks it.
    pub fn planned(
        resolved: &'a Resolved,
        env: Vec<EnvVar>,
        folder: Option<&'a Path>,
        options: EnvOptions,
        reader: Option<HostReader<'_>>,
    ) -> Deployment<'a> {
        let plan = k8s_plan::plan_for(resolved, &env, folder, options, reader);
        Deployment {
            resolved,
            env,
            folder,
            plan,
            diagnostics: Diagnostics::default(),
            verdicts: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target as the `dotenv` row hands it over, and one a cluster reads (as `k8s-env`).
    fn carriers() -> [Carrier; 2] {
        let dotenv = Carrier {
            name: "dotenv",
            in_cluster: false,
            runs_container: None,
            renders_workload: false,
            checks: Some(checks::dotenv),
        };
        let in_cluster = Carrier {
            name: "k8s-env",
            in_cluster: true,
            runs_container: Some(Mounts::ObjectKey),
            renders_workload: false,
            checks: None,
        };
        [dotenv, in_cluster]
    }

    #[test]
    fn decide_gives_each_target_its_verdict_and_its_diagnostics_in_order() {
        let text = "edition = \"B\"\n[env]\nGREETING = { deploy_env = \"GREETING\" }\n";
        let mut sources = crate::diag::source::Sources::new();
        let checked = crate::pipeline::check_text("p.toml", text, None, &mut sources);
        let resolved = checked.resolved.expect("a valid profile");
        let options = EnvOptions::default();
        let deployment = decide(&resolved, options, &carriers(), None, None).unwrap();
        let [dotenv, in_cluster] = deployment.verdicts[..] else {
            panic!("one verdict per target: {:?}", deployment.verdicts);
        };
        // `.env` carries a deploy-time value; a target a cluster reads refuses it (E0214).
        assert!(dotenv.renders && !in_cluster.renders);
        let refused =
            &deployment.diagnostics.items[dotenv.diagnostics_end..in_cluster.diagnostics_end];
        assert!(
            refused
                .iter()
                .any(|d| d.code == crate::diag::Code::Unwritable && d.message.contains("GREETING")),
            "{refused:?}"
        );
        // Decided once: the plan and the environment are the ones every target reads.
        assert!(deployment.env.iter().any(|v| v.name == "GREETING"));
    }
}
