//! The Spanner persistence step (jans-pycloudlib `wait_for_spanner`): with a session of the
//! database, the row the wait looks for (`SpannerClient.row_exists`: a read of `doc_id` by key,
//! limit 1; the model's `[image] waits_for`), or `SELECT 1` for a key without a table
//! (`connected`). Spanner's REST API: `sessions` create, then `:read` or `:executeSql`.

use super::account::Account;
use super::client::{Client, message, refusal, resource};
use crate::preflight::deadline::bounded;
use crate::preflight::persistence::{Backend, doc_id_from_dn, waited_entry};
use crate::preflight::{Limits, Setting, StepResult};
use std::time::Duration;

/// The scope of the image's Spanner data calls: its `Database.spanner_api` scopes the
/// credentials to `SPANNER_DATA_SCOPE` (the client's own `spanner.admin` is for admin APIs,
/// which sessions, reads and queries refuse).
const SCOPE: &str = "https://www.googleapis.com/auth/spanner.data";
const INSTANCE: &str = "CN_GOOGLE_SPANNER_INSTANCE_ID";
const DATABASE: &str = "CN_GOOGLE_SPANNER_DATABASE_ID";

/// Checks the Spanner backend.
pub fn check(backend: &Backend, setting: &Setting, limits: Limits) -> StepResult {
    let account = match Account::load(setting) {
        Ok(account) => account,
        Err((status, why)) => {
            return StepResult::not_run("persistence", "spanner", String::new(), status, why);
        }
    };
    let database = format!(
        "projects/{}/instances/{}/databases/{}",
        setting.text(super::PROJECT),
        setting.text(INSTANCE),
        setting.text(DATABASE)
    );
    let row = waited_entry(&backend.first_key)
        .and_then(|entry| Some((entry.table.clone()?, doc_id_from_dn(&entry.dn))));
    let client = match Client::new(setting, account, "spanner", SCOPE) {
        Ok(client) => client,
        Err(why) => {
            let status = crate::preflight::Status::Failed;
            return StepResult::not_run("persistence", "spanner", database, status, why);
        }
    };
    let looked_for = match &row {
        Some((table, id)) => format!("row {id} of table {table}"),
        None => "SELECT 1".to_string(),
    };
    let target = format!("{} ({database}, {looked_for})", client.base);
    let timeout = limits.timeout;
    let (result, _) = bounded(("persistence", "spanner", &target), timeout, move || {
        let session = session(&client, &database, timeout)?;
        match row {
            Some((table, id)) => read(&client, &session, (&table, &id), timeout),
            None => select_one(&client, &session, timeout),
        }
    });
    result
}

/// A new session of the database: its name.
fn session(client: &Client, database: &str, timeout: Duration) -> Result<String, String> {
    let body = serde_json::json!({});
    let path = format!("/v1/{}/sessions", resource(database));
    let answer = client.call(&path, Some(&body), timeout)?;
    match answer.status {
        200 => json(&answer.body)?["name"]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("Spanner's new session of {database} has no name")),
        404 => Err(format!("database {database} missing: {}", message(&answer))),
        _ => Err(refusal(&answer)),
    }
}

/// `row_exists`: a read of `doc_id` at the key, limit 1.
fn read(
    client: &Client,
    session: &str,
    (table, id): (&str, &str),
    timeout: Duration,
) -> Result<(), String> {
    let body = serde_json::json!({
        "table": table, "columns": ["doc_id"], "keySet": { "keys": [[id]] }, "limit": "1",
    });
    let path = format!("/v1/{}:read", resource(session));
    let answer = client.call(&path, Some(&body), timeout)?;
    match answer.status {
        200 if rows(&answer.body)? > 0 => Ok(()),
        200 => Err(format!("row {id} missing in table {table}")),
        404 => Err(format!("table {table} missing: {}", message(&answer))),
        _ => Err(refusal(&answer)),
    }
}

/// `connected`: `SELECT 1` gives a first column above 0.
fn select_one(client: &Client, session: &str, timeout: Duration) -> Result<(), String> {
    let body = serde_json::json!({ "sql": "SELECT 1" });
    let path = format!("/v1/{}:executeSql", resource(session));
    let answer = client.call(&path, Some(&body), timeout)?;
    if answer.status != 200 {
        return Err(refusal(&answer));
    }
    let first = json(&answer.body)?.pointer("/rows/0/0").cloned();
    // INT64 travels as a JSON string.
    let value = first.and_then(|v| v.as_str().and_then(|s| s.parse::<i64>().ok()));
    match value {
        Some(n) if n > 0 => Ok(()),
        _ => Err(format!("SELECT 1 in session {session} gave no row above 0")),
    }
}

fn json(body: &str) -> Result<serde_json::Value, String> {
    serde_json::from_str(body).map_err(|e| super::not_json("Spanner's answer", &e))
}

/// The number of rows of a `ResultSet`.
fn rows(body: &str) -> Result<usize, String> {
    Ok(json(body)?["rows"].as_array().map_or(0, Vec::len))
}
