//! `migrate` of the edition A examples (with and without the LDAP backend) to edition B: the
//! result keeps comments and layout (snapshots), lists its changes and validates as edition B.

use crate::support;

use std::path::Path;
use svcgen::commands::migrate::{Migrated, migrate_to_b};
use svcgen::diag::source::Sources;
use svcgen::diag::{Code, Diagnostics, human};
use svcgen::model::Edition;
use svcgen::pipeline::check_text;

fn migrate_file(name: &str, ldap_to: Option<&str>) -> (Result<Migrated, Diagnostics>, Sources) {
    let path = Path::new("examples").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut sources = Sources::new();
    let result = migrate_to_b(
        &path.display().to_string(),
        &text,
        ldap_to,
        Some(Path::new("examples")),
        &mut sources,
    );
    (result, sources)
}

fn migrated(name: &str, ldap_to: Option<&str>) -> Migrated {
    match migrate_file(name, ldap_to) {
        (Ok(m), _) => m,
        (Err(diags), sources) => panic!("{name}: {}", human::render(&diags, &sources, false)),
    }
}

/// The result and its changes, as one snapshot.
fn report(m: &Migrated) -> String {
    let changes: String = m.changes.iter().map(|c| format!("# - {c}\n")).collect();
    format!("# changes:\n{changes}# ---\n{}", m.profile)
}

/// Every comment line of the original is still there, unless it sat in a removed table.
fn comments_kept(name: &str, m: &Migrated, removed_tables: &[&str]) {
    let text = std::fs::read_to_string(Path::new("examples").join(name)).unwrap();
    let mut in_removed = false;
    for line in text.lines() {
        if line.starts_with('[') {
            in_removed = removed_tables
                .iter()
                .any(|t| line.starts_with(&format!("[{t}")));
        }
        if line.trim_start().starts_with('#') && !in_removed {
            assert!(
                m.profile.contains(line),
                "{name}: lost the comment {line:?}"
            );
        }
    }
}

fn validates_as_b(m: &Migrated) {
    let mut sources = Sources::new();
    let checked = check_text(
        "migrated.toml",
        &m.profile,
        Some(Path::new("examples")),
        &mut sources,
    );
    let resolved = checked
        .resolved
        .unwrap_or_else(|| panic!("{}", human::render(&checked.diagnostics, &sources, false)));
    assert_eq!(resolved.edition, Edition::B);
}

#[test]
fn an_example_without_ldap() {
    let m = migrated("a-couchbase-google.toml", None);
    validates_as_b(&m);
    comments_kept("a-couchbase-google.toml", &m, &[]);
    assert!(
        m.profile
            .contains("base_url = \"https://auth.example.org\"")
    );
    insta::assert_snapshot!("a-couchbase-google", report(&m));
}

#[test]
fn ldap_without_a_target_is_an_error_naming_every_place() {
    let (result, sources) = migrate_file("a-ldap-plugins.toml", None);
    let diags = result.unwrap_err();
    let json = svcgen::diag::json::to_json(&diags, &sources);
    let places: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["code"], Code::NoEquivalent.id());
            format!("{}:{}", d["line"], d["column"])
        })
        .collect();
    // persistence.type = "ldap", and the url and use_ssl of [persistence.ldap] (an inline table).
    assert_eq!(places, ["14:8", "15:10", "15:38"]);
    assert!(human::render(&diags, &sources, false).contains("--ldap-to sql|spanner|couchbase"));

    let (result, sources) = migrate_file("a-hybrid-kubernetes.toml", None);
    let text = human::render(&result.unwrap_err(), &sources, false);
    for place in [
        "persistence.hybrid.default",
        "persistence.hybrid.user",
        "persistence.hybrid.site",
        "persistence.ldap.url",
    ] {
        assert!(text.contains(place), "{place} not named:\n{text}");
    }
}

#[test]
fn ldap_moved_to_sql_with_plugins_and_scan_removed() {
    let m = migrated("a-ldap-plugins.toml", Some("sql"));
    validates_as_b(&m);
    comments_kept("a-ldap-plugins.toml", &m, &["scan", "deploy.plugins"]);
    for gone in [
        "plugins =",
        "[deploy.plugins]",
        "[scan]",
        "ldap",
        "base_hostname",
    ] {
        assert!(
            !m.profile.contains(gone),
            "{gone} is still there:\n{}",
            m.profile
        );
    }
    insta::assert_snapshot!("a-ldap-plugins", report(&m));
}

#[test]
fn hybrid_ldap_moved_to_couchbase() {
    let m = migrated("a-hybrid-kubernetes.toml", Some("couchbase"));
    validates_as_b(&m);
    comments_kept("a-hybrid-kubernetes.toml", &m, &["persistence.ldap"]);
    insta::assert_snapshot!("a-hybrid-kubernetes", report(&m));
}

#[test]
fn ldap_to_must_be_a_backend_of_edition_b() {
    let (result, _) = migrate_file("a-ldap-plugins.toml", Some("ldap"));
    let diags = result.unwrap_err();
    assert_eq!(diags.items[0].code, Code::NotAllowed);
    assert!(
        diags.items[0]
            .help
            .iter()
            .any(|h| h.contains("sql, spanner, couchbase"))
    );
}

#[test]
fn comments_and_layout_around_changed_keys_are_kept() {
    let text = "# my profile\nedition = \"A\" # was A\n\n# where users log in\ntoken_server = { client_id = \"x\", base_hostname = \"auth.example.org\" } # inline\n\n[admin_ui]\n# the plugins\nplugins = [\"a\"] # two\nauth_method = \"casa\"\n";
    let mut sources = Sources::new();
    let m = migrate_to_b("p.toml", text, None, None, &mut sources).unwrap();
    assert_eq!(
        m.profile,
        "# my profile\nedition = \"B\" # was A\n\n# where users log in\ntoken_server = { client_id = \"x\", base_url = \"https://auth.example.org\" } # inline\n\n[admin_ui]\nauth_method = \"casa\"\n"
    );
    assert_eq!(m.changes.len(), 3, "{:?}", m.changes);
}

#[test]
fn dotted_keys_are_edited_in_place() {
    let text = "edition = \"A\"\npersistence.type = \"ldap\" # the directory\npersistence.ldap.url = \"ldap:1636\"\ntoken_server.base_hostname = \"auth.example.org\"\ntoken_server.client_id = \"x\"\n";
    let mut sources = Sources::new();
    let m = migrate_to_b("p.toml", text, Some("couchbase"), None, &mut sources).unwrap();
    assert_eq!(
        m.profile,
        "edition = \"B\"\npersistence.type = \"couchbase\" # the directory\ntoken_server.base_url = \"https://auth.example.org\"\ntoken_server.client_id = \"x\"\n"
    );
}

#[test]
fn an_edition_b_profile_is_left_as_it_is() {
    let text = std::fs::read_to_string("examples/b-hybrid.toml").unwrap();
    let mut sources = Sources::new();
    let m = migrate_to_b("b-hybrid.toml", &text, None, None, &mut sources).unwrap();
    assert_eq!(m.profile, text);
    assert!(m.changes.is_empty());
}

#[test]
fn every_edition_a_example_migrates() {
    for example in support::examples() {
        let name = example.file_name().unwrap().to_str().unwrap();
        if !name.starts_with("a-") {
            continue;
        }
        let m = migrated(name, Some("sql"));
        validates_as_b(&m);
    }
}

/// Edition A's image reads `GLUU_SSA_FILE` (the path of its SSA
/// file), B's does not: migrating removes it from `[env]` with the file's source, and says so;
/// another `[env]` variable stays.
#[test]
fn the_ssa_file_s_variable_goes_with_its_source() {
    let text = std::fs::read_to_string(support::repo().join("examples/a-ldap-plugins.toml"))
        .unwrap()
        + "\n[env]\nGLUU_SSA_FILE = \"/etc/ssa/x\"\nTZ = \"UTC\"\n";
    support::scenario::Test::new()
        .file("a.toml", &text)
        .args([
            "migrate",
            "--to",
            "B",
            "--ldap-to",
            "sql",
            "a.toml",
            "-o",
            "b.toml",
        ])
        .stderr_has("removed env.GLUU_SSA_FILE: read by edition A's image only")
        .run()
        .again()
        .args(["validate", "b.toml"])
        .stderr_lacks("GLUU_SSA_FILE")
        .stderr_has("`TZ`")
        .run();
}
