//! How the real image starts, wait by wait (the model's `[start]`, facts about the image, not
//! the spec): the one list the start's timeline, the startup probe's budget, DEPLOY.md and the
//! workload lint of foreign manifests are computed from.

use super::Edition;
use serde::Deserialize;

/// The image's start: the lock's connection check and each wait, in order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartFacts {
    /// The lock's connection check: a backoff wait with its own numbers.
    pub lock_check: LockCheck,
    /// Every wait of either edition, in the image's order.
    pub step: Vec<StartWait>,
}

/// The seconds of the lock's connection check (pycloudlib `LockManager.check_connection`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockCheck {
    pub max_time: i64,
    pub sleep: i64,
}

/// One wait of the image's start.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartWait {
    /// Its name in `explain --start` and DEPLOY.md.
    pub step: String,
    /// The editions whose image runs it.
    pub editions: Vec<Edition>,
    pub lasts: Lasts,
    /// The image's script and function it comes from.
    pub source: String,
}

/// How long one wait may last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lasts {
    /// One pycloudlib wait: `wait.max_time` + `wait.sleep_duration`.
    Wait,
    /// One such wait per distinct persistence backend, sorted by name.
    Backends,
    /// The lock's connection check: `lock_check.max_time` + `lock_check.sleep`.
    LockCheck,
    /// A wait while another pod holds the lock: no bound of its own.
    LockWait,
    /// The app's build: `deploy.probes.build_allowance`.
    Build,
}

impl StartFacts {
    /// The waits of one edition's image, in order.
    pub fn of(&self, edition: Edition) -> impl Iterator<Item = &StartWait> {
        self.step
            .iter()
            .filter(move |s| s.editions.contains(&edition))
    }

    /// Whether the edition's image builds its app at start (so the build allowance applies).
    pub fn builds(&self, edition: Edition) -> bool {
        self.of(edition).any(|s| s.lasts == Lasts::Build)
    }

    /// The model's own checks: each edition waits for something, numbers are positive.
    pub(super) fn check(&self) -> Result<(), String> {
        if self.lock_check.max_time < 1 || self.lock_check.sleep < 1 {
            return Err("start.lock_check: max_time and sleep are at least 1".to_string());
        }
        for edition in Edition::ALL {
            if self.of(edition).next().is_none() {
                return Err(format!("start: edition {edition} runs no step"));
            }
        }
        Ok(())
    }
}
