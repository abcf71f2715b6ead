//! `render | import | render` gives the same environment: for every example profile through the
//! `.env`, compose and Kubernetes (ConfigMap + Deployment) targets, and for hostile string values
//! in string variables and `[env]` extras (quotes, `$`, `#`, unicode, backslashes).

use crate::support;

use support::hostile;

use proptest::prelude::*;
use svcgen::diag::source::Sources;
use svcgen::import::{EnvValue, ImportOptions, ReadOptions, import, read_text};
use svcgen::pipeline::check_text;
use svcgen::render::{EnvOptions, EnvVar, RenderError, Target, Templates, environment, render};
use svcgen::resolve::Resolved;

/// The targets that carry the environment, and the file name each is read back as.
const TARGETS: [(Target, &str); 3] = [
    (Target::Dotenv, ".env"),
    (Target::Compose, "docker-compose.yml"),
    (Target::K8s, "k8s.yaml"),
];

type Pairs = Vec<(String, EnvValue)>;

fn rendered(resolved: &Resolved, target: Target) -> Result<String, RenderError> {
    let env = environment(resolved, EnvOptions::default()).unwrap();
    render(target, resolved, &env, &Templates::load(None).unwrap())
}

/// The environment a rendered output holds, as svcgen's readers read it.
fn read_back(file: &str, text: &str) -> Pairs {
    let mut sources = Sources::new();
    let read = read_text(file, text, &ReadOptions::default(), &mut sources);
    assert!(
        !read.diagnostics.has_errors(),
        "{file} reads back with errors: {:?}\n{text}",
        read.diagnostics.items
    );
    read.entries
        .into_iter()
        .map(|e| (e.name, e.value))
        .collect()
}

/// What a target must carry of an environment: values as text (secrets are references).
fn values(env: &[EnvVar]) -> Vec<(String, String)> {
    env.iter()
        .filter_map(|v| Some((v.name.clone(), v.value.clone()?)))
        .collect()
}

fn texts(pairs: &Pairs) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter_map(|(n, v)| match v {
            EnvValue::Text(t) => Some((n.clone(), t.clone())),
            _ => None,
        })
        .collect()
}

/// Imports a rendered output and resolves the profile it gives.
fn reimport(file: &str, text: &str) -> (String, Resolved) {
    let mut sources = Sources::new();
    let read = read_text(file, text, &ReadOptions::default(), &mut sources);
    let imported = match import(&read, ImportOptions::default(), &sources) {
        Ok(imported) => imported,
        Err(diags) => panic!(
            "{file} does not import:\n{}\n{text}",
            svcgen::diag::human::render(&diags, &sources, false)
        ),
    };
    let mut again = Sources::new();
    let checked = check_text("imported.toml", &imported.profile, None, &mut again);
    let resolved = checked.resolved.unwrap_or_else(|| {
        panic!(
            "the imported profile is invalid:\n{}\n{}",
            svcgen::diag::human::render(&checked.diagnostics, &again, false),
            imported.profile
        )
    });
    (imported.profile, resolved)
}

#[test]
fn every_example_survives_render_import_render_through_each_target() {
    for example in support::examples() {
        let resolved = support::resolve_file(&example);
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        for (target, file) in TARGETS {
            let label = format!("{} via {}", example.display(), target.name());
            let first = rendered(&resolved, target).unwrap();
            let before = read_back(file, &first);
            assert_eq!(
                texts(&before),
                values(&env),
                "{label}: the first render reads back"
            );
            let (profile, again) = reimport(file, &first);
            assert_eq!(again.edition, resolved.edition, "{label}: edition");
            let second = rendered(&again, target).unwrap();
            assert_eq!(read_back(file, &second), before, "{label}\n{profile}");
        }
    }
}

proptest! {
    #![proptest_config(support::proptest_cases(256))]

    #[test]
    fn hostile_values_survive_render_import_render(values in prop::collection::vec(hostile::value(), 8)) {
        let mut sources = Sources::new();
        let checked = check_text("hostile.toml", &hostile::profile(&values), None, &mut sources);
        let resolved = checked.resolved.expect("strings of any content are valid in these keys");
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        for (target, file) in TARGETS {
            // A `$` in a double-quoted `.env` value is written `$$` for compose v2 (with a W0327
            // warning: python-dotenv reads it differently); svcgen's import keeps `$$` as written.
            // These values, refused before W0327, are read back by the real readers in
            // tests/dotenv.rs.
            let doubled_dollar = |v: &EnvVar| {
                v.value.as_ref().is_some_and(|v| {
                    v.contains('$') && svcgen::render::dotenv_quote(v).is_ok_and(|q| q.text.starts_with('"'))
                })
            };
            if target == Target::Dotenv && env.iter().any(doubled_dollar) {
                continue;
            }
            let first = match rendered(&resolved, target) {
                Ok(text) => text,
                Err(e) => panic!("{e:?}"),
            };
            let before = read_back(file, &first);
            prop_assert_eq!(texts(&before), values_of(&env), "{}", target.name());
            let (_, again) = reimport(file, &first);
            let second = rendered(&again, target).unwrap();
            prop_assert_eq!(read_back(file, &second), before, "{}", target.name());
        }
    }
}

fn values_of(env: &[EnvVar]) -> Vec<(String, String)> {
    values(env)
}
