//! Issue 26: the record of an output folder (`.svcgen-record`) lets an unchanged profile skip
//! its render, and never hides a change: an edited output, an edited host file, another
//! templates folder, another svcgen build and another `--set` each cause a render, and `--check`
//! reports each; a record that does not parse is ignored.

use crate::support;

use sha2::Digest;
use support::scenario::{Ran, Test};

/// A profile that copies a host file (a plugin archive) into its kustomize base.
const PROFILE: &str = "edition = \"A\"\n[config]\nadapter = \"consul\"\n\
    consul = { host = \"consul\", port = 8500 }\n[deploy]\nname = \"admin-ui-a\"\n\
    [admin_ui]\nplugins = [\"mine\"]\n[deploy.plugins]\nmine = { host = \"plugin.zip\", configmap = \"admin-ui-plugins\", key = \"mine.zip\" }\n";

const RECORD: &str = "out/.svcgen-record";

/// The profile rendered into `out/`, whose record vouches for its outputs.
fn rendered() -> Ran {
    let ran = Test::new()
        .file("p.toml", PROFILE)
        .file("plugin.zip", "zip one")
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("wrote out/")
        .run();
    let env = ran.read("out/.env");
    let line = output_line(&ran.read(RECORD), ".env").to_string();
    assert!(line.contains(&format!("{:x}", sha2::Sha256::digest(env.as_bytes()))));
    ran
}

/// The record's output line of `name`.
fn output_line<'a>(record: &'a str, name: &str) -> &'a str {
    let quoted = format!(" \"{name}\"");
    record
        .lines()
        .find(|l| l.starts_with("output ") && l.ends_with(&quoted))
        .unwrap_or_else(|| panic!("no output line for {name} in:\n{record}"))
}

/// Runs `--check`, which must find a stale file, then a render, which must write.
fn check_then_render(ran: Ran, extra: &[&str]) -> Ran {
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .args(extra)
        .code(1)
        .stderr_has("stale")
        .run();
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .args(extra)
        .stderr_has("wrote out/: ")
        .stderr_lacks("nothing written")
        .run()
}

#[test]
fn record_an_unchanged_folder_is_left_alone_and_passes_check() {
    let ran = rendered();
    assert!(ran.read(RECORD).starts_with("svcgen output record v2\n"));
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("out/: up to date, nothing written")
        .run();
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .run();
}

#[test]
fn record_an_edited_output_is_reported_by_check_and_repaired() {
    let ran = rendered();
    let env = ran.read("out/.env");
    std::fs::write(ran.path("out/.env"), env.replace('=', "= ")).unwrap();
    let ran = check_then_render(ran, &[]);
    assert_eq!(ran.read("out/.env"), env);
}

#[test]
fn record_an_edited_output_of_the_same_size_and_time_is_still_caught() {
    let ran = rendered();
    let path = ran.path("out/k8s.yaml");
    let before = std::fs::metadata(&path).unwrap();
    let text = ran
        .read("out/k8s.yaml")
        .replacen("admin-ui-a", "admin-ui-b", 1);
    std::fs::write(&path, &text).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    let ran = check_then_render(ran, &[]);
    assert!(!ran.read("out/k8s.yaml").contains("admin-ui-b"));
}

#[test]
fn record_an_edited_host_file_is_copied_again() {
    let ran = rendered();
    let copy = support::walk(&ran.path("out"))
        .into_iter()
        .find(|p| std::fs::read(p).is_ok_and(|b| b == b"zip one"))
        .expect("the host file's copy in the base");
    std::fs::write(ran.path("plugin.zip"), "zip two").unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stderr_has("stale")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("wrote out/")
        .stderr_lacks("nothing written")
        .run();
    assert_eq!(std::fs::read(&copy).unwrap(), b"zip two");
    assert!(
        ran.read(RECORD).contains("plugin.zip"),
        "the host file is an input"
    );
}

#[test]
fn record_another_templates_folder_renders() {
    let ran = rendered();
    std::fs::create_dir(ran.path("tpl")).unwrap();
    std::fs::write(ran.path("tpl/dotenv.env.j2"), "# mine\n").unwrap();
    let ran = check_then_render(ran, &["--templates", "tpl"]);
    assert_eq!(ran.read("out/.env"), "# mine");
    // The same folder with other contents is another templates folder too.
    std::fs::write(ran.path("tpl/dotenv.env.j2"), "# mine, edited\n").unwrap();
    let ran = check_then_render(ran, &["--templates", "tpl"]);
    assert_eq!(ran.read("out/.env"), "# mine, edited");
}

#[test]
fn record_a_changed_set_renders() {
    let ran = rendered();
    let set = ["--set", "deploy.name=admin-ui-z"];
    let ran = check_then_render(ran, &set);
    assert!(ran.read("out/k8s.yaml").contains("admin-ui-z"));
}

/// A record written by another build of svcgen is not trusted, even when it is right about the
/// folder: here it vouches for an edited output (its digest rewritten to match), and only its
/// version line says it is not this build's.
#[test]
fn record_of_another_svcgen_version_is_not_trusted() {
    let ran = rendered();
    let env = ran.read("out/.env");
    let edited = format!("{env}# edited by another build\n");
    std::fs::write(ran.path("out/.env"), &edited).unwrap();
    let record = ran.read(RECORD);
    let line = output_line(&record, ".env");
    let forged_line = format!(
        "output {:x} {} shared \".env\"",
        sha2::Sha256::digest(edited.as_bytes()),
        edited.len()
    );
    let forged = record.replace(line, &forged_line);
    // The same record with this build's key would be trusted (the test's control)...
    std::fs::write(ran.path(RECORD), &forged).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .run();
    // ...with another build's key (what another version writes), it is not.
    let key = forged.lines().nth(1).unwrap();
    let other = forged.replace(key, &format!("key {}", "0".repeat(64)));
    std::fs::write(ran.path(RECORD), &other).unwrap();
    let ran = check_then_render(ran, &[]);
    assert_eq!(ran.read("out/.env"), env);
}

/// A record that does not parse (garbage, cut short, a path leading out, a malformed line) is
/// ignored: each time it vouches for an edited output, `--check` renders and reports it, and
/// the render repairs the output and writes a whole record again.
#[test]
fn record_that_is_corrupted_is_ignored_and_replaced() {
    let mut ran = rendered();
    let good = ran.read(RECORD);
    let env = ran.read("out/.env");
    let edited = "EDITED=1\n";
    let forged_line = format!(
        "output {:x} {} shared \".env\"",
        sha2::Sha256::digest(edited.as_bytes()),
        edited.len()
    );
    let vouching = good.replace(output_line(&good, ".env"), &forged_line);
    for broken in [
        "not a record".to_string(),
        vouching.replace("\nend\n", "\n"),
        vouching.replace(" \"k8s.yaml\"", " \"../k8s.yaml\""),
        vouching.replacen("input ", "input x", 1),
        vouching.replacen("diagnostics ", "diagnostics x", 1),
    ] {
        std::fs::write(ran.path("out/.env"), edited).unwrap();
        std::fs::write(ran.path(RECORD), &broken).unwrap();
        ran = check_then_render(ran, &[]);
        assert_eq!(ran.read("out/.env"), env);
        assert_eq!(ran.read(RECORD), good, "a whole record again");
    }
}

/// A profile whose rendering warns only of what its deployment lacks (a credential file without
/// a source, a host left at loopback: warnings that checking the profile alone reproduces) is
/// still held by its record, and a held run reports those warnings again, as a render would:
/// `--deny-warnings` fails on them whether or not the folder is up to date.
#[test]
fn record_a_held_folder_reports_the_deployment_warnings_again() {
    let profile = "edition = \"B\"\n[wait]\nmax_time = 100\n";
    let ran = Test::new()
        .file("p.toml", profile)
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("warning[W0331]")
        .stderr_has("wrote out/")
        .run();
    assert!(ran.read(RECORD).contains("output "), "a record is kept");
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("warning[W0331]")
        .stderr_has("up to date")
        .run();
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out", "--deny-warnings"])
        .code(1)
        .stderr_has("warning[W0331]")
        .run();
}

/// Points the link `link` (in the test's folder) at `target` instead of what it pointed to.
fn relink(ran: &Ran, target: &str, link: &str) {
    let link = ran.path(link);
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(target, &link).unwrap();
}

/// Defect 1: an input named through a link that is retargeted (the profile, a host file, a
/// folder on the way) is another input, even when the file it led to is unchanged.
#[test]
fn record_a_retargeted_link_renders() {
    let b = PROFILE.replace("admin-ui-a", "admin-ui-b");
    let profile = PROFILE.replace("plugin.zip", "cur/plugin.zip");
    let test = Test::new()
        .file("a.toml", &profile)
        .file("b.toml", &b.replace("plugin.zip", "cur/plugin.zip"))
        .file("v1/plugin.zip", "zip one")
        .file("v2/plugin.zip", "zip two");
    std::os::unix::fs::symlink("a.toml", test.path().join("p.toml")).unwrap();
    std::os::unix::fs::symlink("v1", test.path().join("cur")).unwrap();
    let ran = test
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("wrote out/")
        .run();
    // The profile's link retargeted.
    relink(&ran, "b.toml", "p.toml");
    let ran = check_then_render(ran, &[]);
    assert!(ran.read("out/k8s.yaml").contains("admin-ui-b"));
    // A linked folder on a host file's path retargeted.
    relink(&ran, "v2", "cur");
    let ran = check_then_render(ran, &[]);
    let copies = support::walk(&ran.path("out"));
    assert!(
        copies
            .iter()
            .any(|p| std::fs::read(p).is_ok_and(|b| b == b"zip two"))
    );
}

/// Defect 2: an overlay read from standard input is not a file a record can vouch for: such a
/// run neither trusts nor writes a record.
#[test]
fn record_an_overlay_from_stdin_is_never_held() {
    let args = [
        "render",
        "p.toml",
        "-f",
        "-",
        "--out-dir",
        "out",
        "-t",
        "dotenv",
    ];
    let ran = Test::new()
        .file("p.toml", PROFILE)
        .file("plugin.zip", "zip one")
        .args(args)
        .stdin("[env]\nTZ = \"one\"\n")
        .stderr_has("wrote out/")
        .run();
    assert!(ran.read("out/.env").contains("one"));
    let ran = ran
        .again()
        .args(args)
        .stdin("[env]\nTZ = \"two\"\n")
        .stderr_lacks("nothing written")
        .run();
    assert!(ran.read("out/.env").contains("two"));
    assert!(!ran.path(RECORD).exists(), "no record of a stdin layer");
}

/// Defect 3: a relative host path given with `--set` resolves against the current folder; a
/// run from another folder reads another file, and the record made in the first does not hold.
#[test]
fn record_a_relative_set_path_from_another_folder_renders() {
    let test = Test::new()
        .file("p.toml", PROFILE)
        .file("plugin.zip", "zip one")
        .file("d1/r", "role one")
        .file("d2/r", "role two");
    let p = test.path().join("p.toml").display().to_string();
    let out = test.path().join("out").display().to_string();
    let (d1, d2) = (test.path().join("d1"), test.path().join("d2"));
    let set = "deploy.files.\"secret.vault.role_id_file\".host=r";
    let args = ["render", &p, "--out-dir", &out, "--set", set];
    let ran = test.current_dir(d1).args(args).stderr_has("wrote ").run();
    let ran = ran
        .again()
        .current_dir(&d2)
        .args(args)
        .arg("--check")
        .code(1)
        .stderr_has("stale")
        .run();
    let ran = ran
        .again()
        .current_dir(&d2)
        .args(args)
        .stderr_lacks("nothing written")
        .run();
    assert!(ran.read("out/docker-compose.yml").contains("d2/r"));
}

/// Defect 4: a host file replaced by a folder with the same permission bits is another input
/// (its type is part of its recorded state): the warning a render gives of it comes back, and
/// `--deny-warnings` fails on it.
#[test]
fn record_a_host_file_replaced_by_a_folder_renders() {
    let profile =
        format!("{PROFILE}[deploy.files]\n\"secret.vault.role_id_file\" = {{ host = \"role\" }}\n");
    let args = ["render", "p.toml", "--out-dir", "out", "-t", "dotenv"];
    let ran = Test::new()
        .file("p.toml", &profile)
        .file("plugin.zip", "zip one")
        .file("role", "role one")
        .args(args)
        .stderr_lacks("W0310")
        .run();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(ran.path("role")).unwrap().permissions();
    std::fs::remove_file(ran.path("role")).unwrap();
    std::fs::create_dir(ran.path("role")).unwrap();
    std::fs::set_permissions(ran.path("role"), mode.clone()).unwrap();
    let now = std::fs::metadata(ran.path("role")).unwrap().permissions();
    assert_eq!(
        now.mode() & 0o7777,
        mode.mode() & 0o7777,
        "the same permission bits"
    );
    ran.again()
        .args(args)
        .arg("--deny-warnings")
        .code(1)
        .stderr_has("warning[W0310]")
        .stderr_lacks("up to date")
        .run();
}

/// Defect 5: a profile that gains a deploy-time value leaves the Kubernetes targets out of
/// `--out-dir`; their files from the earlier render (listed in the folder's record) are stale:
/// `--check` reports them, and the render removes them in its commit, so `kubectl apply -k`
/// finds no stale base. A file the record does not list is never removed.
#[test]
fn record_a_target_left_out_is_removed_and_reported_by_check() {
    let ran = rendered();
    std::fs::write(ran.path("out/notes.md"), "mine").unwrap();
    let profile = format!("{PROFILE}[env]\nTZ = {{ deploy_env = \"TZ\" }}\n");
    std::fs::write(ran.path("p.toml"), profile).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stdout_has("out/k8s.yaml: svcgen wrote it earlier and no longer renders it")
        .stdout_has("out/kustomization.yaml: svcgen wrote it earlier")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("left out")
        .stderr_has("removed")
        .run();
    for gone in [
        "k8s.yaml",
        "kustomization.yaml",
        "DEPLOY.md",
        "k8s-env.yaml",
    ] {
        assert!(!ran.path("out").join(gone).exists(), "{gone} is stale");
    }
    let left = support::walk(&ran.path("out"));
    assert!(
        !left
            .iter()
            .any(|p| std::fs::read(p).is_ok_and(|b| b == b"zip one"))
    );
    assert_eq!(ran.read("out/notes.md"), "mine", "not svcgen's: kept");
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .run();
}
