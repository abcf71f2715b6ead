//! A newcomer's second hour: their own files and command-line mistakes, one scenario per
//! mistake, each run as a user meets it.

use crate::support;

use support::scenario::Test;

/// The bundled overlay with its `#:svcgen overlay-of` line validates with its base on
/// the command line, as it does in the editor (it used to fail with "add edition").
#[test]
fn cli_honours_the_overlay_directive() {
    Test::in_repo()
        .args(["validate", "examples/layers/eu.toml"])
        .stderr_lacks("E0200")
        .stderr_has("eu.toml: valid, edition B")
        .run();
    // Rendered with its base too: the overlay's consul host over prod's values.
    Test::in_repo()
        .args(["render", "examples/layers/eu.toml", "-t", "dotenv"])
        .stdout_has("CN_CONFIG_CONSUL_HOST=consul.eu.internal")
        .run();
    // A directive naming a missing base says which line to fix.
    Test::new()
        .file(
            "eu.toml",
            "#:svcgen overlay-of = \"gone.toml\"\n[wait]\nmax_time = 60\n",
        )
        .args(["validate", "eu.toml"])
        .code(1)
        .stderr_has(
            "error[E0218]: cannot read the base named by `#:svcgen overlay-of` (\"gone.toml\")",
        )
        .stderr_has("--> eu.toml:1:1")
        .stderr_has("fix that line")
        .run();
}

/// The first ```toml block after `heading` in README.md.
fn readme_block(heading: &str, lang: &str) -> String {
    let readme = std::fs::read_to_string(support::repo().join("README.md")).unwrap();
    let at = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README has {heading}"));
    let open = format!("```{lang}\n");
    let start = at + readme[at..].find(&open).expect("a block") + open.len();
    let end = start + readme[start..].find("```").expect("a closed block");
    readme[start..end].to_string()
}

/// The README's tour profile and every bundled example validate with no warning (so
/// `--deny-warnings` passes on them); a warning the profile acknowledges with `allow` is not
/// reported; a run failing only because of `--deny-warnings` says so, even with `-q`.
#[test]
fn deny_warnings_is_usable() {
    let tour = readme_block("## A tour of the profile", "toml");
    Test::new()
        .file("tour.toml", &tour)
        .args(["validate", "--deny-warnings", "tour.toml"])
        .stderr_lacks("warning")
        .run();
    let mut examples = support::examples();
    examples.extend(support::toml_files(
        &support::repo().join("examples/layers"),
    ));
    for example in examples {
        Test::in_repo()
            .args(["validate", "--deny-warnings"])
            .arg(&example)
            .stderr_lacks("warning")
            .run();
    }
    // Deployable but for the one warning: its adapters read no credential file (W0331), its
    // database is a service of its own (W0333).
    let passthrough = "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n[env]\nTZ = \"Europe/Berlin\"\n";
    // (Its kubernetes adapters cannot start from the compose file: acknowledged, W0341.)
    Test::new()
        .file(
            "p.toml",
            &format!("allow = [\"kube-api-config\"]\n{passthrough}"),
        )
        .args(["-q", "validate", "--deny-warnings", "p.toml"])
        .code(1)
        .stderr_has("1 warning (W0306) fails this run because of --deny-warnings")
        .stderr_has("allow = [\"W0306\"]")
        .run();
    Test::new()
        .file(
            "p.toml",
            &format!("allow = [\"W0306\", \"W0341\"]\n{passthrough}"),
        )
        .args(["validate", "--deny-warnings", "p.toml"])
        .stderr_lacks("W0306")
        .run();
    // Only warnings, and only known ones.
    Test::new()
        .file(
            "p.toml",
            &format!("allow = [\"E0201\", \"env-pasthrough\"]\n{passthrough}"),
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("an error cannot be acknowledged")
        .stderr_has("did you mean `env-passthrough`?")
        .run();
}

/// The commands of the guide's "Use in CI" section (docs/guide.md, which README links), as
/// written (`svcgen` being the binary under test), each without its output redirection
/// (`> report.json`).
fn guide_ci_commands() -> Vec<Vec<String>> {
    let guide = std::fs::read_to_string(support::repo().join("docs/guide.md")).unwrap();
    let at = guide
        .find("## Use in CI")
        .expect("the guide has its CI recipe");
    let section = &guide[at + 1..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    // Only the lines of its code blocks (prose may start with the word svcgen too).
    let mut in_block = false;
    section
        .lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                in_block = !in_block;
                return false;
            }
            in_block
        })
        .filter_map(|line| {
            let line = line
                .trim_start()
                .trim_start_matches("- ")
                .trim_start_matches("run: ");
            line.strip_prefix("svcgen ")
        })
        .map(|rest| {
            let rest = rest.split('>').next().unwrap_or(rest);
            rest.split_whitespace().map(String::from).collect()
        })
        .collect()
}

/// README's quick start renders the bundled example as written, and the guide's CI recipe passes
/// on README's tour profile once its artifacts are committed (read from both: the test follows
/// their text).
#[test]
fn readme_quick_start_and_ci_recipe_run_clean() {
    let setup = readme_block("## Set-up: two commands", "sh");
    let first = setup.lines().next().expect("a first command");
    let command = first.split('#').next().unwrap().trim();
    let args = command
        .strip_prefix("cargo run -- ")
        .expect("the quick start runs svcgen through cargo run");
    Test::in_repo()
        .args(args.split_whitespace())
        .stdout_has("CN_CONFIG_ADAPTER=")
        .stderr_lacks("warning")
        .run();
    let second = setup.lines().nth(1).expect("a second command");
    let script = second.split_whitespace().next().unwrap();
    assert!(support::repo().join(script).is_file(), "{script} exists");

    let commands = guide_ci_commands();
    assert!(
        commands.iter().any(|c| c.iter().any(|a| a == "--check")),
        "the CI recipe has its --check command: {commands:?}"
    );
    let tour = readme_block("## A tour of the profile", "toml");
    // The folders README's recipe names: the profiles, and the committed outputs (a batch).
    let mut test = Test::new()
        .file("deploy/profiles/prod.toml", &tour)
        .args(["render", "deploy/profiles", "--out-dir", "deploy/out"])
        .env("ADMIN_UI_PASSPHRASE", "a-long-random-passphrase")
        .run()
        .again();
    for args in commands {
        test = test
            .args(&args)
            .stderr_lacks("warning")
            .stderr_lacks("error")
            .run()
            .again();
    }
}

/// Mistakes on the command line are usage errors (exit 2) that name the form or the
/// closest value, as mistakes in a profile do.
#[test]
fn command_line_mistakes_get_a_pointer() {
    let example = "examples/b-hybrid.toml";
    for command in ["render", "validate"] {
        Test::in_repo()
            .args([command, example, "--set", "config.consul.port", "5433"])
            .code(2)
            .stderr_has("--set needs KEY=VALUE, got 'config.consul.port'")
            .stderr_lacks("several profiles")
            .run();
    }
    Test::in_repo()
        .args([
            "render",
            example,
            "--set-file",
            "google.secret_manager_passphrase",
        ])
        .code(2)
        .stderr_has("--set-file needs KEY=PATH")
        .run();
    Test::new()
        .args(["init", "--config-adapter", "consol"])
        .code(2)
        .stderr_has("did you mean 'consul'?")
        .run();
    Test::new()
        .args(["init", "--secret-adapter", "valt"])
        .code(2)
        .stderr_has("did you mean 'vault'?")
        .run();
    Test::new()
        .args(["init", "--persistence", "ldap"])
        .code(2)
        .stderr_has("add --edition A")
        .run();
    Test::new()
        .args(["init", "--persistence", "ldap", "--edition", "A"])
        .stdout_has("type = \"ldap\"")
        .run();
    Test::in_repo()
        .args([
            "migrate",
            "--to",
            "B",
            "examples/a-ldap-plugins.toml",
            "--ldap-to",
            "sqll",
        ])
        .code(2)
        .stderr_has("did you mean 'sql'?")
        .run();
}

/// A compose file as people write them: values from the deploying shell, one with a default.
const COMPOSE_WITH_PLACEHOLDERS: &str = "\
services:
  admin-ui:
    image: ghcr.io/janssenproject/admin-ui:0.0.0-nightly
    environment:
      CN_CONFIG_ADAPTER: kubernetes
      CN_SECRET_ADAPTER: kubernetes
      CN_PERSISTENCE_TYPE: sql
      CN_SQL_DB_HOST: ${DB_HOST}
      CN_SQL_DB_PORT: ${DB_PORT:-5432}
      TZ: ${TZ}
";

/// Every `${NAME` of a text, sorted.
fn placeholder_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .split("${")
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Compose -> profile -> compose keeps every placeholder; import reports each; the
/// Kubernetes targets refuse them naming the variable; a file that cannot make a valid profile
/// gets a draft and a failing exit.
#[test]
fn placeholders_survive_import() {
    let ran = Test::new()
        .file("docker-compose.yml", COMPOSE_WITH_PLACEHOLDERS)
        .args(["import", "docker-compose.yml", "-o", "profile.toml"])
        .stderr_has("the profile keeps it as { deploy_env = \"DB_HOST\" }")
        .stderr_has("{ deploy_env = \"DB_PORT\" }")
        .run();
    let profile = ran.read("profile.toml");
    assert!(
        profile.contains("port = { deploy_env = \"DB_PORT\", default = 5432 }"),
        "{profile}"
    );
    let ran = ran
        .again()
        .args(["render", "profile.toml", "-t", "compose", "-o", "back.yml"])
        .run();
    let back = ran.read("back.yml");
    assert_eq!(
        placeholder_names(&back),
        placeholder_names(COMPOSE_WITH_PLACEHOLDERS),
        "{back}"
    );
    assert!(back.contains("${DB_PORT:-5432}"), "{back}");
    // The real reader fills them in from the deploying environment.
    if let Some(compose) = support::docker_compose_v2() {
        let envs = [("DB_HOST", "db.internal"), ("TZ", "Europe/Berlin")]
            .map(|(k, v)| (k.to_string(), v.to_string()));
        let model = support::compose_config_json(&compose, &ran.path("back.yml"), &envs);
        let env = &model["services"]["admin-ui"]["environment"];
        assert_eq!(env["CN_SQL_DB_HOST"], "db.internal");
        assert_eq!(env["CN_SQL_DB_PORT"], "5432");
        assert_eq!(env["TZ"], "Europe/Berlin");
    }
    let ran = ran
        .again()
        .args(["render", "profile.toml", "-t", "dotenv"])
        .stdout_has("CN_SQL_DB_HOST=${DB_HOST}\n")
        .stdout_has("CN_SQL_DB_PORT=${DB_PORT:-5432}\n")
        .run();
    let ran = ran
        .again()
        .args(["render", "profile.toml", "-t", "k8s-env"])
        .code(1)
        .stderr_has("filled in at deploy time from the variable DB_HOST")
        .stderr_has("--set persistence.sql.host=VALUE")
        .run();
    ran.again()
        .args([
            "render",
            "profile.toml",
            "-t",
            "k8s-env",
            "--set",
            "persistence.sql.host=db",
            "--set",
            "persistence.sql.port=5432",
            "--set",
            "env.TZ=UTC",
        ])
        .stdout_has("value: \"db\"")
        .run();
    // A value no profile can hold: the best draft is written, and the run fails.
    let broken = COMPOSE_WITH_PLACEHOLDERS.replace("${DB_HOST}", "\"db host\"");
    let ran = Test::new()
        .file("docker-compose.yml", &broken)
        .args(["import", "docker-compose.yml", "-o", "profile.toml"])
        .code(1)
        .stderr_has("not a host name")
        .stderr_has("wrote a draft to profile.toml")
        .run();
    let draft = ran.read("profile.toml");
    assert!(draft.starts_with("# DRAFT"), "{draft}");
    assert!(draft.contains("host = \"db host\""), "{draft}");
}

/// When the variables fit both editions, the image tag names the edition, and import
/// says so (on stderr and in the profile's header).
#[test]
fn import_takes_the_edition_from_the_image_tag() {
    let compose = |tag: &str| {
        format!(
            "services:\n  admin-ui:\n    image: ghcr.io/janssenproject/admin-ui:{tag}\n    environment:\n      CN_CONFIG_ADAPTER: kubernetes\n      CN_SECRET_ADAPTER: kubernetes\n      CN_PERSISTENCE_TYPE: couchbase\n"
        )
    };
    for (tag, edition) in [("1.0.0_dev", "A"), ("0.0.0-nightly", "B")] {
        Test::new()
            .file("docker-compose.yml", &compose(tag))
            .args(["import", "docker-compose.yml"])
            .stdout_has(&format!("edition = \"{edition}\""))
            .stdout_has(&format!(
                "# Edition {edition}: named by the image tag at docker-compose.yml:3:12"
            ))
            .stderr_has(&format!("note: edition {edition}: named by the image tag"))
            .run();
    }
    // A tag that names no edition leaves the question to the user, as before.
    Test::new()
        .file("docker-compose.yml", &compose("latest"))
        .args(["import", "docker-compose.yml"])
        .code(1)
        .stderr_has("do not decide the edition")
        .run();
    // A Kubernetes manifest's container image too.
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: admin-ui\nspec:\n  template:\n    spec:\n      containers:\n        - name: admin-ui\n          image: ghcr.io/janssenproject/admin-ui:1.0.0_dev\n          env:\n            - name: CN_PERSISTENCE_TYPE\n              value: couchbase\n";
    Test::new()
        .file("deploy.yaml", manifest)
        .args(["import", "deploy.yaml"])
        .stdout_has("edition = \"A\"")
        .run();
}

/// The wrong kind of file gets one error saying what it is and which command reads it,
/// for every command that takes a file (not 23 TOML errors, not a profile read as a `.env`).
#[test]
fn the_wrong_file_gets_one_pointer() {
    let dotenv =
        "# today's environment\nCN_CONFIG_ADAPTER=consul\nCN_SQL_DB_HOST=db\nTZ=Europe/Berlin\n";
    let profile = "edition = \"B\"\n[config]\nadapter = \"consul\"\n";
    let test = || {
        Test::new()
            .file("docker-compose.yml", COMPOSE_WITH_PLACEHOLDERS)
            .file("app.env", dotenv)
            .file("profile.toml", profile)
            .file("profile.txt", profile)
    };
    let compose_msg = "docker-compose.yml is a compose file, not a svcgen profile (TOML): `svcgen import docker-compose.yml` makes a profile of it";
    let env_msg = "app.env is a .env file, not a svcgen profile (TOML): `svcgen import app.env`";
    for args in [
        &["validate", "docker-compose.yml"][..],
        &["render", "docker-compose.yml", "-t", "dotenv"],
        &[
            "explain",
            "config.adapter",
            "--profile",
            "docker-compose.yml",
        ],
        &["diff", "profile.toml", "docker-compose.yml"],
        &[
            "validate",
            "profile.toml",
            "--overlay",
            "docker-compose.yml",
        ],
    ] {
        let ran = test()
            .args(args)
            .code_is_not(0)
            .stderr_has(compose_msg)
            .stderr_lacks("E0100")
            .run();
        assert_eq!(
            ran.stderr().matches("error[").count(),
            1,
            "{}",
            ran.stderr()
        );
    }
    test()
        .args(["validate", "app.env"])
        .code(1)
        .stderr_has(env_msg)
        .stderr_has("1 error\n")
        .run();
    // The wrong file exits 1 (a problem found in the file) with E0246 for every
    // command, in every format (it used to exit 2 with a bare message for these three).
    test()
        .args(["migrate", "--to", "B", "app.env"])
        .code(1)
        .stderr_has(&format!("error[E0246]: {env_msg}"))
        .run();
    for command in ["import", "lint"] {
        for file in ["profile.txt", "profile.toml"] {
            test()
                .args([command, file])
                .code(1)
                .stderr_has(&format!("error[E0246]: {file} is a svcgen profile (TOML), not a .env file, compose file or Kubernetes manifest: `svcgen validate {file}`"))
                .run();
        }
        let ran = test()
            .args([command, "profile.txt", "--format", "json"])
            .code(1)
            .run();
        // import's stdout is the profile's place: its report goes to stderr.
        let report = if command == "lint" {
            ran.stdout()
        } else {
            ran.stderr()
        };
        let report: serde_json::Value = serde_json::from_str(&report).expect("a JSON report");
        assert_eq!(report[0]["code"], "E0246", "{report}");
    }
}

/// `init`'s profile validates with no warning for every choice, and uncommenting any
/// key (one without a default too) gives valid TOML, never "string values must be quoted".
#[test]
fn init_writes_a_clean_editable_profile() {
    let choices: [&[&str]; 4] = [
        &[],
        &["--edition", "A"],
        &[
            "--config-adapter",
            "google",
            "--secret-adapter",
            "google",
            "--persistence",
            "spanner",
        ],
        &[
            "--edition",
            "A",
            "--secret-adapter",
            "vault",
            "--persistence",
            "hybrid",
        ],
    ];
    for args in choices {
        let ran = Test::new()
            .arg("init")
            .args(args)
            .arg("-o")
            .arg("profile.toml")
            .run();
        let text = ran.read("profile.toml");
        let ran = ran
            .again()
            .args(["validate", "--deny-warnings", "profile.toml"])
            .stderr_lacks("warning")
            .run();
        let uncommented: String = text
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest)
                    if rest
                        .split_once(" = ")
                        .is_some_and(|(k, _)| !k.contains(' ')) =>
                {
                    rest
                }
                _ => l,
            })
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(!uncommented.contains("= \n"), "{uncommented}");
        ran.again()
            .file("uncommented.toml", &uncommented)
            .args(["validate", "uncommented.toml"])
            .stderr_lacks("E0100")
            .stderr_lacks("must be quoted")
            .code_is_not(2)
            .run();
    }
}

/// `render --out-dir` says what it wrote; `-o` into a folder that does not exist yet
/// creates it, as `--out-dir` does (no temporary file name in any message).
#[test]
fn render_says_what_it_wrote_and_creates_a_missing_folder() {
    let example = support::repo().join("examples/b-hybrid.toml");
    let ran = Test::new()
        .arg("render")
        .arg(&example)
        .args(["--out-dir", "out"])
        .stderr_has("wrote out/: .env, docker-compose.yml, k8s-env.yaml, k8s.yaml, kustomization.yaml, DEPLOY.md")
        .run();
    let ran = ran
        .again()
        .arg("render")
        .arg(&example)
        .args(["--out-dir", "out"])
        .stderr_has("out/: up to date, nothing written")
        .run();
    let ran = ran
        .again()
        .arg("render")
        .arg(&example)
        .args(["-t", "dotenv", "-o", "new/folder/app.env"])
        .stderr_has("wrote new/folder/app.env")
        .stderr_lacks(".svcgen-")
        .run();
    assert!(
        ran.read("new/folder/app.env")
            .contains("CN_PERSISTENCE_TYPE=")
    );
    // Quiet runs stay quiet.
    let ran = ran
        .again()
        .arg("-q")
        .arg("render")
        .arg(&example)
        .args(["--out-dir", "out2"])
        .run();
    assert_eq!(ran.stderr(), "");
}

/// Lint speaks in the file's variables; `explain --profile` shows the
/// profile's edition only; the hybrid mapping written as JSON text gets the table to write; the
/// man page's synopsis is `-h`'s usage.
#[test]
fn lint_explain_and_hybrid_json_speak_the_users_terms() {
    Test::new()
        .file(
            "app.env",
            "CN_WAIT_MAX_TIME=10\nCN_WAIT_SLEEP_DURATION=60\n",
        )
        .args(["lint", "app.env", "--edition", "B"])
        .stderr_has("`CN_WAIT_SLEEP_DURATION` = 60 is above `CN_WAIT_MAX_TIME` = 10")
        .stderr_lacks("wait.max_time")
        .run();
    let ran = Test::in_repo()
        .args([
            "explain",
            "persistence.type",
            "--profile",
            "examples/b-hybrid.toml",
        ])
        .stdout_has("editions:      B")
        .run();
    assert!(
        !ran.stdout().contains("editions:      A"),
        "{}",
        ran.stdout()
    );
    Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\n[persistence]\ntype = \"hybrid\"\nhybrid = '{\"default\": \"sql\", \"user\": 1, \"site\": \"sql\", \"cache\": \"sql\", \"token\": \"sql\", \"session\": \"couchbase\"}'\n",
        )
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("write a TOML table, not JSON text: hybrid = { default = \"sql\", user = \"BACKEND\"")
        .stderr_has("`user` is 1 in that JSON: it must name a backend")
        .run();
    // The man pages' synopses: `every_man_page_synopsis_matches_help`, every command.
}

/// A deploy-time `[env]` value that the RBAC would name (the secret name the image
/// reads) is one like any other: compose writes its placeholder, the Kubernetes targets refuse it.
#[test]
fn a_deploy_time_name_the_rbac_reads_renders_for_compose() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n\
                   [persistence]\ntype = \"sql\"\n[deploy]\nname = \"admin-ui\"\n\
                   [env]\nCN_SECRET_KUBERNETES_SECRET = { deploy_env = \"SECNAME\" }\n";
    Test::new()
        .file("p.toml", profile)
        .args(["render", "p.toml", "-t", "compose"])
        .stdout_has("${SECNAME")
        .stderr_lacks("E0242")
        .run();
    Test::new()
        .file("p.toml", profile)
        .args(["render", "p.toml", "-t", "k8s"])
        .code(1)
        .stderr_has("SECNAME")
        .stderr_lacks("E0242")
        .run();
}

/// Under `-q`, a run that fails only because of `--deny-warnings` still says why in every
/// machine format: the warnings stay in the report.
#[test]
fn deny_warnings_under_quiet_keeps_the_warnings_in_every_machine_format() {
    let profile = "edition = \"B\"\n[env]\nMY_VAR = \"x\"\n";
    for format in ["json", "sarif", "gitlab"] {
        Test::new()
            .file("p.toml", profile)
            .args([
                "-q",
                "validate",
                "p.toml",
                "--deny-warnings",
                "--format",
                format,
            ])
            .code(1)
            .stdout_has("W0306")
            .run();
    }
}

/// A secret's placeholder with a default (`${PASS:-…}`) becomes `{ env = "PASS" }`, and
/// the default it cannot keep is reported as left out, without showing it.
#[test]
fn a_secret_placeholder_s_default_is_reported_not_dropped_silently() {
    let compose = "services:\n  admin-ui:\n    image: svc/admin-ui:0.0.0-nightly\n    environment:\n      \
                   CN_GOOGLE_SECRET_MANAGER_PASSPHRASE: ${PASS:-hunter2-DEFAULTSECRET}\n      \
                   CN_CONFIG_ADAPTER: google\n      CN_SECRET_ADAPTER: google\n      GOOGLE_PROJECT_ID: p\n";
    Test::new()
        .file("compose.yml", compose)
        .args(["import", "compose.yml"])
        .stdout_has("{ env = \"PASS\" }")
        .stdout_lacks("hunter2")
        .stderr_has("W0320")
        .stderr_has("the default is left out")
        .stderr_lacks("hunter2")
        .run();
}

/// What a path option of the command line names. Every option whose value is a path must be
/// listed here: a new one fails [`every_option_of_every_command_gets_a_pointer`] until
/// it is, so that its near misses are tried too.
#[derive(Clone, Copy, Debug)]
enum PathKind {
    /// A file svcgen reads.
    Read,
    /// A folder svcgen reads.
    ReadFolder,
    /// A file svcgen writes.
    Write,
    /// A folder svcgen writes (created when missing).
    WriteFolder,
}

fn path_kind(command: &str, long: &str) -> PathKind {
    match long {
        "overlay" | "profile" | "start" => PathKind::Read,
        "templates" | "root" => PathKind::ReadFolder,
        "output" => PathKind::Write,
        "out-dir" => PathKind::WriteFolder,
        _ => panic!("`svcgen {command} --{long}` takes a path: say what it names in path_kind"),
    }
}

/// The arguments a command needs to get as far as its options (absolute: the runs happen in a
/// folder of near-miss paths). A new command fails here until it is given its own.
fn needed_args(command: &str) -> Vec<String> {
    let example = |name: &str| support::repo().join("examples").join(name);
    let b = example("b-hybrid.toml").display().to_string();
    let a = example("a-ldap-plugins.toml").display().to_string();
    match command {
        "validate" | "render" | "preflight" => vec![b],
        "explain" => vec!["persistence.type".into()],
        "diff" => vec![b.clone(), b],
        "import" | "lint" => vec!["app.env".into()],
        "migrate" => vec!["--to".into(), "B".into(), a],
        "completions" => vec!["bash".into()],
        "docs" | "init" | "schema" | "krm" | "lsp" | "man" => Vec::new(),
        other => panic!("a new command `{other}`: give the arguments it needs in needed_args"),
    }
}

/// A usage error of one option: exit 2 and one error that names the option and the value.
fn expect_usage_error(
    folder: &std::path::Path,
    argv: &[String],
    flag: &str,
    value: &str,
) -> String {
    let ran = Test::new()
        .current_dir(folder)
        .args(argv)
        .timeout(20)
        .code(2)
        .stderr_has(flag)
        .stderr_has(&format!("'{value}'"))
        .stderr_lacks(".svcgen-")
        .run();
    let stderr = ran.stderr();
    let errors = stderr.lines().filter(|l| l.starts_with("error")).count();
    assert_eq!(errors, 1, "one error for svcgen {argv:?}:\n{stderr}");
    stderr
}

/// A typo of one of `values`, and the value it should point to.
fn near_miss(values: &[String]) -> (String, String) {
    let target = values
        .iter()
        .max_by_key(|v| v.len())
        .expect("a value")
        .clone();
    let typo = if target.len() > 3 {
        // One letter left out, as a hurried hand does.
        let mut t = target.clone();
        t.remove(target.len() / 2);
        t
    } else if target.chars().any(|c| c.is_ascii_uppercase()) {
        target.to_ascii_lowercase()
    } else {
        target.to_ascii_uppercase()
    };
    (typo, target)
}

/// Every option that takes a value, of every command (read from the command
/// tree the binary builds, so a new option is covered without touching this test), is given the
/// near misses a user makes: no value, a typo of an allowed value (did you mean), a wrong shape
/// (`--set key 5433`), and for paths one that does not exist, a folder for a file, a file for a
/// folder, a FIFO. Each is a usage error (exit 2) naming the option and the value, with what is
/// accepted.
#[test]
fn every_option_of_every_command_gets_a_pointer() {
    use clap::CommandFactory;
    let folder = tempfile::tempdir().unwrap();
    let at = |name: &str| folder.path().join(name);
    std::fs::write(at("app.env"), "CN_PERSISTENCE_TYPE=sql\n").unwrap();
    std::fs::write(at("afile"), "x").unwrap();
    std::fs::create_dir(at("adir")).unwrap();
    let fifo = support::mkfifo(&at("fifo"));
    let mut cli = svcgen::cli::Cli::command();
    cli.build();
    let mut tried = 0;
    for command in cli.get_subcommands().filter(|c| c.get_name() != "help") {
        let name = command.get_name();
        let base: Vec<String> = [name.to_string()]
            .into_iter()
            .chain(needed_args(name))
            .collect();
        for arg in command.get_arguments() {
            if !arg.get_action().takes_values() {
                continue;
            }
            let Some(long) = arg.get_long() else {
                // A positional: only its allowed values (a shell) are near-missed here; a
                // missing or wrong file is `the_wrong_file_gets_one_pointer`'s.
                let values = allowed_values(arg);
                if !values.is_empty() {
                    let (typo, near) = near_miss(&values);
                    let argv = vec![name.to_string(), typo.clone()];
                    let stderr = expect_usage_error(folder.path(), &argv, "", &typo);
                    assert!(
                        stderr.contains(&format!("did you mean '{near}'?")),
                        "{stderr}"
                    );
                    tried += 1;
                }
                continue;
            };
            let flag = format!("--{long}");
            // The needed arguments without this option (migrate's `--to B`).
            let mut base = base.clone();
            if let Some(i) = base.iter().position(|a| *a == flag) {
                base.drain(i..i + 2);
            }
            let with = |value: &str| {
                let mut argv = base.clone();
                argv.extend([flag.clone(), value.to_string()]);
                argv
            };
            // No value at all (the option last).
            let mut bare = base.clone();
            bare.push(flag.clone());
            Test::new()
                .current_dir(folder.path())
                .args(&bare)
                .code(2)
                .stderr_has(&flag)
                .run();
            tried += 1;
            let values = allowed_values(arg);
            if !values.is_empty() {
                let (typo, near) = near_miss(&values);
                let stderr = expect_usage_error(folder.path(), &with(&typo), &flag, &typo);
                assert!(
                    stderr.contains(&format!("did you mean '{near}'?")),
                    "svcgen {name} {flag} {typo}:\n{stderr}"
                );
                for value in &values {
                    assert!(
                        stderr.contains(value.as_str()),
                        "{value} not shown:\n{stderr}"
                    );
                }
                tried += 1;
                continue;
            }
            let shape = arg
                .get_value_names()
                .and_then(|n| n.first())
                .map(|n| n.to_string())
                .unwrap_or_default();
            if let Some((key, _)) = shape.split_once('=') {
                // `--set key 5433`: the value without its `=`.
                let stderr = expect_usage_error(
                    folder.path(),
                    &with("config.consul.port"),
                    &flag,
                    "config.consul.port",
                );
                assert!(stderr.contains(&format!("{flag} needs {key}=")), "{stderr}");
                tried += 1;
                continue;
            }
            if arg.get_value_hint() != clap::ValueHint::AnyPath {
                continue;
            }
            let misses: &[&str] = match path_kind(name, long) {
                PathKind::Read => &["missing.toml", "adir", "fifo"],
                PathKind::ReadFolder => &["missing-folder", "afile", "fifo"],
                PathKind::Write => &["adir", "afile/x.out"],
                PathKind::WriteFolder => &["afile", "afile/sub"],
            };
            for miss in misses.iter().filter(|m| fifo || **m != "fifo") {
                expect_usage_error(folder.path(), &with(miss), &flag, miss);
                tried += 1;
            }
        }
    }
    assert!(
        tried > 40,
        "only {tried} near misses tried: is the command tree read?"
    );
}

/// Options that make no sense together: a usage error each, saying which to drop.
#[test]
fn options_that_contradict_are_usage_errors() {
    Test::in_repo()
        .args([
            "explain",
            "persistence.type",
            "--edition",
            "A",
            "--profile",
            "examples/b-hybrid.toml",
        ])
        .code(2)
        .stderr_has("--edition A contradicts --profile examples/b-hybrid.toml, which is edition B")
        .stdout_lacks("not a variable of edition B")
        .run();
    let example = "examples/b-hybrid.toml";
    Test::in_repo()
        .args(["render", example, example, "-o", "x.env"])
        .code(2)
        .stderr_has("give --out-dir DIR")
        .run();
    Test::in_repo()
        .args(["render", example, "--check", "-o", "-"])
        .code(2)
        .stderr_has("--check compares files on disk")
        .run();
    // --service chooses a compose service or a workload: a .env file has none.
    for command in ["import", "lint"] {
        Test::new()
            .file("app.env", "CN_PERSISTENCE_TYPE=sql\n")
            .args([command, "app.env", "--service", "admin-ui"])
            .code(2)
            .stderr_has("--service admin-ui: app.env is a .env file, which has no services; leave out --service")
            .run();
    }
}

/// Every writer's command line, writing to `out` (`-o` or `--out-dir`), run in a folder with
/// `app.env`.
fn writers(out: &str) -> Vec<Vec<String>> {
    let example = |name: &str| {
        support::repo()
            .join("examples")
            .join(name)
            .display()
            .to_string()
    };
    let lines: Vec<Vec<&str>> = vec![
        vec!["render", "@B", "-o", "@F"],
        vec!["import", "app.env", "-o", "@F"],
        vec!["migrate", "--to", "B", "@A", "-o", "@F"],
        vec!["docs", "-o", "@F"],
        vec!["init", "-o", "@F"],
        vec!["schema", "-o", "@F"],
        vec!["render", "@B", "--out-dir", "@D"],
        vec!["man", "--out-dir", "@D"],
    ];
    let (a, b) = (example("a-couchbase-google.toml"), example("b-hybrid.toml"));
    lines
        .into_iter()
        .map(|line| {
            line.into_iter()
                .map(|w| match w {
                    "@A" => a.clone(),
                    "@B" => b.clone(),
                    "@F" => format!("{out}/file.out"),
                    "@D" => out.to_string(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect()
}

/// Every writer (`-o` of render, import, migrate, docs, init, schema;
/// `--out-dir` of render and man) creates a missing folder alike, and where the folder refuses
/// the file, says so with what to do next and without a temporary file's name.
#[test]
fn every_writer_creates_a_missing_folder_and_tells_when_it_cannot() {
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("app.env"), "CN_PERSISTENCE_TYPE=sql\n").unwrap();
    for (n, argv) in writers("new/deeper").into_iter().enumerate() {
        let out = format!("run{n}");
        let argv: Vec<String> = argv
            .into_iter()
            .map(|a| a.replacen("new/", &format!("{out}/"), 1))
            .collect();
        Test::new()
            .current_dir(folder.path())
            .arg("-q")
            .args(&argv)
            .run();
        let made = folder.path().join(&out).join("deeper");
        assert!(
            made.is_dir(),
            "svcgen {argv:?} did not create {}",
            made.display()
        );
    }
    // /proc takes no new file, /sys none from anyone: the kernel refuses, as a full or
    // read-only disk would.
    for refusing in ["/proc/svcgen-test", "/sys/svcgen-test"] {
        for argv in writers(refusing) {
            let ran = Test::new()
                .current_dir(folder.path())
                .arg("-q")
                .args(&argv)
                .code(2)
                .stderr_lacks(".svcgen-")
                .stderr_lacks("at path")
                .run();
            let stderr = ran.stderr();
            assert!(
                ["write elsewhere", "name a path under"]
                    .iter()
                    .any(|next| stderr.contains(next)),
                "no next step for svcgen {argv:?}:\n{stderr}"
            );
        }
    }
}

/// The values an option accepts, as its help lists them (hidden aliases left out).
fn allowed_values(arg: &clap::Arg) -> Vec<String> {
    arg.get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect()
}

/// The diagnostics lines (`error[…]`, `warning[…]`) of a run's stderr.
fn diagnostic_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("error[") || l.starts_with("warning["))
        .collect()
}

/// One cause, one diagnostic. A host file that does not exist was W0310 (resolve) and
/// E0245 (the base cannot copy it); `allow` written as a string, or with a misspelled code, was
/// its error and the very warnings it meant to acknowledge (gone once it is fixed).
#[test]
fn one_cause_gives_one_diagnostic() {
    // Adapters that read no credential file, a database of its own: the missing host file is
    // the one cause.
    let host_missing = "edition = \"B\"\nallow = [\"kube-api-config\"]\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n\n[deploy.files]\n\"token_server.cert_file\" = { host = \"no/such/file.crt\", configmap = \"certs\" }\n";
    for args in [
        &["validate", "profile.toml"][..],
        &["render", "profile.toml", "--out-dir", "out"],
    ] {
        let ran = Test::new()
            .profile(host_missing)
            .args(args)
            .code(1)
            .stderr_has("error[E0245]: cannot copy the host file of `token_server.cert_file` (\"no/such/file.crt\")")
            .stderr_has("a relative path starts at the folder of the profile")
            .run();
        let stderr = ran.stderr();
        assert_eq!(diagnostic_lines(&stderr).len(), 1, "{args:?}:\n{stderr}");
        assert!(!ran.path("out").exists(), "nothing written on an error");
    }
    // Where the base copies nothing, the missing path is still said (as a warning).
    Test::new()
        .profile("edition = \"B\"\n\n[deploy.files]\n\"token_server.cert_file\" = { host = \"no/such/file.crt\" }\n")
        .args(["validate", "profile.toml"])
        .stderr_has("warning[W0310]: the host path \"no/such/file.crt\" does not exist")
        .run();
    for (allow, error) in [
        (
            "allow = \"W0306\"",
            "error[E0203]: `allow` must be a list of warning codes",
        ),
        (
            "allow = [\"W0036\"]",
            "error[E0204]: `allow` names no warning: \"W0036\"",
        ),
    ] {
        let ran = Test::new()
            .profile(&format!("edition = \"B\"\n{allow}\n[env]\nFOO = \"x\"\n"))
            .args(["validate", "profile.toml"])
            .code(1)
            .stderr_has(error)
            .stderr_lacks("warning[W0306]: ")
            .run();
        let stderr = ran.stderr();
        assert_eq!(diagnostic_lines(&stderr).len(), 1, "{allow}:\n{stderr}");
    }
}

/// The man page's synopsis is `-h`'s usage line, for the top page and every command
/// (read from the command tree, so a new command is checked too).
#[test]
fn every_man_page_synopsis_matches_help() {
    use clap::CommandFactory;
    let ran = Test::new().args(["man", "--out-dir", "man"]).run();
    let commands: Vec<Option<String>> = std::iter::once(None)
        .chain(
            svcgen::cli::Cli::command()
                .get_subcommands()
                .map(|c| Some(c.get_name().to_string())),
        )
        .filter(|c| c.as_deref() != Some("help"))
        .collect();
    for command in commands {
        let help = Test::new().args(command.iter()).arg("-h").run().stdout();
        let usage = help
            .lines()
            .find_map(|l| l.strip_prefix("Usage: "))
            .expect("a usage line")
            .to_string();
        let page = match &command {
            None => "man/svcgen.1".to_string(),
            Some(c) => format!("man/svcgen-{c}.1"),
        };
        let roff = ran.read(&page);
        let synopsis = roff
            .split(".SH SYNOPSIS\n")
            .nth(1)
            .and_then(|s| s.lines().next())
            .expect("a synopsis")
            .replace("\\-", "-");
        assert_eq!(synopsis, usage, "{page}");
    }
}

/// Overlay/extends loops: an overlay whose `#:svcgen overlay-of` base extends back to it, two
/// overlays naming each other, a base that is an overlay of the profile extending it: each is
/// the `extends` cycle diagnostic (E0218) naming every file of the loop, never a hang, a
/// "valid" or an "add edition".
#[test]
fn overlay_and_extends_loops_are_cycles() {
    /// The profile given, the files (name, text), and the loop as the error names it.
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 3] = [
        (
            "eu.toml",
            &[
                (
                    "eu.toml",
                    "#:svcgen overlay-of = \"base.toml\"\n[wait]\nmax_time = 60\n",
                ),
                ("base.toml", "edition = \"B\"\nextends = \"eu.toml\"\n"),
            ],
            "eu.toml -> base.toml -> eu.toml",
        ),
        (
            "a.toml",
            &[
                ("a.toml", "#:svcgen overlay-of = \"b.toml\"\n"),
                ("b.toml", "#:svcgen overlay-of = \"c.toml\"\n"),
                ("c.toml", "edition = \"B\"\nextends = \"a.toml\"\n"),
            ],
            "a.toml -> b.toml -> c.toml -> a.toml",
        ),
        (
            "base.toml",
            &[
                (
                    "eu.toml",
                    "#:svcgen overlay-of = \"base.toml\"\n[wait]\nmax_time = 60\n",
                ),
                ("base.toml", "edition = \"B\"\nextends = \"eu.toml\"\n"),
            ],
            "base.toml -> eu.toml -> base.toml",
        ),
    ];
    for (profile, files, loop_names) in cases {
        for command in ["validate", "render"] {
            let mut test = Test::new();
            for (name, text) in files {
                test = test.file(name, text);
            }
            let ran = test
                .args([command, profile])
                .timeout(20)
                .code(1)
                .stderr_has("makes a cycle")
                .stderr_lacks("E0200")
                .stderr_lacks("valid, edition")
                .run();
            let stderr = ran.stderr();
            let dir = std::fs::canonicalize(ran.dir.path()).unwrap();
            let named = stderr.replace(&format!("{}/", dir.display()), "");
            assert!(named.contains(loop_names), "{profile}: {stderr}");
            assert_eq!(diagnostic_lines(&stderr).len(), 1, "{stderr}");
            assert!(stderr.contains("error[E0218]"), "{stderr}");
        }
    }
}

/// `validate` and `render --out-dir` agree on a profile with a deploy-time value: `validate`
/// accepts it (W0334, here acknowledged), so `render --out-dir` writes the targets that carry it
/// (.env, compose) and says which it left out and how to get them, instead of refusing the
/// profile `validate` passed. A Kubernetes target asked for by name is still refused.
#[test]
fn validate_and_render_out_dir_agree_on_deploy_time_values() {
    let profile = "edition = \"B\"\nallow = [\"W0334\"]\n[persistence]\ntype = \"sql\"\nsql = { host = { deploy_env = \"DB_HOST\" }, dialect = \"pgsql\" }\n";
    let ran = Test::new()
        .file("p.toml", profile)
        .args(["validate", "p.toml"])
        .stderr_has("p.toml: valid")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("wrote out/: .env, docker-compose.yml\n")
        .stderr_has("note: left out k8s-env.yaml, k8s.yaml, kustomization.yaml, DEPLOY.md: `persistence.sql.host` is filled in at deploy time from DB_HOST")
        .stderr_has("--set persistence.sql.host=VALUE renders them")
        .run();
    assert!(ran.read("out/docker-compose.yml").contains("${DB_HOST:?"));
    assert!(ran.read("out/.env").contains("CN_SQL_DB_HOST=${DB_HOST}"));
    assert!(!ran.path("out/k8s.yaml").exists());
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "-t", "k8s"])
        .code(1)
        .stderr_has("which the Kubernetes targets cannot carry")
        .run();
    let ran = ran
        .again()
        .args(["-q", "render", "p.toml", "--out-dir", "out2"])
        .run();
    assert_eq!(ran.stderr(), "");
    // With the value given, every target is written.
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out3", "--set", "persistence.sql.host=db"])
        .stderr_has("wrote out3/: .env, docker-compose.yml, k8s-env.yaml, k8s.yaml, kustomization.yaml, DEPLOY.md")
        .stderr_lacks("left out")
        .run();
}
