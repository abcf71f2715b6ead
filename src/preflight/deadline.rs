//! Each step's bound, enforced by svcgen: the check runs on a thread of its own and the step
//! ends at the deadline whatever the client library is doing (a PostgreSQL client was measured
//! waiting 104 s on a server that accepts and never answers). The abandoned thread ends with
//! its socket timeouts, or with the process.
//!
//! A step's own preparation (reading the files it needs, parsing a kubeconfig of tens of
//! megabytes, a file on a stalled network mount) is bounded too: [`whole_step`] runs the whole
//! step on a thread of its own and ends it at the timeout plus [`GRACE`], the second the issue
//! allows each step to end in.

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

/// What a step may take beyond `--timeout` as a whole, its preparation included.
pub const GRACE: Duration = Duration::from_secs(1);

/// Runs a whole step, `step_fn` (its file reads and parsing included, then its own
/// [`bounded`] dial), within `timeout` + [`GRACE`]: the step's result with the time it took
/// as a whole, and what it hands on; when it is not done by then, a `timeout` result of
/// `step` and `backend`, and nothing handed on.
pub fn whole_step<T: Send + 'static>(
    (step, backend): (&str, &str),
    timeout: Duration,
    doing: &Doing,
    step_fn: impl FnOnce() -> (StepResult, T) + Send + 'static,
) -> (StepResult, Option<T>) {
    let whole = timeout + GRACE;
    let (mut outer, done) = bounded((step, backend, ""), whole, move || Ok(step_fn()));
    match done {
        Some((mut result, carried)) => {
            result.ms = outer.ms;
            (result, Some(carried))
        }
        None => {
            let now = doing
                .now()
                .map_or(String::new(), |what| format!("; it was {what}"));
            outer.reason = Some(format!(
                "not done within {} s (the whole step: reading and parsing its files, and every \
                 call it makes){now}",
                whole.as_secs_f64()
            ));
            (outer, None)
        }
    }
}

/// What a whole step is doing at the moment (reading which file), shared with the thread that
/// runs it: a step that is not done in time says where it stood.
#[derive(Clone, Default)]
pub struct Doing(std::sync::Arc<std::sync::Mutex<Option<String>>>);

impl Doing {
    /// Notes `what` until the guard returned is dropped.
    pub fn during(&self, what: String) -> impl Drop + use<> {
        self.set(Some(what));
        DoneWith(self.clone())
    }

    fn set(&self, what: Option<String>) {
        if let Ok(mut now) = self.0.lock() {
            *now = what;
        }
    }

    fn now(&self) -> Option<String> {
        self.0.lock().ok().and_then(|now| now.clone())
    }
}

/// Clears a [`Doing`] when what it noted is over.
struct DoneWith(Doing);

impl Drop for DoneWith {
    fn drop(&mut self) {
        self.0.set(None);
    }
}
