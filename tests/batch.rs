//! Batch rendering: several profiles or a folder, each into `--out-dir/<name>/`, in parallel;
//! a failing profile writes nothing and the others still render.

use crate::support;

use support::file_names as entries;
use support::scenario::Test;

#[test]
fn several_profiles_render_into_one_folder_each() {
    let examples = support::examples();
    let render =
        |test: Test, out: &str| test.arg("render").args(&examples).args(["--out-dir", out]);
    let ran = render(Test::new(), "out").run();
    let out = ran.path("out");
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
    let ran = ran
        .again()
        .arg("render")
        .arg(&examples[0])
        .args(["--out-dir", "single"])
        .run();
    assert_eq!(
        std::fs::read(ran.path("single/k8s.yaml")).unwrap(),
        std::fs::read(out.join(&expected[0]).join("k8s.yaml")).unwrap(),
        "a batch renders each profile exactly as alone"
    );
    render(ran.again(), "out").arg("--check").run();
}

#[test]
fn a_failing_profile_writes_nothing_and_the_others_render() {
    let ran = Test::new()
        .file("profiles/good.toml", "edition = \"B\"\n")
        .file(
            "profiles/bad.toml",
            "edition = \"B\"\n[persistence]\ntype = \"postgres\"\n",
        )
        .file("profiles/also-good.toml", "edition = \"A\"\n")
        .file("profiles/notes.txt", "not a profile")
        .args(["render", "profiles", "--out-dir", "out"])
        .code(1)
        .stderr_has("bad.toml:3:8")
        .stderr_has("rendered 2 profile(s), 1 failed")
        .run();
    assert_eq!(entries(&ran.path("out")), ["also-good", "good"]);
}

#[test]
fn batch_diagnostics_as_json_are_one_array() {
    let ran = Test::new()
        // Deployable but for its one warning (a secret adapter that reads no credential file;
        // its kubernetes adapters acknowledge that compose cannot start them, W0341).
        .file(
            "a.toml",
            "edition = \"B\"\nallow = [\"kube-api-config\"]\n[config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n[persistence.sql]\nhost = \"db\"\n[env]\nX = \"1\"\n",
        )
        .file("b.toml", "edition = \"C\"\n")
        .args(["validate", "--format", "json", "a.toml", "b.toml"])
        .code(1)
        .run();
    let json = ran.stdout_json();
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
    let examples = support::examples();
    Test::new()
        .arg("render")
        .args(&examples[..2])
        .code(2)
        .stderr_has("--out-dir")
        .run();
    Test::new()
        .file("p.toml", "edition = \"B\"\n")
        .file("x/p.toml", "edition = \"B\"\n")
        .args(["render", "p.toml", "x/p.toml", "--out-dir", "out"])
        .code(2)
        .stderr_has("two profiles are named p")
        .run();
    let test = Test::new();
    std::fs::create_dir(test.path().join("empty")).unwrap();
    test.args(["validate", "empty"])
        .code(2)
        .stderr_has("no *.toml profile")
        .run();
}

#[test]
fn a_thousand_generated_profiles_render_in_one_process() {
    let mut test = Test::new();
    for i in 0..1000 {
        let edition = if i % 2 == 0 { "A" } else { "B" };
        let text = format!(
            "edition = \"{edition}\"\n[config]\nadapter = \"consul\"\nconsul = {{ host = \"consul-{i}\", port = {} }}\n\
             [token_server]\nclient_id = \"client-{i}\"\n[deploy]\nname = \"admin-ui-{i}\"\n",
            8000 + i
        );
        test = test.file(&format!("profiles/tenant-{i:04}.toml"), &text);
    }
    let ran = test
        .args(["render", "profiles", "--out-dir", "out", "--quiet"])
        .run();
    let rendered = entries(&ran.path("out"));
    assert_eq!(rendered.len(), 1000);
    let env = ran.read("out/tenant-0777/.env");
    assert!(env.contains("CN_CONFIG_CONSUL_PORT=8777"));
    assert!(env.contains("CN_TOKEN_SERVER_CLIENT_ID=client-777"));
}

/// A folder's `*.toml` entry that is a FIFO or a dangling link is a failed profile of the batch
/// (refused by the bounded reader), never skipped in silence.
#[test]
fn special_entries_of_a_batch_folder_fail_instead_of_being_skipped() {
    let test = Test::new();
    let input = test.path().join("in");
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
    std::os::unix::fs::symlink(test.path().join("nowhere.toml"), input.join("c.toml")).unwrap();
    test.args(["render", "in", "--out-dir", "out"])
        .timeout(60)
        .code(2)
        .stderr_has("b.toml")
        .stderr_has("c.toml")
        .stderr_has("rendered 1 profile(s), 2 failed")
        .run();
}

/// A batch profile whose `extends` base lies inside the output folder of
/// another profile of the batch is refused as it is read, naming the base and the folder,
/// whatever the order in which the workers reach the two; the other profiles render.
fn a_base_inside_a_batch_output_folder_is_refused(owner: &str, reader: &str) {
    for _ in 0..4 {
        // In one repository: the base is inside the profiles' root, and the fence refuses it.
        let ran = Test::new()
            .file(".git/HEAD", "ref: refs/heads/main\n")
            .file(&format!("profiles/{owner}.toml"), "edition = \"B\"\n")
            .file("profiles/m.toml", "edition = \"B\"\n")
            .file(
                &format!("profiles/{reader}.toml"),
                &format!("extends = \"../out/{owner}/base.toml\"\n"),
            )
            .file(&format!("out/{owner}/base.toml"), "edition = \"B\"\n")
            .args(["render", "profiles", "--out-dir", "out"])
            .code(2)
            .stderr_has("base.toml: lies inside ")
            .stderr_has(&format!("out/{owner}, an output folder of this batch"))
            .stderr_has("rendered 2 profile(s), 1 failed")
            .run();
        for rendered in [owner, "m"] {
            assert!(
                ran.path(&format!("out/{rendered}/.env")).is_file(),
                "{rendered} renders whatever the order"
            );
        }
        assert!(!ran.path(&format!("out/{reader}/.env")).exists());
        assert_eq!(
            ran.read(&format!("out/{owner}/base.toml")),
            "edition = \"B\"\n"
        );
    }
}

#[test]
fn a_base_in_an_earlier_profile_s_folder_is_refused() {
    a_base_inside_a_batch_output_folder_is_refused("a", "z");
}

#[test]
fn a_base_in_a_later_profile_s_folder_is_refused() {
    a_base_inside_a_batch_output_folder_is_refused("z", "a");
}

/// A batch folder may not take a name of svcgen's temporary files in an output folder
/// (`.svcgen-…`).
#[test]
fn batch_a_profile_named_like_svcgens_own_files_is_refused() {
    let profile = "edition = \"B\"\n";
    let ran = Test::new()
        .file(".svcgen-record.toml", profile)
        .file("x.toml", profile)
        .args([
            "render",
            ".svcgen-record.toml",
            "x.toml",
            "--out-dir",
            "out",
        ])
        .code(2)
        .stderr_has(".svcgen-record.toml")
        .stderr_has("rename the profile")
        .run();
    assert!(!ran.path("out/.svcgen-record").exists());
}

/// A profile of a batch folder named in another case (`UPPER.TOML`) is read, not skipped.
#[test]
fn a_profile_named_in_upper_case_is_read_not_skipped() {
    let ran = Test::new()
        .file("profiles/lower.toml", "edition = \"B\"\n")
        .file("profiles/UPPER.TOML", "edition = \"B\"\n")
        .file("profiles/Mixed.Toml", "edition = \"B\"\n")
        .args(["render", "profiles", "--out-dir", "out"])
        .stderr_has("rendered 3 profile(s)")
        .run();
    assert_eq!(entries(&ran.path("out")), ["Mixed", "UPPER", "lower"]);
}
