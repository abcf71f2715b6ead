//! How long `svcgen preflight` takes against local services: a run that passes (a Consul and a
//! Vault fake, the tests' verified ones, and a real PostgreSQL) and a run whose Consul is a black
//! hole (accepts, never answers). The goals: a passing run under 1 s; the black-hole run ends
//! within `--timeout` + 1 s. A benchmark, not a test: it prints what it measured.
//!
//!   cargo build --release && cargo bench --bench preflight          # the release binary
//!   SVCGEN=target/debug/svcgen cargo bench --bench preflight        # another one
//!
//! The servers are those of the tests (`tests/support/servers.rs`: 127.0.0.1, free ports,
//! stopped on drop); a missing one (python3, PostgreSQL) is said and its run left out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../tests/support/servers.rs"]
mod servers;

#[allow(dead_code)]
#[path = "../tests/support/preflight_profile.rs"]
mod preflight_profile;

use preflight_profile::{READY_SQL, ROLE_ID, SECRET_ID, SQL_PASSWORD, Services, profile};

/// The repository (the servers' helpers find the fakes here).
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A server the benchmark cannot start: said, never hidden.
fn skip(what: &str, how: &str) {
    eprintln!("not measured: {what} is missing; {how}");
}

fn how_to_get(name: &str) -> String {
    format!("scripts/test.sh installs {name} (or see README's set-up)")
}

const TIMEOUT_S: u64 = 2;
const ROUNDS: usize = 15;

/// One preflight run: its exit code and wall time.
fn run(binary: &Path, profile: &Path) -> (Option<i32>, Duration) {
    let started = Instant::now();
    let out = Command::new(binary)
        .arg("preflight")
        .arg(profile)
        .args(["--timeout", &TIMEOUT_S.to_string(), "--format", "json"])
        .output()
        .expect("svcgen runs");
    (out.status.code(), started.elapsed())
}

/// Median and largest of `times`, in milliseconds.
fn summary(mut times: Vec<Duration>) -> (u128, u128) {
    times.sort();
    (
        times[times.len() / 2].as_millis(),
        times[times.len() - 1].as_millis(),
    )
}

fn main() {
    let binary = std::env::var_os("SVCGEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/release/svcgen"));
    if !binary.is_file() {
        eprintln!(
            "not measured: no {} (cargo build --release, or SVCGEN=...)",
            binary.display()
        );
        return;
    }
    let password = format!("sql_password={SQL_PASSWORD}");
    let (Some(consul), Some(vault)) = (
        servers::fake("consul", &["ready", ""]),
        servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, &password]),
    ) else {
        return;
    };
    let Some(pg) = servers::postgres(READY_SQL) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let passing = profile(dir.path(), &Services::new(consul.port, vault.port, pg.port));
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        let (code, time) = run(&binary, &passing);
        assert_eq!(
            code,
            Some(0),
            "the passing preflight failed: run it by hand"
        );
        times.push(time);
    }
    let (median, most) = summary(times);
    println!(
        "passing preflight ({ROUNDS} runs): median {median} ms, largest {most} ms (goal < 1000 ms)"
    );
    let (hole, _held) = servers::black_hole();
    let blocked = tempfile::tempdir().unwrap();
    let blocked = profile(blocked.path(), &Services::new(hole, vault.port, pg.port));
    let (code, time) = run(&binary, &blocked);
    let bound = (TIMEOUT_S + 1) * 1000;
    println!(
        "black-hole consul, --timeout {TIMEOUT_S}: exit {code:?} after {} ms, the whole run (goal ≤ {bound} ms)",
        time.as_millis()
    );
}
