//! A URL-shaped value is checked the way its client library reads it, and
//! every command that checks a profile or an environment says the same (`validate`, `render`,
//! `krm`, `lint`, the language server). Each refused profile here passed `validate` on the main
//! branch the class was closed on, or was refused for a wrong reason ("a bare host name has no
//! port" for a bracketed IPv6 address); each accepted one was refused there.

use crate::support;

use serde_json::Value;
use support::lsp::{Client, file_uri};
use support::scenario::Test;

/// A clean edition B profile (Kubernetes adapters, an SQL host) to which a case adds its table.
const B: &str = "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db.example.org\"\n";

/// A clean edition A profile (Kubernetes adapters, an LDAP address, a token server host).
const A: &str = "edition = \"A\"\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.ldap]\nurl = \"ldap.example.org:1636\"\n";

/// A profile with a vault secret adapter whose AppRole files have a source, and `addr`.
fn vault(addr: &str) -> String {
    format!(
        "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"vault\"\n\
         [secret.vault]\naddr = \"{addr}\"\nverify = true\n[persistence.sql]\nhost = \"db.example.org\"\n\
         [deploy.files]\n\"secret.vault.role_id_file\" = {{ secret = \"approle\", key = \"role_id\" }}\n\
         \"secret.vault.secret_id_file\" = {{ secret = \"approle\", key = \"secret_id\" }}\n"
    )
}

/// A profile refused with `wanted` in its message (and never `unwanted`), by `validate`,
/// `validate --format json`, `render -t k8s` and `krm`.
fn refused_everywhere(profile: &str, wanted: &str, unwanted: &[&str]) {
    let mut ran = Test::new()
        .file("p.toml", profile)
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("E0206")
        .stderr_has(wanted);
    for fragment in unwanted {
        ran = ran.stderr_lacks(fragment);
    }
    ran.run();
    let json = Test::new()
        .file("p.toml", profile)
        .args(["validate", "--format", "json", "p.toml"])
        .code(1)
        .stdout_has(wanted)
        .run();
    for fragment in unwanted {
        assert!(!json.stdout().contains(fragment), "{}", json.stdout());
    }
    Test::new()
        .file("p.toml", profile)
        .args(["render", "-t", "k8s", "p.toml"])
        .code_is_not(0)
        .stderr_has(wanted)
        .run();
    let krm = (Test::new().stdin(&support::krm_list(profile)).arg("krm"))
        .code_is_not(0)
        .run();
    assert!(krm.stdout().contains(wanted), "krm: {}", krm.stdout());
    for fragment in unwanted {
        assert!(!krm.stdout().contains(fragment), "krm: {}", krm.stdout());
    }
}

/// A bracketed IPv6 address, with or without a zone id, is refused for what is wrong with it
/// in the variable's client, never told it "has no port" (on main: "a bare host name has no
/// port", with "did you mean "[fe80"?").
#[test]
fn ipv6_literals_are_refused_for_their_own_reason() {
    let no_port = ["has no port", "\"[fe80\""];
    let cases = [
        (
            format!("{B}[config.consul]\nhost = \"[fe80::1%eth0]\"\n").replace(
                "[config]\nadapter = \"kubernetes\"\n",
                "[config]\nadapter = \"consul\"\n",
            ),
            "an IPv6 zone id (`%eth0`) is not accepted",
        ),
        (
            format!("{A}[token_server]\nbase_hostname = \"[fe80::1%eth0]\"\n"),
            "an IPv6 zone id (`%eth0`) is not accepted",
        ),
        (
            vault("https://[fe80::1%25eth0]:8200"),
            "an IPv6 zone id (`%25eth0`) is not accepted",
        ),
        (
            format!("{B}[token_server]\nbase_url = \"https://[fe80::1%25eth0]\"\n"),
            "an IPv6 zone id (`%25eth0`) is not accepted",
        ),
        (
            B.replace("db.example.org", "fe80::1%eth0"),
            "an IPv6 zone id (`%eth0`) is not accepted",
        ),
        (
            A.replace("ldap.example.org:1636", "[fe80::1%eth0]:1636"),
            "cannot read an IPv6 address",
        ),
        (
            format!("{B}[config.consul]\nhost = \"[fd00::1]:8500\"\n").replace(
                "[config]\nadapter = \"kubernetes\"\n",
                "[config]\nadapter = \"consul\"\n",
            ),
            "give the address in brackets alone",
        ),
    ];
    for (profile, wanted) in &cases {
        refused_everywhere(profile, wanted, &no_port);
    }
}

/// A user name or password in a URL is refused (on main: valid, and written in clear into the
/// ConfigMap); no output shows the password, not even a short one.
#[test]
fn a_credential_in_a_url_is_refused_and_never_shown() {
    for (profile, password) in [
        (
            vault("https://user:hunter2@vault.example.org:8200"),
            "hunter2",
        ),
        (
            format!("{B}[auth_server]\nbase_url = \"https://admin:S3cret@auth.example.org\"\n"),
            "S3cret",
        ),
        (
            format!("{B}[auth_server]\nbase_url = \"https://admin:pw@auth.example.org\"\n"),
            ":pw@",
        ),
    ] {
        refused_everywhere(&profile, "a user name or password in a URL", &[password]);
        let human = Test::new()
            .file("p.toml", &profile)
            .args(["validate", "p.toml"])
            .code(1)
            .stderr_has(":****@")
            .stderr_has("did you mean \"https://")
            .run();
        assert!(!human.stderr().contains(password), "{}", human.stderr());
    }
    // In an environment the container reads: lint masks it in the message and the snippet.
    let ran = Test::new()
        .file(
            "app.env",
            "CN_SECRET_ADAPTER=vault\nCN_SECRET_VAULT_ADDR=https://u:hunter2@vault.example.org:8200\n",
        )
        .args(["lint", "app.env"])
        .code_is_not(0)
        .stderr_has("a user name or password in a URL")
        .stderr_has("CN_SECRET_VAULT_ADDR=https://u:****@vault")
        .run();
    assert!(!ran.stderr().contains("hunter2"), "{}", ran.stderr());
}

/// The vault address is a base hvac appends `/v1/...` to: its path is compared as the server
/// reads it, percent-escapes decoded and `.`/empty segments resolved (on main: valid).
#[test]
fn vault_v1_is_found_however_it_is_written() {
    for (addr, fixed) in [
        (
            "https://vault.example.org:8200/%761",
            "https://vault.example.org:8200",
        ),
        (
            "https://vault.example.org:8200/v1/.",
            "https://vault.example.org:8200",
        ),
        (
            "https://vault.example.org:8200/p/v1//",
            "https://vault.example.org:8200/p",
        ),
        (
            "https://vault.example.org:8200/%2Fv%31",
            "https://vault.example.org:8200",
        ),
    ] {
        let profile = vault(addr);
        refused_everywhere(&profile, "a path ending in /v1 becomes /v1/v1/", &[]);
        Test::new()
            .file("p.toml", &profile)
            .args(["validate", "p.toml"])
            .code(1)
            .stderr_has(&format!("did you mean \"{fixed}\"?"))
            .run();
    }
}

/// A URL holds only what RFC 3986 allows unencoded (on main: `scan.api_url` took them all), and
/// a `%` starts an escape.
#[test]
fn characters_a_url_cannot_hold_are_refused() {
    for bad in ["<", ">", "{", "}", "|", "`", "^"] {
        let profile = format!("{A}[scan]\napi_url = \"https://scan.example.org/a{bad}b\"\n");
        refused_everywhere(&profile, "cannot stand in a URL (RFC 3986)", &[]);
    }
    // A quote or backslash also breaks the JSON the image writes the scan URL into:
    // that reason comes first.
    for bad in ["\\\"", "\\\\"] {
        let profile = format!("{A}[scan]\napi_url = \"https://scan.example.org/a{bad}b\"\n");
        refused_everywhere(&profile, "breaks a JSON string", &[]);
    }
    refused_everywhere(
        &format!("{A}[scan]\napi_url = \"https://scan.example.org/100%\"\n"),
        "starts a percent-escape",
        &[],
    );
    refused_everywhere(
        &format!("{B}[token_server]\ntoken_endpoint = \"/token/{{id}}\"\n"),
        "cannot stand in a URL (RFC 3986)",
        &[],
    );
}

/// Refusals with the right reason, or none: an upper-case scheme is the same scheme, written in
/// lower case because the image passes the text on (on main: "is not http or https"); a host
/// name ending with the root's `.` is one every client resolves (on main: "not a host name");
/// an LDAP address without a port says the spec's form asks for it and which port the image
/// uses.
#[test]
fn valid_urls_are_accepted_and_odd_ones_refused_for_their_own_reason() {
    refused_everywhere(
        &format!("{B}[auth_server]\nbase_url = \"HTTPS://auth.example.org\"\n"),
        "write the scheme in lower case",
        &["is not http or https"],
    );
    for profile in [
        vault("https://vault.example.org.:8200"),
        B.replace("db.example.org", "db."),
        format!("{B}[auth_server]\nbase_url = \"https://auth.example.org.\"\n"),
        A.replace("ldap.example.org:1636", "ldap.example.org.:1636"),
    ] {
        Test::new()
            .file("p.toml", &profile)
            .args(["validate", "p.toml"])
            .code(0)
            .stderr_lacks("error")
            .run();
    }
    refused_everywhere(
        &A.replace("ldap.example.org:1636", "ldap.example.org"),
        "the spec's form of this value is host:port",
        &[],
    );
    Test::new()
        .file("p.toml", &A.replace("ldap.example.org:1636", "ldap.example.org"))
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("the image ignores this port and connects to 1636 when `persistence.ldap.use_ssl` is true, 1389 when it is false")
        .run();
}

/// The language server publishes the same diagnostic (it calls the same check), without the
/// password.
#[test]
fn the_editor_refuses_a_url_as_validate_does() {
    let dir = tempfile::tempdir().unwrap();
    let uri = file_uri(&dir.path().join("p.toml"));
    let profile = vault("https://user:hunter2@[fe80::1%25eth0]:8200");
    let mut client = Client::opened(&uri, &profile);
    let diagnostic: Value = client.only_diagnostic(&uri, 1);
    let message = diagnostic["message"].as_str().unwrap();
    assert_eq!(diagnostic["code"], "E0206");
    assert!(
        message.contains("a user name or password in a URL"),
        "{message}"
    );
    assert!(!message.contains("hunter2"), "{message}");
    let zone = B.replace("db.example.org", "[fe80::1%eth0]");
    client.change(&uri, 2, &zone);
    let diagnostic = &client.diagnostics(&uri, 2)[0];
    let message = diagnostic["message"].as_str().unwrap();
    assert!(message.contains("zone id (`%eth0`)"), "{message}");
    assert!(!message.contains("has no port"), "{message}");
    assert_eq!(client.shutdown(), Some(0));
}

/// A password holding `/`, `?` or `#` is still a password: refused for the credential it is,
/// never shown (on main: "`Zq9` is not a port number", the whole URL in clear in the snippet,
/// every format, `lint` and the editor).
#[test]
fn a_password_holding_a_url_delimiter_is_refused_and_never_shown() {
    let hidden = ["Zq9", "Xw7", "not a port number"];
    for delimiter in ['/', '?', '#'] {
        let url = format!("https://admin:Zq9{delimiter}Xw7@auth.example.org");
        let profile = format!("{B}[auth_server]\nbase_url = \"{url}\"\n");
        refused_everywhere(&profile, "a user name or password in a URL", &hidden);
        for format in ["sarif", "gitlab"] {
            let ran = Test::new()
                .file("p.toml", &profile)
                .args(["validate", "--format", format, "p.toml"])
                .code(1)
                .stdout_has("a user name or password in a URL")
                .run();
            for fragment in hidden {
                assert!(
                    !ran.stdout().contains(fragment),
                    "{format}: {}",
                    ran.stdout()
                );
            }
        }
        let lint = Test::new()
            .file("app.env", &format!("CN_AUTH_BASE_URL={url}\n"))
            .args(["lint", "app.env"])
            .code_is_not(0)
            .stderr_has("a user name or password in a URL")
            .run();
        for fragment in hidden {
            assert!(!lint.stderr().contains(fragment), "{}", lint.stderr());
        }
        let dir = tempfile::tempdir().unwrap();
        let uri = file_uri(&dir.path().join("p.toml"));
        let mut client = Client::opened(&uri, &profile);
        let diagnostic: Value = client.only_diagnostic(&uri, 1);
        let message = diagnostic["message"].as_str().unwrap();
        assert!(
            message.contains("a user name or password in a URL"),
            "{message}"
        );
        for fragment in hidden {
            assert!(!message.contains(fragment), "{message}");
        }
        assert_eq!(client.shutdown(), Some(0));
    }
}

/// A password written escaped (`\"` in TOML or a quoted dotenv value) or holding a blank is
/// masked in the snippet too, where the line shows it as written, not as read (on main: the
/// message masked it, the snippet under it showed the raw line).
#[test]
fn a_password_written_escaped_is_masked_in_the_snippet() {
    let check = |ran: support::scenario::Ran| {
        for fragment in ["Zq9", "Xw7"] {
            assert!(!ran.stderr().contains(fragment), "{}", ran.stderr());
        }
    };
    for written in [
        r#""https://admin:Zq9\"Xw7@auth.example.org""#,
        r#""https://admin:Zq9 Xw7@auth.example.org""#,
        r#""https://admin:Zq9\u0041Xw7@auth.example.org""#,
    ] {
        let profile = format!("{B}[auth_server]\nbase_url = {written}\n");
        check(
            Test::new()
                .file("p.toml", &profile)
                .args(["validate", "p.toml"])
                .code(1)
                .stderr_has("E0206")
                .run(),
        );
        let env = format!("CN_AUTH_BASE_URL={}\n", written.replace(r"\u0041", "A"));
        check(
            Test::new()
                .file("app.env", &env)
                .args(["lint", "app.env"])
                .code_is_not(0)
                .stderr_has("E0206")
                .run(),
        );
        let compose = format!(
            "services:\n  ui:\n    image: x\n    environment:\n      CN_AUTH_BASE_URL: {written}\n"
        );
        check(
            Test::new()
                .file("compose.yaml", &compose)
                .args(["lint", "compose.yaml"])
                .code_is_not(0)
                .stderr_has("E0206")
                .run(),
        );
    }
    for value in [
        "https://admin:Zq9\"Xw7@auth.example.org",
        "https://admin:Zq9 Xw7@auth.example.org",
    ] {
        check(
            Test::new()
                .file("p.toml", B)
                .arg("validate")
                .arg("--set")
                .arg(format!("auth_server.base_url={value}"))
                .arg("p.toml")
                .code(1)
                .stderr_has("E0206")
                .run(),
        );
    }
}
