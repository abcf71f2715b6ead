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
pub use report::{Report, Stage, Status, StepResult};
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
#[derive(Default, Clone)]
struct Carried {
    /// The config backend's access, when it answered (the LDAP step reads its bind DN there).
    config: Option<config::ConfigAccess>,
    /// The secret backend's session, when its login passed (a missing `ssl_cert` alone keeps it).
    secret: Option<SecretAccess>,
}

/// Runs every start step in the image's order, then the after-start checks. Steps that need an
/// earlier step's result are `not-reached` when it failed; the others still run.
pub fn run(setting: &Setting, limits: Limits) -> Report {
    run_watched(setting, limits, &mut |_, _| {})
}

/// [`run`], handing each step's result to `watch` as soon as the step ends (secret values
/// masked), so that whoever watches a run sees how far it got, even when it is cut off (a
/// Job's deadline). Each whole step, the files it reads included, is bounded
/// ([`deadline::whole_step`]).
pub fn run_watched(
    setting: &Setting,
    limits: Limits,
    watch: &mut dyn FnMut(Stage, &StepResult),
) -> Report {
    let mut report = Report::default();
    let mut record = |stage, result| report.record(stage, result, &setting.secrets(), watch);
    let mut carried = Carried::default();
    let (config, access) =
        adapter_step(("config", config::ADAPTER), setting, limits, config::check);
    carried.config = access;
    record(Stage::Start, config);
    let (secret, access) =
        adapter_step(("secret", secret::ADAPTER), setting, limits, secret::check);
    carried.secret = access;
    record(Stage::Start, secret);
    for backend in persistence::backends(setting) {
        let (owned, handed) = (setting.for_step(), carried.clone());
        let name = backend.name.clone();
        let doing = owned.doing();
        let (result, _) =
            deadline::whole_step(("persistence", &name), limits.timeout, &doing, move || {
                (persistence_step(&backend, &owned, &handed, limits), ())
            });
        record(Stage::Start, result);
    }
    if ssa::applies(setting) {
        let owned = setting.for_step();
        let doing = owned.doing();
        let (result, _) =
            deadline::whole_step(("ssa", "file"), limits.timeout, &doing, move || {
                (ssa::check(&owned, limits), ())
            });
        record(Stage::Start, result);
    }
    let owned = setting.for_step();
    let doing = owned.doing();
    let (result, _) = deadline::whole_step(
        ("token-server", "oidc"),
        limits.timeout,
        &doing,
        move || (oidc::check(&owned, limits), ()),
    );
    record(Stage::AfterStart, result);
    report.redact(&setting.secrets());
    report
}

/// The config or secret step (`name`, its adapter chosen by the variable `adapter`) as a whole
/// step: what it hands on when it ended in time.
fn adapter_step<T: Send + 'static>(
    (name, adapter): (&str, &str),
    setting: &Setting,
    limits: Limits,
    check: fn(&Setting, Limits) -> (StepResult, Option<T>),
) -> (StepResult, Option<T>) {
    let owned = setting.for_step();
    let backend = setting.text(adapter);
    let doing = owned.doing();
    let (result, carried) =
        deadline::whole_step((name, &backend), limits.timeout, &doing, move || {
            check(&owned, limits)
        });
    (result, carried.flatten())
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
