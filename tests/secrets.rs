//! No secret value leaves svcgen in clear text, except in an output the user asked to hold it
//! (`render --include-secrets` into a file or stdout). Every command that can show a value is run
//! on inputs holding a random passphrase: in a profile (on a line that also has errors), in
//! `--set`, in an imported `.env` (under its name and its legacy `GLUU_` name), compose file and
//! ConfigMap, in a `--check` diff with `--include-secrets`, in `diff`, `explain` and `migrate`; in
//! human, JSON, SARIF and GitLab form. The passphrase must appear in no stdout and no stderr.

use crate::support;
use support::walk;

use proptest::prelude::*;
use std::path::Path;
use support::scenario::Test;
use support::svcgen;

const SECRET_KEY: &str = "secret_manager_passphrase";
const SECRET_ENV: &str = "CN_GOOGLE_SECRET_MANAGER_PASSPHRASE";

/// An edition B profile on the cloud provider with the passphrase written in clear text.
fn profile(secret: &str, extra: &str) -> String {
    format!(
        "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
         [persistence]\ntype = \"sql\"\n[google]\nproject_id = \"p\"\n{SECRET_KEY} = \"{secret}\"\n{extra}"
    )
}

/// Runs svcgen in `dir` and returns stdout and stderr together.
fn run(dir: &Path, args: &[&str]) -> String {
    let out = svcgen().current_dir(dir).args(args).output().unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("panicked"), "{args:?}: {text}");
    text
}

/// Inputs holding `secret` in every place a user can write one (and `other` in a stale output).
fn write_inputs(dir: &Path, secret: &str, other: &str) {
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    // A line with the secret and an error, so that a snippet shows that line.
    write(
        "bad.toml",
        &profile(
            secret,
            &format!("[env]\nX = 1\ngoogle_typo = {{ {SECRET_KEY} = \"{secret}\", bogus = 1 }}\n"),
        ),
    );
    write("ok.toml", &profile(secret, ""));
    write("other.toml", &profile(other, ""));
    write(
        "syntax.toml",
        &format!("edition = \"B\"\n[google]\n{SECRET_KEY} = \"{secret}\" oops\n"),
    );
    write(
        "a.toml",
        &format!(
            "edition = \"A\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
             [google]\nproject_id = \"p\"\n{SECRET_KEY} = \"{secret}\"\n[persistence]\ntype = \"couchbase\"\n\
             [token_server]\nbase_hostname = \"auth.example.org\"\nclient_id = \"1\"\n"
        ),
    );
    write(
        "legacy.toml",
        &format!("edition = \"B\"\n[env]\nGLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE = \"{secret}\"\n"),
    );
    write(
        "in.env",
        &format!(
            "CN_CONFIG_ADAPTER=google\nCN_SECRET_ADAPTER=google\n{SECRET_ENV}=\"{secret}\"\n\
             GLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE='{secret}'\nCN_WAIT_MAX_TIME=nope\n"
        ),
    );
    write(
        "legacy.env",
        &format!("CN_CONFIG_ADAPTER=google\nGLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE='{secret}'\n"),
    );
    write(
        "docker-compose.yml",
        &format!(
            "services:\n  ui:\n    image: x\n    environment:\n      CN_CONFIG_ADAPTER: google\n      \
             {SECRET_ENV}: \"{secret}\"\n      CN_WAIT_MAX_TIME: nope\n"
        ),
    );
    write(
        "cm.yaml",
        &format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: env\ndata:\n  CN_CONFIG_ADAPTER: google\n  \
             {SECRET_ENV}:\n    \"{secret}\"\n  CN_WAIT_MAX_TIME: nope\n"
        ),
    );
    write(
        "deploy.yaml",
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: ui\nspec:\n  containers:\n  - name: ui\n    image: x\n    env:\n    \
             - name: {SECRET_ENV}\n      value: \"{secret}\"\n    - name: CN_WAIT_MAX_TIME\n      value: nope\n"
        ),
    );
    // A stale .env on disk holding another secret value, checked with --include-secrets.
    write("stale.env", &format!("{SECRET_ENV}='{other}'\nA=1\n"));
}

/// Every command that can show a value, on files holding `secret`; returns (command, output).
fn every_showing_command(dir: &Path, secret: &str, other: &str) -> Vec<(String, String)> {
    write_inputs(dir, secret, other);
    let set = format!("google.{SECRET_KEY}={secret}");
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for format in ["human", "json", "sarif", "gitlab"] {
        for file in ["bad.toml", "ok.toml", "syntax.toml", "legacy.toml"] {
            runs.push(vec!["validate", file, "--format", format]);
        }
        runs.push(vec!["render", "legacy.toml", "--format", format]);
        runs.push(vec![
            "validate",
            "ok.toml",
            "--set",
            &set,
            "--set",
            "google.x=1",
            "--format",
            format,
        ]);
        for file in [
            "in.env",
            "legacy.env",
            "docker-compose.yml",
            "cm.yaml",
            "deploy.yaml",
        ] {
            runs.push(vec!["lint", file, "--edition", "B", "--format", format]);
            runs.push(vec!["import", file, "--edition", "B", "--format", format]);
        }
        runs.push(vec!["diff", "ok.toml", "other.toml", "--format", format]);
        runs.push(vec!["render", "bad.toml", "--format", format]);
        runs.push(vec![
            "render",
            "ok.toml",
            "-o",
            "stale.env",
            "--check",
            "--include-secrets",
            "--format",
            format,
        ]);
        runs.push(vec![
            "migrate",
            "--to",
            "B",
            "a.toml",
            "--in-place",
            "--format",
            format,
        ]);
    }
    for target in ["dotenv", "compose", "k8s-env", "k8s"] {
        runs.push(vec!["render", "ok.toml", "-t", target]);
    }
    runs.push(vec![
        "explain",
        "google.secret_manager_passphrase",
        "--profile",
        "ok.toml",
    ]);
    runs.push(vec![
        "explain",
        SECRET_ENV,
        "--profile",
        "other.toml",
        "-f",
        "ok.toml",
    ]);
    runs.into_iter()
        .map(|args| (args.join(" "), run(dir, &args)))
        .collect()
}

/// Letters, digits and punctuation that TOML, `.env` and YAML double quotes take as they are.
fn secret_value() -> impl Strategy<Value = String> {
    "[A-Za-z0-9][A-Za-z0-9 !#%&()*+,./:;<=>?@^_|~é-]{6,20}[A-Za-z0-9]"
}

proptest! {
    #![proptest_config(support::proptest_cases(6))]

    #[test]
    fn no_command_shows_a_secret_value(secret in secret_value(), other in secret_value()) {
        prop_assume!(!secret.contains(&other) && !other.contains(&secret));
        let dir = tempfile::tempdir().unwrap();
        for (command, out) in every_showing_command(dir.path(), &secret, &other) {
            prop_assert!(!out.contains(&secret), "`svcgen {}` shows the secret {:?}:\n{}", command, secret, out);
            prop_assert!(!out.contains(&other), "`svcgen {}` shows the secret {:?}:\n{}", command, other, out);
        }
    }
}

#[test]
fn a_literal_secret_on_an_error_line_is_masked_and_the_caret_still_points_at_it() {
    let dir = tempfile::tempdir().unwrap();
    let text = profile("hunter2-value", "")
        .replace("[google]\n", "[google]\nbogus = 1\n")
        .replace(
            &format!("{SECRET_KEY} = \"hunter2-value\""),
            &format!("{SECRET_KEY} = \"hunter2-value\" # shown"),
        );
    std::fs::write(dir.path().join("p.toml"), text).unwrap();
    let out = run(dir.path(), &["validate", "p.toml"]);
    assert!(!out.contains("hunter2-value"), "{out}");
    assert!(
        out.contains("secret_manager_passphrase = ****\n"),
        "the value (and what follows it on the line) is masked, with a mask of fixed length:\n{out}"
    );
    assert!(
        out.contains("                            ^^^^ secret in clear text"),
        "the caret still points at the value:\n{out}"
    );
}

#[test]
fn diff_reports_a_changed_literal_secret_without_its_value() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.toml"), profile("first-secret", "")).unwrap();
    std::fs::write(dir.path().join("new.toml"), profile("second-secret", "")).unwrap();
    let out = svcgen()
        .current_dir(dir.path())
        .args(["diff", "old.toml", "new.toml", "--exit-code"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a changed secret is a difference: {stdout}"
    );
    assert!(stdout.contains(&format!("~ {SECRET_ENV}")), "{stdout}");
    assert!(
        !stdout.contains("first-secret") && !stdout.contains("second-secret"),
        "{stdout}"
    );
}

#[test]
fn check_with_include_secrets_says_stale_without_showing_either_value() {
    let ran = Test::new()
        .file("p.toml", &profile("new-secret-1", ""))
        .args(["render", "p.toml", "-o", "out.env", "--include-secrets"])
        .run();
    let written = ran.read("out.env");
    assert!(
        written.contains("new-secret-1"),
        "the asked-for output holds it"
    );
    let ran = ran
        .again()
        .file("out.env", &written.replace("new-secret-1", "old-secret-2"))
        .args([
            "render",
            "p.toml",
            "-o",
            "out.env",
            "--include-secrets",
            "--check",
        ])
        .code(1)
        .run();
    let text = format!("{}{}", ran.stdout(), ran.stderr());
    assert!(
        text.contains("out.env: stale; it holds secret values, so the difference is not shown"),
        "{text}"
    );
    assert!(
        !text.contains("new-secret-1") && !text.contains("old-secret-2"),
        "{text}"
    );
}

#[test]
fn a_secret_under_its_legacy_name_is_imported_as_a_reference() {
    let ran = Test::new()
        .file(
            "a.env",
            "CN_CONFIG_ADAPTER=google\nCN_SECRET_ADAPTER=google\nGOOGLE_PROJECT_ID=p\n\
             GLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE=legacy-secret-3\n",
        )
        .args(["import", "a.env", "--edition", "B"])
        .run();
    let (stdout, stderr) = (ran.stdout(), ran.stderr());
    assert!(
        !stdout.contains("legacy-secret-3") && !stderr.contains("legacy-secret-3"),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains(&format!("{SECRET_KEY} = {{ env = \"{SECRET_ENV}\" }}")),
        "{stdout}"
    );
    assert!(
        stderr.contains("GLUU_"),
        "the old name is still reported: {stderr}"
    );
}

/// `render --check --include-secrets` against a missing output, and against a stale compose file
/// whose long passphrase is folded over continuation lines: no line of either rendering is shown.
#[test]
fn check_with_include_secrets_shows_no_line_of_a_file_holding_a_secret() {
    let dir = tempfile::tempdir().unwrap();
    let secret = format!("Zq9{}", "LongFoldedPassphrase".repeat(3));
    std::fs::write(dir.path().join("p.toml"), profile(&secret, "")).unwrap();
    std::fs::write(dir.path().join("old.yml"), "services: {}\n").unwrap();
    for (target, out) in [("dotenv", "missing.env"), ("compose", "old.yml")] {
        for format in ["human", "json"] {
            let args = [
                "render",
                "p.toml",
                "-t",
                target,
                "-o",
                out,
                "--include-secrets",
                "--check",
                "--format",
                format,
            ];
            let text = run(dir.path(), &args);
            assert!(!text.contains("Zq9"), "{args:?}: {text}");
            assert!(!text.contains("Passphrase"), "{args:?}: {text}");
            assert!(
                text.contains(&format!(
                    "{out}: stale; it holds secret values, so the difference is not shown"
                )),
                "{args:?}: {text}"
            );
        }
    }
}

/// A `data.set` line holding a passphrase in a `svcgen krm` function config: the result that
/// names the line masks the value.
#[test]
fn krm_results_never_echo_a_secret_set_line() {
    let input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n\
        functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: p}\n  data:\n    \
        profile: |\n      edition = \"A\"\n      [config]\n      adapter = \"consul\"\n      \
        [secret]\n      adapter = \"google\"\n      [google]\n      project_id = \"p\"\n    \
        set: |\n      google.secret_manager_passphrase=Zq9SuperSecretXy\n";
    let out = svcgen().arg("krm").write_stdin(input).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("set `"),
        "a result names the set line: {text}"
    );
    assert!(!text.contains("Zq9SuperSecretXy"), "{text}");
}

/// A passphrase under a misspelled name whose "did you mean" is the secret's name: in a
/// profile's table, in `[env]`, in `--set`, and in a `.env` for `lint` and `import`.
#[test]
fn a_secret_under_a_misspelled_name_is_still_masked() {
    let dir = tempfile::tempdir().unwrap();
    let value = "Zq9MisspeltSecret";
    let typo = profile("x", "").replace(
        &format!("{SECRET_KEY} = \"x\""),
        &format!("secret_manager_passphrse = \"{value}\""),
    );
    std::fs::write(dir.path().join("typo.toml"), typo).unwrap();
    let in_env =
        format!("edition = \"B\"\n[env]\nCN_GOOGLE_SECRET_MANAGER_PASSPRASE = \"{value}\"\n");
    std::fs::write(dir.path().join("env.toml"), in_env).unwrap();
    std::fs::write(dir.path().join("ok.toml"), profile("x", "")).unwrap();
    let dotenv = format!("CN_GOOGLE_SECRET_MANAGER_PASSPRASE={value}\nCN_SECRET_ADAPTER=google\n");
    std::fs::write(dir.path().join("t.env"), dotenv).unwrap();
    let set = format!("google.secret_manager_passphras={value}");
    for format in ["human", "json", "sarif", "gitlab"] {
        let runs: [Vec<&str>; 5] = [
            vec!["validate", "typo.toml"],
            vec!["validate", "env.toml"],
            vec!["validate", "ok.toml", "--set", &set],
            vec!["lint", "t.env", "--edition", "B"],
            vec!["import", "t.env", "--edition", "B"],
        ];
        for mut args in runs {
            args.extend(["--format", format]);
            let out = run(dir.path(), &args);
            assert!(
                out.contains("PASSPRASE") || out.contains("passphr"),
                "{args:?} names the key: {out}"
            );
            assert!(!out.contains(value), "{args:?}: {out}");
        }
    }
}

/// A passphrase equal to a spec word (`google`): a message naming `google.bogus` keeps the name
/// whole (masking the word inside it would reveal the passphrase), while the value stays masked.
#[test]
fn a_passphrase_equal_to_a_spec_word_leaves_names_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.toml"), profile("google", "bogus = 1\n")).unwrap();
    for format in ["human", "json", "sarif", "gitlab"] {
        let out = run(dir.path(), &["validate", "p.toml", "--format", format]);
        assert!(
            out.contains("unknown key `google.bogus`"),
            "{format}: {out}"
        );
        assert!(!out.contains("****.bogus"), "{format}: {out}");
        assert!(
            !out.contains(&format!("{SECRET_KEY} = \"google\"")),
            "{format}: {out}"
        );
    }
}

/// A secret value over several lines: a `.env` quote never closed, one closed lines later
/// (read as a TOML base by `extends` too), a TOML multi-line string in a profile, a YAML block
/// scalar in a compose file. No line of it is shown by `lint`, `import` or `validate`.
#[test]
fn a_secret_over_several_lines_is_masked_to_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "open.env",
        &format!("CN_SECRET_ADAPTER=google\n{SECRET_ENV}=\"Zq9first\nZq9second\n"),
    );
    write(
        "closed.env",
        &format!("{SECRET_ENV}=\"Zq9first\nZq9second\"\nCN_CONFIG_ADAPTER=bogus\n"),
    );
    write("ext.toml", "extends = \"closed.env\"\nedition = \"A\"\n");
    write(
        "ml.toml",
        &profile("x", "bogus = 1\n").replace(
            &format!("{SECRET_KEY} = \"x\""),
            &format!("{SECRET_KEY} = \"\"\"\nZq9first\nZq9second\"\"\" oops"),
        ),
    );
    write(
        "docker-compose.yml",
        &format!(
            "services:\n  ui:\n    image: x\n    environment:\n      {SECRET_ENV}: |\n        \
             Zq9first\n        Zq9second\n      CN_WAIT_MAX_TIME: nope\n"
        ),
    );
    for format in ["human", "json", "sarif"] {
        let runs: [&[&str]; 7] = [
            &["lint", "open.env"],
            &["import", "open.env"],
            &["lint", "closed.env"],
            &["import", "closed.env"],
            &["validate", "ext.toml"],
            &["validate", "ml.toml"],
            &["lint", "docker-compose.yml"],
        ];
        for args in runs {
            let mut args = args.to_vec();
            args.extend(["--format", format]);
            let out = run(dir.path(), &args);
            assert!(
                out.contains("error") || out.contains("warning"),
                "{args:?}: {out}"
            );
            assert!(!out.contains("Zq9"), "{args:?}: {out}");
        }
    }
}

/// A path is not the secret: `--set-file` naming a missing file and a `{ file = "..." }`
/// reference show their paths (in the message and in the snippet).
#[test]
fn the_path_of_a_secret_reference_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.toml"), profile("x", "")).unwrap();
    let set = format!("google.{SECRET_KEY}=missing_pass.txt");
    let out = run(
        dir.path(),
        &["render", "p.toml", "--set-file", &set, "--include-secrets"],
    );
    assert!(out.contains("missing_pass.txt: cannot read"), "{out}");
    assert!(
        out.contains(&format!("| {set}\n")),
        "the snippet shows it: {out}"
    );
    let reference = profile("x", "").replace("\"x\"", "{ file = \"nope/pass.txt\" }");
    std::fs::write(dir.path().join("r.toml"), reference).unwrap();
    let out = run(dir.path(), &["render", "r.toml", "--include-secrets"]);
    assert!(
        out.contains(&format!("{SECRET_KEY} = {{ file = \"nope/pass.txt\" }}")),
        "{out}"
    );
}

/// A Deployment handing the passphrase to the container as `$(PASS)` and, through an `envFrom`
/// prefix, from a ConfigMap value also read under another prefix.
const CARRIED_PASSPHRASE: &str = r#"apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data:
  MANAGER_PASSPHRASE: hunter-cm
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: admin-ui}
spec:
  template:
    spec:
      containers:
        - name: admin-ui
          image: x
          envFrom:
            - prefix: APP_
              configMapRef: {name: cm}
            - prefix: CN_GOOGLE_SECRET_
              configMapRef: {name: cm}
          env:
            - {name: PASS, value: hunter-env}
            - {name: CN_CONFIG_ADAPTER, value: google}
            - {name: CN_SECRET_ADAPTER, value: google}
            - {name: GOOGLE_PROJECT_ID, value: p}
            - {name: OTHER, value: "$(PASS)"}
"#;

/// A passphrase given as `$(VAR)` or through an `envFrom` prefix stays a reference:
/// the variable it came from is not imported, and no rendered ConfigMap holds its value.
#[test]
fn a_passphrase_from_a_reference_never_lands_in_a_configmap() {
    for how in ["envFrom", "$(PASS)"] {
        let dir = tempfile::tempdir().unwrap();
        let manifest = if how == "envFrom" {
            // Here only the ConfigMap's value is the passphrase.
            CARRIED_PASSPHRASE.replace("value: hunter-env", "value: not-secret")
        } else {
            CARRIED_PASSPHRASE
                .replace("MANAGER_PASSPHRASE: hunter-cm", "UNRELATED: x")
                .replace(
                    "{name: OTHER, value: \"$(PASS)\"}",
                    "{name: CN_GOOGLE_SECRET_MANAGER_PASSPHRASE, value: \"$(PASS)\"}",
                )
        };
        support::write_file(dir.path(), "dep.yaml", &manifest);
        let imported = svcgen()
            .current_dir(dir.path())
            .args(["import", "--edition", "B", "dep.yaml", "-o", "p.toml"])
            .output()
            .unwrap();
        assert!(imported.status.success(), "{how}: {imported:?}");
        let stderr = String::from_utf8_lossy(&imported.stderr);
        assert!(
            stderr.contains("holds the value of the secret"),
            "{how}: {stderr}"
        );
        let profile = std::fs::read_to_string(dir.path().join("p.toml")).unwrap();
        assert!(
            profile.contains("secret_manager_passphrase = { env ="),
            "{how}: the passphrase is a reference:\n{profile}"
        );
        let rendered = run(dir.path(), &["render", "p.toml", "-t", "k8s"]);
        for text in [&profile, &rendered] {
            assert!(
                !text.contains("hunter-"),
                "{how}: the passphrase's value leaked:\n{text}"
            );
        }
    }
}

/// A host file others cannot read (0600) keeps that mode when `render --out-dir`
/// copies it into the kustomize base, whatever the umask.
#[test]
fn a_private_host_file_stays_private_when_copied() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("certs")).unwrap();
    let cert = support::write_file(&dir.path().join("certs"), "auth.crt", "-----BEGIN-----\n");
    std::fs::set_permissions(&cert, std::fs::Permissions::from_mode(0o600)).unwrap();
    support::write_file(
        dir.path(),
        "p.toml",
        "edition = \"B\"\n[deploy.files]\n\"token_server.cert_file\" = { host = \"certs/auth.crt\", configmap = \"auth-certs\" }\n",
    );
    let status = std::process::Command::new("sh")
        .current_dir(dir.path())
        .arg("-c")
        .arg("umask 022 && exec \"$0\" render p.toml --out-dir out -q")
        .arg(assert_cmd::cargo::cargo_bin("svcgen"))
        .status()
        .unwrap();
    assert!(status.success());
    let copies: Vec<_> = walk(&dir.path().join("out/files"));
    assert_eq!(copies.len(), 1, "{copies:?}");
    let mode = std::fs::metadata(&copies[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "{}", copies[0].display());
}
