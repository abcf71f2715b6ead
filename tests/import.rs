//! `import` of existing deployments in `tests/import/`: a hand-written `.env`, compose files (map
//! and list forms, env_file precedence) and a Kubernetes ConfigMap + Deployment. Each imported
//! profile is a snapshot, and renders back to the environment the file gives the container.

use crate::support;

use std::path::{Path, PathBuf};
use svcgen::diag::source::Sources;
use svcgen::diag::{Code, Diagnostics, human};
use svcgen::import::{
    EnvValue, Format, ImportOptions, Imported, Read, ReadOptions, import, read_file, read_text,
};
use svcgen::model::Edition;
use svcgen::pipeline::check_text;
use svcgen::render::{EnvOptions, EnvVar, Target, Templates, environment, render};

/// A fixture's path relative to the repository (the tests' working folder), so that the file
/// names in snapshots do not depend on where the repository is.
fn fixture(name: &str) -> PathBuf {
    Path::new("tests/import").join(name)
}

/// Reads a fixture (as the CLI will: by path, relative to the repository, so names are stable).
fn read(name: &str, service: Option<&str>, sources: &mut Sources) -> Read {
    let path = fixture(name);
    let options = ReadOptions {
        service,
        ..ReadOptions::default()
    };
    read_file(&path, &options, sources).unwrap()
}

fn import_fixture(name: &str, service: Option<&str>) -> (Read, Imported, Sources) {
    let mut sources = Sources::new();
    let read = read(name, service, &mut sources);
    match import(&read, ImportOptions::default(), &sources) {
        Ok(imported) => (read, imported, sources),
        Err(diags) => panic!("{name}: {}", human::render(&diags, &sources, false)),
    }
}

/// Diagnostics as `CODE file:line:col message` lines, paths relative to the repository.
fn listing(diags: &Diagnostics, sources: &Sources) -> String {
    let root = format!("{}/", support::repo().display());
    let json = svcgen::diag::json::to_json(diags, sources);
    json.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}:{}:{} {}",
                d["code"].as_str().unwrap(),
                d["file"].as_str().unwrap_or("-").replace(&root, ""),
                d["line"],
                d["column"],
                d["message"].as_str().unwrap()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The environment of a profile, rendered.
fn env_of(profile: &str) -> (svcgen::resolve::Resolved, Vec<EnvVar>) {
    let mut sources = Sources::new();
    let checked = check_text("imported.toml", profile, None, &mut sources);
    let resolved = checked.resolved.unwrap_or_else(|| {
        panic!(
            "{}\n{profile}",
            human::render(&checked.diagnostics, &sources, false)
        )
    });
    let env = environment(&resolved, EnvOptions::default()).unwrap();
    (resolved, env)
}

/// Two values are the same to the container (the hybrid mapping: the same JSON).
fn same(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (serde_json::from_str::<serde_json::Value>(a), serde_json::from_str::<serde_json::Value>(b)),
            (Ok(x @ serde_json::Value::Object(_)), Ok(y)) if x == y
        )
}

/// The imported profile, rendered to the input's own format and read back, gives every variable
/// the input gave the container, with the same value (secrets as references).
fn renders_back(read: &Read, imported: &Imported, target: Target, file: &str) {
    let (resolved, env) = env_of(&imported.profile);
    let text = render(target, &resolved, &env, &Templates::load(None).unwrap()).unwrap();
    let mut sources = Sources::new();
    let back = read_text(file, &text, &ReadOptions::default(), &mut sources);
    for entry in &read.entries {
        let var = env.iter().find(|v| v.name == entry.name);
        let got = back.entries.iter().find(|e| e.name == entry.name);
        match (&entry.value, var, got) {
            (EnvValue::Text(want), Some(_), Some(got)) => {
                let got = got.value.text().unwrap();
                assert!(
                    same(want, got),
                    "{}: {want:?} came back as {got:?}",
                    entry.name
                );
            }
            (EnvValue::FromEnv { var: from, .. }, Some(var), _) => {
                assert_eq!(
                    var.supply_as.as_deref(),
                    Some(from.as_str()),
                    "{}",
                    entry.name
                )
            }
            (EnvValue::SecretRef { .. }, Some(var), Some(got)) => {
                assert!(var.value.is_none(), "{}", entry.name);
                assert!(
                    matches!(got.value, EnvValue::SecretRef { .. }),
                    "{}",
                    entry.name
                );
            }
            other => panic!("{} does not come back: {other:?}\n{text}", entry.name),
        }
    }
}

#[test]
fn a_hand_written_env_file() {
    let (read, imported, sources) = import_fixture("hand-written.env", None);
    assert_eq!(read.format, Format::Dotenv);
    assert_eq!(imported.edition, Edition::B);
    insta::assert_snapshot!("hand-written.env", imported.profile);
    insta::assert_snapshot!(
        "hand-written.env.diagnostics",
        listing(&imported.diagnostics, &sources)
    );
    renders_back(&read, &imported, Target::Dotenv, ".env");
}

#[test]
fn a_compose_service_with_a_map_environment() {
    let (read, imported, sources) = import_fixture("compose-map.yml", Some("admin-ui"));
    assert_eq!(read.format, Format::Compose);
    insta::assert_snapshot!("compose-map.yml", imported.profile);
    insta::assert_snapshot!(
        "compose-map.yml.diagnostics",
        listing(&imported.diagnostics, &sources)
    );
    renders_back(&read, &imported, Target::Compose, "docker-compose.yml");
}

#[test]
fn a_compose_file_with_several_services_needs_one_chosen() {
    let mut sources = Sources::new();
    let read = read("compose-map.yml", None, &mut sources);
    let diags = import(&read, ImportOptions::default(), &sources).unwrap_err();
    let text = listing(&diags, &sources);
    assert!(
        text.contains("E0220 tests/import/compose-map.yml:2:1 this compose file has 2 services"),
        "{text}"
    );
    assert!(human::render(&diags, &sources, false).contains("services: admin-ui, cache"));
}

#[test]
fn a_compose_service_with_a_list_environment() {
    let (read, imported, sources) = import_fixture("compose-list.yml", None);
    assert_eq!(imported.edition, Edition::A);
    insta::assert_snapshot!("compose-list.yml", imported.profile);
    insta::assert_snapshot!(
        "compose-list.yml.diagnostics",
        listing(&imported.diagnostics, &sources)
    );
    renders_back(&read, &imported, Target::Compose, "docker-compose.yml");
}

#[test]
fn env_files_apply_in_order_and_environment_wins() {
    let (read, imported, sources) = import_fixture("compose-env-file/docker-compose.yml", None);
    let value = |name: &str| {
        read.entries
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.value.text())
            .map(str::to_string)
    };
    assert_eq!(value("CN_SQL_DB_HOST").as_deref(), Some("db.override"));
    assert_eq!(value("CN_SQL_DB_DIALECT").as_deref(), Some("pgsql"));
    assert_eq!(value("CN_SQL_DB_NAME").as_deref(), Some("site"));
    insta::assert_snapshot!("compose-env-file", imported.profile);
    insta::assert_snapshot!(
        "compose-env-file.diagnostics",
        listing(&imported.diagnostics, &sources)
    );
    renders_back(&read, &imported, Target::Compose, "docker-compose.yml");
}

#[test]
fn a_configmap_and_the_deployment_that_reads_it() {
    let (read, imported, sources) = import_fixture("k8s-deployment.yaml", None);
    assert_eq!(read.format, Format::Kubernetes);
    insta::assert_snapshot!("k8s-deployment.yaml", imported.profile);
    insta::assert_snapshot!(
        "k8s-deployment.yaml.diagnostics",
        listing(&imported.diagnostics, &sources)
    );
    renders_back(&read, &imported, Target::K8s, "k8s.yaml");
}

#[test]
fn keep_defaults_writes_every_value_read() {
    let mut sources = Sources::new();
    let read = read("hand-written.env", None, &mut sources);
    let all = import(
        &read,
        ImportOptions {
            keep_defaults: true,
            ..ImportOptions::default()
        },
        &sources,
    )
    .unwrap();
    assert!(
        all.profile.contains("sleep_duration = 10"),
        "{}",
        all.profile
    );
    let (_, imported, _) = import_fixture("hand-written.env", None);
    assert!(!imported.profile.contains("sleep_duration"));
}

#[test]
fn an_environment_that_does_not_decide_the_edition_needs_one() {
    let mut sources = Sources::new();
    let read = read_text(
        ".env",
        "CN_CONFIG_ADAPTER=consul\n",
        &ReadOptions::default(),
        &mut sources,
    );
    let diags = import(&read, ImportOptions::default(), &sources).unwrap_err();
    assert_eq!(diags.items[0].code, Code::Edition);
    assert!(diags.items[0].help.iter().any(|h| h.contains("--edition")));
    let imported = import(
        &read,
        ImportOptions {
            edition: Some(Edition::A),
            ..ImportOptions::default()
        },
        &sources,
    )
    .unwrap();
    assert!(imported.profile.contains("edition = \"A\""));
}

#[test]
fn a_passphrase_in_clear_text_never_reaches_the_profile() {
    let mut sources = Sources::new();
    let text = "CN_SECRET_ADAPTER=google\nGOOGLE_PROJECT_ID=p\nCN_GOOGLE_SECRET_MANAGER_PASSPHRASE=hunter2-passphrase\nCN_AUTH_BASE_URL=https://a.example\n";
    let read = read_text(".env", text, &ReadOptions::default(), &mut sources);
    let imported = import(&read, ImportOptions::default(), &sources).unwrap();
    assert!(
        !imported.profile.contains("hunter2"),
        "{}",
        imported.profile
    );
    assert!(
        imported.profile.contains(
            "secret_manager_passphrase = { env = \"CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\" }"
        ),
        "{}",
        imported.profile
    );
    let listing = listing(&imported.diagnostics, &sources);
    assert!(listing.contains("W0307 .env:3:37"), "{listing}");
}

/// A whole placeholder is a deploy-time value, reported once; a value no profile can
/// hold is an error at its place.
#[test]
fn values_a_profile_cannot_hold_are_errors_at_their_place() {
    let mut sources = Sources::new();
    let text = "CN_AUTH_BASE_URL=https://a.example\nCN_SQL_DB_PORT=${DB_PORT}\nCN_SQL_DB_DIALECT=postgres\nCN_SQL_DB_USER=a${USER}b\n";
    let read = read_text(".env", text, &ReadOptions::default(), &mut sources);
    let diags = import(&read, ImportOptions::default(), &sources).unwrap_err();
    let listing = listing(&diags, &sources);
    assert!(listing.contains("W0312 .env:2:16"), "{listing}");
    assert!(!listing.contains("E0203 .env:2:16"), "{listing}");
    assert!(listing.contains("E0204 .env:3:19"), "{listing}");
    // Part of a value is not a deploy-time value: kept as literal text, and said so.
    assert!(listing.contains("W0312 .env:4:17"), "{listing}");
}

/// A file that cannot be read whole (here: a missing `env_file`) still has its values checked:
/// every mistake is reported at once, not one run after another.
#[test]
fn an_unreadable_part_does_not_hide_the_value_errors() {
    let mut sources = Sources::new();
    let text = "services:\n  ui:\n    env_file: [missing.env]\n    environment:\n      CN_AUTH_BASE_URL: https://a.example\n      CN_SQL_DB_DIALECT: postgres\n";
    let options = ReadOptions {
        format: Some(Format::Compose),
        ..ReadOptions::default()
    };
    let read = read_text("compose.yml", text, &options, &mut sources);
    let diags = import(&read, ImportOptions::default(), &sources).unwrap_err();
    let listing = listing(&diags, &sources);
    assert!(listing.contains("E0220 compose.yml:3:16"), "{listing}");
    assert!(listing.contains("E0204 compose.yml:6:26"), "{listing}");
}

/// Where an import fails, it reports what lint reports on the same file (lint's own input is the
/// same reading): the two never disagree on a value. Left out: placeholders (lint cannot know
/// their value; an import keeps them as literal text) and the undecided edition (a question an
/// import must ask, not a problem lint reports).
#[test]
fn a_failed_import_reports_what_lint_reports() {
    let mut compared = 0;
    for entry in std::fs::read_dir(support::repo().join("tests/lint")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("${") {
            continue;
        }
        let edition = support::expect::Fixture::read(&path)
            .edition
            .and_then(|e| Edition::parse(&e));
        let mut sources = Sources::new();
        let read = read_file(&path, &ReadOptions::default(), &mut sources).unwrap();
        let linted = svcgen::commands::lint::lint(&read, edition, &sources);
        let options = ImportOptions {
            edition,
            ..ImportOptions::default()
        };
        let Err(failed) = import(&read, options, &sources) else {
            assert!(
                !linted.has_errors(),
                "{}: lint fails, import not",
                path.display()
            );
            continue;
        };
        let keep = |d: &&svcgen::diag::Diagnostic| d.code != Code::Edition;
        let lines = |diags: &Diagnostics| {
            let kept = Diagnostics {
                items: diags.items.iter().filter(keep).cloned().collect(),
            };
            listing(&kept, &sources)
        };
        assert_eq!(lines(&failed), lines(&linted), "{}", path.display());
        compared += 1;
    }
    assert!(compared >= 10, "only {compared} failed imports compared");
}

#[test]
fn every_fixture_is_used() {
    let mut names: Vec<String> = std::fs::read_dir(support::repo().join("tests/import"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "compose-env-file",
            "compose-list.yml",
            "compose-map.yml",
            "hand-written.env",
            "k8s-deployment.yaml"
        ]
    );
}
