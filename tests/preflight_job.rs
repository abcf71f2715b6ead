//! `render -t preflight-job`: the Job that runs `svcgen preflight --from-env` in svcgen's image,
//! read by the tools that deploy it (kubernetes-validate, PyYAML, kubectl kustomize), with
//! exactly the Deployment's environment and files, and a deadline that bounds the preflight's
//! own run.

use crate::support::scenario::Test;
use crate::support::{self, examples, objects, of_kind, tool};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Where the tests say svcgen's image was pushed.
const REPOSITORY: &str = "registry.example.org/tools/svcgen";

fn repository_set() -> String {
    format!("deploy.preflight.repository={REPOSITORY}")
}

/// The one object of `kind` in `objects`.
fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found = of_kind(objects, kind);
    assert_eq!(found.len(), 1, "one {kind}");
    found[0]
}

#[test]
fn preflight_job_snapshots() {
    insta::glob!("../examples", "*.toml", |path| {
        let ran = Test::in_repo()
            .args(["render", "-t", "preflight-job", "--set", &repository_set()])
            .arg(path)
            .run();
        insta::assert_snapshot!("preflight-job", ran.stdout());
    });
}

/// The pod's parts a Job must share with the Deployment: the same environment, files and API
/// access. Each key absent from both is `null` in both.
const SHARED_POD: [&str; 3] = [
    "volumes",
    "serviceAccountName",
    "automountServiceAccountToken",
];
/// The container's environment as the kubelet gives it, by name: each `envFrom` ConfigMap's data
/// (found among `objects`; a map, which kustomize writes sorted) as values, and `env`.
fn environment(container: &Value, objects: &[Value]) -> Vec<Value> {
    let mut env = Vec::new();
    for source in container["envFrom"].as_array().into_iter().flatten() {
        let name = &source["configMapRef"]["name"];
        let map = (objects.iter())
            .find(|o| o["kind"] == "ConfigMap" && o["metadata"]["name"] == *name)
            .unwrap_or_else(|| panic!("no ConfigMap {name}"));
        for (key, value) in map["data"].as_object().into_iter().flatten() {
            env.push(serde_json::json!({"name": key, "value": value}));
        }
    }
    env.extend(container["env"].as_array().into_iter().flatten().cloned());
    env.sort_by_key(|var| var["name"].as_str().unwrap_or_default().to_string());
    env
}

/// The Job's pod is the Deployment's (`objects` holds both and what they name), its environment
/// written as values: a PreSync hook runs before the sync creates the environment's ConfigMap.
fn assert_shares_the_deployment_s_pod(job: &Value, objects: &[Value], what: &str) {
    let deployment = one(objects, "Deployment");
    let job_pod = &job["spec"]["template"]["spec"];
    let pod = &deployment["spec"]["template"]["spec"];
    for key in SHARED_POD {
        assert_eq!(job_pod[key], pod[key], "{what}: {key}");
    }
    let (job_container, container) = (&job_pod["containers"][0], &pod["containers"][0]);
    assert_eq!(
        job_container["volumeMounts"], container["volumeMounts"],
        "{what}: volumeMounts"
    );
    assert!(
        job_container["envFrom"].is_null(),
        "{what}: the Job reads no object the sync creates"
    );
    assert_eq!(
        environment(job_container, objects),
        environment(container, objects),
        "{what}: env"
    );
}

/// The Job as the preflight's hook needs it: one try, never restarted, a restricted container,
/// PreSync hook annotations, svcgen's image with `preflight --from-env`.
fn assert_is_a_restricted_presync_hook(job: &Value, what: &str) {
    let annotations = &job["metadata"]["annotations"];
    assert_eq!(annotations["argocd.argoproj.io/hook"], "PreSync", "{what}");
    assert_eq!(
        annotations["argocd.argoproj.io/hook-delete-policy"], "BeforeHookCreation,HookSucceeded",
        "{what}"
    );
    assert_eq!(job["spec"]["backoffLimit"], 0, "{what}");
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["restartPolicy"], "Never", "{what}");
    let container = &pod["containers"][0];
    assert_eq!(
        container["image"],
        format!("{REPOSITORY}:{}", env!("CARGO_PKG_VERSION")),
        "{what}"
    );
    assert_eq!(container["args"][0], "preflight", "{what}");
    assert_eq!(container["args"][1], "--from-env", "{what}");
    let security = &container["securityContext"];
    assert_eq!(security["runAsNonRoot"], true, "{what}");
    assert_eq!(security["readOnlyRootFilesystem"], true, "{what}");
    assert_eq!(security["allowPrivilegeEscalation"], false, "{what}");
    assert_eq!(security["capabilities"]["drop"], serde_json::json!(["ALL"]));
    assert_eq!(
        security["seccompProfile"]["type"], "RuntimeDefault",
        "{what}"
    );
}

/// Reads YAML documents with PyYAML (YAML 1.1, as Kubernetes tooling reads) into JSON.
fn pyyaml(python: &Path, file: &Path) -> Vec<Value> {
    let script = "import json, sys, yaml\n\
                  print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))";
    let output = Command::new(python)
        .args(["-c", script])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "PyYAML cannot read {}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn kubernetes_validate(file: &Path) {
    let Some(validator) = tool("kubernetes-validate") else {
        return;
    };
    let output = Command::new(validator)
        .arg("--strict")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "kubernetes-validate {}: {}{}",
        file.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn preflight_job_in_the_out_dir_validates_shares_the_deployment_s_pod_and_stays_out_of_the_base() {
    let python = support::python_with("yaml");
    for example in examples() {
        let what = example.display().to_string();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        Test::in_repo()
            .args(["render", "-q", "--set", &repository_set(), "--out-dir"])
            .arg(&out)
            .arg(&example)
            .run();
        let file = out.join("preflight-job.yaml");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|_| panic!("{what}: no job"));
        let job_objects = objects(&text);
        let job = one(&job_objects, "Job");
        assert_is_a_restricted_presync_hook(job, &what);
        let manifests = objects(&std::fs::read_to_string(out.join("k8s.yaml")).unwrap());
        assert_shares_the_deployment_s_pod(job, &manifests, &what);
        kubernetes_validate(&file);
        if let Some(python) = &python {
            assert_eq!(
                &pyyaml(python, &file),
                &job_objects,
                "{what}: PyYAML reads otherwise"
            );
        }
        // Not in the base: kustomization.yaml does not list it, and the build holds no Job.
        let kustomization = std::fs::read_to_string(out.join("kustomization.yaml")).unwrap();
        assert!(
            !kustomization.contains("preflight-job"),
            "{what}: {kustomization}"
        );
        let Some(built) = support::build_and_validate(&out) else {
            continue;
        };
        assert!(of_kind(&objects(&built), "Job").is_empty(), "{what}");
        // Listed as the docs say, kustomize names the generated objects in it as in the
        // Deployment.
        std::fs::write(
            out.join("kustomization.yaml"),
            kustomization.replace("resources:\n", "resources:\n  - preflight-job.yaml\n"),
        )
        .unwrap();
        let built = support::build_and_validate(&out).expect("the tools were there");
        let built = objects(&built);
        assert_shares_the_deployment_s_pod(
            one(&built, "Job"),
            &built,
            &format!("{what} built with the job"),
        );
    }
}

/// The seconds the Job's deadline gives the pod to be scheduled and pull svcgen's image, beyond
/// the preflight's run (as the Job's comment states it).
const POD_START_MARGIN_S: u64 = 120;

#[test]
fn preflight_job_deadline_is_the_preflight_s_own_run_plus_time_for_the_pod_to_start() {
    // The preflight runs where the examples' services do not exist: each step fails fast, and
    // the report has every step the Job's deadline counts.
    for name in [
        "b-consul-vault-sql.toml",
        "b-hybrid.toml",
        "a-ldap-plugins.toml",
    ] {
        let example = support::repo().join("examples").join(name);
        let rendered = Test::in_repo()
            .args(["render", "-t", "preflight-job", "--set", &repository_set()])
            .arg(&example)
            .run();
        let text = rendered.stdout();
        let job_objects = objects(&text);
        let deadline = one(&job_objects, "Job")["spec"]["activeDeadlineSeconds"]
            .as_u64()
            .unwrap();
        // Read by the real readers: the deadline is a number Kubernetes takes.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("preflight-job.yaml");
        std::fs::write(&file, &text).unwrap();
        kubernetes_validate(&file);
        kubectl_reads(&file, deadline);
        let ran = Test::in_repo()
            .args(["preflight", "--format", "json", "--timeout", "1"])
            .arg(&example)
            .code_is_not(2)
            .run();
        let report = ran.stdout_json();
        let checks = report["steps"].as_array().unwrap().len()
            + report["after_start"].as_array().unwrap().len();
        // The Job passes the preflight's default timeout of 10 s: each check within 11 s, and
        // the pod's start (scheduling, the image's pull) counts in a Job's deadline too.
        let run = checks as u64 * 11;
        assert_eq!(deadline, run + POD_START_MARGIN_S, "{name}: {report:#}");
        // The Job's comment states the margin and what the deadline is made of.
        let stated = format!(
            "Its deadline, {deadline} s, is the preflight's longest run\n# ({run} s: each check \
             bounded by --timeout + 1 s) plus\n# {POD_START_MARGIN_S} s for scheduling the pod"
        );
        assert!(text.contains(&stated), "{name}: {text}");
    }
}

/// kubectl (its kustomize, as the base is deployed; no cluster here) and kubernetes-validate
/// read the Job in a base of its own with this deadline.
fn kubectl_reads(file: &Path, deadline: u64) {
    let base = file.parent().unwrap().join("base");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::copy(file, base.join("preflight-job.yaml")).unwrap();
    std::fs::write(
        base.join("kustomization.yaml"),
        "resources:\n  - preflight-job.yaml\n",
    )
    .unwrap();
    let Some(built) = support::build_and_validate(&base) else {
        return;
    };
    let job = objects(&built);
    assert_eq!(one(&job, "Job")["spec"]["activeDeadlineSeconds"], deadline);
}

#[test]
fn preflight_job_needs_svcgen_s_image_named_and_out_dir_leaves_it_out_until_then() {
    let example = support::repo().join("examples/b-consul-vault-sql.toml");
    Test::in_repo()
        .args(["render", "-t", "preflight-job"])
        .arg(&example)
        .code(1)
        .stderr_has("`deploy.preflight.repository` is not set")
        .stderr_has("scripts/image.sh")
        .run();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    Test::in_repo()
        .args(["render", "-q", "--out-dir"])
        .arg(&out)
        .arg(&example)
        .run();
    assert!(out.join("k8s.yaml").is_file());
    assert!(!out.join("preflight-job.yaml").exists());
}
