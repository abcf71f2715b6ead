//! Layered profiles: `extends`, `--overlay`, `--set`; diagnostics name the layer of the value in
//! effect; `diff` and `explain --profile`.

mod support;

use predicates::prelude::*;
use std::path::Path;
use support::svcgen;
use svcgen::pipeline::check_layers;
use svcgen::profile::{Layers, SetKind};
use svcgen::render::{EnvOptions, environment};
use svcgen::source::Sources;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The resolved environment of a layer stack, as (name, value) pairs.
fn env_of(layers: &Layers) -> Vec<(String, String)> {
    let mut sources = Sources::new();
    let checked = check_layers(layers, &mut sources).unwrap();
    let resolved = checked
        .resolved
        .unwrap_or_else(|| panic!("valid: {:?}", checked.diagnostics.items));
    environment(&resolved, EnvOptions::default())
        .unwrap()
        .into_iter()
        .filter_map(|v| v.value.map(|value| (v.name, value)))
        .collect()
}

fn get<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

const BASE: &str = "edition = \"A\"\n[config]\nadapter = \"consul\"\nconsul = { host = \"consul\", port = 8500 }\n\
                    [admin_ui]\nplugins = [\"a\", \"b\"]\n[wait]\nmax_time = 100\n";

#[test]
fn overlays_override_scalars_merge_tables_and_replace_lists() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.toml", BASE);
    let over = write(
        dir.path(),
        "over.toml",
        "[config.consul]\nport = 8501\n[admin_ui]\nplugins = [\"c\"]\n",
    );
    let layers = Layers {
        profile: base,
        overlays: vec![over],
        sets: Vec::new(),
    };
    let env = env_of(&layers);
    assert_eq!(
        get(&env, "CN_CONFIG_CONSUL_PORT"),
        Some("8501"),
        "scalar override"
    );
    assert_eq!(
        get(&env, "CN_CONFIG_CONSUL_HOST"),
        Some("consul"),
        "sibling in the nested table kept"
    );
    assert_eq!(
        get(&env, "SVC_ADMIN_UI_PLUGINS"),
        Some("c"),
        "list replaced, not appended"
    );
}

#[test]
fn three_layers_later_wins_key_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(dir.path(), "base.toml", BASE);
    let one = write(
        dir.path(),
        "one.toml",
        "[wait]\nmax_time = 200\nsleep_duration = 20\n",
    );
    let two = write(dir.path(), "two.toml", "[wait]\nmax_time = 300\n");
    let env = env_of(&Layers {
        profile: base,
        overlays: vec![one, two],
        sets: Vec::new(),
    });
    assert_eq!(get(&env, "CN_WAIT_MAX_TIME"), Some("300"));
    assert_eq!(get(&env, "CN_WAIT_SLEEP_DURATION"), Some("20"));
}

#[test]
fn extends_chain_then_overlays_then_set() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "root.toml", BASE);
    write(
        dir.path(),
        "mid.toml",
        "extends = \"root.toml\"\n[config.consul]\nhost = \"mid\"\n[wait]\nmax_time = 150\n",
    );
    let prod = write(
        dir.path(),
        "prod.toml",
        "extends = [\"mid.toml\"]\nedition = \"A\"\n[wait]\nsleep_duration = 5\n",
    );
    let over = write(dir.path(), "eu.toml", "[config.consul]\nhost = \"eu\"\n");
    let layers = Layers {
        profile: prod,
        overlays: vec![over],
        sets: vec![
            (SetKind::Value, "wait.max_time=600".into()),
            (SetKind::Value, "admin_ui.plugins=x,y".into()),
        ],
    };
    let env = env_of(&layers);
    assert_eq!(get(&env, "CN_CONFIG_CONSUL_HOST"), Some("eu"));
    assert_eq!(
        get(&env, "CN_CONFIG_CONSUL_PORT"),
        Some("8500"),
        "from the root base"
    );
    assert_eq!(get(&env, "CN_WAIT_MAX_TIME"), Some("600"), "--set wins");
    assert_eq!(get(&env, "CN_WAIT_SLEEP_DURATION"), Some("5"));
    assert_eq!(get(&env, "SVC_ADMIN_UI_PLUGINS"), Some("x,y"));
}

#[test]
fn a_diagnostic_names_the_layer_that_supplied_the_value() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "base.toml",
        "edition = \"B\"\n[persistence]\ntype = \"sql\"\nsql = { port = 70000 }\n",
    );
    let prod = write(
        dir.path(),
        "prod.toml",
        "extends = \"base.toml\"\n[wait]\nmax_time = 60\n",
    );
    svcgen()
        .args(["validate", "--format", "json"])
        .arg(&prod)
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("base.toml\"").and(predicate::str::contains("\"line\": 4")),
        );
    let over = write(dir.path(), "fix.toml", "[persistence.sql]\nport = 5432\n");
    svcgen()
        .arg("validate")
        .arg(&prod)
        .arg("-f")
        .arg(&over)
        .assert()
        .success();
    svcgen()
        .arg("validate")
        .arg(&prod)
        .args(["--set", "persistence.sql.port=0"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--> --set:1:22"));
    svcgen()
        .arg("validate")
        .arg(&prod)
        .args(["--set", "persistence.sql.prot=1"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("--set:1:1").and(predicate::str::contains(
                "did you mean `persistence.sql.port`",
            )),
        );
}

#[test]
fn extends_cycles_self_and_missing_files_are_errors_naming_the_chain() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.toml",
        "extends = \"b.toml\"\nedition = \"B\"\n",
    );
    write(dir.path(), "b.toml", "extends = \"a.toml\"\n");
    svcgen().arg("validate").arg(&a).assert().code(1).stderr(
        predicate::str::contains("E0218")
            .and(predicate::str::is_match("a.toml -> .*b.toml -> .*a.toml").unwrap()),
    );
    let me = write(
        dir.path(),
        "me.toml",
        "extends = \"me.toml\"\nedition = \"B\"\n",
    );
    svcgen()
        .arg("validate")
        .arg(&me)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cycle"));
    let missing = write(
        dir.path(),
        "m.toml",
        "edition = \"B\"\nextends = \"nope.toml\"\n",
    );
    svcgen()
        .arg("validate")
        .arg(&missing)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("cannot extend \"nope.toml\"")
                .and(predicate::str::contains("m.toml:2:11")),
        );
    svcgen()
        .arg("validate")
        .arg(&a)
        .arg("-f")
        .arg(dir.path().join("absent.toml"))
        .assert()
        .code(2);
}

#[test]
fn the_documented_layered_render_works() {
    svcgen()
        .current_dir(support::repo())
        .args([
            "render",
            "examples/layers/prod.toml",
            "--overlay",
            "examples/layers/eu.toml",
            "--set",
            "wait.max_time=600",
            "-t",
            "dotenv",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("CN_WAIT_MAX_TIME=600"))
        .stdout(predicate::str::contains(
            "CN_SQL_DB_HOST=db.eu.prod.internal",
        ))
        .stdout(predicate::str::contains("CN_SQL_DB_NAME=svc_prod"))
        .stdout(predicate::str::contains(
            "CN_TOKEN_SERVER_CLIENT_ID=2001.prod",
        ));
}

#[test]
fn explain_shows_the_layer_in_effect_and_what_it_overrides() {
    svcgen()
        .current_dir(support::repo())
        .args([
            "explain",
            "config.consul.host",
            "--profile",
            "examples/layers/prod.toml",
            "-f",
            "examples/layers/eu.toml",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "\"consul.eu.internal\", set at examples/layers/eu.toml:4:8",
        ))
        .stdout(predicate::str::contains(
            "overrides config.consul.host set at examples/layers/base.toml:7:19",
        ));
}

#[test]
fn diff_snapshots_restart_rule_and_edition_switch() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.toml",
        "edition = \"A\"\n[admin_ui]\nauth_method = \"casa\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n",
    );
    let b = write(
        dir.path(),
        "b.toml",
        "edition = \"B\"\n[admin_ui]\nauth_method = \"basic\"\n[wait]\nmax_time = 300\n",
    );
    let a2 = write(
        dir.path(),
        "a2.toml",
        "edition = \"A\"\n[admin_ui]\nauth_method = \"basic\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n",
    );
    let text = |args: &[&Path], json: bool| {
        let mut cmd = svcgen();
        cmd.arg("diff").args(args);
        if json {
            cmd.args(["--format", "json"]);
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    insta::assert_snapshot!("diff-edition-switch", text(&[&a, &b], false));
    insta::assert_snapshot!("diff-restart", text(&[&a, &a2], false));
    insta::assert_snapshot!("diff-restart-json", text(&[&a, &a2], true));
    svcgen()
        .arg("diff")
        .arg(&a)
        .arg(&a)
        .arg("--exit-code")
        .assert()
        .success()
        .stdout("no difference in the environment\n");
    svcgen()
        .arg("diff")
        .arg(&a)
        .arg(&a2)
        .arg("--exit-code")
        .assert()
        .code(1);
}

#[test]
fn diff_accepts_layer_stacks() {
    svcgen()
        .current_dir(support::repo())
        .args([
            "diff",
            "examples/layers/prod.toml",
            "examples/layers/prod.toml+examples/layers/eu.toml",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "~ CN_SQL_DB_HOST: \"db.prod.internal\" -> \"db.eu.prod.internal\"",
        ))
        .stdout(predicate::str::contains("+ TZ = \"Europe/Berlin\""));
}

/// `--set` gives one value: a table of the model or `extends` is refused at `--set`, never
/// silently replaced or ignored.
#[test]
fn set_refuses_a_table_and_extends() {
    let example = support::repo().join("examples/a-couchbase-google.toml");
    svcgen()
        .arg("validate")
        .arg(&example)
        .args(["--set", "google=1"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("E0203")
                .and(predicate::str::contains("--set:1:1"))
                .and(predicate::str::contains("google.project_id")),
        );
    svcgen()
        .arg("validate")
        .arg(&example)
        .args(["--set", "extends=nonexistent.toml"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("E0218").and(predicate::str::contains("--overlay")));
}
