//! The Kubernetes workload of `[deploy]`: port, Service, probes, resources and security context.
//! Every value is a model setting; the startup probe's budget is derived from the resolved startup
//! checks (`[container] startup_checks` of the model), so it always covers them.

use super::settings::SettingReader;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Model;
use crate::resolve::{ResolvedVar, Typed};
use crate::source::Origin;

/// The pod's workload settings, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    /// The container port the image serves HTTP on.
    pub port: i64,
    pub service_port: i64,
    pub probe: Probe,
    /// The startup probe: same period and timeout, this many failures allowed.
    pub startup_failure_threshold: i64,
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
    let startup_failure_threshold =
        startup_threshold(model, reader, vars, (probe.period, margin), diags);
    Workload {
        port: int("deploy.port", diags),
        service_port: int("deploy.service.port", diags),
        probe,
        startup_failure_threshold,
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

/// The startup probe's failure threshold: enough periods to cover the longest run of the startup
/// checks (`max_time`, plus the sleep after the last try) and the margin.
fn startup_threshold(
    model: &Model,
    reader: &SettingReader<'_>,
    vars: &[ResolvedVar],
    (period, margin): (i64, i64),
    diags: &mut Diagnostics,
) -> i64 {
    let checks = &model.container.startup_checks;
    let (max_time, max_time_origin) = seconds(model, vars, &checks.max_time);
    let (sleep, _) = seconds(model, vars, &checks.sleep);
    let budget = startup_budget(max_time, sleep, margin);
    let period = period.max(1);
    let threshold = budget / period + i64::from(budget % period != 0);
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
                "lower `{culprit}`, or raise deploy.probes.period (the budget is `{}` + `{}` + \
                 `{MARGIN}` seconds)",
                checks.max_time, checks.sleep
            )),
        );
        return i64::from(i32::MAX);
    }
    threshold.max(1)
}

/// Seconds the startup probe must allow: the checks' longest run plus the margin.
pub fn startup_budget(max_time: i64, sleep: i64, margin: i64) -> i64 {
    max_time.saturating_add(sleep).saturating_add(margin)
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
