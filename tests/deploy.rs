//! The deployable outputs read by the tools that deploy them: `kubectl kustomize` builds the
//! `--out-dir` base of every example, `kubernetes-validate --strict` accepts the result, the
//! Deployment is complete (probes, resources, ports, non-root) with a startup budget covering the
//! startup checks, any change of the environment changes the pod template, `--include-secrets`
//! puts the passphrase only in a Secret, and docker compose v2 finds every bind source from an
//! output folder anywhere.

use crate::support;
use support::walk;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::scenario::Test;
use support::{examples, repo, tool};
use support::{objects, of_kind};
use svcgen::model::Model;

/// Renders `profile` into `out` with extra arguments; panics unless it succeeds.
fn render_into(profile: &Path, out: &Path, extra: &[&str]) {
    Test::new()
        .arg("render")
        .arg(profile)
        .arg("--out-dir")
        .arg(out)
        .arg("-q")
        .args(extra)
        .run();
}

/// `kubectl kustomize OUT`, with no flag: every file the base names lies inside it (kustomize's
/// load restrictor refuses any other). `None` without kubectl.
fn kustomize(out: &Path) -> Option<String> {
    let kubectl = tool("kubectl")?;
    let kustomization = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    assert!(
        !kustomization.contains("LoadRestrictionsNone"),
        "{kustomization}"
    );
    let mut command = Command::new(kubectl);
    command.arg("kustomize").arg(out);
    let output = command.output().expect("kubectl runs");
    assert!(
        output.status.success(),
        "kubectl kustomize {}: {}",
        out.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

fn deployment(objects: &[Value]) -> &Value {
    let found = of_kind(objects, "Deployment");
    assert_eq!(found.len(), 1, "one Deployment");
    found[0]
}

/// The environment variable of a startup-check key, from the spec model.
fn env_of(key: &str) -> &'static str {
    &Model::get()
        .vars
        .iter()
        .find(|v| v.key == key)
        .expect("a startup-check key is a variable")
        .env
}

fn run_ok(mut command: Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_example_builds_validates_and_is_complete() {
    let Some(validator) = tool("kubernetes-validate") else {
        return;
    };
    for example in examples() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        render_into(&example, &out, &[]);
        let Some(built) = kustomize(&out) else { return };
        let file = dir.path().join("built.yaml");
        std::fs::write(&file, &built).unwrap();
        let mut command = Command::new(&validator);
        command.arg("--strict").arg(&file);
        run_ok(
            command,
            &format!("kubernetes-validate {}", example.display()),
        );
        let objects = objects(&built);
        assert_complete(&objects, &example);
        assert_startup_budget(&objects, &example);
        assert_eq!(
            of_kind(&objects, "Service").len(),
            1,
            "{}",
            example.display()
        );
    }
}

fn assert_complete(objects: &[Value], example: &Path) {
    let pod = &deployment(objects)["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let what = example.display();
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true, "{what}");
    assert_eq!(container["securityContext"]["runAsNonRoot"], true, "{what}");
    assert_eq!(container["securityContext"]["runAsUser"], 1000, "{what}");
    assert_eq!(
        container["securityContext"]["allowPrivilegeEscalation"],
        false
    );
    assert_eq!(
        container["securityContext"]["capabilities"]["drop"][0],
        "ALL"
    );
    assert_eq!(container["ports"][0]["containerPort"], 8080, "{what}");
    for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
        assert_eq!(
            container[probe]["tcpSocket"]["port"], "http",
            "{what} {probe}"
        );
    }
    for limit in ["requests", "limits"] {
        for resource in ["cpu", "memory"] {
            assert!(
                container["resources"][limit][resource].is_string(),
                "{what}: resources.{limit}.{resource}"
            );
        }
    }
    let service = of_kind(objects, "Service")[0];
    assert_eq!(service["spec"]["ports"][0]["targetPort"], "http");
    let labels = &deployment(objects)["metadata"]["labels"];
    assert_eq!(labels["app.kubernetes.io/managed-by"], "svcgen");
}

/// The startup probe waits at least as long as the startup checks can run: their values as the
/// container reads them (the ConfigMap), plus the sleep after the last try.
fn assert_startup_budget(objects: &[Value], what: &Path) {
    let checks = &Model::get().container.startup_checks;
    let data: Vec<&Value> = of_kind(objects, "ConfigMap")
        .into_iter()
        .map(|c| &c["data"])
        .collect();
    let seconds = |key: &str| -> i64 {
        data.iter()
            .find_map(|d| d[env_of(key)].as_str())
            .unwrap_or_else(|| panic!("{}: {key} in a ConfigMap", what.display()))
            .parse()
            .unwrap()
    };
    let (max_time, sleep) = (seconds(&checks.max_time), seconds(&checks.sleep));
    let probe = &deployment(objects)["spec"]["template"]["spec"]["containers"][0]["startupProbe"];
    let budget =
        probe["failureThreshold"].as_i64().unwrap() * probe["periodSeconds"].as_i64().unwrap();
    assert!(
        budget >= max_time + sleep,
        "{}: startup budget {budget} s < {max_time} + {sleep} s",
        what.display()
    );
}

/// The waits run one after another (config, secret, then each distinct
/// backend), each up to `max_time + sleep`: b-hybrid maps its categories to two distinct backends,
/// so the budget is (2 + 2) x (1234 + 17) + the two locks' connection checks (2 x (60 + 10)) +
/// the margin (60), rounded up to whole periods (10 s). (Before the timeline it counted one lock
/// check of 60 s.)
#[test]
fn startup_budget_follows_the_profiles_wait_values() {
    let checks = &Model::get().container.startup_checks;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let example = repo().join("examples/b-hybrid.toml");
    let max_time = format!("{}=1234", checks.max_time);
    let sleep = format!("{}=17", checks.sleep);
    render_into(&example, &out, &["--set", &max_time, "--set", &sleep]);
    let objects = objects(&std::fs::read_to_string(out.join("k8s.yaml")).unwrap());
    let probe = &deployment(&objects)["spec"]["template"]["spec"]["containers"][0]["startupProbe"];
    assert_eq!(probe["periodSeconds"], 10);
    assert_eq!(
        probe["failureThreshold"],
        (4 * (1234 + 17) + 2 * 70 + 60 + 9) / 10
    );
    let notes = std::fs::read_to_string(out.join("DEPLOY.md")).unwrap();
    assert!(
        notes.contains("5144 + 60 = 5204 s"),
        "DEPLOY.md states the formula with the profile's numbers: {notes}"
    );
}

/// Edition A builds its app at every start: the startup probe adds the build
/// allowance (settable), and DEPLOY.md says so.
#[test]
fn edition_a_adds_the_build_allowance() {
    let ran = Test::new()
        .file(
            "p.toml",
            "edition = \"A\"\ntoken_server = { base_hostname = \"auth.example.org\" }\n\
             [deploy.probes]\nbuild_allowance = 900\n",
        )
        .args(["render", "p.toml", "--out-dir", "out", "-q"])
        .run();
    let objects = objects(&ran.read("out/k8s.yaml"));
    let probe = &deployment(&objects)["spec"]["template"]["spec"]["containers"][0]["startupProbe"];
    // Edition A's default persistence is one backend (ldap): 3 waits, then both locks' checks
    // (2 x 70 s; before the timeline edition A counted none).
    assert_eq!(
        probe["failureThreshold"],
        (3 * (300 + 10) + 2 * 70 + 900 + 60 + 9) / 10
    );
    let notes = ran.read("out/DEPLOY.md");
    assert!(notes.contains("1970 + 60 = 2030 s"), "{notes}");
    assert!(notes.contains("npm run build:prod"), "{notes}");
}

#[test]
fn a_one_value_change_changes_the_pod_template() {
    let dir = tempfile::tempdir().unwrap();
    let example = repo().join("examples/b-consul-vault-sql.toml");
    let checks = &Model::get().container.startup_checks;
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    render_into(&example, &a, &[]);
    render_into(&example, &b, &[]);
    render_into(&example, &c, &["--set", &format!("{}=11", checks.sleep)]);
    let template = |out: &Path| -> Value {
        let built = kustomize(out)
            .unwrap_or_else(|| std::fs::read_to_string(out.join("k8s.yaml")).unwrap());
        deployment(&objects(&built))["spec"]["template"].clone()
    };
    assert_eq!(
        template(&a),
        template(&b),
        "the same profile renders the same pod template"
    );
    assert_ne!(
        template(&a),
        template(&c),
        "a changed value changes the pod template"
    );
    for name in ["k8s.yaml", "kustomization.yaml", "DEPLOY.md"] {
        assert_eq!(
            std::fs::read(a.join(name)).unwrap(),
            std::fs::read(b.join(name)).unwrap(),
            "{name} is deterministic"
        );
    }
}

#[test]
fn include_secrets_puts_the_passphrase_only_in_a_secret() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let marker = "Pass-7f3a9c-marker";
    Test::new()
        .arg("render")
        .arg(repo().join("examples/b-google-spanner.toml"))
        .arg("--out-dir")
        .arg(&out)
        .args(["--include-secrets", "-q"])
        .env("ADMIN_UI_PASSPHRASE", marker)
        .run();
    for name in ["kustomization.yaml", "DEPLOY.md", "k8s-env.yaml"] {
        let text = std::fs::read_to_string(out.join(name)).unwrap();
        assert!(!text.contains(marker), "{name} holds the passphrase");
    }
    let manifests = out.join("k8s.yaml");
    let mode = std::fs::metadata(&manifests).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "k8s.yaml holds a secret: owner only");
    let text = std::fs::read_to_string(&manifests).unwrap();
    let built = kustomize(&out).unwrap_or(text);
    let objects = objects(&built);
    let holding: Vec<&str> = objects
        .iter()
        .filter(|o| o.to_string().contains(marker))
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(holding, ["Secret"], "only a Secret holds the passphrase");
    let secret = of_kind(&objects, "Secret")[0]["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let refs = deployment(&objects).to_string();
    assert!(
        refs.contains(&secret),
        "the Deployment refers to the generated Secret {secret}"
    );
}

#[test]
fn without_include_secrets_the_secret_to_create_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    render_into(&repo().join("examples/b-google-spanner.toml"), &out, &[]);
    let notes = std::fs::read_to_string(out.join("DEPLOY.md")).unwrap();
    let manifests = std::fs::read_to_string(out.join("k8s.yaml")).unwrap();
    let objects = objects(&manifests);
    assert!(
        of_kind(&objects, "Secret").is_empty(),
        "no Secret is written"
    );
    let env = &deployment(&objects)["spec"]["template"]["spec"]["containers"][0]["env"][0];
    let name = env["valueFrom"]["secretKeyRef"]["name"].as_str().unwrap();
    let key = env["valueFrom"]["secretKeyRef"]["key"].as_str().unwrap();
    assert!(
        notes.contains(&format!("kubectl create secret generic {name}")),
        "{notes}"
    );
    assert!(
        notes.contains(&format!("--from-file={key}=PATH")),
        "{notes}"
    );
    assert!(
        manifests.contains(&format!("Secret {name}")),
        "a comment names it"
    );
}

/// A copy of an example and its files in a fresh folder.
fn copied_example(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join("profiles");
    let files = repo().join("examples/files");
    for entry in walk(&files) {
        let target = root.join("files").join(entry.strip_prefix(&files).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
    let profile = root.join(name);
    std::fs::copy(repo().join("examples").join(name), &profile).unwrap();
    profile
}

/// Distinctive secret file contents, searched for in every output file.
const ROLE_ID: &str = "role-id-5c1f0e9a-never-in-outputs\n";
const SECRET_ID: &str = "secret-id-8d2b7c44-never-in-outputs\n";

/// A copy of the vault example with distinctive secret files, and an output folder elsewhere.
fn vault_example(dir: &Path) -> (PathBuf, PathBuf) {
    let profile = copied_example(dir, "b-consul-vault-sql.toml");
    let files = profile.parent().unwrap().join("files/secrets");
    std::fs::write(files.join("vault_role_id"), ROLE_ID).unwrap();
    std::fs::write(files.join("vault_secret_id"), SECRET_ID).unwrap();
    (profile, dir.join("elsewhere/out"))
}

#[test]
fn host_files_become_generated_objects_that_roll_the_pods() {
    let dir = tempfile::tempdir().unwrap();
    let (profile, out) = vault_example(dir.path());
    render_into(&profile, &out, &["--include-secrets"]);
    let kustomization = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    assert!(
        kustomization.contains("\"role_id=secrets/vault-approle/role_id\""),
        "{kustomization}"
    );
    let Some(first) = kustomize(&out) else { return };
    let objects_before = objects(&first);
    let secret = of_kind(&objects_before, "Secret")[0].clone();
    assert_eq!(
        secret["data"].as_object().unwrap().len(),
        2,
        "role_id and secret_id"
    );
    let host = profile
        .parent()
        .unwrap()
        .join("files/secrets/vault_role_id");
    std::fs::write(host, "another role\n").unwrap();
    render_into(&profile, &out, &["--include-secrets"]);
    let second = kustomize(&out).unwrap();
    assert_ne!(
        deployment(&objects_before)["spec"]["template"],
        deployment(&objects(&second))["spec"]["template"],
        "a changed host file renames its Secret and rolls the pods"
    );
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn host_files_are_copied_into_the_base_and_secret_ones_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (profile, out) = vault_example(dir.path());
    let host_cert = profile
        .parent()
        .unwrap()
        .join("files/certs/token_server.crt");
    render_into(&profile, &out, &[]);
    let copy = out.join("files/auth-certs/token_server.crt");
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&host_cert).unwrap()
    );
    for file in walk(&out) {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for secret in [ROLE_ID, SECRET_ID] {
            assert!(!text.contains(secret.trim()), "{}", file.display());
        }
    }
    assert!(!out.join("secrets").exists(), "no secret is copied");
    let notes = std::fs::read_to_string(out.join("DEPLOY.md")).unwrap();
    let relative = "../../profiles/files/secrets/vault_role_id";
    assert!(
        notes.contains("kubectl create secret generic vault-approle -n identity")
            && notes.contains(&format!("--from-file=role_id={relative}")),
        "{notes}"
    );
    assert!(out.join(relative).is_file(), "the path is right from OUT");
    let kustomization = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    assert!(kustomization.contains("#   Secret vault-approle"));
    assert!(
        !kustomization.contains("secretGenerator"),
        "{kustomization}"
    );
    if let Some(built) = kustomize(&out) {
        assert!(of_kind(&objects(&built), "Secret").is_empty());
    }

    use std::os::unix::fs::MetadataExt;
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    let file = std::fs::File::options().write(true).open(&copy).unwrap();
    file.set_modified(old).unwrap();
    let inode = std::fs::metadata(&copy).unwrap().ino();
    render_into(&profile, &out, &[]);
    let after = std::fs::metadata(&copy).unwrap();
    assert_eq!(
        after.modified().unwrap(),
        old,
        "an unchanged copy is not rewritten"
    );
    assert_eq!(after.ino(), inode, "an unchanged copy is not replaced");

    render_into(&profile, &out, &["--include-secrets"]);
    let secret_copy = out.join("secrets/vault-approle/role_id");
    assert_eq!(std::fs::read_to_string(&secret_copy).unwrap(), ROLE_ID);
    assert_eq!(mode(&secret_copy), 0o600);
    let ignore = std::fs::read_to_string(out.join("secrets/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "*"), "{ignore}");
}

#[test]
fn check_finds_a_copy_whose_host_file_changed() {
    let dir = tempfile::tempdir().unwrap();
    let profile = copied_example(dir.path(), "a-ldap-plugins.toml");
    let out = dir.path().join("out");
    render_into(&profile, &out, &[]);
    let check = |code: i32| {
        Test::new()
            .arg("render")
            .arg(&profile)
            .arg("--out-dir")
            .arg(&out)
            .arg("--check")
            .code(code)
            .run()
    };
    check(0); // fresh
    let archive = walk(&profile.parent().unwrap().join("files"))
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "zip"))
        .expect("a plugin archive");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(&[0, 0xff, 0x80]);
    std::fs::write(&archive, &bytes).unwrap();
    let report = check(1).stdout();
    assert!(report.contains("binary file differs"), "{report}");
    assert!(!report.contains('\u{fffd}'), "no bytes dumped: {report}");
}

#[test]
fn compose_v2_finds_every_bind_source_from_an_output_folder_elsewhere() {
    let Some(compose) = support::docker_compose_v2() else {
        return;
    };
    let mut checked = 0;
    for example in examples() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("somewhere/else");
        render_into(&example, &out, &[]);
        let mut command = Command::new(&compose);
        command
            .current_dir("/")
            .arg("-f")
            .arg(out.join("docker-compose.yml"))
            .args(["config", "--format", "json", "--no-interpolate"]);
        let config: Value =
            serde_json::from_str(&run_ok(command, "docker-compose config")).unwrap();
        for service in config["services"].as_object().unwrap().values() {
            for volume in service["volumes"].as_array().into_iter().flatten() {
                let source = Path::new(volume["source"].as_str().unwrap());
                assert!(
                    source.is_file(),
                    "{}: {} is not found",
                    example.display(),
                    source.display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "some example has bind mounts");
}

#[test]
fn kustomize_base_files_pass_yamllint() {
    let Some(yamllint) = tool("yamllint") else {
        return;
    };
    // Long quoted scalars are folded by the shared YAML escaper; the structure is checked here.
    let config = "{extends: default, rules: {line-length: {max: 80, allow-non-breakable-words: true, allow-non-breakable-inline-mappings: true}}}";
    for example in examples() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o");
        render_into(&example, &out, &[]);
        let mut command = Command::new(&yamllint);
        command
            .args(["-d", config])
            .arg(out.join("kustomization.yaml"))
            .arg(out.join("k8s.yaml"));
        let output = command.output().unwrap();
        let report = String::from_utf8_lossy(&output.stdout);
        let structural: Vec<&str> = report
            .lines()
            .filter(|l| l.contains("error") || l.contains("warning"))
            .filter(|l| !l.contains("line-length"))
            .collect();
        assert!(structural.is_empty(), "{}: {report}", example.display());
    }
}

/// The image writes to its root file system at run time (its configuration,
/// its app's env-config.js, nginx's folders), so a read-only root is refused with those paths,
/// and nothing is written (this test replaced one that rendered it with only /tmp writable).
#[test]
fn a_read_only_root_file_system_is_refused_with_the_paths_the_image_writes() {
    let ran = Test::new()
        .args(["render"])
        .arg(repo().join("examples/b-hybrid.toml"))
        .args([
            "--out-dir",
            "out",
            "--set",
            "deploy.security.read_only_root_filesystem=true",
        ])
        .code(1)
        .stderr_has("E0251")
        .stderr_has("/etc/jans/conf")
        .stderr_has("/opt/flex/admin-ui")
        .stderr_has("/run/nginx/nginx.pid")
        .run();
    assert!(!ran.path("out").exists(), "nothing written");
}

#[test]
fn objects_without_a_host_file_are_named_for_the_operator() {
    for example in examples() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        render_into(&example, &out, &[]);
        let objects = objects(&std::fs::read_to_string(out.join("k8s.yaml")).unwrap());
        let kustomization = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
        let notes = std::fs::read_to_string(out.join("DEPLOY.md")).unwrap();
        let pod = &deployment(&objects)["spec"]["template"]["spec"];
        for volume in pod["volumes"].as_array().into_iter().flatten() {
            let name = volume["secret"]["secretName"]
                .as_str()
                .or(volume["configMap"]["name"].as_str());
            let Some(name) = name else { continue };
            let generated = kustomization.contains(&format!("name: \"{name}\""));
            let named = notes.contains(&format!("`{name}`")) && kustomization.contains(name);
            assert!(
                generated || named,
                "{}: {name} is neither generated nor named for the operator",
                example.display()
            );
        }
    }
}

#[test]
fn a_file_source_without_host_file_is_an_object_to_create() {
    let ran = Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n\
             [deploy.files]\n\"token_server.cert_file\" = { configmap = \"auth-certs\", key = \"tls.crt\" }\n",
        )
        .args(["render", "p.toml", "--out-dir", "out", "-q"])
        .run();
    let out = ran.path("out");
    let notes = std::fs::read_to_string(out.join("DEPLOY.md")).unwrap();
    assert!(
        notes.contains("kubectl create configmap auth-certs"),
        "{notes}"
    );
    assert!(notes.contains("--from-file=tls.crt=PATH"), "{notes}");
    let kustomization = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
    assert!(
        kustomization.contains("#   ConfigMap auth-certs"),
        "{kustomization}"
    );
    assert!(
        !kustomization.contains("configMapGenerator"),
        "{kustomization}"
    );
    let manifests = std::fs::read_to_string(out.join("k8s.yaml")).unwrap();
    assert!(manifests.contains("#   ConfigMap auth-certs, with the key(s):\n#     - tls.crt"));
}

#[test]
fn a_variable_name_that_cannot_be_a_configmap_key_is_refused_at_its_position() {
    let name = "A".repeat(300);
    let ran = Test::new()
        .file(
            "p.toml",
            &format!("edition = \"B\"\n[env]\n{name} = \"x\"\n"),
        )
        .args(["render", "p.toml", "--out-dir", "out", "--format", "json"])
        .code(1)
        .run();
    let out = ran.path("out");
    let report: Value = serde_json::from_slice(&ran.output.stdout)
        .or_else(|_| serde_json::from_slice(&ran.output.stderr))
        .unwrap();
    let error = report
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "E0242")
        .expect("E0242");
    assert_eq!(error["line"].as_u64(), Some(3), "the line that sets it");
    assert!(error["column"].as_u64().is_some());
    assert!(!out.exists(), "nothing written");
}

#[test]
fn kustomize_base_snapshots() {
    insta::glob!("../examples", "*.toml", |path| {
        for target in ["kustomization", "deploy-notes"] {
            let ran = Test::new().args(["render", "-t", target]).arg(path).run();
            insta::assert_snapshot!(target, String::from_utf8(ran.output.stdout).unwrap());
        }
    });
}

/// The base `--out-dir` writes where host files are named: generators read the copies, and the
/// Secret not copied (no `--include-secrets`) is an object to create, named by its host path
/// relative to the output folder.
#[test]
fn out_dir_kustomize_base_snapshots() {
    for name in ["a-ldap-plugins.toml", "b-consul-vault-sql.toml"] {
        let dir = tempfile::tempdir().unwrap();
        let profile = copied_example(dir.path(), name);
        let out = dir.path().join("out");
        render_into(&profile, &out, &[]);
        for file in ["kustomization.yaml", "DEPLOY.md"] {
            let text = std::fs::read_to_string(out.join(file)).unwrap();
            insta::assert_snapshot!(format!("out-dir-{file}@{name}"), text);
        }
    }
}
