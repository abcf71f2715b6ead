//! Each step's bound, enforced by svcgen: the check runs on a thread of its own and the step
//! ends at the deadline whatever the client library is doing (a PostgreSQL client was measured
//! waiting 104 s on a server that accepts and never answers). The abandoned thread ends with
//! its socket timeouts, or with the process.

use super::report::{Status, StepResult};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What a check found: `Ok` passed, `Err` failed with the reason.
pub type Outcome<T> = Result<T, String>;

/// Runs `check` within `timeout`, giving the step's result and, when it passed in time, what it
/// hands on.
pub fn bounded<T: Send + 'static>(
    (step, backend, target): (&str, &str, &str),
    timeout: Duration,
    check: impl FnOnce() -> Outcome<T> + Send + 'static,
) -> (StepResult, Option<T>) {
    let started = Instant::now();
    let (send, receive) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("preflight {step}"))
        .spawn(move || {
            // The receiver is gone after a timeout: nothing to tell.
            let _ = send.send(check());
        });
    let outcome = match spawned {
        Ok(_) => receive.recv_timeout(timeout).map_err(|_| ()),
        Err(e) => Ok(Err(format!("cannot start the check: {e}"))),
    };
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let (status, reason, carried) = match outcome {
        Ok(Ok(value)) => (Status::Ok, None, Some(value)),
        Ok(Err(reason)) => (Status::Failed, Some(reason), None),
        Err(()) => (
            Status::Timeout,
            Some(format!("no answer within {} s", timeout.as_secs_f64())),
            None,
        ),
    };
    let result = StepResult {
        step: step.to_string(),
        backend: backend.to_string(),
        target: target.to_string(),
        status,
        ms,
        reason,
    };
    (result, carried)
}
