//! The preflight Job (`render -t preflight-job`): `svcgen preflight --from-env` run in the
//! cluster, in svcgen's own image, with the Deployment's environment and files (the plan's, in
//! the template), where the services have their cluster-internal names. Its image, its
//! arguments and its deadline are decided here; how many steps a preflight runs is
//! [`start_steps`], the count the preflight's run follows.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model};
use crate::resolve::Resolved;
use crate::resolve::deploy::PREFLIGHT_REPOSITORY_KEY;
use schemars::JsonSchema;
use serde::Serialize;

/// The preflight's default bound of each step, in seconds (`--timeout`).
pub const DEFAULT_TIMEOUT_S: u64 = 10;

/// The checks a preflight runs after the start steps (the token server's discovery).
pub const AFTER_START_CHECKS: usize = 1;

/// The start steps a preflight runs for `edition` with these persistence backends: config,
/// secret, one per distinct backend, and the SSA file in the editions whose image reads it.
pub fn start_steps(model: &Model, edition: Edition, backends: &[String]) -> usize {
    let mut distinct = backends.to_vec();
    distinct.sort();
    distinct.dedup();
    let ssa = usize::from(model.image.ssa_file.editions.contains(&edition));
    2 + distinct.len() + ssa
}

/// The longest a whole preflight takes: every step and after-start check bounded by the
/// timeout, plus the second svcgen allows each to end in.
pub fn run_bound_s(steps: usize, timeout_s: u64) -> u64 {
    let checks = u64::try_from(steps + AFTER_START_CHECKS).unwrap_or(u64::MAX);
    checks.saturating_mul(timeout_s.saturating_add(1))
}

/// The seconds the Job's deadline allows beyond the preflight's own run: Kubernetes counts
/// `activeDeadlineSeconds` from the Job's start, so scheduling the pod, pulling svcgen's image
/// (a registry far away, a node with a cold cache) and starting the container are inside it.
/// Two minutes covers a slow pull of an image of a few megabytes; a deadline of exactly the
/// run's bound would kill a preflight that passes whenever the pod took a second to start.
pub const POD_START_MARGIN_S: u64 = 120;

/// The Job's `activeDeadlineSeconds`: the preflight's whole run ([`run_bound_s`]) plus
/// [`POD_START_MARGIN_S`] for the pod to be scheduled, pulled and started.
pub fn job_deadline_s(steps: usize, timeout_s: u64) -> u64 {
    run_bound_s(steps, timeout_s).saturating_add(POD_START_MARGIN_S)
}

/// What the Job's template is given beyond the plan.
#[derive(Serialize, JsonSchema)]
pub struct PreflightJob {
    /// The Job's name: `<deploy.name>-preflight`.
    pub name: String,
    /// svcgen's image: `deploy.preflight.repository` with the version of the svcgen that
    /// rendered it (the tag `scripts/image.sh` gives).
    pub image: String,
    /// The container's arguments (the image's entry point is svcgen).
    pub args: Vec<String>,
    /// The Job's `activeDeadlineSeconds`: the preflight's whole run plus the margin for the pod
    /// to start (`run_bound_s` + `start_margin_s`).
    pub active_deadline_seconds: u64,
    /// The longest the preflight itself runs: (start steps + after-start checks) x (timeout + 1) s.
    pub run_bound_s: u64,
    /// The seconds the deadline allows for scheduling the pod and pulling svcgen's image.
    pub start_margin_s: u64,
}

/// The Job of `resolved`; `None` without `deploy.preflight.repository` (refused by [`check`]).
pub fn job(resolved: &Resolved) -> Option<PreflightJob> {
    let repository = resolved.deploy.preflight_repository.as_ref()?;
    let model = Model::get();
    let backends = crate::resolve::timeline::backends_in_use(model, &resolved.vars);
    let steps = start_steps(model, resolved.edition, &backends);
    let args = [
        "preflight",
        "--from-env",
        "--edition",
        resolved.edition.as_str(),
        "--timeout",
        &DEFAULT_TIMEOUT_S.to_string(),
    ];
    Some(PreflightJob {
        name: format!("{}-preflight", resolved.deploy.name),
        image: format!("{repository}:{}", env!("CARGO_PKG_VERSION")),
        args: args.iter().map(|a| a.to_string()).collect(),
        active_deadline_seconds: job_deadline_s(steps, DEFAULT_TIMEOUT_S),
        run_bound_s: run_bound_s(steps, DEFAULT_TIMEOUT_S),
        start_margin_s: POD_START_MARGIN_S,
    })
}

/// The checks of the `preflight-job` target: svcgen's image must be named (svcgen names no
/// registry for it), and the Job's name must fit a label value, as Kubernetes labels its pods
/// with it.
pub fn check(resolved: &Resolved, _: &[super::EnvVar]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let deploy = &resolved.deploy;
    if deploy.preflight_repository.is_none() {
        diags.push(
            Diagnostic::new(
                Code::Unwritable,
                format!(
                    "target `preflight-job` runs svcgen's own image, and `{PREFLIGHT_REPOSITORY_KEY}` \
                     is not set: svcgen names no registry for it"
                ),
            )
            .at_opt(deploy.declared_at)
            .help(format!(
                "build the image with scripts/image.sh (svcgen:{}), push it where the cluster pulls \
                 from, and set `preflight.repository` in [deploy] to that repository \
                 (e.g. \"registry.example.org/tools/svcgen\")",
                env!("CARGO_PKG_VERSION")
            )),
        );
    }
    let name = format!("{}-preflight", deploy.name);
    if name.len() > LABEL_VALUE_MAX {
        diags.push(
            Diagnostic::new(
                Code::Unwritable,
                format!(
                    "the preflight Job's name `{name}` is longer than {LABEL_VALUE_MAX} characters: \
                     Kubernetes labels the Job's pods with it, and a label value is at most \
                     {LABEL_VALUE_MAX}"
                ),
            )
            .at_opt(deploy.declared_at)
            .help(format!(
                "a `deploy.name` of at most {} characters",
                LABEL_VALUE_MAX - "-preflight".len()
            )),
        );
    }
    diags
}

/// The longest label value Kubernetes accepts.
const LABEL_VALUE_MAX: usize = 63;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preflight_has_config_secret_each_distinct_backend_and_edition_a_s_ssa() {
        let model = Model::get();
        let backends = ["sql", "couchbase", "sql"].map(String::from);
        assert_eq!(start_steps(model, Edition::B, &backends), 4);
        assert_eq!(start_steps(model, Edition::A, &backends[..1]), 4);
        assert_eq!(run_bound_s(4, 10), 55);
    }

    #[test]
    fn the_job_s_deadline_leaves_the_pod_time_to_start_beyond_the_run() {
        // Four steps and one after-start check of (10 + 1) s each is the run's 55 s; the pod is
        // given two minutes more to be scheduled, pulled and started.
        assert_eq!(run_bound_s(4, 10), 55);
        assert_eq!(job_deadline_s(4, 10), 175);
    }
}
