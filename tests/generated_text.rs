//! A value cannot steer the generated text. A host path, a name or a value
//! holding a line break, a code fence, or Markdown, YAML or shell syntax stays in its place in
//! every output (DEPLOY.md's commands, comments, `.env`, YAML), or is refused with an error.

use crate::support;

use support::scenario::Test;

/// A vault profile whose role id file (a Secret the operator creates: DEPLOY.md prints the
/// command, with the host path) is `host`.
fn profile_with_host(host: &str) -> String {
    format!(
        "edition = \"B\"\n[secret]\nadapter = \"vault\"\nvault = {{ addr = \"http://vault:8200\" }}\n\
         [deploy.files]\n\"secret.vault.role_id_file\" = {{ host = {}, secret = \"approle\", key = \"role_id\" }}\n",
        toml_string(host)
    )
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// The lines of DEPLOY.md that open or close a code block.
fn fences(markdown: &str) -> usize {
    markdown
        .lines()
        .filter(|l| l.trim_start().starts_with("```") || l.trim_start().starts_with("~~~"))
        .count()
}

#[test]
fn a_host_path_with_a_line_break_cannot_close_deploy_md_s_code_block() {
    for host in [
        "a\n```\n# pwned\n```sh\nrm -rf ~",
        "a\r```",
        "a\u{2028}b",
        "x\t\u{1b}[2J",
    ] {
        let test = Test::new().profile(&profile_with_host(host));
        let out = test.path().join("out");
        let test = test
            .args(["render", "profile.toml", "-t", "deploy-notes"])
            .code(1)
            .stderr_has("E0214")
            .stderr_has("secret.vault.role_id_file")
            .stdout_is("")
            .run()
            .again();
        // The whole base is refused too: nothing is written.
        test.args(["render", "profile.toml", "--out-dir", "out"])
            .code(1)
            .stderr_has("E0214")
            .run();
        assert!(!out.exists(), "{host:?}: --out-dir wrote {}", out.display());
    }
}

/// Markdown, shell and YAML syntax without a line break stays inside the shell word DEPLOY.md
/// prints: the block keeps its fences, and the shell reads the word back as the path.
#[test]
fn a_host_path_with_markdown_and_shell_syntax_stays_one_shell_word() {
    let plain = Test::new()
        .profile(&profile_with_host("certs/role_id"))
        .args(["render", "profile.toml", "-t", "deploy-notes"])
        .run()
        .stdout();
    for host in [
        "c`d` ``` ~~~ $(touch pwned) ; rm x' \"q\" # h",
        "- [x](javascript:1) <b>*a*</b> key: value &anchor !!tag",
        "'''",
    ] {
        let ran = Test::new()
            .profile(&profile_with_host(host))
            .args(["render", "profile.toml", "-t", "deploy-notes"])
            .run();
        let notes = ran.stdout();
        assert_eq!(fences(&notes), fences(&plain), "{host:?}:\n{notes}");
        assert_eq!(notes.lines().count(), plain.lines().count(), "{host:?}");
        let line = notes
            .lines()
            .find(|l| l.contains("--from-file=role_id="))
            .expect("the command");
        let word = line
            .trim()
            .strip_prefix("--from-file=role_id=")
            .unwrap()
            .trim_end_matches(" \\");
        let read_back = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf %s {word}"))
            .current_dir(ran.path("."))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&read_back.stdout), host);
        assert!(!ran.path("pwned").exists());
    }
}

/// A secret's `{ file = … }` path (shown in the comment of `.env` and compose) and a file name
/// of `import` stay on their comment line.
#[test]
fn a_path_in_a_comment_stays_on_its_line() {
    let path = "s\n```\nEVIL=1\nevil: true\n# x";
    let profile = support::scenario::google_passphrase_profile(&format!(
        "{{ file = {} }}",
        toml_string(path)
    ));
    for target in ["dotenv", "compose", "k8s-env", "k8s"] {
        let out = Test::new()
            .profile(&profile)
            .args(["render", "profile.toml", "-t", target])
            .run()
            .stdout();
        assert!(
            !out.lines()
                .any(|l| l.starts_with("EVIL") || l.starts_with("evil")),
            "{target}:\n{out}"
        );
    }
}
