//! `svcgen preflight`: the waits the image runs at start (config, secret, each persistence
//! backend, edition A's SSA file), checked live against the profile's own services, each the way
//! the image checks it (pycloudlib's `wait.py` and its adapters), each bounded by a deadline that
//! svcgen enforces itself (client libraries do not bound every phase). Then the after-start
//! checks (the token server's OIDC discovery), which never decide whether the pod would start.
//!
//! The library side: what to dial comes from a [`Setting`] (the profile's environment and its
//! host files, or a container's own environment); nothing here prints. Behind the `live`
//! feature, never in the pure core.

mod config;
mod container;
mod couchbase;
mod deadline;
mod google;
mod http;
mod kubernetes;
mod ldap;
mod oidc;
mod persistence;
mod report;
mod secret;
mod setting;
mod sql;
mod ssa;

pub use container::{FromEnvironment, from_environment, is_container_name};
pub use report::{Report, Status, StepResult};
pub use setting::{FileReader, Setting};

use secret::SecretAccess;
use std::time::Duration;

/// How long each step may take, and where the TLS roots come from.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Each step's bound: a server that accepts and never answers ends the step as `timeout`.
    pub timeout: Duration,
}

/// What one step hands to the steps after it.
#[derive(Default)]
struct Carried {
    /// The config backend's access, when it answered (the LDAP step reads its bind DN there).
    config: Option<config::ConfigAccess>,
    /// The secret backend's session, when its login passed (a missing `ssl_cert` alone keeps it).
    secret: Option<SecretAccess>,
}

/// Runs every start step in the image's order, then the after-start checks. Steps that need an
/// earlier step's result are `not-reached` when it failed; the others still run.
pub fn run(setting: &Setting, limits: Limits) -> Report {
    let mut report = Report::default();
    let mut carried = Carried::default();
    let (config, access) = config::check(setting, limits);
    carried.config = access;
    report.steps.push(config);
    let (secret, access) = secret::check(setting, limits);
    carried.secret = access;
    report.steps.push(secret);
    for backend in persistence::backends(setting) {
        report
            .steps
            .push(persistence_step(&backend, setting, &carried, limits));
    }
    if let Some(step) = ssa::check(setting, limits) {
        report.steps.push(step);
    }
    report.after_start.push(oidc::check(setting, limits));
    report.redact(&setting.secrets());
    report
}

/// Checks one persistence backend (the `persistence` steps); `not-reached` when what it needs from
/// an earlier step is missing.
fn persistence_step(
    backend: &persistence::Backend,
    setting: &Setting,
    carried: &Carried,
    limits: Limits,
) -> StepResult {
    match backend.name.as_str() {
        "sql" => sql::check(backend, setting, carried.secret.as_ref(), limits)
            .unwrap_or_else(|why| not_reached(backend, why)),
        "ldap" => ldap::check(setting, carried, &backend.first_key, limits)
            .unwrap_or_else(|why| not_reached(backend, why)),
        "couchbase" => couchbase::check(backend, setting, carried.secret.as_ref(), limits)
            .unwrap_or_else(|why| not_reached(backend, why)),
        "spanner" => google::spanner(backend, setting, limits),
        other => StepResult::not_run(
            "persistence",
            other,
            String::new(),
            Status::NotChecked,
            format!("svcgen does not check the `{other}` persistence backend yet"),
        ),
    }
}

fn not_reached(backend: &persistence::Backend, why: String) -> StepResult {
    StepResult::not_run(
        "persistence",
        &backend.name,
        String::new(),
        Status::NotReached,
        why,
    )
}
