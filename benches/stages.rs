//! In-process time of each stage of one run, for a small profile (a few keys) and a full one
//! (`examples/b-consul-vault-sql.toml`: every group, `[deploy]` with files).
//!
//! Run by hand: `cargo bench --bench stages` (not part of `cargo test`). The whole-process
//! figures and the comparison with other tools are `benches/compare.sh`; results in
//! `benches/RESULTS.md`.

use divan::{Bencher, black_box};
use std::path::{Path, PathBuf};
use svcgen::diag::source::Sources;
use svcgen::model::Model;
use svcgen::output::write_atomic;
use svcgen::pipeline::check_text;
use svcgen::profile::parse_text;
use svcgen::render::{EnvOptions, EnvVar, Target, Templates, environment, render};
use svcgen::resolve::{Mode, Options, Resolved, resolve};

fn main() {
    divan::main();
}

/// The profiles measured, by name.
const PROFILES: [&str; 2] = ["small", "full"];

const SMALL: &str = "edition = \"B\"\n\n[token_server]\nbase_url = \"https://auth.example.org\"\nclient_id = \"2001.abc\"\n";
const FULL: &str = include_str!("../examples/b-consul-vault-sql.toml");

fn text(profile: &str) -> &'static str {
    match profile {
        "small" => SMALL,
        "full" => FULL,
        other => panic!("no profile {other}"),
    }
}

/// The examples' folder: the full profile's host paths are relative to it.
fn base_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// A profile checked and its environment built, ready for the renderers.
fn prepared(profile: &str) -> (Resolved, Vec<EnvVar>) {
    let mut sources = Sources::new();
    let base = base_dir();
    let checked = check_text("p.toml", text(profile), Some(&base), &mut sources);
    let resolved = checked.resolved.expect("the benchmark profiles are valid");
    let env = environment(&resolved, EnvOptions::default()).expect("no secrets are read");
    (resolved, env)
}

/// Once per process: the embedded spec model parsed (later runs use `Model::get`'s cache).
#[divan::bench]
fn startup_spec_model() -> Model {
    Model::parse(include_str!("../schemas/spec.toml")).expect("valid model")
}

/// Once per process: the built-in templates compiled.
#[divan::bench]
fn startup_templates() -> Templates {
    Templates::load(None).expect("built-in templates compile")
}

/// TOML text to the spanned profile table.
#[divan::bench(args = PROFILES)]
fn load(bencher: Bencher, profile: &str) {
    let text = text(profile);
    bencher.bench(|| {
        let mut sources = Sources::new();
        parse_text("p.toml".into(), black_box(text).into(), &mut sources)
    });
}

/// The table resolved against the spec model, with every rule checked.
#[divan::bench(args = PROFILES)]
fn resolve_validate(bencher: Bencher, profile: &str) {
    Model::get();
    let mut sources = Sources::new();
    let (source, table) = parse_text("p.toml".into(), text(profile).into(), &mut sources);
    sources.set_dir(source, Some(base_dir()));
    let table = table.expect("parses");
    bencher.bench(|| {
        let (resolved, diags) = resolve(
            black_box(&table),
            source,
            Options {
                sources: &sources,
                mode: Mode::Profile,
            },
        );
        assert!(resolved.is_some(), "{diags:?}");
        (resolved, diags)
    });
}

/// The resolved profile to the ordered list of variables shared by all targets.
#[divan::bench(args = PROFILES)]
fn env_list(bencher: Bencher, profile: &str) {
    let (resolved, _) = prepared(profile);
    bencher.bench(|| environment(black_box(&resolved), EnvOptions::default()));
}

/// Each `--out-dir` target rendered from the environment.
mod render_target {
    use super::*;

    fn bench(bencher: Bencher, profile: &str, target: Target) {
        let templates = Templates::load(None).expect("built-in templates compile");
        let (resolved, env) = prepared(profile);
        bencher.bench(|| render(target, black_box(&resolved), &env, &templates).expect("renders"));
    }

    #[divan::bench(args = PROFILES)]
    fn dotenv(bencher: Bencher, profile: &str) {
        bench(bencher, profile, Target::Dotenv);
    }

    #[divan::bench(args = PROFILES)]
    fn compose(bencher: Bencher, profile: &str) {
        bench(bencher, profile, Target::Compose);
    }

    #[divan::bench(args = PROFILES)]
    fn k8s_env(bencher: Bencher, profile: &str) {
        bench(bencher, profile, Target::K8sEnv);
    }

    #[divan::bench(args = PROFILES)]
    fn k8s(bencher: Bencher, profile: &str) {
        bench(bencher, profile, Target::K8s);
    }
}

/// The four files of `--out-dir` written as the CLI writes them (`write_atomic`: a temporary file,
/// fsync, rename), into a folder of the system's temporary directory.
#[divan::bench(args = PROFILES)]
fn write_out_dir(bencher: Bencher, profile: &str) {
    let templates = Templates::load(None).expect("built-in templates compile");
    let (resolved, env) = prepared(profile);
    let files = Target::ALL.map(|t| {
        let text = render(t, &resolved, &env, &templates).expect("renders");
        (t.file_name(), text)
    });
    let dir = tempfile::tempdir().expect("a temporary folder");
    bencher.bench(|| {
        for (name, text) in &files {
            write_atomic(&dir.path().join(name), text, false, &Default::default()).expect("writes");
        }
    });
}

/// Everything `render --out-dir` computes for one profile after start-up, without writing files:
/// load, resolve and validate, environment, all four targets.
#[divan::bench(args = PROFILES)]
fn all_targets(bencher: Bencher, profile: &str) {
    let templates = Templates::load(None).expect("built-in templates compile");
    let base = base_dir();
    let text = text(profile);
    Model::get();
    bencher.bench(|| {
        let mut sources = Sources::new();
        let checked = check_text("p.toml", black_box(text), Some(&base), &mut sources);
        let resolved = checked.resolved.expect("valid");
        let env = environment(&resolved, EnvOptions::default()).expect("no secrets are read");
        Target::ALL.map(|t| render(t, &resolved, &env, &templates).expect("renders"))
    });
}
