//! `init`: the starting profile of every edition × config adapter × secret adapter × persistence
//! type (all from the model) validates with svcgen, renders the `.env` target, stays valid with
//! every default uncommented, and passes `taplo check` against the checked-in editor schema.

use crate::support;

use std::path::Path;
use std::process::Command;
use svcgen::commands::init::{
    CONFIG_ADAPTER_KEY, InitOptions, SECRET_ADAPTER_KEY, starting_profile,
};
use svcgen::diag::source::Sources;
use svcgen::model::{Edition, Model};
use svcgen::pipeline::{Checked, check_text};
use svcgen::render::{EnvOptions, Target, Templates, environment, render};

/// The allowed values of a selector in an edition, from the model.
fn allowed(key: &str, edition: Edition) -> Vec<String> {
    Model::get()
        .var_by_key(key, edition)
        .and_then(|v| v.allowed.clone())
        .unwrap_or_else(|| panic!("`{key}` has allowed values in edition {edition}"))
}

/// Every combination of choices, with a name for messages and files.
pub(crate) fn combinations(schema_ref: &str) -> Vec<(String, InitOptions)> {
    let persistence_key = &Model::get().backends.selector;
    let mut out = Vec::new();
    for edition in Edition::ALL {
        for config in allowed(CONFIG_ADAPTER_KEY, edition) {
            for secret in allowed(SECRET_ADAPTER_KEY, edition) {
                for persistence in allowed(persistence_key, edition) {
                    let name = format!("{edition}-{config}-{secret}-{persistence}");
                    let options = InitOptions {
                        edition,
                        config_adapter: Some(config.clone()),
                        secret_adapter: Some(secret.clone()),
                        persistence: Some(persistence),
                        schema_ref: schema_ref.to_string(),
                    };
                    out.push((name, options));
                }
            }
        }
    }
    out
}

fn check(name: &str, text: &str) -> (Checked, Sources) {
    let mut sources = Sources::new();
    let checked = check_text(name, text, None, &mut sources);
    (checked, sources)
}

fn assert_valid(name: &str, text: &str) -> svcgen::resolve::Resolved {
    let (checked, sources) = check(name, text);
    if checked.diagnostics.has_errors() {
        panic!(
            "{name} is invalid:\n{}\n--- profile ---\n{text}",
            svcgen::diag::human::render(&checked.diagnostics, &sources, false)
        );
    }
    checked.resolved.expect("no error means a resolution")
}

#[test]
fn every_combination_validates_and_renders() {
    let templates = Templates::load(None).unwrap();
    let model = Model::get();
    let combos = combinations("./schemas/profile.schema.json");
    assert_eq!(
        combos.len(),
        3 * 3 * 3 + 3 * 3 * 4,
        "the model's choices changed"
    );
    for (name, options) in combos {
        let text = starting_profile(&options).unwrap_or_else(|e| panic!("{name}: {e}"));
        let resolved = assert_valid(&name, &text);
        assert_eq!(resolved.edition, options.edition, "{name}");
        // The choices are in force, written explicitly.
        let chosen = [
            (CONFIG_ADAPTER_KEY, &options.config_adapter),
            (SECRET_ADAPTER_KEY, &options.secret_adapter),
            (model.backends.selector.as_str(), &options.persistence),
        ];
        for (key, value) in chosen {
            let var = resolved.vars.iter().find(|v| v.var.key == key);
            let var = var.unwrap_or_else(|| panic!("{name}: `{key}` in the env"));
            assert!(var.origin.is_some(), "{name}: `{key}` is set explicitly");
            assert_eq!(var.value.env_text().as_ref(), value.as_ref(), "{name}");
        }
        // Every variable of the resolved env has its key in the profile, set or commented out.
        for var in &resolved.vars {
            let leaf = var.var.leaf();
            let listed = text.lines().any(|l| {
                let l = l.strip_prefix("# ").unwrap_or(l);
                l.starts_with(&format!("{leaf} = "))
            });
            assert!(listed, "{name}: `{}` is not in the profile", var.var.key);
        }
        let env = environment(&resolved, EnvOptions::default())
            .unwrap_or_else(|d| panic!("{name}: {d:?}"));
        let dotenv = render(Target::Dotenv, &resolved, &env, &templates)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for (key, _) in chosen {
            let env_name = &model.var_by_key(key, options.edition).unwrap().env;
            assert!(
                dotenv
                    .lines()
                    .any(|l| l.starts_with(&format!("{env_name}="))),
                "{name}: {env_name} in the .env:\n{dotenv}"
            );
        }
    }
}

/// Uncommenting every key that shows a default keeps the profile valid: defaults are written with
/// the right TOML type.
#[test]
fn every_default_uncommented_still_validates() {
    for (name, options) in combinations("./schemas/profile.schema.json") {
        let text = starting_profile(&options).unwrap();
        let uncommented: String = text
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest) if is_key_with_value(rest) => rest,
                _ => l,
            })
            .map(|l| format!("{l}\n"))
            .collect();
        assert_ne!(uncommented, text, "{name}: some default is commented out");
        assert_valid(&format!("{name} (uncommented)"), &uncommented);
    }
}

/// `key = value` with a value (not the `key = ` of a key without a default).
fn is_key_with_value(line: &str) -> bool {
    let Some((key, value)) = line.split_once(" = ") else {
        return false;
    };
    !value.trim().is_empty()
        && !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[test]
fn a_choice_the_edition_does_not_allow_is_refused_with_the_allowed_values() {
    let mut options = InitOptions::new(Edition::A, "schema.json");
    options.config_adapter = Some("etcd".to_string());
    let err = starting_profile(&options).unwrap_err();
    assert!(err.contains("etcd"), "{err}");
    assert!(
        err.contains(&allowed(CONFIG_ADAPTER_KEY, Edition::A).join(", ")),
        "{err}"
    );
}

#[test]
fn the_schema_line_comes_first_and_is_the_given_reference() {
    let options = InitOptions::new(Edition::B, "../../my/profile.schema.json");
    let text = starting_profile(&options).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("#:schema ../../my/profile.schema.json")
    );
}

#[test]
fn one_starting_profile_per_edition() {
    for edition in Edition::ALL {
        let options = InitOptions::new(edition, "./schemas/profile.schema.json");
        let text = starting_profile(&options).unwrap();
        insta::assert_snapshot!(format!("init-{edition}"), text);
    }
}

fn taplo(exe: &Path, files: &[std::path::PathBuf]) -> (bool, String) {
    let output = Command::new(exe)
        .args(["check", "--no-auto-config", "--colors", "never"])
        .args(files)
        .output()
        .expect("taplo runs");
    let text = support::printed(&output);
    (output.status.success(), text)
}

/// All profiles are checked by one taplo run; each names the schema by an absolute `file://` URL
/// in its `#:schema` line, which is what the option is for.
#[test]
fn every_combination_passes_taplo_against_the_editor_schema() {
    let Some(exe) = support::tool("taplo") else {
        return;
    };
    let schema = support::repo().join("schemas/profile.schema.json");
    let schema_ref = format!("file://{}", schema.display());
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, options) in combinations(&schema_ref) {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(&path, starting_profile(&options).unwrap()).unwrap();
        files.push(path);
    }
    let (ok, output) = taplo(&exe, &files);
    if !ok {
        let failing: Vec<_> = files
            .iter()
            .filter(|f| output.contains(&*f.display().to_string()))
            .map(|f| f.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        panic!("taplo rejected {failing:?}:\n{output}");
    }

    // A control: the `#:schema` line is honoured, so an unknown key is caught.
    let control = dir.path().join("control.toml");
    let mut text = std::fs::read_to_string(&files[0]).unwrap();
    text.push_str("\nnot_a_key_of_the_spec = 1\n");
    std::fs::write(&control, text).unwrap();
    let (ok, output) = taplo(&exe, &[control]);
    assert!(!ok, "taplo must reject an unknown key:\n{output}");
    assert!(output.contains("not_a_key_of_the_spec"), "{output}");
}
