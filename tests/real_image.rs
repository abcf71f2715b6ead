//! Issue 21: a profile that validates is one the real image can start with. One test (or more)
//! per class of the issue, each with a profile that today's `main` accepts silently and that must
//! now fail or warn, or render what the image needs.

mod support;

use support::scenario::Test;

/// Class 9: `google.secret_name_prefix` and `google.secret_version_id` apply when either adapter
/// is `google` (spec 2.4), not only the secret adapter: no false W0301, and both are rendered.
#[test]
fn class9_google_secret_names_apply_with_the_google_config_adapter() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"google\"\n\
                   [google]\nproject_id = \"p\"\nsecret_name_prefix = \"team\"\nsecret_version_id = \"3\"\n";
    Test::new()
        .file("p.toml", profile)
        .args(["validate", "p.toml"])
        .stderr_lacks("W0301")
        .run();
    Test::new()
        .file("p.toml", profile)
        .args(["render", "-t", "dotenv", "p.toml"])
        .stdout_has("CN_GOOGLE_SECRET_NAME_PREFIX=team\n")
        .stdout_has("CN_GOOGLE_SECRET_VERSION_ID=3\n")
        .run();
}
