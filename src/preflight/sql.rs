//! The SQL wait (pycloudlib's `wait_for_sql`): connect as the profile's user with the password
//! the image would use, then the row it looks for: the first data key mapped to SQL decides the
//! table and document id (the model's `[image] waits_for`: its `table`, and the first RDN value
//! of its `dn`), a key without a table only the connection.

use super::deadline::{Outcome, bounded};
use super::persistence::{Backend, doc_id_from_dn, from_secret_backend, waited_entry};
use super::secret::SecretAccess;
use super::{Limits, Setting, StepResult};
use crate::model::Model;
use std::time::Duration;

const DIALECT: &str = "CN_SQL_DB_DIALECT";
const HOST: &str = "CN_SQL_DB_HOST";
const PORT: &str = "CN_SQL_DB_PORT";
const NAME: &str = "CN_SQL_DB_NAME";
const USER: &str = "CN_SQL_DB_USER";
/// The secret backend's key of the password, when no password file is there.
const PASSWORD_KEY: &str = "sql_password";

/// Where the SQL server is, and as whom.
#[derive(Clone)]
struct Server {
    dialect: String,
    host: String,
    port: u16,
    name: String,
    user: String,
    /// The table and document id the image looks for.
    row: Option<(String, String)>,
}

/// Checks the SQL backend; `Err` (not reached) when the password must come from the secret
/// backend and its login failed.
pub fn check(
    backend: &Backend,
    setting: &Setting,
    access: Option<&SecretAccess>,
    limits: Limits,
) -> Result<StepResult, String> {
    let server = Server {
        dialect: setting.text(DIALECT),
        host: setting.text(HOST),
        port: setting.text(PORT).parse().unwrap_or(0),
        name: setting.text(NAME),
        user: setting.text(USER),
        row: waited_entry(&backend.first_key)
            .and_then(|entry| Some((entry.table.clone()?, doc_id_from_dn(&entry.dn)))),
    };
    let target = format!(
        "{}://{}@{} (database {})",
        server.dialect,
        server.user,
        super::http::host_port(&server.host, &server.port.to_string()),
        server.name
    );
    let password = password(setting, access)?;
    let timeout = limits.timeout;
    let (result, _) = bounded(("persistence", "sql", &target), timeout, move || {
        let password = password.get(timeout)?;
        match server.dialect.as_str() {
            "mysql" => mysql(&server, &password, timeout),
            _ => postgres(&server, &password, timeout),
        }
    });
    Ok(result)
}

/// Where the password comes from: the file the image reads (when the container would find it),
/// else the secret backend's key.
enum Password {
    File(String),
    Secret(SecretAccess),
}

impl Password {
    fn get(self, timeout: Duration) -> Outcome<String> {
        match self {
            Password::File(text) => Ok(text),
            Password::Secret(access) => {
                from_secret_backend(Some(&access), PASSWORD_KEY, Limits { timeout })?
            }
        }
    }
}

fn password(setting: &Setting, access: Option<&SecretAccess>) -> Result<Password, String> {
    let fact = &Model::get().image.sql_password_file;
    let path = setting.get(&fact.env).unwrap_or_else(|| fact.path.clone());
    if let Some(bytes) = setting.read_optional(&path, true) {
        return Ok(Password::File(
            String::from_utf8_lossy(&bytes).trim().to_string(),
        ));
    }
    match access {
        Some(access) => Ok(Password::Secret(access.clone())),
        None => Err(format!(
            "the SQL password comes from the secret backend's `{PASSWORD_KEY}` (no password file \
             {path} is there), and the secret step's login failed"
        )),
    }
}

fn postgres(server: &Server, password: &str, timeout: Duration) -> Outcome<()> {
    let mut config = postgres::Config::new();
    config
        .host(&server.host)
        .port(server.port)
        .dbname(&server.name)
        .user(&server.user)
        .password(password)
        .connect_timeout(timeout);
    let mut client = config.connect(postgres::NoTls).map_err(|e| pg_reason(&e))?;
    let Some((table, id)) = &server.row else {
        return Ok(());
    };
    let quoted = format!("\"{table}\"");
    let found = client
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&quoted])
        .map_err(|e| pg_reason(&e))?;
    if !found.get::<_, bool>(0) {
        return Err(format!("table {table} missing"));
    }
    let rows = client
        .query(
            &format!("SELECT 1 FROM {quoted} WHERE doc_id = $1 LIMIT 1"),
            &[id],
        )
        .map_err(|e| pg_reason(&e))?;
    if rows.is_empty() {
        return Err(format!("row {id} missing in table {table}"));
    }
    Ok(())
}

/// A PostgreSQL error in words: the server's own, or the connection's.
fn pg_reason(error: &postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        let code = db.code().code();
        // Class 28: invalid authorization specification (a wrong password is 28P01).
        if code.starts_with("28") {
            return format!("authentication failed: {}", db.message());
        }
        return format!("{} ({code})", db.message());
    }
    super::http::cause(error).unwrap_or_else(|| error.to_string())
}

fn mysql(server: &Server, password: &str, timeout: Duration) -> Outcome<()> {
    use mysql::prelude::Queryable;
    let options = mysql::OptsBuilder::new()
        .ip_or_hostname(Some(server.host.clone()))
        .tcp_port(server.port)
        .user(Some(server.user.clone()))
        .pass(Some(password.to_string()))
        .db_name(Some(server.name.clone()))
        .tcp_connect_timeout(Some(timeout))
        .read_timeout(Some(timeout))
        .write_timeout(Some(timeout));
    let mut conn = mysql::Conn::new(options).map_err(|e| mysql_reason(&e))?;
    let Some((table, id)) = &server.row else {
        return Ok(());
    };
    let tables: Option<u64> = conn
        .exec_first(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
            (table,),
        )
        .map_err(|e| mysql_reason(&e))?;
    if tables.unwrap_or(0) == 0 {
        return Err(format!("table {table} missing"));
    }
    let row: Option<u8> = conn
        .exec_first(
            format!("SELECT 1 FROM `{table}` WHERE doc_id = ? LIMIT 1"),
            (id,),
        )
        .map_err(|e| mysql_reason(&e))?;
    if row.is_none() {
        return Err(format!("row {id} missing in table {table}"));
    }
    Ok(())
}

/// A MySQL error in words: the server's own (1045 is a refused login), or the connection's.
fn mysql_reason(error: &mysql::Error) -> String {
    match error {
        mysql::Error::MySqlError(e) if e.code == 1045 => {
            format!("authentication failed: {}", e.message)
        }
        mysql::Error::MySqlError(e) => format!("{} ({})", e.message, e.code),
        other => super::http::cause(other).unwrap_or_else(|| other.to_string()),
    }
}
