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

const ROLE_ID: &str = "role-id-bench";
const SECRET_ID: &str = "secret-id-bench";
const READY_SQL: &str = "CREATE TABLE \"jansAppConf\" (doc_id varchar(64) PRIMARY KEY); \
                         INSERT INTO \"jansAppConf\" VALUES ('jans-auth')";
const TIMEOUT_S: u64 = 2;
const ROUNDS: usize = 15;

/// Writes an edition B profile: consul at `consul`, vault at `vault`, PostgreSQL at `sql`.
fn profile(dir: &Path, consul: u16, vault: u16, sql: u16) -> PathBuf {
    std::fs::write(dir.join("role_id"), ROLE_ID).unwrap();
    std::fs::write(dir.join("secret_id"), SECRET_ID).unwrap();
    let refused = servers::refused_port();
    let text = format!(
        r#"edition = "B"
[config]
adapter = "consul"
consul = {{ host = "127.0.0.1", port = {consul}, scheme = "http" }}
[secret]
adapter = "vault"
vault = {{ addr = "http://127.0.0.1:{vault}", prefix = "jans" }}
[persistence]
type = "sql"
sql = {{ dialect = "pgsql", host = "127.0.0.1", port = {sql}, name = "svc", user = "svc" }}
[token_server]
base_url = "https://127.0.0.1:{refused}"
client_id = "2001.abc"
[auth_server]
base_url = "https://auth.example.org"
[config_api]
base_url = "https://config-api.example.org"
[deploy]
kubernetes = false
[deploy.files]
"secret.vault.role_id_file" = {{ host = "role_id" }}
"secret.vault.secret_id_file" = {{ host = "secret_id" }}
"#
    );
    let path = dir.join("profile.toml");
    std::fs::write(&path, text).unwrap();
    path
}

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
    let password = "sql_password=password";
    let (Some(consul), Some(vault)) = (
        servers::fake("consul", &["ready", ""]),
        servers::fake("vault", &["ready", ROLE_ID, SECRET_ID, password]),
    ) else {
        return;
    };
    let Some(pg) = servers::postgres(READY_SQL) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let passing = profile(dir.path(), consul.port, vault.port, pg.port);
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
    let blocked = profile(blocked.path(), hole, vault.port, pg.port);
    let (code, time) = run(&binary, &blocked);
    let bound = (TIMEOUT_S + 1) * 1000;
    println!(
        "black-hole consul, --timeout {TIMEOUT_S}: exit {code:?} after {} ms, the whole run (goal ≤ {bound} ms)",
        time.as_millis()
    );
}
