//! The start as a timeline: each wait the real image runs, in its order (the model's `[start]`),
//! with its worst-case start and end in seconds and the image's script and function it comes
//! from. The startup probe's budget, `explain --start`, DEPLOY.md and the workload lint of
//! foreign manifests all read this one computation, so they cannot disagree.
//!
//! Pure: numbers in, numbers out (no clock), so it builds for the browser.

use crate::diag::source::Origin;
use crate::model::{Edition, Lasts, Model};
use crate::resolve::{ResolvedVar, Typed};

/// The start of one profile's image, wait by wait.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Timeline {
    /// Each wait, in the image's order.
    pub steps: Vec<Step>,
    /// The largest end of a bounded wait: the worst case of a start no other pod's lock holds up.
    pub worst_case_s: i64,
}

/// One wait of the start.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Step {
    /// Its name (the model's `[[start.step]] step`).
    pub step: String,
    /// The persistence backend it waits for; none for the other waits.
    pub backend: Option<String>,
    /// When it starts at the latest, in seconds from the container's start.
    pub from_s: i64,
    /// When it ends at the latest; none for a wait with no bound of its own (another pod's
    /// lock). The waits after it are timed as if no other pod held the lock.
    pub to_s: Option<i64>,
    /// The image's script and function it comes from.
    pub source: String,
}

/// What the waits last, as the image reads its environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimes {
    /// `wait.max_time` in seconds (below 1 the image uses 1).
    pub max_time: i64,
    /// `wait.sleep_duration` in seconds (below 1 the image uses 1).
    pub sleep: i64,
    /// `deploy.probes.build_allowance`: what an edition that builds at start allows for it.
    pub build: i64,
}

impl WaitTimes {
    /// The resolved wait values of a profile (the model's defaults where not resolved).
    pub fn of(model: &Model, vars: &[ResolvedVar], build: i64) -> WaitTimes {
        let checks = &model.container.startup_checks;
        WaitTimes {
            max_time: wait_seconds(model, vars, &checks.max_time).0,
            sleep: wait_seconds(model, vars, &checks.sleep).0,
            build,
        }
    }
}

/// The longest one pycloudlib wait lasts: backoff 2.2.1 with a constant sleep gives up at the
/// first failed try that starts at or after `max_time`, its last sleep clamped to what is left,
/// so `max_time` plus the last try, which one sleep covers.
pub fn one_wait(max_time: i64, sleep: i64) -> i64 {
    max_time.max(1).saturating_add(sleep.max(1))
}

/// The timeline of an edition's start with these backends (distinct, any order) and times.
pub fn timeline(
    model: &Model,
    edition: Edition,
    backends: &[String],
    times: WaitTimes,
) -> Timeline {
    let mut sorted: Vec<String> = backends.to_vec();
    sorted.sort();
    sorted.dedup();
    let lock = model.start.lock_check;
    let mut steps = Vec::new();
    let mut at: i64 = 0;
    let mut push = |step: &str, backend: Option<String>, lasts: Option<i64>, source: &str| {
        let to = lasts.map(|s| at.saturating_add(s));
        steps.push(Step {
            step: step.to_string(),
            backend,
            from_s: at,
            to_s: to,
            source: source.to_string(),
        });
        at = to.unwrap_or(at);
    };
    for wait in model.start.of(edition) {
        let wait_for = one_wait(times.max_time, times.sleep);
        match wait.lasts {
            Lasts::Wait => push(&wait.step, None, Some(wait_for), &wait.source),
            Lasts::Backends => {
                for backend in &sorted {
                    let source = wait.source.replace("<backend>", backend);
                    push(&wait.step, Some(backend.clone()), Some(wait_for), &source);
                }
            }
            Lasts::LockCheck => push(
                &wait.step,
                None,
                Some(one_wait(lock.max_time, lock.sleep)),
                &wait.source,
            ),
            Lasts::LockWait => push(&wait.step, None, None, &wait.source),
            Lasts::Build => push(&wait.step, None, Some(times.build.max(0)), &wait.source),
        }
    }
    let worst_case_s = steps.iter().filter_map(|s| s.to_s).max().unwrap_or(0);
    Timeline {
        steps,
        worst_case_s,
    }
}

/// The timeline of a resolved profile (or environment).
pub fn of_vars(model: &Model, edition: Edition, vars: &[ResolvedVar], build: i64) -> Timeline {
    let backends = backends_in_use(model, vars);
    timeline(model, edition, &backends, WaitTimes::of(model, vars, build))
}

/// The distinct persistence backends the image waits for: the selector's value, or each distinct
/// value of the mapping when the selector is mixed (`hybrid`), in mapping order.
pub fn backends_in_use(model: &Model, vars: &[ResolvedVar]) -> Vec<String> {
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
pub fn wait_seconds(model: &Model, vars: &[ResolvedVar], key: &str) -> (i64, Option<Origin>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn times(max_time: i64, sleep: i64) -> WaitTimes {
        WaitTimes {
            max_time,
            sleep,
            build: 900,
        }
    }

    fn names(t: &Timeline) -> Vec<(&str, Option<&str>)> {
        (t.steps.iter())
            .map(|s| (s.step.as_str(), s.backend.as_deref()))
            .collect()
    }

    /// Edition B waits for config, secret, each backend sorted by name (as the image's
    /// persistence mapper groups them, not in mapping order), then takes both locks.
    #[test]
    fn edition_b_waits_in_the_images_order_with_backends_sorted() {
        let model = Model::get();
        let backends = ["sql".to_string(), "couchbase".to_string()];
        let t = timeline(model, Edition::B, &backends, times(300, 10));
        assert_eq!(
            names(&t),
            [
                ("config", None),
                ("secret", None),
                ("persistence", Some("couchbase")),
                ("persistence", Some("sql")),
                ("setup-lock-check", None),
                ("setup-lock", None),
                ("upgrade-lock-check", None),
                ("upgrade-lock", None),
            ]
        );
        let lock = one_wait(
            model.start.lock_check.max_time,
            model.start.lock_check.sleep,
        );
        assert_eq!(t.worst_case_s, 4 * 310 + 2 * lock);
        assert_eq!(t.steps[4].from_s, 4 * 310);
        assert_eq!(t.steps[5].to_s, None, "another pod's lock has no bound");
        assert_eq!(t.steps[6].from_s, 4 * 310 + lock);
        assert!(
            t.steps[3].source.contains("wait_for_sql"),
            "{:?}",
            t.steps[3]
        );
    }

    /// Edition A takes the same two locks (the old formula counted none) and builds last.
    #[test]
    fn edition_a_takes_both_locks_and_builds_last() {
        let model = Model::get();
        let t = timeline(model, Edition::A, &["ldap".to_string()], times(5, 2));
        let lock = one_wait(
            model.start.lock_check.max_time,
            model.start.lock_check.sleep,
        );
        assert_eq!(
            names(&t)
                .iter()
                .filter(|(s, _)| s.ends_with("lock-check"))
                .count(),
            2
        );
        let build = t.steps.last().unwrap();
        assert_eq!(build.step, "build");
        assert_eq!(build.from_s, 3 * 7 + 2 * lock);
        assert_eq!(t.worst_case_s, 3 * 7 + 2 * lock + 900);
        assert!(model.start.builds(Edition::A) && !model.start.builds(Edition::B));
    }

    /// Values the image reads as below 1 count as 1, and nothing overflows.
    #[test]
    fn times_are_at_least_one_second_and_saturate() {
        let model = Model::get();
        let t = timeline(model, Edition::B, &[], times(0, -5));
        assert_eq!(t.steps[0].to_s, Some(2));
        let t = timeline(
            model,
            Edition::B,
            &["sql".into()],
            times(i64::MAX, i64::MAX),
        );
        assert_eq!(t.worst_case_s, i64::MAX);
    }
}
