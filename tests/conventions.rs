//! The command-line conventions users expect: `-` for standard input and output, `validate`
//! failing wherever `render` would, usage errors for impossible combinations, `--check` as JSON,
//! near-only suggestions, `--color`, `-q` on every command, one man page per subcommand.

use crate::support;

use std::path::PathBuf;
use support::scenario::{Test, google_passphrase_profile};

fn example() -> PathBuf {
    support::repo().join("examples/b-consul-vault-sql.toml")
}

/// `svcgen render EXAMPLE ARGS`, in the test's folder.
fn render_example(test: Test, args: &[&str]) -> Test {
    test.arg("render").arg(example()).args(args)
}

const INVALID: &str = "edition = \"B\"\n[config]\nadapter = \"consol\"\n";

/// `svcgen validate ARGS -` with the invalid profile on stdin: exit 1 with its error at `<stdin>`.
fn validate_invalid_stdin(args: &[&str]) {
    Test::new()
        .arg("validate")
        .args(args)
        .arg("-")
        .stdin(INVALID)
        .code(1)
        .stderr_has("E0204")
        .stderr_has("--> <stdin>:3:11")
        .run();
}

#[test]
fn a_dash_reads_the_profile_from_stdin_and_names_it_stdin() {
    let text = std::fs::read_to_string(example()).unwrap();
    let examples = support::repo().join("examples");
    let from_file = Test::new()
        .args(["render", "-t", "dotenv"])
        .arg(example())
        .run();
    let from_stdin = Test::new()
        .args(["render", "-", "-t", "dotenv"])
        .current_dir(&examples)
        .stdin(&text)
        .run();
    assert_eq!(from_stdin.output.stdout, from_file.output.stdout);
    Test::new()
        .args(["validate", "-"])
        .current_dir(&examples)
        .stdin(&text)
        .stderr_has("<stdin>: valid")
        .run();
    validate_invalid_stdin(&[]);
}

#[test]
fn stdin_is_read_once_and_is_not_part_of_a_batch() {
    Test::new()
        .args(["render", "-", "-f", "-"])
        .stdin("edition = \"B\"\n")
        .code(2)
        .stderr_has("only once")
        .run();
    Test::new()
        .args(["render", "-"])
        .arg(example())
        .args(["--out-dir", "."])
        .stdin("edition = \"B\"\n")
        .code(2)
        .stderr_has("not part of a batch")
        .run();
}

#[test]
fn dash_o_dash_is_stdout_for_render_import_and_generators() {
    let plain = render_example(Test::new(), &["-t", "compose"]).run();
    render_example(Test::new(), &["-t", "compose", "-o", "-"])
        .stdout_is(&plain.stdout())
        .run();
    for command in ["schema", "docs", "init"] {
        let ran = Test::new().args([command, "-o", "-"]).run();
        assert!(!ran.output.stdout.is_empty(), "{command} prints");
        assert_eq!(
            std::fs::read_dir(ran.dir.path()).unwrap().count(),
            0,
            "no file named -"
        );
    }
    let imported = Test::new()
        .file("in.env", "CN_AUTH_BASE_URL=https://a.example\n")
        .args(["import", "--edition", "B", "in.env", "-o", "-"])
        .stdout_starts_with("# Imported by svcgen from in.env")
        .run();
    assert_eq!(
        std::fs::read_dir(imported.dir.path()).unwrap().count(),
        1,
        "import: no file named -"
    );
    render_example(Test::new(), &["-o", "-", "--check"])
        .code(2)
        .stderr_has("--check compares files on disk")
        .run();
}

#[test]
fn validate_fails_wherever_render_fails() {
    // A secret that cannot be read, asked for: render and validate both exit 1 at its position.
    let mut test = Test::new()
        .file(
            "p.toml",
            &google_passphrase_profile("{ file = \"missing.txt\" }"),
        )
        .file("templates/k8s.yaml.j2", "{{ no_such_variable }}\n");
    for command in ["render", "validate"] {
        test = test
            .args([command, "p.toml", "--include-secrets"])
            .code(1)
            .stderr_has("E0215")
            .stderr_has("p.toml:8:")
            .run()
            .again();
    }
    // A template that fails while rendering fails validate too (with the same --templates).
    for command in ["render", "validate"] {
        let out_dir: &[&str] = if command == "render" {
            &["--out-dir", "out"]
        } else {
            &[]
        };
        test = test
            .arg(command)
            .arg(example())
            .args(["--templates", "templates"])
            .args(out_dir)
            .code(1)
            .stderr_has("k8s.yaml.j2")
            .run()
            .again();
    }
    assert!(!test.path().join("out").exists(), "nothing is written");
}

#[test]
fn validate_checks_every_deployable_target_of_every_example() {
    for example in support::examples() {
        Test::new().arg("validate").arg(&example).run();
        Test::new()
            .arg("render")
            .arg(&example)
            .args(["--out-dir", "o"])
            .run();
    }
}

/// Each template of a target `--out-dir` writes, broken in turn, fails validate, named; the
/// reference docs' template is not a deployable target's.
#[test]
fn validate_fails_on_a_broken_template_of_every_deployable_target() {
    let mut templates = support::file_names(&support::repo().join("templates"));
    templates.retain(|name| name.ends_with(".j2") && name != "docs.md.j2");
    // The deployable targets, and those a profile opts into (the preflight Job, once svcgen's
    // image is named), which validate checks as `render --out-dir` writes them.
    let opted_in = (svcgen::render::targets::TARGETS.iter())
        .filter(|row| row.opted_in.is_some())
        .count();
    assert_eq!(
        templates.len(),
        svcgen::render::Target::ALL.len() + opted_in,
        "one template per deployable or opted-in target: {templates:?}"
    );
    for template in &templates {
        Test::new()
            .file(&format!("templates/{template}"), "{{ no_such_variable }}\n")
            .arg("validate")
            .arg(example())
            .args([
                "--set",
                "deploy.preflight.repository=registry.example.org/svcgen",
            ])
            .args(["--templates", "templates"])
            .code(1)
            .stderr_has(template)
            .run();
    }
}

#[test]
fn lint_refuses_a_profile_and_points_to_validate() {
    // The wrong file for a command is E0246, exit 1, for every command.
    Test::new()
        .arg("lint")
        .arg(example())
        .code(1)
        .stderr_has("error[E0246]")
        .stderr_has("svcgen validate")
        .run();
}

#[test]
fn a_missing_templates_folder_is_a_usage_error() {
    for command in ["render", "validate"] {
        Test::new()
            .arg(command)
            .arg(example())
            .args(["--templates", "/nonexistent/templates"])
            .code(2)
            .stderr_has("/nonexistent/templates")
            .run();
    }
    Test::new()
        .args(["docs", "--templates", "/nonexistent/templates"])
        .code(2)
        .run();
}

#[test]
fn out_dir_with_targets_writes_only_those() {
    let ran = render_example(Test::new(), &["-t", "compose,k8s", "--out-dir", "out"]).run();
    assert_eq!(
        support::file_names(&ran.path("out")),
        ["docker-compose.yml", "k8s.yaml"]
    );
    render_example(Test::new(), &["-t", "compose", "-t", "k8s"])
        .code(2)
        .stderr_has("--out-dir")
        .run();
}

#[test]
fn check_with_json_reports_the_stale_files_and_their_diff_on_stdout() {
    let test = Test::new();
    let out = test.path().join("out");
    let out_dir = out.display().to_string();
    let env = out.join(".env");
    let ran = render_example(test, &["--out-dir", &out_dir]).run();
    let text = std::fs::read_to_string(&env).unwrap();
    std::fs::write(&env, text.replace("=pgsql", "=mysql")).unwrap();
    let check = ["--out-dir", &out_dir, "--check", "--format", "json"];
    let ran = render_example(ran.again(), &check).code(1).run();
    let report = ran.stdout_json();
    let stale = report["stale"].as_array().unwrap();
    assert_eq!(stale.len(), 1, "{report}");
    assert_eq!(stale[0]["file"], env.display().to_string());
    let diff = stale[0]["diff"].as_str().unwrap();
    assert!(diff.contains("-CN_SQL_DB_DIALECT=mysql") && diff.contains("+CN_SQL_DB_DIALECT=pgsql"));
    std::fs::write(&env, text).unwrap();
    let ran = render_example(ran.again(), &check).run();
    assert_eq!(ran.stdout_json(), serde_json::json!({ "stale": [] }));
}

#[test]
fn a_target_tip_only_names_a_close_target() {
    render_example(Test::new(), &["-t", "k8senv"])
        .code(2)
        .stderr_has("did you mean 'k8s-env'")
        .run();
    for far in ["docker", "helm", "yaml"] {
        render_example(Test::new(), &["-t", far])
            .code(2)
            .stderr_has("possible values")
            .stderr_lacks("tip")
            .run();
    }
}

#[test]
fn color_follows_the_flag_no_color_and_clicolor_force() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut test = Test::new()
            .args(["validate", "-"])
            .args(args)
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            test = test.env(k, v);
        }
        test.stdin(INVALID)
            .code(1)
            .run()
            .stderr()
            .contains('\u{1b}')
    };
    assert!(!run(&[], &[]), "not a terminal: no color");
    assert!(run(&["--color", "always"], &[]));
    assert!(
        run(&["--color", "always"], &[("NO_COLOR", "1")]),
        "the flag wins"
    );
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!run(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!run(&[], &[("CLICOLOR_FORCE", "0")]));
    assert!(!run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
}

#[test]
fn quiet_is_accepted_by_every_command_and_leaves_only_errors() {
    let example = example().display().to_string();
    let repo_file = |name: &str| support::repo().join(name).display().to_string();
    let lint_input = repo_file("tests/lint/hybrid.env");
    let a_profile = repo_file("examples/a-ldap-plugins.toml");
    let commands: Vec<Vec<&str>> = vec![
        vec!["validate", &example],
        vec!["render", &example],
        vec!["explain", "CN_SQL_DB_DIALECT"],
        vec!["diff", &example, &example],
        vec!["lint", &lint_input],
        vec!["lint", "clean.env"],
        vec!["lint", "warned.env"],
        vec!["docs"],
        vec!["init"],
        vec!["schema"],
        vec!["completions", "bash"],
        vec!["man"],
        vec!["migrate", "--to", "B", &a_profile, "--ldap-to", "sql"],
    ];
    let help = Test::new().arg("--help").run().stdout();
    // Without -q, lint says "no problems found" of the first and shows a warning and its count
    // for the second; `lint_input` has errors only, so -q keeps them and drops their count.
    let mut test = Test::new()
        .file("clean.env", "CN_CONFIG_ADAPTER=consul\n")
        .file(
            "warned.env",
            "CN_CONFIG_ADAPTER=consul\nCN_NO_SUCH_THING=1\n",
        );
    for command in &commands {
        assert!(
            help.contains(&format!("  {} ", command[0])),
            "{} is a command",
            command[0]
        );
        let ran = test.args(command).arg("-q").code_is_not(2).run();
        let stderr = ran.stderr();
        assert!(
            !stderr.contains("warning")
                && !stderr.contains("changed:")
                && !stderr.contains("valid,")
                && !stderr.contains("no problems found")
                && !stderr.lines().any(is_count_summary),
            "{command:?} -q prints only errors: {stderr}"
        );
        test = ran.again();
    }
    validate_invalid_stdin(&["-q"]);
}

/// A closing count line: "2 errors", "1 warning", "1 error, 2 warnings".
fn is_count_summary(line: &str) -> bool {
    line.split(", ").all(|part| {
        part.split_once(' ').is_some_and(|(count, word)| {
            count.parse::<u32>().is_ok()
                && ["error", "errors", "warning", "warnings"].contains(&word)
        })
    })
}

#[test]
fn summaries_go_to_stderr_and_stdout_holds_only_the_output() {
    // validate prints nothing on stdout for people.
    Test::new()
        .arg("validate")
        .arg(example())
        .stdout_is("")
        .stderr_has("valid")
        .run();
    Test::new()
        .arg("render")
        .arg(support::repo().join("examples"))
        .args(["--out-dir", "."])
        .stdout_is("")
        .stderr_has("rendered")
        .run();
}

#[test]
fn man_writes_a_page_per_subcommand() {
    let ran = Test::new().args(["man", "--out-dir", "."]).run();
    let top = ran.read("svcgen.1");
    for sub in [
        "validate", "render", "explain", "diff", "import", "lint", "migrate", "docs",
    ] {
        let text = ran.read(&format!("svcgen-{sub}.1"));
        assert!(
            text.contains(&format!("svcgen\\-{sub} \\-")),
            "{sub}: NAME section"
        );
        assert!(
            top.contains(&format!("svcgen\\-{sub}(1)")),
            "the top page refers to {sub}"
        );
    }
    let render = ran.read("svcgen-render.1");
    assert!(
        render.contains("\\-\\-out\\-dir"),
        "the render page has its options"
    );
}

/// `-` is standard input for `import`, `lint` and `migrate` too (named `<stdin>`), and
/// `migrate --in-place -` is refused: there is no file to rewrite.
#[test]
fn import_lint_and_migrate_read_standard_input() {
    Test::new()
        .args(["import", "-", "--edition", "B"])
        .stdin("CN_CONFIG_ADAPTER=kubernetes\n")
        .stdout_has("adapter = \"kubernetes\"")
        .run();
    Test::new()
        .args(["lint", "-"])
        .stdin("CN_CONFIG_ADAPTER=consl\n")
        .code(1)
        .stderr_has("<stdin>:1:19")
        .run();
    let a_profile =
        std::fs::read_to_string(support::repo().join("examples/a-couchbase-google.toml")).unwrap();
    Test::new()
        .args(["migrate", "--to", "B", "-"])
        .stdin(&a_profile)
        .stdout_has("edition = \"B\"")
        .run();
    Test::new()
        .args(["migrate", "--to", "B", "--in-place", "-"])
        .stdin(&a_profile)
        .code(2)
        .stderr_has("not standard input")
        .run();
}

/// `-o` naming a link that leads nowhere, in the current folder: the write goes through (the
/// link is replaced, as in any folder) or the error names the path; never an empty name.
#[test]
fn dash_o_to_a_dangling_link_in_the_current_folder_names_it() {
    let test = Test::new().profile("edition = \"B\"\n[secret]\nadapter = \"kubernetes\"\n");
    std::os::unix::fs::symlink("nowhere.env", test.path().join("dl")).unwrap();
    let ran = test
        .args(["render", "profile.toml", "-t", "dotenv", "-o", "dl"])
        .stderr_lacks("error: : ")
        .run();
    assert!(
        ran.read("dl").contains("CN_SECRET_ADAPTER"),
        "{}",
        ran.stderr()
    );
}

/// The advice for a deploy-time `[env]` value names the key `--set` takes (`env.NAME`), and
/// `explain` shows a query with a control character escaped, on one line.
#[test]
fn advice_names_keys_that_work_and_echoes_no_control_characters() {
    let ran = Test::new()
        .profile("edition = \"B\"\n[secret]\nadapter = \"kubernetes\"\n[env]\nTZ = { deploy_env = \"TZ\" }\n")
        .args(["render", "profile.toml", "-t", "k8s-env"])
        .code(1)
        .stderr_has("--set env.TZ=VALUE")
        .run();
    ran.again()
        .args([
            "render",
            "profile.toml",
            "-t",
            "k8s-env",
            "--set",
            "env.TZ=UTC",
        ])
        .stdout_has("UTC")
        .run();
    Test::new()
        .args(["explain", "a\nb"])
        .code(1)
        .stderr_has("`a\\nb` is neither")
        .run();
}
