//! A profile reads only what its repository holds: a host file copied into the kustomize base
//! and an `extends` base are read only from inside the profile's root (the nearest folder above
//! it holding `.git`, else its own folder, or `--root DIR`); a link leading out counts as out.

use crate::support::scenario::Test;

/// A tenant's profile in a repository, naming `host` as the copy of a certificate.
fn tenant(host: &str) -> String {
    format!(
        "edition = \"B\"\n[token_server]\ncert_file = \"/etc/certs/token_server.crt\"\n\
         [deploy.files]\n\"token_server.cert_file\" = {{ host = \"{host}\", configmap = \"auth-certs\" }}\n"
    )
}

#[test]
fn a_host_file_outside_the_repository_is_not_copied_into_the_base() {
    let test = Test::new()
        .file("repo/.git/HEAD", "ref: refs/heads/main\n")
        .file("repo/tenant-b/key.pem", "tenant b's key\n")
        .file("host/shadow", "root:secret\n")
        .file("repo/tenant-a/outside.toml", &tenant("../../host/shadow"))
        .file("repo/tenant-a/sibling.toml", &tenant("../tenant-b/key.pem"));
    let dir = test.path().to_path_buf();
    std::os::unix::fs::symlink(dir.join("host/shadow"), dir.join("repo/tenant-a/link.pem"))
        .unwrap();
    std::fs::write(dir.join("repo/tenant-a/linked.toml"), tenant("link.pem")).unwrap();
    // Outside the repository, directly or through a link: an error naming the path and the
    // option that allows it; nothing written.
    for (profile, named) in [("outside", "../../host/shadow"), ("linked", "link.pem")] {
        let ran = Test::new()
            .current_dir(&dir)
            .args(["render", &format!("repo/tenant-a/{profile}.toml")])
            .args(["--out-dir", &format!("out-{profile}")])
            .code(1)
            .stderr_has(named)
            .stderr_has("outside the profile's root")
            .stderr_has("--root DIR")
            .run();
        drop(ran);
        assert!(!dir.join(format!("out-{profile}")).exists(), "{profile}");
    }
    // Inside the repository (the `.git` folder above the profile): copied.
    Test::new()
        .current_dir(&dir)
        .args([
            "render",
            "repo/tenant-a/sibling.toml",
            "--out-dir",
            "out-sibling",
        ])
        .run();
    assert_eq!(
        std::fs::read_to_string(dir.join("out-sibling/files/auth-certs/token_server.crt")).unwrap(),
        "tenant b's key\n"
    );
    // Widened on the command line: copied; `validate` says the same as `render`.
    Test::new()
        .current_dir(&dir)
        .args(["validate", "repo/tenant-a/outside.toml"])
        .code(1)
        .stderr_has("outside the profile's root")
        .run();
    Test::new()
        .current_dir(&dir)
        .args([
            "render",
            "repo/tenant-a/outside.toml",
            "--out-dir",
            "out-wide",
        ])
        .args(["--root", "."])
        .run();
    assert!(
        dir.join("out-wide/files/auth-certs/token_server.crt")
            .exists()
    );
}

#[test]
fn without_a_repository_the_profile_s_folder_is_the_root_of_its_bases() {
    Test::new()
        .file("common/base.toml", "edition = \"B\"\n")
        .file("tenant/p.toml", "extends = \"../common/base.toml\"\n")
        .file("tenant/inside.toml", "extends = \"own/base.toml\"\n")
        .file("tenant/own/base.toml", "edition = \"B\"\n")
        .args(["validate", "tenant/p.toml"])
        .code(1)
        .stderr_has("../common/base.toml")
        .stderr_has("outside the profile's root")
        .stderr_has("--root DIR")
        .run()
        .again()
        .args(["validate", "tenant/inside.toml"])
        .run()
        .again()
        .args(["validate", "tenant/p.toml", "--root", "."])
        .run();
}

/// The shipped Argo CD plugin renders repository content: it must not widen the root.
#[test]
fn the_shipped_gitops_plugin_does_not_widen_the_root() {
    let plugin = std::fs::read_to_string(
        crate::support::repo().join("examples/gitops/argocd-cmp-plugin.yaml"),
    )
    .unwrap();
    assert!(plugin.contains("svcgen render"), "the plugin runs svcgen");
    assert!(!plugin.contains("--root"), "{plugin}");
}

/// With `--include-secrets` a secret file the profile names is read into an output: only from
/// inside its root; a `--set-file` path, named on the command line, may be anywhere.
#[test]
fn a_secret_file_outside_the_root_is_not_read_into_an_output() {
    let profile = "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n\
                   [google]\nproject_id = \"p\"\nsecret_manager_passphrase = { file = \"../host/pass\" }\n";
    let ran = Test::new()
        .file("host/pass", "Zq9-outside-secret\n")
        .file("tenant/p.toml", profile)
        .args([
            "render",
            "tenant/p.toml",
            "-t",
            "dotenv",
            "--include-secrets",
        ])
        .code(1)
        .stderr_has("outside the profile's root")
        .stdout_lacks("Zq9-outside-secret")
        .run();
    ran.again()
        .args([
            "render",
            "tenant/p.toml",
            "-t",
            "dotenv",
            "--include-secrets",
            "--root",
            ".",
        ])
        .stdout_has("Zq9-outside-secret")
        .run()
        .again()
        .args([
            "render",
            "tenant/p.toml",
            "-t",
            "dotenv",
            "--include-secrets",
        ])
        .args(["--set-file", "google.secret_manager_passphrase=host/pass"])
        .stdout_has("Zq9-outside-secret")
        .run();
}

/// A base named twice, once with a trailing `/` (with which a link to a file does not resolve)
/// and once without: each name is resolved on its own when it is admitted, so the link leading
/// out of the root is refused, by `render` as by `validate`, and nothing of it is read.
#[test]
fn a_base_named_again_with_a_trailing_slash_is_still_refused_when_it_leads_out() {
    let test = Test::new()
        .file("repo/.git/HEAD", "ref: refs/heads/main\n")
        .file(
            "host/other.toml",
            "[env]\nLEAKED = \"Zq9-outside-profile\"\n",
        )
        .file(
            "repo/p.toml",
            "edition = \"B\"\nextends = [\"leak/\", \"leak\"]\n",
        );
    let dir = test.path().to_path_buf();
    std::os::unix::fs::symlink(dir.join("host/other.toml"), dir.join("repo/leak")).unwrap();
    for command in ["render", "validate"] {
        let mut args = vec![command, "repo/p.toml"];
        if command == "render" {
            args.extend(["--out-dir", "out"]);
        }
        Test::new()
            .current_dir(&dir)
            .args(args)
            .code(1)
            .stderr_has("outside the profile's root")
            .stderr_lacks("Zq9-outside-profile")
            .stdout_lacks("Zq9-outside-profile")
            .run();
    }
    assert!(!dir.join("out").exists());
}
