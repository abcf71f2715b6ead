//! The Kubernetes workload of `[deploy]`: port, Service, probes, resources and security context.
//! Every value is a model setting; the startup probe's budget is derived from the resolved startup
//! checks (`[container] startup_checks` of the model), so it always covers them.

use super::settings::SettingReader;
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model};
use crate::resolve::{ResolvedVar, Typed};

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

/// What the startup probe covers, in seconds: the image waits for its dependencies one after
/// another (config, secret, then each distinct persistence backend), each wait lasting up to
/// `max_time + sleep`; in an edition that takes a lock after its waits, the lock's connection
/// check; then the margin, and in an edition that builds its app at start, the build allowance.
/// Templates receive it as `plan.workload.startup`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct StartupBudget {
    /// Waits one after another: config, secret, then each backend.
    pub waits: i64,
    /// The distinct persistence backends waited for, in mapping order.
    pub backends: Vec<String>,
    /// wait.max_time, the budget of one wait.
    pub max_time: i64,
    /// wait.sleep_duration.
    pub sleep: i64,
    /// The lock's connection check after the waits (the edition's `lock_check`); 0 when the
    /// edition takes no lock.
    pub lock: i64,
    /// deploy.probes.startup_margin.
    pub margin: i64,
    /// deploy.probes.build_allowance; none when the edition does not build at start.
    pub build_allowance: Option<i64>,
    /// The whole budget (saturating).
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
    let (max_time, max_time_origin) = seconds(model, vars, &checks.max_time);
    let (sleep, _) = seconds(model, vars, &checks.sleep);
    const ALLOWANCE: &str = "deploy.probes.build_allowance";
    let builds = model.edition(edition).builds_at_start;
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
    let backends = backends_in_use(model, vars);
    let waits = (checks.waits).saturating_add(i64::try_from(backends.len()).unwrap_or(i64::MAX));
    let mut budget = StartupBudget {
        waits,
        backends,
        max_time,
        sleep,
        lock: model.edition(edition).lock_check,
        margin,
        build_allowance,
        seconds: 0,
    };
    budget.seconds = startup_budget(
        budget.waits,
        max_time,
        sleep,
        (budget.lock)
            .saturating_add(margin)
            .saturating_add(build_allowance.unwrap_or(0)),
    );
    let period = period.max(1);
    let threshold = budget.seconds / period + i64::from(budget.seconds % period != 0);
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
                "lower `{culprit}`, or raise deploy.probes.period (the budget is (waits) x (`{}` + \
                 `{}`) + the lock's check + `{MARGIN}` (+ the build allowance) seconds)",
                checks.max_time, checks.sleep
            )),
        );
        return (i64::from(i32::MAX), budget);
    }
    (threshold.max(1), budget)
}

/// Seconds the startup probe must allow: `waits` runs of the checks one after another, each up to
/// `max_time` plus the sleep after its last try, then `extra` (any lock, the margin and any
/// build).
pub fn startup_budget(waits: i64, max_time: i64, sleep: i64, extra: i64) -> i64 {
    waits
        .saturating_mul(max_time.saturating_add(sleep))
        .saturating_add(extra)
}

/// The distinct persistence backends the image waits for: the selector's value, or each distinct
/// value of the mapping when the selector is mixed (`hybrid`).
pub(crate) fn backends_in_use(model: &Model, vars: &[ResolvedVar]) -> Vec<String> {
    let rule = &model.backends;
    let value = |key: &str| vars.iter().find(|rv| rv.var.key == key).map(|rv| &rv.value);
    let Some(selected) = value(&rule.selector).and_then(Typed::env_text) else {
        return Vec::new();
    };
    if selected != rule.mixed {
        return vec![selected];
    }
    let mut backends: Vec<String> = Vec::new();
    if let Some(Typed::Mapping(pairs)) = value(&rule.mapping) {
        for (_, backend) in pairs {
            if !backends.contains(backend) {
                backends.push(backend.clone());
            }
        }
    }
    backends
}

/// A startup-check variable's resolved value in seconds (below 1 the container uses 1), with where
/// it was set; the model's default when the variable is not resolved.
fn seconds(model: &Model, vars: &[ResolvedVar], key: &str) -> (i64, Option<Origin>) {
    if let Some(rv) = vars.iter().find(|rv| rv.var.key == key)
        && let Typed::Int(n) = rv.value
    {
        return (n.max(1), rv.origin);
    }
    let default = model
        .vars
        .iter()
        .find(|v| v.key == key)
        .and_then(|v| v.default.value())
        .and_then(|d| d.parse::<i64>().ok())
        .unwrap_or(1);
    (default.max(1), None)
}
