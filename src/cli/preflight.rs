//! `svcgen preflight`: dial the profile's services as the image's start would, and say in
//! seconds what the pod finds out in minutes. Arguments and printing; the steps are
//! `crate::preflight`.

use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_IO, LayerArgs, choice};
use crate::diag::source::Sources;
use crate::preflight::{Limits, Report, Setting, Stage, Status, StepResult};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Exit 1: a step failed, timed out or was not reached (2 is a usage error or a bad profile).
const EXIT_WOULD_NOT_START: u8 = 1;

#[derive(Args, Debug)]
pub struct PreflightArgs {
    /// The profile (TOML)
    #[arg(value_name = "PROFILE", required_unless_present = "from_env")]
    pub profile: Option<PathBuf>,
    #[command(flatten)]
    pub layers: LayerArgs,
    /// Bound each step to this many seconds (a server that never answers ends it as `timeout`)
    #[arg(long, value_name = "SECONDS", default_value_t = crate::deployment::preflight_job::DEFAULT_TIMEOUT_S, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// How to print the steps
    #[arg(long, value_enum, value_parser = choice::enum_of::<PreflightFormat>(), default_value_t = PreflightFormat::Human)]
    pub format: PreflightFormat,
    /// Read the container's own environment and files, as the image does (in the cluster)
    #[arg(long, conflicts_with = "profile")]
    pub from_env: bool,
    /// The image's edition, with --from-env (by default decided by the variables)
    #[arg(long, value_parser = super::editions(), requires = "from_env")]
    pub edition: Option<String>,
}

/// `--format` of preflight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum PreflightFormat {
    /// a table for people
    #[default]
    Human,
    /// one JSON object: would_start, steps, after_start
    Json,
}

pub fn run(args: &PreflightArgs, quiet: bool) -> u8 {
    let inputs = crate::support::inputs::Inputs::default();
    let setting = match &args.profile {
        Some(profile) => match checked_setting(args, profile, quiet, &inputs) {
            Ok(setting) => setting,
            Err(code) => return code,
        },
        None => match container_setting(args, quiet, &inputs) {
            Ok(setting) => setting,
            Err(code) => return code,
        },
    };
    let limits = Limits {
        timeout: Duration::from_secs(args.timeout),
    };
    let mut stdout = std::io::stdout();
    let human = args.format == PreflightFormat::Human;
    let mut after_start_shown = false;
    // For people, each step's line as soon as the step ends (flushed): a run watched live, or
    // a Job's log cut by its deadline, shows how far it got. JSON is one object at the end.
    let mut watch = |stage: Stage, result: &StepResult| {
        if !human {
            return;
        }
        let mut line = String::new();
        if stage == Stage::AfterStart && !std::mem::replace(&mut after_start_shown, true) {
            line.push_str(AFTER_START);
        }
        line.push_str(&row(result));
        let _ = stdout.write_all(line.as_bytes());
        let _ = stdout.flush();
    };
    let report = crate::preflight::run_watched(&setting, limits, &mut watch);
    let text = match args.format {
        PreflightFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
        PreflightFormat::Human => verdict(&report),
    };
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
    if report.would_start {
        0
    } else {
        EXIT_WOULD_NOT_START
    }
}

/// The profile checked as `validate` checks it (its diagnostics printed as `validate` prints
/// them); `Err` is the exit code: nothing is dialled for an unreadable or invalid profile.
fn checked_setting(
    args: &PreflightArgs,
    profile: &std::path::Path,
    quiet: bool,
    inputs: &crate::support::inputs::Inputs,
) -> Result<Setting, u8> {
    let diagnostic_args = DiagnosticArgs {
        format: super::Format::Human,
        deny_warnings: false,
        quiet,
    };
    let mut reporter = Reporter::new(&diagnostic_args, false);
    let mut sources = Sources::with_inputs(inputs.clone());
    let checked = super::check_layers(&args.layers.layers(profile), &mut sources).map_err(|e| {
        io_error(&e);
        EXIT_IO
    })?;
    let templates = crate::templates::Templates::load(None).map_err(|e| {
        io_error(&format!("template {e}"));
        EXIT_IO
    })?;
    // Host files only from inside the profile's root, as `render` reads them.
    let read = |path: &std::path::Path| super::read_host_file(path, checked.root.as_ref(), inputs);
    let report = crate::commands::validate::report(&checked, true, &templates, Some(&read));
    for message in &report.template_errors {
        reporter.io_error(message);
    }
    let code = reporter.add(&report.diagnostics, &sources);
    reporter.finish();
    let resolved = match (&checked.resolved, code) {
        (Some(resolved), 0) => resolved,
        _ => return Err(EXIT_IO),
    };
    let (root, reader_inputs) = (checked.root.clone(), inputs.clone());
    let reader: crate::preflight::FileReader = Box::new(move |path| {
        super::read_host_file(path, root.as_ref(), &reader_inputs).map(|read| read.bytes)
    });
    Setting::from_profile(resolved, reader).map_err(|why| {
        io_error(&why);
        EXIT_IO
    })
}

/// The container's own environment (`--from-env`): the image's variables of this process, read
/// and checked as `import` reads an environment (the diagnostics at `the environment:line:col`,
/// secret values never shown); `Err` is the exit code: nothing is dialled for an environment the
/// image cannot use. Files are read where the container opens them, through the bounded reader.
fn container_setting(
    args: &PreflightArgs,
    quiet: bool,
    inputs: &crate::support::inputs::Inputs,
) -> Result<Setting, u8> {
    let mut pairs = Vec::new();
    for (name, value) in std::env::vars_os() {
        let Some(name) = name
            .to_str()
            .filter(|n| crate::preflight::is_container_name(n))
        else {
            continue;
        };
        let Some(value) = value.to_str() else {
            io_error(&format!(
                "the environment variable {name} is not UTF-8 text: the image reads its variables as UTF-8"
            ));
            return Err(EXIT_IO);
        };
        pairs.push((name.to_string(), value.to_string()));
    }
    let edition = (args.edition.as_deref()).and_then(crate::model::Edition::parse);
    let reader_inputs = inputs.clone();
    let reader: crate::preflight::FileReader =
        Box::new(move |path| crate::profile::read_input(path, &reader_inputs).map_err(|e| e.0));
    let mut sources = Sources::with_inputs(inputs.clone());
    let read =
        crate::preflight::from_environment(ENVIRONMENT, pairs, edition, &mut sources, reader);
    let diagnostic_args = DiagnosticArgs {
        format: super::Format::Human,
        deny_warnings: false,
        quiet,
    };
    let mut reporter = Reporter::new(&diagnostic_args, false);
    reporter.add(&read.diagnostics, &sources);
    reporter.finish();
    let Some(setting) = read.setting else {
        return Err(EXIT_IO);
    };
    setting.map_err(|why| {
        io_error(&why);
        EXIT_IO
    })
}

/// The name diagnostics give the process's environment.
const ENVIRONMENT: &str = "the environment";

/// The heading of the after-start checks, before the first of them.
const AFTER_START: &str = "after start (never changes the exit code):\n";

/// The verdict, after every step's line.
fn verdict(report: &Report) -> String {
    let failed = report
        .steps
        .iter()
        .filter(|s| s.status != Status::Ok)
        .count();
    if report.would_start {
        "would start: yes, every start step passed\n".to_string()
    } else {
        format!(
            "would start: no, {failed} of {} start steps did not pass\n",
            report.steps.len()
        )
    }
}

/// One step's line: step, backend, status, time, target and reason. The target and reason
/// carry a server's words and the profile's paths: their line breaks are shown escaped, so no
/// text can add a line of its own (say, a forged "would start: yes").
fn row(row: &StepResult) -> String {
    use crate::support::escape::one_line;
    let reason = (row.reason.as_deref())
        .map(|r| format!("  {}", one_line(r)))
        .unwrap_or_default();
    format!(
        "{:<13} {:<10} {:<12} {:>6} ms  {}{reason}\n",
        row.step,
        row.backend,
        row.status.as_str(),
        row.ms,
        one_line(&row.target),
    )
}

#[cfg(test)]
mod tests {
    use super::row;
    use crate::preflight::{Status, StepResult};

    #[test]
    fn a_step_s_line_stays_one_line_whatever_its_target_and_reason_hold() {
        let step = StepResult::not_run(
            "secret",
            "google",
            "https://a\nb".to_string(),
            Status::Failed,
            "server said: no\nwould start: yes".to_string(),
        );
        let line = row(&step);
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.contains("https://a\\nb"), "{line}");
        assert!(
            line.contains("server said: no\\nwould start: yes"),
            "{line}"
        );
    }
}
