//! What the image needs to start, each a gap once: the startup budget below the slowest start that
//! succeeds (edition B's lock check left out, edition A's build allowance 0), a container port or
//! user the image cannot run with only warned about (and warned about for targets that render
//! neither), resource limits no container starts with, and DEPLOY.md's client-side apply, which
//! hits the 256 KiB annotation limit long before the 1 MiB one. Every profile here once passed
//! `validate`, silently or with a warning only.

use crate::real_image::render_base;
use crate::support;
use crate::support::build_and_validate;

use std::process::Command;
use support::scenario::Test;
use support::{objects, of_kind, tool};

/// Edition B on its default adapters, with everything a Kubernetes deployment gives them (clean:
/// its files come from a Secret, so it says it is not for compose), and `deploy` written into its
/// `[deploy]` table.
fn b(deploy: &str) -> String {
    format!(
        "edition = \"B\"\ntoken_server = {{ base_url = \"https://auth.example.org\" }}\n\
         [config.consul]\nhost = \"consul\"\n\
         [secret.vault]\naddr = \"https://vault.example.org\"\nverify = true\n\
         [persistence.sql]\nhost = \"db\"\n\
         [deploy]\ncompose = false\n{deploy}\
         [deploy.files]\n\
         \"secret.vault.role_id_file\" = {{ secret = \"approle\", key = \"role_id\" }}\n\
         \"secret.vault.secret_id_file\" = {{ secret = \"approle\", key = \"secret_id\" }}\n"
    )
}

/// Edition A with a kubernetes secret adapter (no credential file) and real addresses (clean),
/// and `deploy` written into its `[deploy]` table.
fn a(deploy: &str) -> String {
    format!(
        "edition = \"A\"\n[token_server]\nbase_hostname = \"auth.example.org\"\n\
         [config.consul]\nhost = \"consul\"\n[secret]\nadapter = \"kubernetes\"\n\
         [persistence.ldap]\nurl = \"ldap:1636\"\n[deploy]\n{deploy}"
    )
}

/// The startup probe's budget in seconds (failureThreshold x periodSeconds) of a rendered k8s.yaml.
fn startup_seconds(k8s: &str) -> i64 {
    let objects = objects(k8s);
    let probe = &of_kind(&objects, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0]["startupProbe"];
    probe["failureThreshold"].as_i64().unwrap() * probe["periodSeconds"].as_i64().unwrap()
}

/// Edition B takes its locks after its waits, each with a connection check (a fact of
/// the model, `[start] lock_check`: 60 s and a 10 s sleep, so up to 70 s). With no margin, main's
/// budget was the waits alone (3 x 310 = 930 s): a start whose lock checks take their time was
/// restarted. Now the budget has both (the timeline's; main's formula had one of 60 s), DEPLOY.md
/// lists them, and Kubernetes takes the numbers.
#[test]
fn edition_b_budget_allows_the_lock_check() {
    let profile = b("probes.startup_margin = 0\n");
    Test::new()
        .file("p.toml", &profile)
        .args(["validate", "--deny-warnings", "p.toml"])
        .run();
    let ran = render_base(&profile);
    let lock = svcgen::model::Model::get().start.lock_check;
    assert_eq!(
        (lock.max_time, lock.sleep),
        (60, 10),
        "the image's lock check, as NOTES read it"
    );
    let waits = 3 * (300 + 10);
    assert!(
        startup_seconds(&ran.read("out/k8s.yaml")) >= waits + 2 * 70,
        "{}",
        ran.read("out/k8s.yaml")
    );
    let notes = ran.read("out/DEPLOY.md");
    assert!(notes.contains("1070 + 0 = 1070 s,"), "{notes}");
    assert!(
        notes.contains("| setup-lock-check |  | 930 | 1000 |")
            && notes.contains("| upgrade-lock-check |  | 1000 | 1070 |"),
        "{notes}"
    );
    assert!(
        notes.contains("waits while another pod holds it") && notes.contains("no bound"),
        "the unbounded wait is said not to be allowed for: {notes}"
    );
    if let Some(built) = build_and_validate(&ran.path("out")) {
        assert_eq!(startup_seconds(&built), 1070);
    }
    // Edition A takes the same two locks (main counted none there).
    let notes = render_base(&a("")).read("out/DEPLOY.md");
    assert!(
        notes.contains("| setup-lock-check |") && notes.contains("| upgrade-lock-check |"),
        "{notes}"
    );
}

/// Edition A builds its app at every start; an allowance of 0 s cannot cover a start
/// that builds, so the model's minimum is 1 (main took 0 and a budget of the waits alone).
#[test]
fn edition_a_refuses_a_zero_build_allowance() {
    let profile = a("probes.build_allowance = 0\n");
    for args in [
        &["validate", "p.toml"][..],
        &["render", "-t", "k8s", "p.toml"],
    ] {
        Test::new()
            .file("p.toml", &profile)
            .args(args)
            .code(1)
            .stderr_has("`deploy.probes.build_allowance`: 0 is below the minimum 1")
            .stderr_has("p.toml:11:")
            .stderr_has("at every start")
            .run();
    }
    let ran = render_base(&a("probes.build_allowance = 1\n"));
    let notes = ran.read("out/DEPLOY.md");
    assert!(notes.contains("1071 + 60 = 1131 s,"), "{notes}");
    assert!(
        notes.contains("How long the build takes is not known to svcgen"),
        "{notes}"
    );
    build_and_validate(&ran.path("out"));
}

/// The guide (docs/guide.md) states the formula with the lock check and the defaults' numbers.
#[test]
fn the_guide_states_the_lock_check_in_the_formula() {
    let guide = std::fs::read_to_string(support::repo().join("docs/guide.md")).unwrap();
    assert!(
        guide.contains("+ 2 x 70 s lock checks"),
        "the guide's formula"
    );
    assert!(
        guide.contains("3 x (300 + 10) + 140 + 60 = 1130 s in edition B"),
        "the guide's number"
    );
}

/// The image's nginx listens on 8080 whatever the container port says: another
/// `deploy.port` is refused (main: a warning), naming the image's port and the Service's port,
/// which stays free.
#[test]
fn a_container_port_other_than_the_images_is_refused() {
    let profile = b("port = 9090\n");
    for args in [
        &["validate", "p.toml"][..],
        &["render", "-t", "k8s", "p.toml"],
        &["render", "-t", "deploy-notes", "p.toml"],
    ] {
        Test::new()
            .file("p.toml", &profile)
            .args(args)
            .code(1)
            .stderr_has("error[E0251]")
            .stderr_has("`deploy.port` = 9090: the image's nginx listens on port 8080 only")
            .stderr_has("p.toml:12:8")
            .stderr_has("accepted: 8080")
            .stderr_has("`deploy.service.port`")
            .run();
    }
    // The Service's port is the profile's to choose.
    let profile = b("service.port = 80\n");
    Test::new()
        .file("p.toml", &profile)
        .args(["validate", "--deny-warnings", "p.toml"])
        .run();
    let ran = render_base(&profile);
    let objects = objects(&ran.read("out/k8s.yaml"));
    assert_eq!(
        of_kind(&objects, "Service")[0]["spec"]["ports"][0]["port"],
        80
    );
    let container =
        &of_kind(&objects, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["ports"][0]["containerPort"], 8080);
    build_and_validate(&ran.path("out"));
}

/// The folders the image writes belong to uid 1000, and the pod has no setting that
/// changes their owner: another `run_as_user` is refused (main: a warning), naming the paths.
#[test]
fn a_user_other_than_the_images_is_refused() {
    Test::new()
        .file("p.toml", &b("security.run_as_user = 2000\n"))
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0251]")
        .stderr_has("`deploy.security.run_as_user` = 2000: the folders the image writes belong to its user 1000")
        .stderr_has("/etc/jans/conf")
        .stderr_has("/run/nginx/nginx.pid")
        .stderr_has("fsGroup")
        .stderr_has("accepted: 1000")
        .run();
}

/// The workload's image checks are reported for the targets that render the
/// workload (the kustomize base, `svcgen krm`, so `validate`), not for `.env`, compose or the
/// `env:` list, which carry neither port nor user (main warned W0330 for each).
#[test]
fn image_checks_only_for_targets_that_render_the_workload() {
    let profile = b("port = 9090\nsecurity.run_as_user = 2000\n");
    for target in ["dotenv", "compose", "k8s-env"] {
        // The profile says it is not for compose, whose target is then refused: deployed with
        // compose too here.
        Test::new()
            .file("p.toml", &profile)
            .args([
                "render",
                "-t",
                target,
                "--set",
                "deploy.compose=true",
                "p.toml",
            ])
            .stderr_lacks("E0251")
            .stderr_lacks("W0330")
            .stderr_lacks("deploy.port")
            .run();
    }
    for target in ["k8s", "kustomization", "deploy-notes"] {
        Test::new()
            .file("p.toml", &profile)
            .args(["render", "-t", target, "p.toml"])
            .code(1)
            .stderr_has("`deploy.port` = 9090")
            .stderr_has("`deploy.security.run_as_user` = 2000")
            .run();
    }
    Test::new()
        .stdin(&support::krm_list(&profile))
        .arg("krm")
        .code(1)
        .stdout_has("E0251")
        .stdout_has("deploy.port")
        .run();
    // Reported once by `validate`, which checks every target.
    let ran = Test::new()
        .file("p.toml", &profile)
        .args(["validate", "p.toml"])
        .code(1)
        .run();
    assert_eq!(ran.stderr().matches("`deploy.port` = 9090:").count(), 1);
}

/// A memory limit no container starts with is refused (runc needs about 6 MiB,
/// Docker refuses less: the model's `[image] least_memory_limit`); limits below the upstream
/// chart's are a warning, since svcgen knows no smaller amount the image starts with. Main took
/// `memory = "1"` and `cpu = "1m"` silently.
#[test]
fn resource_limits_the_image_cannot_run_with() {
    let tiny = b("resources.requests = { cpu = \"1m\", memory = \"1\" }\n\
         resources.limits = { cpu = \"1m\", memory = \"1\" }\n");
    Test::new()
        .file("p.toml", &tiny)
        .args(["validate", "p.toml"])
        .code(1)
        .stderr_has("error[E0251]")
        .stderr_has("`deploy.resources.limits.memory` = \"1\": no container starts with less than 6Mi")
        .stderr_has("accepted: 6Mi or more")
        .stderr_has("warning[W0330]")
        .stderr_has("`deploy.resources.limits.cpu` = \"1m\" is below the 2500m the image's upstream chart gives it")
        .run();
    // 6Mi starts a container: only the warning, acknowledged by `allow`.
    let low = b("resources.requests = { memory = \"6Mi\" }\n\
         resources.limits = { memory = \"6Mi\" }\n");
    Test::new()
        .file("p.toml", &low)
        .args(["validate", "p.toml"])
        .stderr_lacks("E0251")
        .stderr_has("`deploy.resources.limits.memory` = \"6Mi\" is below the 2500Mi")
        .run();
    let allowed = format!("allow = [\"W0330\"]\n{low}");
    Test::new()
        .file("p.toml", &allowed)
        .args(["validate", "--deny-warnings", "p.toml"])
        .run();
    let ran = render_base(&allowed);
    build_and_validate(&ran.path("out"));
}

/// DEPLOY.md applies the base server-side: a client-side `kubectl apply`
/// copies each object into its last-applied annotation, capped at 256 KiB, so a ConfigMap of
/// plugins between 256 KiB and 1 MiB (which svcgen accepts) would be refused. The command is run
/// as written against an unreachable server: kubectl parses its flags and gets as far as the
/// connection.
#[test]
fn deploy_notes_apply_server_side() {
    let ran = render_base(&b(""));
    let notes = ran.read("out/DEPLOY.md");
    let command = "kubectl kustomize . | kubectl apply --server-side -f -";
    assert!(notes.contains(&format!("```sh\n{command}\n```")), "{notes}");
    assert!(!notes.contains("kubectl apply -f"), "{notes}");
    assert!(notes.contains("262144 bytes"), "{notes}");
    let Some(kubectl) = tool("kubectl") else {
        return;
    };
    let config = ran.path("kubeconfig");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:1\n\
         contexts:\n- name: c\n  context:\n    cluster: c\ncurrent-context: c\n",
    )
    .unwrap();
    let path = std::env::join_paths(
        std::iter::once(kubectl.parent().unwrap().to_path_buf()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    let output = Command::new("sh")
        .args(["-c", command])
        .current_dir(ran.path("out"))
        .env("KUBECONFIG", &config)
        .env("PATH", path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "no cluster: {stderr}");
    assert!(
        !stderr.contains("unknown flag") && !stderr.contains("unknown shorthand"),
        "{stderr}"
    );
    assert!(
        stderr.contains("127.0.0.1:1"),
        "it reached the server step: {stderr}"
    );
}

/// A limit below the upstream chart's warns (W0330) from the profile alone; a second
/// render of the unchanged folder reports it again, with nothing to write.
#[test]
fn a_held_folder_reports_the_image_warning_again() {
    let profile = b("resources.requests.memory = \"1Gi\"\nresources.limits.memory = \"2Gi\"\n");
    let warning = "`deploy.resources.limits.memory` = \"2Gi\" is below the 2500Mi";
    let ran = Test::new()
        .file("p.toml", &profile)
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has(warning)
        .stderr_has("wrote out/")
        .run();
    ran.again()
        .args(["render", "p.toml", "--out-dir", "out"])
        .stderr_has(warning)
        .stderr_has("up to date")
        .run();
}
