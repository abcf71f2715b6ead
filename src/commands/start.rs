//! `explain --start`: the start of a checked profile as a timeline (each wait the image runs, in
//! order, with its worst-case start and end and its source), then where each runtime the profile
//! is deployed with ends a start. The numbers are the ones the startup probe and DEPLOY.md use:
//! all read `Deploy::workload.startup`, computed once by resolve.

use crate::resolve::Resolved;
use crate::resolve::deploy::Mounts;
use crate::resolve::timeline::Step;
use std::fmt::Write;

/// What `explain --start --format json` prints.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StartReport {
    pub steps: Vec<Step>,
    /// The largest `to_s`.
    pub worst_case_s: i64,
    pub ends: Vec<End>,
}

/// Where a runtime ends a start that has not finished.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct End {
    /// The runtime and what of it ends the start.
    pub by: String,
    /// Seconds from the container's start; none when nothing ends it.
    pub at_s: Option<i64>,
}

/// The report of a checked profile: its timeline and the end of each runtime it deploys with.
pub fn report(resolved: &Resolved) -> StartReport {
    let deploy = &resolved.deploy;
    let workload = &deploy.workload;
    let timeline = &workload.startup.timeline;
    let mut ends = Vec::new();
    if deploy.deploys(Some(Mounts::ObjectKey)) {
        ends.push(End {
            by: "kubernetes startup probe (failureThreshold × periodSeconds)".to_string(),
            at_s: Some((workload.startup_failure_threshold).saturating_mul(workload.probe.period)),
        });
    }
    if deploy.deploys(Some(Mounts::HostFile)) {
        ends.push(End {
            by: "compose (no probe)".to_string(),
            at_s: None,
        });
    }
    StartReport {
        steps: timeline.steps.clone(),
        worst_case_s: timeline.worst_case_s,
        ends,
    }
}

/// The report for people: one line per wait, then the ends.
pub fn human(report: &StartReport) -> String {
    let mut out = String::new();
    let width = (report.steps.iter())
        .map(|s| s.step.len() + s.backend.as_ref().map_or(0, |b| b.len() + 3))
        .max()
        .unwrap_or(0);
    for step in &report.steps {
        let name = match &step.backend {
            Some(backend) => format!("{} ({backend})", step.step),
            None => step.step.clone(),
        };
        let to = step
            .to_s
            .map_or_else(|| "no bound".to_string(), |s| format!("{s} s"));
        let _ = writeln!(
            out,
            "{name:<width$}  {:>6} s .. {to:<9}  {}",
            step.from_s, step.source
        );
    }
    let _ = writeln!(out, "worst case: {} s", report.worst_case_s);
    for end in &report.ends {
        let at = end
            .at_s
            .map_or_else(|| "never".to_string(), |s| format!("at {s} s"));
        let short = end.at_s.is_some_and(|at| at < report.worst_case_s);
        let _ = writeln!(
            out,
            "ends: {} {at}{}",
            end.by,
            if short {
                " (before the worst case)"
            } else {
                ""
            }
        );
    }
    out.push_str(
        "A wait with no bound waits while another pod holds the lock; the times after it leave it out.\n",
    );
    out
}
