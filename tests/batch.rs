//! Batch rendering: several profiles or a folder, each into `--out-dir/<name>/`, in parallel;
//! a failing profile writes nothing and the others still render.

mod support;

use predicates::prelude::*;
use support::svcgen;

use support::{file_names as entries, write_file as write};

#[test]
fn several_profiles_render_into_one_folder_each() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let examples = support::examples();
    svcgen()
        .arg("render")
        .args(&examples)
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .success();
    let expected: Vec<String> = examples
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries(&out), expected);
    for stem in &expected {
        // A base whose generators read copies of host files holds them under files/ too.
        let kustomization =
            std::fs::read_to_string(out.join(stem).join("kustomization.yaml")).unwrap();
        let mut files: Vec<&str> = support::OUT_DIR_FILES.to_vec();
        if kustomization.contains("=files/") {
            files.insert(3, "files");
        }
        assert_eq!(entries(&out.join(stem)), files, "{stem}");
    }
    let single = dir.path().join("single");
    svcgen()
        .arg("render")
        .arg(&examples[0])
        .arg("--out-dir")
        .arg(&single)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(single.join("k8s.yaml")).unwrap(),
        std::fs::read(out.join(&expected[0]).join("k8s.yaml")).unwrap(),
        "a batch renders each profile exactly as alone"
    );
    svcgen()
        .arg("render")
        .args(&examples)
        .arg("--out-dir")
        .arg(&out)
        .arg("--check")
        .assert()
        .success();
}

#[test]
fn a_failing_profile_writes_nothing_and_the_others_render() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = dir.path().join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    write(&profiles, "good.toml", "edition = \"B\"\n");
    write(
        &profiles,
        "bad.toml",
        "edition = \"B\"\n[persistence]\ntype = \"postgres\"\n",
    );
    write(&profiles, "also-good.toml", "edition = \"A\"\n");
    write(&profiles, "notes.txt", "not a profile");
    let out = dir.path().join("out");
    svcgen()
        .arg("render")
        .arg(&profiles)
        .arg("--out-dir")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("bad.toml:3:8")
                .and(predicate::str::contains("rendered 2 profile(s), 1 failed")),
        );
    assert_eq!(entries(&out), ["also-good", "good"]);
}

#[test]
fn batch_diagnostics_as_json_are_one_array() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.toml", "edition = \"B\"\n[env]\nX = \"1\"\n");
    let b = write(dir.path(), "b.toml", "edition = \"C\"\n");
    let output = svcgen()
        .args(["validate", "--format", "json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let codes: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["W0306", "E0200"]);
}

#[test]
fn batch_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let examples = support::examples();
    svcgen()
        .arg("render")
        .args(&examples[..2])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--out-dir"));
    std::fs::create_dir(dir.path().join("x")).unwrap();
    let one = write(dir.path(), "p.toml", "edition = \"B\"\n");
    let two = write(&dir.path().join("x"), "p.toml", "edition = \"B\"\n");
    svcgen()
        .arg("render")
        .arg(&one)
        .arg(&two)
        .arg("--out-dir")
        .arg(dir.path().join("out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("two profiles are named p"));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    svcgen()
        .arg("validate")
        .arg(&empty)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no *.toml profile"));
}

#[test]
fn a_thousand_generated_profiles_render_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = dir.path().join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    for i in 0..1000 {
        let edition = if i % 2 == 0 { "A" } else { "B" };
        let text = format!(
            "edition = \"{edition}\"\n[config]\nadapter = \"consul\"\nconsul = {{ host = \"consul-{i}\", port = {} }}\n\
             [token_server]\nclient_id = \"client-{i}\"\n[deploy]\nname = \"admin-ui-{i}\"\n",
            8000 + i
        );
        write(&profiles, &format!("tenant-{i:04}.toml"), &text);
    }
    let out = dir.path().join("out");
    svcgen()
        .arg("render")
        .arg(&profiles)
        .arg("--out-dir")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success();
    let rendered = entries(&out);
    assert_eq!(rendered.len(), 1000);
    let env = std::fs::read_to_string(out.join("tenant-0777").join(".env")).unwrap();
    assert!(env.contains("CN_CONFIG_CONSUL_PORT=8777"));
    assert!(env.contains("CN_TOKEN_SERVER_CLIENT_ID=client-777"));
}

/// A folder's `*.toml` entry that is a FIFO or a dangling link is a failed profile of the batch
/// (refused by the bounded reader), never skipped in silence.
#[test]
fn special_entries_of_a_batch_folder_fail_instead_of_being_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(&support::examples()[0], input.join("a.toml")).unwrap();
    let fifo = input.join("b.toml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink(dir.path().join("nowhere.toml"), input.join("c.toml")).unwrap();
    svcgen()
        .arg("render")
        .arg(&input)
        .arg("--out-dir")
        .arg(dir.path().join("out"))
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("b.toml")
                .and(predicate::str::contains("c.toml"))
                .and(predicate::str::contains("rendered 1 profile(s), 2 failed")),
        );
}
