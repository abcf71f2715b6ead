//! What a preflight found: one result per step, in order, as `--format json` prints it.

use serde::Serialize;

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The image's check passed.
    Ok,
    /// The service answered, and not as the image needs (or could not be dialled).
    Failed,
    /// No answer within `--timeout`.
    Timeout,
    /// Not run: it needs the result of an earlier step that did not pass.
    NotReached,
    /// Not run: svcgen cannot make this check (the reason says why); never counted as passed.
    NotChecked,
}

impl Status {
    /// The word JSON and the human table show.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Failed => "failed",
            Status::Timeout => "timeout",
            Status::NotReached => "not-reached",
            Status::NotChecked => "not-checked",
        }
    }
}

/// One step's result.
#[derive(Debug, Clone, Serialize)]
pub struct StepResult {
    /// `config`, `secret`, `persistence`, `ssa`, `token-server`.
    pub step: String,
    /// The adapter or backend: `consul`, `vault`, `sql`, `ldap`, `file`, `oidc`, ...
    pub backend: String,
    /// What was dialled or read (an address or a path; never a credential).
    pub target: String,
    pub status: Status,
    /// How long the step took, in milliseconds.
    pub ms: u64,
    /// Why it did not pass, in the server's words where it gave any; `null` when it passed.
    pub reason: Option<String>,
}

impl StepResult {
    /// A step that was not run because `why`.
    pub fn not_run(step: &str, backend: &str, target: String, status: Status, why: String) -> Self {
        StepResult {
            step: step.to_string(),
            backend: backend.to_string(),
            target,
            status,
            ms: 0,
            reason: Some(why),
        }
    }
}

/// Every step, then the after-start checks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Every start step passed: the pod's waits would all end.
    pub would_start: bool,
    pub steps: Vec<StepResult>,
    /// Checks of what the started container uses; they never change `would_start`.
    pub after_start: Vec<StepResult>,
}

/// Where a result belongs: the start steps, or the after-start checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Start,
    AfterStart,
}

impl Report {
    /// Adds one step's result where `stage` puts it, its secret values (those seen so far)
    /// masked, and hands it to `watch` first.
    pub fn record(
        &mut self,
        stage: Stage,
        mut result: StepResult,
        secrets: &[String],
        watch: &mut dyn FnMut(Stage, &StepResult),
    ) {
        mask(&mut result, secrets);
        watch(stage, &result);
        match stage {
            Stage::Start => self.steps.push(result),
            Stage::AfterStart => self.after_start.push(result),
        }
    }

    /// Sets `would_start` from the steps, and masks every secret value that a server's words
    /// or an address could carry (a server may echo what it was sent).
    pub fn redact(&mut self, secrets: &[String]) {
        self.would_start = self.steps.iter().all(|s| s.status == Status::Ok);
        for step in self.steps.iter_mut().chain(self.after_start.iter_mut()) {
            mask(step, secrets);
        }
    }
}

/// Masks every secret value in a result's target and reason.
fn mask(step: &mut StepResult, secrets: &[String]) {
    // The longest first: a secret that begins another must not leave the other's tail.
    let mut secrets: Vec<&String> = secrets.iter().filter(|s| !s.is_empty()).collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mask = |text: &mut String| {
        for secret in &secrets {
            if text.contains(secret.as_str()) {
                *text = text.replace(secret.as_str(), "***");
            }
        }
    };
    mask(&mut step.target);
    if let Some(reason) = step.reason.as_mut() {
        mask(reason);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_that_begins_another_leaves_no_tail_of_it() {
        let mut report = Report {
            steps: vec![StepResult::not_run(
                "secret",
                "vault",
                "http://vault".to_string(),
                Status::Failed,
                "server said: abcdef".to_string(),
            )],
            ..Report::default()
        };
        report.redact(&["abc".to_string(), "abcdef".to_string()]);
        assert_eq!(report.steps[0].reason.as_deref(), Some("server said: ***"));
    }
}
