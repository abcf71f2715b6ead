//! The `.env` target read back by the three readers people use, each with its defaults: docker
//! compose v2 (`env_file:`, through `docker-compose config --format json`), python-dotenv
//! (`dotenv_values`, interpolation on) and `docker run --env-file`. The last does no processing
//! at all (the value is every character after the first `=` of a line; see moby's
//! `opts/envfile.go`), so it is emulated here exactly by [`docker_run_env_file`]. A reader may
//! read a value differently only where svcgen warns (W0327) and names it; where it names one, it
//! does differ.

use crate::support;

use support::hostile;
use support::scenario::Test;

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use svcgen::render::dotenv_quote::{Reader, quote};
use svcgen::render::{EnvOptions, EnvVar, Target, Templates, environment, render};
use svcgen::resolve::Resolved;

type Values = BTreeMap<String, String>;

/// Reads each `.env` file with python-dotenv's defaults (interpolation on), as a JSON object each.
const PYTHON_DOTENV: &str = r#"
import json, sys
from dotenv import dotenv_values
print(json.dumps([dotenv_values(p) for p in sys.argv[1:]]))
"#;

fn python_dotenv(python: &Path, files: &[PathBuf]) -> Vec<Values> {
    let output = Command::new(python)
        .arg("-c")
        .arg(PYTHON_DOTENV)
        .args(files)
        .env_clear()
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "python-dotenv failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let all: Vec<BTreeMap<String, Option<String>>> =
        serde_json::from_slice(&output.stdout).expect("JSON from python");
    all.into_iter()
        .map(|m| m.into_iter().filter_map(|(k, v)| Some((k, v?))).collect())
        .collect()
}

/// Docker compose v2 reading the file through a service's `env_file:`.
fn compose_v2(docker_compose: &Path, env_file: &Path) -> Values {
    let dir = env_file.parent().unwrap();
    let compose = dir.join("compose-for-env.yml");
    let name = env_file.file_name().unwrap().to_string_lossy();
    std::fs::write(
        &compose,
        format!("services:\n  s:\n    image: x\n    env_file: [\"./{name}\"]\n"),
    )
    .unwrap();
    let doc = support::compose_config_json(docker_compose, &compose, &[]);
    let env = doc["services"]["s"]["environment"].as_object().cloned();
    env.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| {
            let text = v.as_str().unwrap_or_else(|| panic!("{k}: {v}"));
            // `config` writes every `$` of a value as `$$`.
            (k, text.replace("$$", "$"))
        })
        .collect()
}

/// `docker run --env-file` (moby `opts/envfile.go`): lines split at `\n` (a `\r` before it
/// dropped), leading whitespace trimmed, empty and `#` lines skipped, the name up to the first
/// `=`, the value every character after it.
fn docker_run_env_file(text: &str) -> Values {
    let mut out = Values::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line).trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some((name, value)) = line.split_once('=') {
            out.insert(name.to_string(), value.to_string());
        }
    }
    out
}

/// Each variable with a value in the `.env`: (name, value, readers svcgen says would differ).
fn expected(env: &[EnvVar]) -> Vec<(String, String, Vec<Reader>)> {
    env.iter()
        .filter_map(|v| {
            let value = v.value.clone()?;
            let differs = quote(&value).expect("writable").differs;
            Some((v.name.clone(), value, differs))
        })
        .collect()
}

/// Checks one reader's reading of a rendered `.env`: exact wherever svcgen does not name the
/// reader, different wherever it does.
fn check_reader(reader: Reader, got: &Values, want: &[(String, String, Vec<Reader>)]) {
    for (name, value, differs) in want {
        let read = got.get(name);
        if differs.contains(&reader) {
            assert_ne!(
                read,
                Some(value),
                "{reader:?} reads {name} exactly though named"
            );
        } else {
            assert_eq!(read, Some(value), "{reader:?} misreads {name}");
        }
    }
}

fn render_dotenv(resolved: &Resolved, env: &[EnvVar]) -> String {
    let templates = Templates::load(None).unwrap();
    match render(Target::Dotenv, resolved, env, &templates) {
        Ok(text) => text,
        Err(e) => panic!("{e:?}"),
    }
}

/// Renders each (resolved, env) to a `.env` and checks it with all three readers.
fn check_three_readers(cases: &[(Resolved, Vec<EnvVar>)]) -> Option<()> {
    let python = support::python_with("dotenv")?;
    let docker_compose = support::docker_compose_v2()?;
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, (resolved, env)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("{i}.env"));
        std::fs::write(&file, render_dotenv(resolved, env)).unwrap();
        files.push(file);
    }
    let python_read = python_dotenv(&python, &files);
    for (((_, env), file), python_got) in cases.iter().zip(&files).zip(&python_read) {
        let want = expected(env);
        assert!(!want.is_empty());
        check_reader(Reader::PythonDotenv, python_got, &want);
        check_reader(Reader::ComposeV2, &compose_v2(&docker_compose, file), &want);
        let text = std::fs::read_to_string(file).unwrap();
        check_reader(Reader::DockerRunEnvFile, &docker_run_env_file(&text), &want);
    }
    Some(())
}

#[test]
fn every_example_reads_back_exactly_with_all_three_readers() {
    let cases: Vec<_> = support::examples()
        .iter()
        .map(|example| {
            let resolved = support::resolve_file(example);
            let env = environment(&resolved, EnvOptions::default()).unwrap();
            for var in env.iter().filter_map(|v| v.value.as_ref()) {
                assert!(
                    quote(var).unwrap().differs.is_empty(),
                    "{}: {var:?} is read alike by all readers",
                    example.display()
                );
            }
            (resolved, env)
        })
        .collect();
    check_three_readers(&cases);
}

#[test]
fn the_docker_run_emulation_follows_moby() {
    let got = docker_run_env_file("# c\n  A=x \r\nB='q'\n\nC=a=b\r\n#D=1\n");
    let want: Values = [("A", "x "), ("B", "'q'"), ("C", "a=b")]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .into();
    assert_eq!(got, want);
}

#[test]
fn the_cli_prints_the_same_env_as_the_library() {
    for example in support::examples() {
        let ran = Test::new()
            .args(["render", "-t", "dotenv"])
            .arg(&example)
            .run();
        let stdout = String::from_utf8(ran.output.stdout).unwrap();
        let resolved = support::resolve_file(&example);
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        for var in env.iter().filter(|v| v.value.is_some()) {
            assert!(
                stdout.contains(&format!("\n{}=", var.name)),
                "{} lacks {}",
                example.display(),
                var.name
            );
        }
    }
}

#[test]
fn dotenv_snapshots() {
    insta::glob!("../examples", "*.toml", |path| {
        let ran = Test::new().args(["render", "-t", "dotenv"]).arg(path).run();
        insta::assert_snapshot!(String::from_utf8(ran.output.stdout).unwrap());
    });
}

proptest! {
    #![proptest_config(support::proptest_cases(24))]

    /// 24 cases of 100 hostile values: each reader reads every value exactly unless svcgen
    /// names it in a W0327 warning (and then it does differ).
    #[test]
    fn hostile_values_read_back_by_three_readers(values in prop::collection::vec(hostile::value(), 100)) {
        let case = hostile::resolved(&values);
        let diags = svcgen::render::render_checked(
            &case.0,
            EnvOptions::default(),
            &[Target::Dotenv],
            &Templates::load(None).unwrap(),
            None,
            Some(&|path| svcgen::cli::read_host_file(path, None, &Default::default())),
        )
        .diagnostics;
        let warned: Vec<&str> = diags.items.iter().map(|d| d.code.id()).collect();
        prop_assert!(warned.iter().all(|c| *c == "W0327"), "{:?}", diags);
        let named = expected(&case.1).iter().filter(|(_, _, d)| !d.is_empty()).count();
        prop_assert_eq!(warned.len(), named, "one warning per value a reader would misread");
        check_three_readers(&[case]);
    }
}
