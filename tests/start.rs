//! `svcgen explain --start`: the start as a timeline. Each wait lasts as long as the image's own
//! retry code makes it last (the real `backoff` decorator, configured as jans-pycloudlib's
//! `wait.py` configures it), and the numbers are the ones DEPLOY.md and the startup probe use.

use crate::support;
use serde_json::Value;
use std::process::Command;
use support::scenario::Test;
use support::{objects, of_kind, repo};

/// jans-pycloudlib `wait.py` (JanssenProject/jans, `jans-pycloudlib/jans/pycloudlib/wait.py`):
/// its `get_wait_max_time`, `get_wait_interval` and `retry_on_exception` as written there, around
/// a check that fails after `TRY_SECONDS`; prints how long one wait lasted until backoff gave up.
const WAIT_PY: &str = r#"
import os, sys, time
import backoff

def get_wait_max_time():
    default = 60 * 5
    try:
        max_time = int(os.environ.get("CN_WAIT_MAX_TIME", default))
    except ValueError:
        max_time = default
    return max(1, max_time)

def get_wait_interval():
    default = 10
    try:
        interval = int(os.environ.get("CN_WAIT_SLEEP_DURATION", default))
    except ValueError:
        interval = default
    return max(1, interval)

retry_on_exception = backoff.on_exception(
    backoff.constant,
    Exception,
    max_time=get_wait_max_time,
    jitter=None,
    interval=get_wait_interval,
)

TRY_SECONDS = float(sys.argv[1])

@retry_on_exception
def wait_for_config():
    time.sleep(TRY_SECONDS)
    raise RuntimeError("Config 'hostname' is not available")

start = time.monotonic()
try:
    wait_for_config()
except RuntimeError:
    pass
print(time.monotonic() - start)
"#;

/// Seconds one wait of the real retry code lasts, with these settings and tries of this length.
fn measured(python: &std::path::Path, max_time: i64, sleep: i64, try_seconds: f64) -> f64 {
    let output = Command::new(python)
        .args(["-c", WAIT_PY, &try_seconds.to_string()])
        .env("CN_WAIT_MAX_TIME", max_time.to_string())
        .env("CN_WAIT_SLEEP_DURATION", sleep.to_string())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap()
}

/// The timeline of `profile` as `explain --start --format json` prints it.
fn start_json(profile: &str) -> Value {
    Test::new()
        .file("p.toml", profile)
        .args(["explain", "--start", "p.toml", "--format", "json"])
        .run()
        .stdout_json()
}

fn b_profile(max_time: i64, sleep: i64) -> String {
    format!(
        "edition = \"B\"\ntoken_server = {{ base_url = \"https://auth.example.org\" }}\n\
         wait = {{ max_time = {max_time}, sleep_duration = {sleep} }}\n"
    )
}

/// Each wait of the timeline lasts no less than the image's own retry code waits, and at most
/// 1.5 s more: backoff 2.2.1 clamps its last sleep to what is left of `max_time` and gives up at
/// the first failed try after it, so a wait is `max_time` plus the last try (here tries that fail
/// at once and tries of 0.4 s, with small settings).
#[test]
fn each_wait_lasts_as_long_as_the_images_retry_code_makes_it() {
    let Some(python) = support::python_with("backoff") else {
        return;
    };
    for (max_time, sleep, try_seconds) in [(2, 1, 0.0), (3, 1, 0.4), (1, 1, 0.0), (2, 1, 0.2)] {
        let lasted = measured(&python, max_time, sleep, try_seconds);
        let timeline = start_json(&b_profile(max_time, sleep));
        let steps = timeline["steps"].as_array().unwrap();
        let waits: Vec<&Value> = (steps.iter())
            .filter(|s| ["config", "secret", "persistence"].contains(&s["step"].as_str().unwrap()))
            .collect();
        assert_eq!(waits.len(), 3, "{timeline}");
        for wait in waits {
            let lasts = (wait["to_s"].as_i64().unwrap() - wait["from_s"].as_i64().unwrap()) as f64;
            assert!(
                lasts >= lasted && lasts <= lasted + 1.5,
                "max_time {max_time}, sleep {sleep}, tries of {try_seconds} s: the image waited \
                 {lasted:.2} s, the timeline says {lasts} s: {wait}"
            );
        }
    }
}

/// The JSON form: steps in order, each starting where the one before ended (a wait with no
/// bound leaves the time as it was), `worst_case_s` the largest `to_s`, and the ends of each
/// runtime: the startup probe at failureThreshold x periodSeconds of the rendered Deployment,
/// compose with none. DEPLOY.md lists the same steps with the same numbers. Every example.
#[test]
fn explain_start_matches_the_rendered_probe_and_deploy_notes_for_every_example() {
    let examples = support::walk(&repo().join("examples"));
    let examples: Vec<_> = (examples.iter())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "toml")
                && p.parent() == Some(&repo().join("examples"))
        })
        .collect();
    assert!(examples.len() >= 5, "{examples:?}");
    for example in examples {
        let ran = Test::new()
            .args(["explain", "--format", "json", "--start"])
            .arg(example)
            .run();
        let json = ran.stdout_json();
        let steps = json["steps"].as_array().unwrap();
        let mut at = 0;
        for step in steps {
            assert_eq!(step["from_s"], at, "{}: {step}", example.display());
            at = step["to_s"].as_i64().unwrap_or(at);
            assert!(
                step["source"].as_str().unwrap().starts_with("scripts/"),
                "{step}"
            );
        }
        let worst = steps
            .iter()
            .filter_map(|s| s["to_s"].as_i64())
            .max()
            .unwrap();
        assert_eq!(json["worst_case_s"], worst, "{}", example.display());
        for lock in [
            "setup-lock-check",
            "upgrade-lock-check",
            "setup-lock",
            "upgrade-lock",
        ] {
            assert_eq!(
                steps.iter().filter(|s| s["step"] == lock).count(),
                1,
                "{}: both editions take both locks",
                example.display()
            );
        }
        let rendered = ran
            .again()
            .arg("render")
            .arg(example)
            .args(["--out-dir", "out", "-q"])
            .run();
        let ends = json["ends"].as_array().unwrap();
        let k8s = std::fs::read_to_string(rendered.path("out/k8s.yaml"));
        if let Ok(k8s) = &k8s {
            let objects = objects(k8s);
            let probe = &of_kind(&objects, "Deployment")[0]["spec"]["template"]["spec"]["containers"]
                [0]["startupProbe"];
            let at = probe["failureThreshold"].as_i64().unwrap()
                * probe["periodSeconds"].as_i64().unwrap();
            let end = (ends.iter())
                .find(|e| e["by"].as_str().unwrap().contains("startup probe"))
                .unwrap_or_else(|| panic!("{}: {json}", example.display()));
            assert_eq!(end["at_s"], at, "{}", example.display());
            assert!(
                at >= worst,
                "{}: the probe covers the worst case",
                example.display()
            );
        }
        if rendered.path("out/docker-compose.yml").exists() {
            let end = (ends.iter())
                .find(|e| e["by"].as_str().unwrap().starts_with("compose"))
                .unwrap_or_else(|| panic!("{}: {json}", example.display()));
            assert!(end["at_s"].is_null(), "{end}");
        }
        if let Ok(notes) = std::fs::read_to_string(rendered.path("out/DEPLOY.md")) {
            for step in steps {
                let to = step["to_s"]
                    .as_i64()
                    .map_or_else(|| "no bound".to_string(), |t| t.to_string());
                let row = format!(
                    "| {} | {} | {} | {to} | `{}` |",
                    step["step"].as_str().unwrap(),
                    step["backend"].as_str().unwrap_or(""),
                    step["from_s"],
                    step["source"].as_str().unwrap()
                );
                assert!(
                    notes.contains(&row),
                    "{}: {row}\n{notes}",
                    example.display()
                );
            }
            assert!(
                notes.contains(&format!(
                    "The startup probe allows the worst case plus the margin:\n{worst} + "
                )),
                "{notes}"
            );
        }
    }
}

/// For people: one line per wait, the worst case and the ends; an invalid profile is reported as
/// `validate` reports it (exit 1), and `--format` without `--start` is a usage error.
#[test]
fn explain_start_for_people_and_its_errors() {
    Test::new()
        .file("p.toml", &b_profile(300, 10))
        .args(["explain", "--start", "p.toml"])
        .stdout_has("persistence (sql)")
        .stdout_has("setup-lock-check")
        .stdout_has("no bound")
        .stdout_has("worst case: 1070 s")
        .stdout_has("startup probe (failureThreshold × periodSeconds) at 1130 s")
        .stdout_has("compose (no probe) never")
        .run();
    Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\nwait = { max_time = \"long\" }\n",
        )
        .args(["explain", "--start", "p.toml"])
        .code(1)
        .stderr_has("p.toml:2:")
        .stdout_is("")
        .run();
    Test::new()
        .args(["explain", "CN_SQL_DB_DIALECT", "--format", "json"])
        .code(2)
        .stderr_has("--start")
        .run();
}
