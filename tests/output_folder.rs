//! What an output folder holds and what svcgen does with it: nothing in the folder vouches for
//! itself (every `render` and `--check` renders and compares), svcgen removes only a file that
//! holds exactly what it renders, it keeps no file of its own there (so none with a machine
//! path), and it never writes through a link in it. A file planted in the folder (an old
//! `.svcgen-record` or `.svcgen-commit-*`) decides nothing.

use crate::support;

use sha2::Digest;
use support::scenario::{Ran, Test};

/// A profile that copies a host file (a plugin archive) into its kustomize base.
const PROFILE: &str = "edition = \"A\"\n[config]\nadapter = \"consul\"\n\
    consul = { host = \"consul\", port = 8500 }\n[deploy]\nname = \"admin-ui-a\"\n\
    [admin_ui]\nplugins = [\"mine\"]\n[deploy.plugins]\nmine = { host = \"plugin.zip\", configmap = \"admin-ui-plugins\", key = \"mine.zip\" }\n";

/// The record file name earlier versions kept (and trusted) in an output folder.
const RECORD: &str = "out/.svcgen-record";

/// The profile rendered into `out/`.
fn rendered() -> Ran {
    Test::new()
        .file("p.toml", PROFILE)
        .file("plugin.zip", "zip one")
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("wrote out/")
        .run()
}

fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", sha2::Sha256::digest(bytes))
}

/// Plants a record saying `name` holds `text` (its digest and size): the record an earlier
/// svcgen left is edited to match, or a record of that form is written.
fn plant_record_output(ran: &Ran, name: &str, text: &str) {
    let line = format!(
        "output {} {} shared \"{name}\"",
        sha256(text.as_bytes()),
        text.len()
    );
    let listed = |l: &str| l.starts_with("output ") && l.ends_with(&format!(" \"{name}\""));
    let record = match std::fs::read_to_string(ran.path(RECORD)) {
        Ok(old) => {
            let mut lines: Vec<String> = old
                .lines()
                .filter(|l| !listed(l))
                .map(String::from)
                .collect();
            let end = lines.len().saturating_sub(1);
            lines.insert(end, line);
            lines.join("\n")
        }
        Err(_) => format!("svcgen output record v2\nkey 00\ndiagnostics none\n{line}\nend"),
    };
    std::fs::write(ran.path(RECORD), record + "\n").unwrap();
}

#[test]
fn check_reports_an_edited_output_whatever_a_record_in_the_folder_says() {
    let ran = rendered();
    let k8s = ran.read("out/k8s.yaml");
    assert!(k8s.contains("replicas: 1"), "{k8s}");
    let edited = k8s.replacen("replicas: 1", "replicas: 50", 1);
    std::fs::write(ran.path("out/k8s.yaml"), &edited).unwrap();
    plant_record_output(&ran, "k8s.yaml", &edited);
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stdout_has("+  replicas: 1")
        .stderr_has("1 file(s) are stale")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("wrote out/: ")
        .run();
    assert_eq!(ran.read("out/k8s.yaml"), k8s, "the render repairs it");
}

/// A profile whose deployment lacks something (W0331): a planted `diagnostics none` cannot hide
/// the warning from the gate CI runs.
#[test]
fn check_with_deny_warnings_reports_warnings_whatever_the_folder_holds() {
    let ran = Test::new()
        .file("p.toml", "edition = \"B\"\n[wait]\nmax_time = 100\n")
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("warning[W0331]")
        .run();
    let record = match std::fs::read_to_string(ran.path(RECORD)) {
        Ok(old) => old.replace("diagnostics replay", "diagnostics none"),
        Err(_) => "svcgen output record v2\nkey 00\ndiagnostics none\nend\n".to_string(),
    };
    std::fs::write(ran.path(RECORD), record).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .args(["--deny-warnings", "--format", "sarif"])
        .code(1)
        .stdout_has("W0331")
        .run();
    ran.again()
        .args(["validate", "p.toml", "--deny-warnings"])
        .code(1)
        .stderr_has("warning[W0331]")
        .run();
}

/// svcgen keeps no file of its own in an output folder, and no file it writes there names the
/// machine's paths (the folder is committed and shared).
#[test]
fn no_file_in_the_output_folder_holds_a_machine_path() {
    let ran = rendered();
    let root = ran.path("");
    let root = root.to_str().unwrap().trim_end_matches('/');
    for path in support::walk(&ran.path("out")) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(!name.starts_with(".svcgen"), "svcgen's own file: {name}");
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(root), "{name} names {root}:\n{text}");
        for home in ["/home/", "/root/", "/tmp/", "/work/"] {
            assert!(!text.contains(home), "{name} names a machine path:\n{text}");
        }
    }
}

/// A profile that stops deploying with compose: a `docker-compose.yml` that holds exactly what
/// svcgen renders for it is removed (render gives it back with `-t compose`); one the user
/// changed is theirs now: left in place, said, and reported by `--check`.
#[test]
fn a_file_left_out_is_removed_only_while_it_holds_what_svcgen_renders() {
    let ran = rendered();
    let opted_out = PROFILE.replace("[deploy]\n", "[deploy]\ncompose = false\n");
    std::fs::write(ran.path("p.toml"), &opted_out).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stdout_has(
            "out/docker-compose.yml: this profile no longer renders it; a render removes it",
        )
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("removed 1 file(s) it no longer renders")
        .run();
    assert!(!ran.path("out/docker-compose.yml").exists());
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .run();

    std::fs::write(ran.path("out/docker-compose.yml"), "services: {mine: {}}\n").unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("docker-compose.yml: this profile no longer renders this file")
        .stderr_has("left in place")
        .stderr_lacks("removed")
        .run();
    assert_eq!(ran.read("out/docker-compose.yml"), "services: {mine: {}}\n");
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stdout_has("left in place")
        .run();
}

/// A user's file of the name of a target the render leaves out, with other content, is never
/// removed, even when a planted record lists it.
#[test]
fn a_users_file_of_a_rendered_name_is_never_removed() {
    let ran = rendered();
    std::fs::write(ran.path("out/docker-compose.yml"), "services: {mine: {}}\n").unwrap();
    plant_record_output(&ran, "docker-compose.yml", "services: {mine: {}}\n");
    let opted_out = PROFILE.replace("[deploy]\n", "[deploy]\ncompose = false\n");
    std::fs::write(ran.path("p.toml"), &opted_out).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has("left in place")
        .run();
    assert_eq!(ran.read("out/docker-compose.yml"), "services: {mine: {}}\n");
}

/// Record lines and commit records planted in the folder (as earlier versions kept them) name a
/// user's files to remove and to replace: nothing of them happens.
#[test]
fn planted_record_and_commit_files_remove_or_replace_nothing() {
    let ran = rendered();
    std::fs::create_dir_all(ran.path("out/sub")).unwrap();
    for (name, text) in [
        ("out/mine.txt", "mine"),
        ("out/sub/notes.md", "notes"),
        ("out/sub/keep.md", "keep"),
        ("out/sub/.svcgen-x-0", "evil"),
    ] {
        std::fs::write(ran.path(name), text).unwrap();
    }
    plant_record_output(&ran, "mine.txt", "mine");
    std::fs::write(
        ran.path("out/.svcgen-commit-x"),
        "svcgen commit record v1\n[\"sub/.svcgen-x-0\",\"sub/keep.md\"]\n[\"sub/notes.md\"]\nend\n",
    )
    .unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .run();
    assert_eq!(ran.read("out/mine.txt"), "mine");
    assert_eq!(ran.read("out/sub/notes.md"), "notes");
    assert_eq!(ran.read("out/sub/keep.md"), "keep");
}

/// A link where an output belongs would make two outputs one file: the render refuses it and
/// writes nothing through it, and `--check` reports it.
#[test]
fn a_link_in_the_output_folder_is_refused_not_written_through() {
    let ran = rendered();
    let env = ran.read("out/.env");
    std::fs::remove_file(ran.path("out/k8s-env.yaml")).unwrap();
    std::os::unix::fs::symlink(".env", ran.path("out/k8s-env.yaml")).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stdout_has("out/k8s-env.yaml: is a link")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .code(2)
        .stderr_has("k8s-env.yaml: is a link")
        .run();
    assert_eq!(
        ran.read("out/.env"),
        env,
        "nothing written through the link"
    );
}

/// A folder link inside the output folder is refused, not written through.
#[test]
fn a_folder_link_in_the_output_folder_is_refused() {
    let ran = rendered();
    std::fs::create_dir(ran.path("elsewhere")).unwrap();
    let files = ran.path("out/files");
    std::fs::rename(&files, ran.path("elsewhere/files")).unwrap();
    std::os::unix::fs::symlink(ran.path("elsewhere/files"), &files).unwrap();
    std::fs::write(ran.path("plugin.zip"), "zip two").unwrap();
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .code(2)
        .stderr_has("link")
        .run();
}

/// `--check` of a large output whose every line changed: the diff's search is bounded, and the
/// shown diff says it was cut.
#[test]
fn check_of_a_file_whose_every_line_changed_says_the_diff_was_cut() {
    let ran = Test::new()
        .file("p.toml", "edition = \"B\"\n")
        .args(["render", "p.toml", "-o", "out.env"])
        .run();
    let garbage: String = (0..25_000).map(|i| format!("X{i}=changed\n")).collect();
    std::fs::write(ran.path("out.env"), garbage).unwrap();
    ran.again()
        .args(["render", "p.toml", "-o", "out.env", "--check"])
        .code(1)
        .timeout(20)
        .stdout_has("the diff was cut")
        .run();
}

/// A link where a host file's copy belongs, leading to the host file itself, is a link in the
/// output folder like any other: kustomize refuses the base ("security; file ... is not in or
/// below" the base), so the render refuses it too rather than taking the link for the copy and
/// saying it wrote the folder.
#[test]
fn a_link_to_the_host_file_where_its_copy_belongs_is_refused_not_taken_for_the_copy() {
    let ran = rendered();
    let copy = "out/files/admin-ui-plugins/mine.zip";
    assert_eq!(ran.read(copy), "zip one");
    std::fs::remove_file(ran.path(copy)).unwrap();
    std::os::unix::fs::symlink("../../../plugin.zip", ran.path(copy)).unwrap();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out", "--check"])
        .code(1)
        .stdout_has("mine.zip: is a link")
        .run();
    let ran = ran
        .again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .code(2)
        .stderr_has("mine.zip: ")
        .stderr_has("remove the link")
        .run();
    assert!(
        std::fs::symlink_metadata(ran.path(copy)).is_ok_and(|m| m.file_type().is_symlink()),
        "the link is left for the user to remove"
    );
}
