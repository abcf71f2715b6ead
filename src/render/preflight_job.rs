//! The `preflight-job` target: a Kubernetes Job that runs `svcgen preflight --from-env` in
//! svcgen's own image with the Deployment's environment, files and service account (the one
//! plan's), as an Argo CD PreSync hook.

use super::{Input, to_value};
use crate::deployment::k8s_plan::Plan;
use crate::deployment::preflight_job::{PreflightJob, job};
use minijinja::Value;
use schemars::JsonSchema;
use serde::Serialize;

pub const TEMPLATE: &str = "preflight-job.yaml.j2";

/// The context of `preflight-job.yaml.j2`.
#[derive(Serialize, JsonSchema)]
pub struct Context {
    /// The Kubernetes objects of the profile, as k8s.yaml has them: the Job's pod takes the
    /// Deployment's envFrom, env, volumes and volume mounts from here.
    #[schemars(with = "Plan<'static>")]
    pub plan: Value,
    /// The Job's own name, image, arguments and deadline (none when
    /// `deploy.preflight.repository` is unset: the target is then refused before rendering).
    pub job: Option<PreflightJob>,
}

pub fn context(input: &Input) -> Value {
    to_value(&Context {
        plan: input.plan_value(),
        job: job(input.resolved),
    })
}

/// Whether `--out-dir` writes the Job: only when the profile names svcgen's image.
pub fn wanted(resolved: &crate::resolve::Resolved) -> bool {
    resolved.deploy.preflight_repository.is_some()
}
