//! The Kubernetes workload of `[deploy]`: port, Service, probes, resources and security context.
//! Every value is a model setting; the startup probe's budget is derived from the start's
//! timeline (`crate::resolve::timeline`, the model's `[start]`), so it always covers it.

use super::settings::SettingReader;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model};
use crate::resolve::ResolvedVar;
use crate::resolve::timeline::{self, Timeline, wait_seconds};

/// The pod's workload settings, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// The container port the image serves HTTP on.
    pub port: i64,
    pub service_port: i64,
    pub probe: Probe,
    /// The startup probe: same period and timeout, this many failures allowed.
    pub startup_failure_threshold: i64,
    /// What the startup probe's budget covers.
    pub startup: StartupBudget,
    pub requests: Resources,
    pub limits: Resources,
    pub run_as_user: i64,
    pub read_only_root_filesystem: bool,
}

/// The readiness and liveness probes (TCP on the container port).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub period: i64,
    pub timeout: i64,
    pub failure_threshold: i64,
}

/// CPU and memory quantities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resources {
    pub cpu: String,
    pub memory: String,
}

/// Reads the workload settings and derives the startup probe from the startup checks.
pub(super) fn workload(
    model: &Model,
    edition: Edition,
    reader: &SettingReader<'_>,
    vars: &[ResolvedVar],
    diags: &mut Diagnostics,
) -> Workload {
    let int = |key: &str, diags: &mut Diagnostics| reader.int(key, diags);
    let text = |key: &str, diags: &mut Diagnostics| reader.text(key, diags).unwrap_or_default();
    let probe = Probe {
        period: int("deploy.probes.period", diags),
        timeout: int("deploy.probes.timeout", diags),
        failure_threshold: int("deploy.probes.failure_threshold", diags),
    };
    let margin = int("deploy.probes.startup_margin", diags);
    let (startup_failure_threshold, startup) =
        startup_threshold(model, edition, reader, vars, (probe.period, margin), diags);
    Workload {
        port: int("deploy.port", diags),
        service_port: int("deploy.service.port", diags),
        probe,
        startup_failure_threshold,
        startup,
        requests: Resources {
            cpu: text("deploy.resources.requests.cpu", diags),
            memory: text("deploy.resources.requests.memory", diags),
        },
        limits: Resources {
            cpu: text("deploy.resources.limits.cpu", diags),
            memory: text("deploy.resources.limits.memory", diags),
        },
        run_as_user: int("deploy.security.run_as_user", diags),
        read_only_root_filesystem: reader.bool("deploy.security.read_only_root_filesystem", diags),
    }
}

/// What the startup probe covers, in seconds: the start's timeline (every wait the image runs,
/// in its order, [`crate::resolve::timeline`]) to its worst case, then the margin. Templates
/// receive it as `plan.workload.startup`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct StartupBudget {
    /// The start as a timeline: each wait, its worst-case start and end, its source.
    pub timeline: Timeline,
    /// wait.max_time, the budget of one wait.
    pub max_time: i64,
    /// wait.sleep_duration.
    pub sleep: i64,
    /// deploy.probes.startup_margin.
    pub margin: i64,
    /// deploy.probes.build_allowance; none when the edition does not build at start.
    pub build_allowance: Option<i64>,
    /// The whole budget: the timeline's worst case plus the margin (saturating).
    pub seconds: i64,
}

/// The startup probe's failure threshold: enough periods to cover the startup budget.
fn startup_threshold(
    model: &Model,
    edition: Edition,
    reader: &SettingReader<'_>,
    vars: &[ResolvedVar],
    (period, margin): (i64, i64),
    diags: &mut Diagnostics,
) -> (i64, StartupBudget) {
    let checks = &model.container.startup_checks;
    let (max_time, max_time_origin) = wait_seconds(model, vars, &checks.max_time);
    let (sleep, _) = wait_seconds(model, vars, &checks.sleep);
    const ALLOWANCE: &str = BUILD_ALLOWANCE_KEY;
    let builds = model.start.builds(edition);
    let build_allowance = builds.then(|| reader.int(ALLOWANCE, diags));
    if let Some(origin) = reader.origin(ALLOWANCE).filter(|_| !builds) {
        diags.push(
            Diagnostic::new(
                Code::NotApplied,
                format!(
                    "`{ALLOWANCE}` has no effect: the edition {} image does not build its app at start",
                    edition.as_str()
                ),
            )
            .at(origin)
            .label("not applied")
            .help("remove the setting: only edition A's startup probe allows for a build"),
        );
    }
    let timeline = timeline::of_vars(model, edition, vars, build_allowance.unwrap_or(0));
    let budget = StartupBudget {
        seconds: timeline.worst_case_s.saturating_add(margin),
        timeline,
        max_time,
        sleep,
        margin,
        build_allowance,
    };
    let threshold = periods(budget.seconds, period);
    if threshold > i64::from(i32::MAX) {
        // The larger of the two is the one to lower, at the line that set it.
        const MARGIN: &str = "deploy.probes.startup_margin";
        let (culprit, origin) = match max_time_origin {
            Some(origin) if max_time >= margin => (checks.max_time.as_str(), Some(origin)),
            _ => (MARGIN, reader.origin(MARGIN)),
        };
        diags.push(
            Diagnostic::new(
                Code::K8sLimit,
                format!(
                    "the startup probe would need {threshold} failures to cover `{}` = {max_time} s; \
                     Kubernetes takes at most {}",
                    checks.max_time,
                    i32::MAX
                ),
            )
            .at_opt(origin)
            .label("too long for a startup probe")
            .help(format!(
                "lower `{culprit}`, or raise deploy.probes.period (the budget is the start's \
                 worst case, each wait up to `{}` + `{}`, + `{MARGIN}` seconds: `svcgen explain \
                 --start` shows it)",
                checks.max_time, checks.sleep
            )),
        );
        return (i64::from(i32::MAX), budget);
    }
    (threshold.max(1), budget)
}

/// The setting of what an edition that builds at start allows for its build.
pub const BUILD_ALLOWANCE_KEY: &str = "deploy.probes.build_allowance";

/// The build allowance a deployment that does not say gets: the setting's default (a foreign
/// manifest says nothing of it).
pub fn default_build_allowance(model: &Model) -> i64 {
    super::image::model_default(model, BUILD_ALLOWANCE_KEY).unwrap_or(0)
}

/// How many probe periods cover `seconds`: the failure threshold of a probe that must not end a
/// start before then (rounded up; a period below 1 counts as 1).
pub fn periods(seconds: i64, period: i64) -> i64 {
    let period = period.max(1);
    seconds / period + i64::from(seconds % period != 0)
}
