//! Layered profiles: `extends`, `--overlay`, `--set`; diagnostics name the layer of the value in
//! effect; `diff` and `explain --profile`.

use crate::support;

use support::expect::{Fixture, compare, reported_from_json};
use support::scenario::Test;
use support::write_file as write;
use svcgen::diag::source::Sources;
use svcgen::pipeline::check_layers;
use svcgen::profile::{Layers, SetKind};
use svcgen::render::{EnvOptions, environment};

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
        root: None,
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
        root: None,
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
        root: None,
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
    let ran = Test::new()
        .file(
            "base.toml",
            "edition = \"B\"\n[persistence]\ntype = \"sql\"\nsql = { port = 70000 }\n",
        )
        .file(
            "prod.toml",
            "extends = \"base.toml\"\n[wait]\nmax_time = 60\n",
        )
        .args(["validate", "--format", "json", "prod.toml"])
        .code(1)
        .run();
    // Exactly one diagnostic, at the port's position in base.toml (the layer that set it).
    let reported = reported_from_json(&ran.stdout_json()).unwrap();
    let expected = Fixture::parse("# expect: E0205 4:16 `persistence.sql.port` = 70000")
        .unwrap()
        .expect;
    let problems = compare(&expected, &reported, |file| file.ends_with("/base.toml"));
    assert!(problems.is_empty(), "{problems:?}\n{}", ran.stdout());
    let ran = ran
        .again()
        .file("fix.toml", "[persistence.sql]\nport = 5432\n")
        .args(["validate", "prod.toml", "-f", "fix.toml"])
        .run();
    let ran = ran
        .again()
        .args(["validate", "prod.toml", "--set", "persistence.sql.port=0"])
        .code(1)
        .stderr_has("--> --set:1:22")
        .run();
    ran.again()
        .args(["validate", "prod.toml", "--set", "persistence.sql.prot=1"])
        .code(1)
        .stderr_has("--set:1:1")
        .stderr_has("did you mean `persistence.sql.port`")
        .run();
}

#[test]
fn extends_cycles_self_and_missing_files_are_errors_naming_the_chain() {
    let ran = Test::new()
        .file("a.toml", "extends = \"b.toml\"\nedition = \"B\"\n")
        .file("b.toml", "extends = \"a.toml\"\n")
        .args(["validate", "a.toml"])
        .code(1)
        .stderr_has("E0218")
        .stderr_matches("a.toml -> .*b.toml -> .*a.toml")
        .run();
    let ran = ran
        .again()
        .file("me.toml", "extends = \"me.toml\"\nedition = \"B\"\n")
        .args(["validate", "me.toml"])
        .code(1)
        .stderr_has("E0218")
        .stderr_has("--> me.toml:1:11")
        .stderr_has("cycle")
        .run();
    let ran = ran
        .again()
        .file("m.toml", "edition = \"B\"\nextends = \"nope.toml\"\n")
        .args(["validate", "m.toml"])
        .code(1)
        .stderr_has("cannot extend \"nope.toml\"")
        .stderr_has("m.toml:2:11")
        .run();
    ran.again()
        .args(["validate", "a.toml", "-f", "absent.toml"])
        .code(2)
        .run();
}

#[test]
fn the_documented_layered_render_works() {
    Test::in_repo()
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
        .stdout_has("CN_WAIT_MAX_TIME=600")
        .stdout_has("CN_SQL_DB_HOST=db.eu.prod.internal")
        .stdout_has("CN_SQL_DB_NAME=svc_prod")
        .stdout_has("CN_TOKEN_SERVER_CLIENT_ID=2001.prod")
        .run();
}

#[test]
fn explain_shows_the_layer_in_effect_and_what_it_overrides() {
    Test::in_repo()
        .args([
            "explain",
            "config.consul.host",
            "--profile",
            "examples/layers/prod.toml",
            "-f",
            "examples/layers/eu.toml",
        ])
        .stdout_has("\"consul.eu.internal\", set at examples/layers/eu.toml:5:8")
        .stdout_has("overrides config.consul.host set at examples/layers/base.toml:7:19")
        .run();
}

#[test]
fn diff_snapshots_restart_rule_and_edition_switch() {
    let mut test = Test::new()
        .file(
            "a.toml",
            "edition = \"A\"\n[admin_ui]\nauth_method = \"casa\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n",
        )
        .file(
            "b.toml",
            "edition = \"B\"\n[admin_ui]\nauth_method = \"basic\"\n[wait]\nmax_time = 300\n",
        )
        .file(
            "a2.toml",
            "edition = \"A\"\n[admin_ui]\nauth_method = \"basic\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n",
        );
    for (snapshot, args) in [
        ("diff-edition-switch", &["a.toml", "b.toml"][..]),
        ("diff-restart", &["a.toml", "a2.toml"]),
        (
            "diff-restart-json",
            &["a.toml", "a2.toml", "--format", "json"],
        ),
    ] {
        let ran = test.arg("diff").args(args).run();
        insta::assert_snapshot!(
            snapshot,
            String::from_utf8(ran.output.stdout.clone()).unwrap()
        );
        test = ran.again();
    }
    let ran = test
        .args(["diff", "a.toml", "a.toml", "--exit-code"])
        .stdout_is("no difference in the environment\n")
        .run();
    ran.again()
        .args(["diff", "a.toml", "a2.toml", "--exit-code"])
        .code(1)
        .run();
}

#[test]
fn diff_accepts_layer_stacks() {
    Test::in_repo()
        .args([
            "diff",
            "examples/layers/prod.toml",
            "examples/layers/prod.toml+examples/layers/eu.toml",
        ])
        .stdout_has("~ CN_SQL_DB_HOST: \"db.prod.internal\" -> \"db.eu.prod.internal\"")
        .stdout_has("+ TZ = \"Europe/Berlin\"")
        .run();
}

/// `--set` gives one value: a table of the model or `extends` is refused at `--set`, never
/// silently replaced or ignored.
#[test]
fn set_refuses_a_table_and_extends() {
    let validate = |set: &str| {
        Test::new()
            .arg("validate")
            .arg(support::repo().join("examples/a-couchbase-google.toml"))
            .args(["--set", set])
            .code(1)
    };
    validate("google=1")
        .stderr_has("E0203")
        .stderr_has("--set:1:1")
        .stderr_has("google.project_id")
        .run();
    validate("extends=nonexistent.toml")
        .stderr_has("E0218")
        .stderr_has("--overlay")
        .run();
}
