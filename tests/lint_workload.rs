//! `lint` of a Kubernetes stream checks the workload of the Admin UI container in it, on the
//! upstream Helm chart's own output (`tests/lint-helm/`, rendered from GluuFederation/flex
//! `charts/gluu` at a named commit, see the files' headers) and on edited copies of it: each
//! finding at the line and column of the field, the same in a `kind: List` of the same objects,
//! none on fixed versions, and none on svcgen's own rendered base for every example.

use crate::support;
use serde_json::Value;
use support::repo;
use support::scenario::Test;

/// The codes of the workload findings.
const WORKLOAD: &[&str] = &["W0342", "W0343", "N0400", "E0251", "W0331"];

fn chart(name: &str) -> String {
    std::fs::read_to_string(repo().join("tests/lint-helm").join(format!("{name}.yaml"))).unwrap()
}

/// Replaces `from` (which must be there) with `to`.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is in the stream");
    text.replacen(from, to, 1)
}

/// The workload findings of `lint --format json` on `stream` (extra args first), as (code,
/// line, column, message), and the exit code.
fn findings(stream: &str, args: &[&str]) -> (Vec<(String, u64, u64, String)>, i32) {
    let ran = Test::new()
        .file("s.yaml", stream)
        .arg("lint")
        .args(args)
        .args(["--format", "json", "s.yaml"])
        .code_is_not(2)
        .run();
    let items = ran.stdout_json();
    let found = (items.as_array().unwrap().iter())
        .filter(|i| WORKLOAD.contains(&i["code"].as_str().unwrap()))
        .map(|i| {
            (
                i["code"].as_str().unwrap().to_string(),
                i["line"].as_u64().unwrap_or(0),
                i["column"].as_u64().unwrap_or(0),
                format!(
                    "{} {}",
                    i["message"].as_str().unwrap(),
                    i["help"].as_str().unwrap_or("")
                ),
            )
        })
        .collect();
    (found, ran.output.status.code().unwrap_or(-1))
}

/// The 1-based line of the first line holding `text` after line `after`.
fn line_of(stream: &str, text: &str, after: usize) -> u64 {
    (stream.lines().enumerate().skip(after))
        .find(|(_, l)| l.contains(text))
        .map(|(i, _)| i as u64 + 1)
        .unwrap_or_else(|| panic!("{text:?} after line {after}"))
}

fn codes(found: &[(String, u64, u64, String)]) -> Vec<&str> {
    found.iter().map(|f| f.0.as_str()).collect()
}

/// The chart's defaults (kubernetes adapters, one SQL backend, edition B by its tag): liveness
/// and readiness end a start at 60 + 20 x 25 = 560 s, the image may wait 1070 s; the fix names
/// the failureThreshold that covers it. Its Role and RoleBinding grant the pod's account
/// (`User system:serviceaccount:gluu:default`), its mounted file is all the image opens: nothing
/// else. The Admin UI's workload is taken among the two.
#[test]
fn the_charts_probes_end_the_start_before_the_images_worst_case() {
    let stream = chart("defaults");
    let (found, code) = findings(&stream, &[]);
    let liveness = line_of(&stream, "livenessProbe:", 0) + 1;
    let readiness = line_of(&stream, "readinessProbe:", 0) + 1;
    assert_eq!(codes(&found), ["W0342", "W0342"], "{found:#?}");
    assert_eq!((found[0].1, found[0].2), (liveness, 29), "{found:#?}");
    assert_eq!((found[1].1, found[1].2), (readiness, 29), "{found:#?}");
    assert!(
        found[0].3.contains("livenessProbe ends the start at 560 s"),
        "{}",
        found[0].3
    );
    assert!(
        found[0].3.contains("worst case of 1070 s"),
        "{}",
        found[0].3
    );
    assert!(
        found[0].3.contains("failureThreshold to 41"),
        "{}",
        found[0].3
    );
    assert_eq!(code, 0, "warnings only");
    // The same worst case as explain --start of a profile with these values.
    let timeline = Test::new()
        .file(
            "p.toml",
            "edition = \"B\"\ntoken_server = { base_url = \"https://auth.example.org\" }\n\
             [config]\nadapter = \"kubernetes\"\n[secret]\nadapter = \"kubernetes\"\n",
        )
        .args(["explain", "--start", "p.toml", "--format", "json"])
        .run()
        .stdout_json();
    assert_eq!(timeline["worst_case_s"], 1070);
    // Fixed: a startup probe that covers it (liveness and readiness start after it).
    let fixed = edit(
        &stream,
        "        livenessProbe:",
        "        startupProbe:\n          tcpSocket:\n            port: 8080\n          \
         periodSeconds: 25\n          failureThreshold: 43\n        livenessProbe:",
    );
    assert_eq!(findings(&fixed, &[]).0, []);
    // A startup probe too short is judged alone, at its failureThreshold.
    let short = edit(&fixed, "failureThreshold: 43", "failureThreshold: 42");
    let (found, _) = findings(&short, &["--deny-warnings"]);
    assert_eq!(codes(&found), ["W0342"]);
    assert!(
        found[0].3.contains("startupProbe ends the start at 1050 s"),
        "{}",
        found[0].3
    );
    assert!(
        found[0]
            .3
            .contains("set startupProbe.failureThreshold to 43"),
        "{}",
        found[0].3
    );
}

/// The stream's wait values, backends and the tag's edition make the worst case: edition A by
/// its tag (with a backend edition A has) builds its app (the default allowance of 600 s) and
/// opens the SSA file, not mounted; `--edition B` wins over the tag.
#[test]
fn the_image_tag_decides_the_edition_and_the_worst_case() {
    let stream = edit(
        &edit(
            &chart("defaults"),
            "image: ghcr.io/gluufederation/flex/admin-ui:0.0.0-nightly",
            "image: ghcr.io/gluufederation/flex/admin-ui:1.0.0_dev",
        ),
        "CN_PERSISTENCE_TYPE: sql",
        "CN_PERSISTENCE_TYPE: ldap",
    );
    let (found, _) = findings(&stream, &[]);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "W0342" && f.3.contains("worst case of 1670 s")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.0 == "W0331" && f.3.contains("/etc/jans/conf/ssa")),
        "{found:#?}"
    );
    let b = edit(
        &stream,
        "CN_PERSISTENCE_TYPE: ldap",
        "CN_PERSISTENCE_TYPE: sql",
    );
    let (found, _) = findings(&b, &["--edition", "B"]);
    assert!(found.iter().all(|f| f.0 != "W0331"), "{found:#?}");
    assert!(
        found.iter().any(|f| f.3.contains("worst case of 1070 s")),
        "{found:#?}"
    );
    let waits = edit(
        &chart("sql"),
        "  CN_SQL_DB_DIALECT: pgsql",
        "  CN_SQL_DB_DIALECT: pgsql\n  CN_WAIT_MAX_TIME: \"100\"\n  CN_WAIT_SLEEP_DURATION: \"5\"",
    );
    let (found, _) = findings(&waits, &[]);
    // 3 x (100 + 5) + 2 x 70: the liveness probe's 560 s cover it.
    assert_eq!(found, [], "{found:#?}");
}

/// The vault value set: the AppRole files the image opens on every try have no volume, each a
/// warning at the container's volumeMounts; mounted, they are not.
#[test]
fn files_the_image_opens_without_a_volume() {
    let stream = chart("vault");
    let (found, _) = findings(&stream, &[]);
    let mounts = line_of(&stream, "volumeMounts:", 0) + 1;
    let files: Vec<_> = found.iter().filter(|f| f.0 == "W0331").collect();
    assert_eq!(files.len(), 2, "{found:#?}");
    assert!(
        files[0].3.contains("/etc/certs/vault_role_id")
            && files[1].3.contains("/etc/certs/vault_secret_id")
    );
    assert_eq!(files[0].1, mounts);
    let mounted = edit(
        &stream,
        "          - mountPath: /etc/jans/conf/configuration.json",
        "          - mountPath: /etc/certs\n            name: approle\n          \
         - mountPath: /etc/jans/conf/configuration.json",
    );
    assert!(findings(&mounted, &[]).0.iter().all(|f| f.0 != "W0331"));
}

/// What the image cannot run with is an error at the field, as `validate` makes it for svcgen's
/// own `[deploy]`: another user (the container's, else the pod's), a read-only root without
/// writable mounts, another container or probe port.
#[test]
fn what_the_image_cannot_run_with_is_an_error_at_the_field() {
    let stream = chart("defaults");
    let user = edit(&stream, "runAsUser: 1000", "runAsUser: 2000");
    let (found, code) = findings(&user, &[]);
    assert_eq!(code, 1);
    let at = line_of(&user, "runAsUser: 2000", 0);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "E0251" && f.1 == at && f.3.contains("belong to its user 1000")),
        "{found:#?}"
    );
    // The pod's user counts when the container sets none; the container's wins.
    let pod_user = edit(
        &edit(&stream, "          runAsUser: 1000\n", ""),
        "      serviceAccountName: default",
        "      serviceAccountName: default\n      securityContext:\n        runAsUser: 0",
    );
    let (found, _) = findings(&pod_user, &[]);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "E0251" && f.3.contains("the pod's securityContext.runAsUser = 0")),
        "{found:#?}"
    );
    let read_only = edit(
        &stream,
        "runAsNonRoot: true",
        "runAsNonRoot: true\n          readOnlyRootFilesystem: true",
    );
    let (found, code) = findings(&read_only, &[]);
    assert_eq!(code, 1);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "E0251" && f.3.contains("read-only")
                || f.3.contains("writes at run time")),
        "{found:#?}"
    );
    let port = edit(&stream, "containerPort: 8080", "containerPort: 9090");
    let (found, _) = findings(&port, &[]);
    let at = line_of(&port, "containerPort: 9090", 0);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "E0251" && f.1 == at && f.3.contains("listens on port 8080 only")),
        "{found:#?}"
    );
    let probe_port = edit(&stream, "            port: 8080", "            port: 8081");
    let (found, _) = findings(&probe_port, &[]);
    assert!(
        found
            .iter()
            .any(|f| f.0 == "E0251" && f.3.contains("livenessProbe.tcpSocket.port = 8081")),
        "{found:#?}"
    );
}

/// RBAC: the chart's binding names the account as a User; another account has no grant (a
/// warning at serviceAccountName); a ServiceAccount subject, the group of the namespace's
/// accounts and `*` verbs grant; a binding to a ClusterRole the stream does not hold is not
/// judged; verbs left out are named.
#[test]
fn rbac_grants_of_the_pods_service_account() {
    let stream = chart("defaults");
    let other = edit(
        &stream,
        "serviceAccountName: default",
        "serviceAccountName: admin-ui",
    );
    let (found, _) = findings(&other, &[]);
    let at = line_of(&other, "serviceAccountName: admin-ui", 0);
    let rbac: Vec<_> = found.iter().filter(|f| f.0 == "W0343").collect();
    assert_eq!(rbac.len(), 2, "configmaps and secrets: {found:#?}");
    assert_eq!((rbac[0].1, rbac[0].2), (at, 27));
    assert!(
        rbac[0]
            .3
            .contains("cannot get, list, watch, create, update, patch configmaps `cn`"),
        "{}",
        rbac[0].3
    );
    assert!(
        rbac[1].3.contains("secrets `cn`"),
        "the image's own name for the Secret: {}",
        rbac[1].3
    );
    let subject =
        "- kind: User\n  name: system:serviceaccount:gluu:default # Name is case sensitive";
    for grants in [
        "- kind: ServiceAccount\n  name: admin-ui\n  namespace: gluu",
        "- kind: Group\n  name: system:serviceaccounts:gluu",
        "- kind: Group\n  name: system:serviceaccounts",
        "- kind: User\n  name: system:serviceaccount:gluu:admin-ui",
    ] {
        let granted = edit(&other, subject, grants);
        assert_eq!(
            findings(&granted, &[])
                .0
                .iter()
                .filter(|f| f.0 == "W0343")
                .count(),
            0,
            "{grants}"
        );
    }
    let wrong_ns = edit(
        &other,
        subject,
        "- kind: Group\n  name: system:serviceaccounts:elsewhere",
    );
    assert_eq!(
        findings(&wrong_ns, &[])
            .0
            .iter()
            .filter(|f| f.0 == "W0343")
            .count(),
        2
    );
    let star = edit(
        &stream,
        "verbs: [\"get\", \"list\", \"watch\", \"create\", \"update\", \"patch\", \"delete\"]",
        "verbs: [\"*\"]",
    );
    assert!(findings(&star, &[]).0.iter().all(|f| f.0 != "W0343"));
    let few = edit(
        &stream,
        "verbs: [\"get\", \"list\", \"watch\", \"create\", \"update\", \"patch\", \"delete\"]",
        "verbs: [\"get\", \"list\"]",
    );
    let (found, _) = findings(&few, &[]);
    assert!(
        found.iter().any(|f| f.0 == "W0343"
            && f.3
                .contains("cannot watch, create, update, patch configmaps")),
        "{found:#?}"
    );
    // The same binding to a ClusterRole the stream does not hold: not judged.
    let cluster = edit(
        &few,
        "  kind: Role # this must be Role or ClusterRole",
        "  kind: ClusterRole",
    );
    assert_eq!(
        findings(&cluster, &[])
            .0
            .iter()
            .filter(|f| f.0 == "W0343")
            .count(),
        0,
        "not judged"
    );
}

/// A stream with no RBAC objects (`kubectl get deploy,cm`) gets a note, severity `note` in JSON
/// and level `note` in SARIF, that never changes the exit code, even with --deny-warnings.
#[test]
fn no_rbac_objects_is_a_note_that_never_fails() {
    let stream = chart("defaults");
    let start = stream
        .find("# Source: gluu/charts/config/templates/roles.yaml")
        .unwrap();
    let end = stream.find("# Source: gluu/charts/fido2/").unwrap();
    let fixed = edit(
        &format!("{}{}", &stream[..start], &stream[end..]),
        "        livenessProbe:",
        "        startupProbe:\n          tcpSocket:\n            port: 8080\n          \
         periodSeconds: 25\n          failureThreshold: 43\n        livenessProbe:",
    );
    // Only spec variables, so that nothing but the note is left.
    let bare = keep_spec_variables(&fixed);
    let (found, code) = findings(&bare, &["--deny-warnings"]);
    assert_eq!(codes(&found), ["N0400"], "{found:#?}");
    assert_eq!(code, 0, "a note never fails a run");
    let ran = Test::new()
        .file("s.yaml", &bare)
        .args(["lint", "--format", "json", "--deny-warnings", "s.yaml"])
        .run();
    let all = ran.stdout_json();
    assert_eq!(all.as_array().unwrap().len(), 1, "{all}");
    assert_eq!(all[0]["severity"], "note");
    let ran = Test::new()
        .file("s.yaml", &bare)
        .args(["lint", "--format", "sarif", "--deny-warnings", "s.yaml"])
        .run();
    let sarif: Value = ran.stdout_json();
    assert_eq!(sarif["runs"][0]["results"][0]["level"], "note");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "N0400");
    Test::new()
        .file("s.yaml", &bare)
        .args(["lint", "--deny-warnings", "s.yaml"])
        .stderr_has("note[N0400]")
        .run();
}

/// The lines of the ConfigMap's data that name a variable outside the spec, removed (they are
/// warned about by the environment lint, not the workload's).
fn keep_spec_variables(stream: &str) -> String {
    let model = svcgen::model::Model::get();
    let in_spec = |line: &str| {
        let name = line.trim().split(':').next().unwrap_or_default();
        model.vars.iter().any(|v| v.env == name)
    };
    let mut out = String::new();
    let mut in_data = false;
    for line in stream.lines() {
        if line == "data:" {
            in_data = true;
        } else if !line.starts_with(' ') {
            in_data = false;
        }
        let data_line = in_data && line.starts_with("  ") && !line.starts_with("   ");
        if !data_line || (in_spec(line) && !line.trim_end().ends_with(':')) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The same objects as a `kind: List`: the same findings, at their lines there.
#[test]
fn a_list_of_the_same_objects_has_the_same_findings() {
    let stream = chart("defaults");
    let mut list = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for doc in stream.split("\n---\n").skip(1) {
        let mut first = true;
        for line in doc.lines() {
            list.push_str(if first { "- " } else { "  " });
            list.push_str(line);
            list.push('\n');
            first = first && line.starts_with('#');
        }
    }
    let (found, _) = findings(&list, &[]);
    assert_eq!(codes(&found), ["W0342", "W0342"], "{found:#?}");
    assert_eq!(found[0].1, line_of(&list, "livenessProbe:", 0) + 1);
    let other = edit(
        &list,
        "serviceAccountName: default",
        "serviceAccountName: admin-ui",
    );
    assert_eq!(
        findings(&other, &[])
            .0
            .iter()
            .filter(|f| f.0 == "W0343")
            .count(),
        2
    );
}

/// `--service` chooses another workload of the stream: its own probes are judged.
#[test]
fn service_chooses_another_workload() {
    let stream = chart("defaults");
    let (found, _) = findings(&stream, &["--service", "fido2"]);
    let fido2 = line_of(&stream, "name: gluu-fido2", 0);
    assert!(
        !found.is_empty() && found.iter().all(|f| f.1 > fido2),
        "{found:#?}"
    );
}

/// svcgen's own rendered base, for every example, lints with no workload finding.
#[test]
fn svcgen_own_base_lints_without_workload_findings() {
    let examples: Vec<_> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    assert!(examples.len() >= 5);
    let mut linted = 0;
    for example in examples {
        let ran = Test::new()
            .arg("render")
            .arg(&example)
            .args(["--out-dir", "out", "-q"])
            .run();
        let Ok(k8s) = std::fs::read_to_string(ran.path("out/k8s.yaml")) else {
            continue;
        };
        let (found, _) = findings(&k8s, &[]);
        assert_eq!(found, [], "{}", example.display());
        linted += 1;
    }
    assert!(linted >= 5, "{linted}");
}
