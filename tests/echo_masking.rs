//! Every echo of user input is masked: usage errors quoting `--set` or an unknown argument,
//! a URL password before a look-alike of `@`, the width of a masked value in the machine
//! formats, and the profile `import` writes.

use crate::support::scenario::Test;

const PASSPHRASE: &str = "Zq9-hunter-22";

fn google_profile() -> String {
    "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n[google]\nproject_id = \"p\"\n".to_string()
}

#[test]
fn a_secret_set_with_a_colon_or_a_blank_is_masked_in_the_usage_error_in_every_format() {
    for format in ["human", "json", "sarif", "gitlab"] {
        for set in [
            format!("google.secret_manager_passphrase: {PASSPHRASE}"),
            format!("google.secret_manager_passphrase {PASSPHRASE}"),
            format!("google.secret_manager_passphrse {PASSPHRASE}"),
            format!("CN_GOOGLE_SECRET_MANAGER_PASSPHRASE:{PASSPHRASE}"),
        ] {
            Test::new()
                .profile(&google_profile())
                .args([
                    "validate",
                    "profile.toml",
                    "--format",
                    format,
                    "--set",
                    &set,
                ])
                .code(2)
                .stderr_has("--set needs KEY=VALUE")
                .stderr_lacks(PASSPHRASE)
                .stdout_lacks(PASSPHRASE)
                .run();
        }
    }
    // An argument clap does not know, quoting the value after the secret's name.
    Test::new()
        .profile(&google_profile())
        .args(["validate", "profile.toml"])
        .arg(format!("--google.secret_manager_passphrase={PASSPHRASE}"))
        .code(2)
        .stderr_lacks(PASSPHRASE)
        .run();
}

#[test]
fn a_url_password_before_a_look_alike_of_at_is_masked_and_refused() {
    for at in ['\u{FF20}', '\u{FE6B}'] {
        let profile = format!(
            "edition = \"B\"\n[token_server]\nbase_url = \"https://admin:{PASSPHRASE}{at}auth.example.org\"\n"
        );
        for format in ["human", "json"] {
            Test::new()
                .profile(&profile)
                .args(["validate", "profile.toml", "--format", format])
                .code(1)
                .stderr_lacks(PASSPHRASE)
                .stdout_lacks(PASSPHRASE)
                .run();
        }
        Test::new()
            .profile(&profile)
            .args(["validate", "profile.toml"])
            .code(1)
            .stderr_has("a user name or password in a URL")
            .run();
    }
}

#[test]
fn a_masked_secret_s_width_is_not_shown_in_the_machine_formats() {
    let profile = format!(
        "{}secret_manager_passphrase = \"{PASSPHRASE}\"\n",
        google_profile()
    );
    let ran = Test::new()
        .profile(&profile)
        .args(["validate", "profile.toml", "--format", "json"])
        .run();
    let items: serde_json::Value = serde_json::from_slice(&ran.output.stdout).unwrap();
    let secret = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["code"] == "W0307")
        .expect("the secret written in clear is reported");
    assert!(secret["line"].is_number() && secret["column"].is_number());
    assert!(
        secret["end_column"].is_null() && secret["end_line"].is_null(),
        "the span's width would tell the secret's length: {secret}"
    );
    // A snippet of the source shows one mask whatever the value's length.
    let mut sources = svcgen::diag::source::Sources::new();
    let (id, _) = svcgen::profile::parse_text("p.toml".into(), profile.clone(), &mut sources);
    let shown = sources.get(id).shown(0..profile.len());
    assert!(
        shown.contains("secret_manager_passphrase = ****\n"),
        "{shown}"
    );
}

#[test]
fn import_defers_a_url_holding_a_password_instead_of_writing_it() {
    let env = format!(
        "CN_CONFIG_ADAPTER=consul\nCN_TOKEN_SERVER_BASE_URL=https://admin:{PASSPHRASE}@auth.example.org\nAPP_URL=https://bob:{PASSPHRASE}@h.example\n"
    );
    let ran = Test::new()
        .file("app.env", &env)
        .args(["import", "app.env", "--edition", "B", "-o", "profile.toml"])
        .code_is_not(0)
        .stderr_lacks(PASSPHRASE)
        .run();
    let written = std::fs::read_to_string(ran.path("profile.toml")).unwrap();
    assert!(!written.contains(PASSPHRASE), "{written}");
    assert!(
        written.contains("base_url = { deploy_env = \"CN_TOKEN_SERVER_BASE_URL\" }"),
        "{written}"
    );
    assert!(
        written.contains("APP_URL = { deploy_env = \"APP_URL\" }"),
        "{written}"
    );
}
