//! The edition B profile of the preflight tests and benchmark (consul, vault, PostgreSQL and
//! their credential files), written where a test or `benches/preflight.rs` runs it. Shared by
//! path: the benchmark includes this file beside `servers.rs`.

use std::path::Path;

/// The AppRole credentials the vault fake accepts, the SQL password and the consul token:
/// distinctive, so that a test can look for them in every output.
pub const ROLE_ID: &str = "role-id-7f3a9c";
pub const SECRET_ID: &str = "secret-id-0b8e21";
pub const SQL_PASSWORD: &str = "password";
pub const CONSUL_TOKEN: &str = "consul-token-5d1e";
pub const KEY: &str = "jans/config/hostname";

/// The table and row the image's SQL wait looks for.
pub const READY_SQL: &str = "CREATE TABLE \"jansAppConf\" (doc_id varchar(64) PRIMARY KEY); \
                         INSERT INTO \"jansAppConf\" VALUES ('jans-auth')";

/// Where the profile's services are.
pub struct Services {
    pub consul: String,
    pub vault: String,
    pub sql_port: u16,
    /// `pgsql` or `mysql`.
    pub dialect: &'static str,
    /// The token server's base URL.
    pub token_server: String,
    /// Extra lines for `[deploy.files]` and the consul table.
    pub files: Vec<String>,
    pub consul_extra: String,
}

impl Services {
    pub fn new(consul: u16, vault: u16, sql_port: u16) -> Services {
        Services {
            consul: format!("host = \"127.0.0.1\", port = {consul}, scheme = \"http\""),
            vault: format!("http://127.0.0.1:{vault}"),
            sql_port,
            dialect: "pgsql",
            token_server: format!("https://127.0.0.1:{}", super::servers::refused_port()),
            files: Vec::new(),
            consul_extra: String::new(),
        }
    }
}

/// Writes a profile of edition B (consul, vault, PostgreSQL) and its credential files.
pub fn profile(dir: &Path, services: &Services) -> std::path::PathBuf {
    std::fs::write(dir.join("role_id"), format!("{ROLE_ID}\n")).unwrap();
    std::fs::write(dir.join("secret_id"), format!("{SECRET_ID}\n")).unwrap();
    let sections = format!(
        r#"[config]
adapter = "consul"
consul = {{ {consul}{extra} }}

[secret]
adapter = "vault"
vault = {{ addr = "{vault}", prefix = "jans" }}

[persistence]
type = "sql"
sql = {{ dialect = "{dialect}", host = "127.0.0.1", port = {sql}, name = "svc", user = "svc" }}"#,
        consul = services.consul,
        extra = services.consul_extra,
        vault = services.vault,
        sql = services.sql_port,
        dialect = services.dialect,
    );
    let files = format!(
        "\"secret.vault.role_id_file\" = {{ host = \"role_id\" }}\n\
         \"secret.vault.secret_id_file\" = {{ host = \"secret_id\" }}\n{}",
        services.files.join("\n")
    );
    profile_b(dir, &sections, &services.token_server, &files)
}

/// Writes `profile.toml` in `dir`: an edition B profile with `sections` (its config, secret and
/// persistence tables, and any other), the token server at `token_server`, and `files` as the
/// lines of `[deploy.files]`.
pub fn profile_b(
    dir: &Path,
    sections: &str,
    token_server: &str,
    files: &str,
) -> std::path::PathBuf {
    let text = format!(
        r#"edition = "B"

{sections}

[token_server]
base_url = "{token_server}"
client_id = "2001.abc"

[auth_server]
base_url = "https://auth.example.org"

[config_api]
base_url = "https://config-api.example.org"

[deploy]
kubernetes = false

[deploy.files]
{files}
"#
    );
    let path = dir.join("profile.toml");
    std::fs::write(&path, text).unwrap();
    path
}
