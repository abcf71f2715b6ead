//! A value the image puts as it is into a text of another language (JSON, a
//! JavaScript string, an LDAP DN, N1QL, a shlex-split command line, HTTP Basic credentials and
//! headers, a SQLAlchemy URL, a Google Cloud resource name) and that breaks that text is an error
//! at the value, naming the text and what it accepts, on every path a value comes in by. Each
//! profile here passes `validate` on the `main` before this change.

use crate::support;

use serde_json::{Value, json};
use support::lsp::{Client, file_uri};
use support::scenario::Test;
use support::svcgen;

const B: &str = "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n";
const A: &str = "edition = \"A\"\ntoken_server = { base_hostname = \"auth.example.org\" }\n";

/// One value that breaks a text of the image: the profile (its last line holds the value), the
/// key, the value as written in TOML, and what the error must name.
struct Case {
    head: &'static str,
    line: &'static str,
    key: &'static str,
    written: &'static str,
    names: &'static str,
}

const CASES: &[Case] = &[
    Case {
        head: "edition = \"B\"\n",
        line: "token_server = { base_url = \"https://auth.example.org\", client_id = \"1001 \" }",
        key: "token_server.client_id",
        written: "\"1001 \"",
        names: "an LDAP DN",
    },
    Case {
        head: "edition = \"A\"\n",
        line: "token_server = { base_hostname = \"auth.example.org\", client_id = \" 1001\" }",
        key: "token_server.client_id",
        written: "\" 1001\"",
        names: "an LDAP DN",
    },
    Case {
        head: B,
        line: "persistence = { type = \"couchbase\", couchbase = { url = \"cb.x\", bucket_prefix = \"user\" } }",
        key: "persistence.couchbase.bucket_prefix",
        written: "\"user\"",
        names: "reserved word USER",
    },
    Case {
        head: B,
        line: "persistence = { type = \"couchbase\", couchbase = { url = \"cb.x\", bucket_prefix = \"SELECT\" } }",
        key: "persistence.couchbase.bucket_prefix",
        written: "\"SELECT\"",
        names: "an unquoted N1QL identifier",
    },
    Case {
        head: A,
        line: "scan = { auth_url = \"https://account.example.org/\" }",
        key: "scan.auth_url",
        written: "\"https://account.example.org/\"",
        names: "must not end with a slash",
    },
    Case {
        head: A,
        line: "scan = { auth_url = 'https://account.example.org/a\"b' }",
        key: "scan.auth_url",
        written: "'https://account.example.org/a\"b'",
        names: "a JSON string",
    },
    Case {
        head: A,
        line: "scan = { api_url = 'https://scan.example.org/a\\b' }",
        key: "scan.api_url",
        written: "'https://scan.example.org/a\\b'",
        names: "a JSON string",
    },
    Case {
        head: A,
        line: "admin_ui = { plugins = [\"audit'log\"] }",
        key: "admin_ui.plugins",
        written: "\"audit'log\"",
        names: "a command line split by Python's shlex",
    },
    Case {
        head: A,
        line: "admin_ui = { plugins = ['a\"b\"c'] }",
        key: "admin_ui.plugins",
        written: "'a\"b\"c'",
        names: "a command line split by Python's shlex",
    },
    Case {
        head: B,
        line: "persistence = { type = \"couchbase\", couchbase = { url = \"cb.x\", user = \"svc:admin\" } }",
        key: "persistence.couchbase.user",
        written: "\"svc:admin\"",
        names: "the user-id of HTTP Basic authentication",
    },
    Case {
        head: B,
        line: "persistence = { type = \"couchbase\", couchbase = { url = \"cb.x\", user = \"adminĀ\" } }",
        key: "persistence.couchbase.user",
        written: "\"adminĀ\"",
        names: "Latin-1",
    },
    Case {
        head: B,
        line: "persistence = { type = \"sql\", sql = { host = \"db\", user = \"svc:x\" } }",
        key: "persistence.sql.user",
        written: "\"svc:x\"",
        names: "the user of the SQL URL",
    },
    Case {
        head: B,
        line: "persistence = { type = \"sql\", sql = { host = \"db\", user = \"a%41\" } }",
        key: "persistence.sql.user",
        written: "\"a%41\"",
        names: "the user of the SQL URL",
    },
    Case {
        head: B,
        line: "persistence = { type = \"sql\", sql = { host = \"db\", name = \"jans/x\" } }",
        key: "persistence.sql.name",
        written: "\"jans/x\"",
        names: "the database of the SQL URL",
    },
    Case {
        head: B,
        line: "config = { adapter = \"google\" }\ngoogle = { project_id = \"p\", secret_version_id = \"1/2\" }",
        key: "google.secret_version_id",
        written: "\"1/2\"",
        names: "Google Cloud resource name",
    },
    Case {
        head: B,
        line: "config = { adapter = \"google\" }\ngoogle = { project_id = \"my project\" }",
        key: "google.project_id",
        written: "\"my project\"",
        names: "Google Cloud resource name",
    },
    Case {
        head: B,
        line: "persistence = { type = \"spanner\", spanner = { instance_id = \"i/x\", database_id = \"d\" } }\ngoogle = { project_id = \"p\" }",
        key: "persistence.spanner.instance_id",
        written: "\"i/x\"",
        names: "a Cloud Spanner instance id",
    },
    Case {
        head: B,
        line: "secret = { vault = { addr = \"https://vault.example.org:8200\", verify = true, namespace = \"team \" } }",
        key: "secret.vault.namespace",
        written: "\"team \"",
        names: "an HTTP header value",
    },
];

impl Case {
    fn profile(&self) -> String {
        format!("{}{}\n", self.head, self.line)
    }

    /// The 1-based line and column of the value in [`Case::profile`].
    fn position(&self) -> (u64, u64) {
        let profile = self.profile();
        let (index, text) = (profile.lines().enumerate())
            .find(|(_, l)| l.contains(self.written))
            .expect("the value is in the profile");
        let column = text[..text.find(self.written).unwrap()].chars().count() + 1;
        (index as u64 + 1, column as u64)
    }
}

/// The diagnostics `svcgen validate --format json` reports for `profile`.
fn validate_json(profile: &str) -> (i32, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.toml"), profile).unwrap();
    let out = svcgen()
        .current_dir(dir.path())
        .args(["validate", "p.toml", "--format", "json"])
        .output()
        .unwrap();
    let diags: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap(), diags)
}

/// The error of `case`'s value: E0206 at the value, naming the key, the text it breaks, and
/// (after "use") what that text accepts.
fn assert_refused_at_the_value(case: &Case, code: i32, diags: &[Value]) {
    let (line, column) = case.position();
    let found = diags.iter().find(|d| {
        d["code"] == "E0206"
            && d["line"] == line
            && d["column"] == column
            && d["message"].as_str().unwrap().contains(case.key)
    });
    let Some(d) = found else {
        panic!("{}: no E0206 at {line}:{column}: {diags:#?}", case.key);
    };
    let message = d["message"].as_str().unwrap();
    assert!(message.contains(case.names), "{}: {message}", case.key);
    assert!(
        message.contains(": use ") || case.names.contains("slash"),
        "{}: the allowed set is not named: {message}",
        case.key
    );
    assert_eq!(code, 1, "{}: {diags:#?}", case.key);
}

#[test]
fn a_value_that_breaks_the_images_text_is_an_error_at_the_value() {
    for case in CASES {
        let (code, diags) = validate_json(&case.profile());
        assert_refused_at_the_value(case, code, &diags);
    }
}

/// What each text accepts still passes: `$` after the first character of a N1QL identifier, a
/// word that only contains a reserved word, an edition A scan URL without a trailing slash.
#[test]
fn values_each_text_takes_stay_valid() {
    for profile in [
        format!(
            "{B}persistence = {{ type = \"couchbase\", couchbase = {{ url = \"cb.x\", bucket_prefix = \"svc$1\" }} }}\n"
        ),
        format!(
            "{B}persistence = {{ type = \"couchbase\", couchbase = {{ url = \"cb.x\", bucket_prefix = \"svc_users\", user = \"admin\" }} }}\n"
        ),
        format!(
            "{A}scan = {{ auth_url = \"https://account.example.org\", api_url = \"https://scan.example.org/v1\" }}\n"
        ),
        format!(
            "{B}persistence = {{ type = \"sql\", sql = {{ host = \"db\", user = \"jans_admin\", name = \"jans-db\" }} }}\n"
        ),
    ] {
        let (code, diags) = validate_json(&profile);
        assert!(
            diags.iter().all(|d| d["code"] != "E0206"),
            "{profile}: {diags:#?}"
        );
        assert_eq!(code, 0, "{profile}: {diags:#?}");
    }
}

/// `--set` and a base layer (`extends`) reach the same check: the error points at the `--set`
/// text or at the base file's line.
#[test]
fn set_and_layers_values_are_checked_against_the_images_texts() {
    Test::new()
        .file("p.toml", B)
        .args([
            "validate",
            "p.toml",
            "--set",
            "persistence.type=couchbase",
            "--set",
            "persistence.couchbase.bucket_prefix=Default",
        ])
        .code(1)
        .stderr_has("E0206")
        .stderr_has("reserved word DEFAULT")
        .run();
    let base = format!("{B}[persistence.sql]\nhost = \"db\"\nuser = \"svc:x\"\n");
    Test::new()
        .file("base.toml", &base)
        .file(
            "p.toml",
            "extends = \"base.toml\"\n[persistence]\ntype = \"sql\"\n",
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("base.toml:5:8")
        .stderr_has("the user of the SQL URL")
        .run();
}

/// `svcgen lint` reads an existing deployment's variables through the same checks: a `.env`, a
/// compose file and a ConfigMap, each error at the value's place in its file.
#[test]
fn lint_of_env_compose_and_kubernetes_files_reports_them() {
    let env =
        "CN_PERSISTENCE_TYPE=couchbase\nCN_COUCHBASE_URL=cb.x\nCN_COUCHBASE_BUCKET_PREFIX=user\n";
    let compose = "services:\n  admin-ui:\n    image: x\n    environment:\n      CN_PERSISTENCE_TYPE: sql\n      CN_SQL_DB_HOST: db\n      CN_SQL_DB_NAME: \"jans?ssl=1\"\n";
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: admin-ui\ndata:\n  CN_CONFIG_ADAPTER: google\n  GOOGLE_PROJECT_ID: p\n  CN_GOOGLE_SECRET_NAME_PREFIX: \"a/b\"\n";
    for (name, text, at, names) in [
        (".env", env, "3:28", "an unquoted N1QL identifier"),
        (
            "compose.yaml",
            compose,
            "7:24",
            "the database of the SQL URL",
        ),
        ("cm.yaml", configmap, "8:34", "Secret Manager secret id"),
    ] {
        Test::new()
            .file(name, text)
            .args(["lint", name, "--edition", "B"])
            .code(1)
            .stderr_has(&format!("{name}:{at}"))
            .stderr_has(names)
            .run();
    }
}

/// The KRM function refuses the profile with an error result naming the text.
#[test]
fn krm_refuses_a_value_that_breaks_the_images_text() {
    let profile = format!(
        "{B}[persistence]\ntype = \"couchbase\"\ncouchbase = {{ url = \"cb.x\", bucket_prefix = \"select\" }}\n"
    );
    let list = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [],
        "functionConfig": {
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": "admin-ui-profile" },
            "data": { "profile": profile }
        }
    });
    let out = svcgen()
        .arg("krm")
        .write_stdin(serde_saphyr::to_string(&list).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("reserved word SELECT"), "{text}");
    assert!(text.contains("an unquoted N1QL identifier"), "{text}");
}

/// The language server publishes the error at the value.
#[test]
fn the_language_server_reports_a_value_that_breaks_the_images_text() {
    let dir = tempfile::tempdir().unwrap();
    let uri = file_uri(&dir.path().join("p.toml"));
    let text = format!("{A}admin_ui = {{ plugins = [\"audit'log\"] }}\n");
    let mut client = Client::opened(&uri, &text);
    let diagnostics = client.diagnostics(&uri, 1);
    let d = diagnostics
        .iter()
        .find(|d| d["code"] == "E0206")
        .unwrap_or_else(|| panic!("{diagnostics:#?}"));
    assert!(d["message"].as_str().unwrap().contains("shlex"), "{d:#}");
    assert_eq!(d["range"]["start"], json!({ "line": 2, "character": 24 }));
    client.shutdown();
}

/// `explain` names each text and what it accepts, with the reserved words listed.
#[test]
fn explain_names_the_text_and_its_allowed_set() {
    Test::new()
        .args(["explain", "persistence.couchbase.bucket_prefix"])
        .stdout_has("put raw into:  an unquoted N1QL identifier")
        .stdout_has("`$`")
        .stdout_has(" USER ")
        .run();
    Test::new()
        .args(["explain", "CN_CONFIG_API_BASE_URL"])
        .stdout_has("a JavaScript string literal of its app's env-config.js")
        .run();
}
