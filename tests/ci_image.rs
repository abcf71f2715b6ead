//! The image of svcgen: `scripts/image.sh OUT.tar` builds a static (musl) svcgen into an OCI
//! image FROM scratch with buildah, as an OCI archive. No container engine runs here (podman
//! cannot in this sandbox), so the test opens the archive as an engine would: `index.json` →
//! manifest → config and layers; it checks the user and the entrypoint, unpacks the layers into
//! a root folder and runs the entrypoint's binary from there.

use crate::support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::repo;

/// A blob of the archive by its digest (`sha256:...`).
fn blob(root: &Path, digest: &str) -> PathBuf {
    let (algorithm, hex) = digest
        .split_once(':')
        .expect("a digest names its algorithm");
    root.join("blobs").join(algorithm).join(hex)
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn untar(archive: &Path, into: &Path, gzip: bool) {
    std::fs::create_dir_all(into).unwrap();
    let flags = if gzip { "-xzf" } else { "-xf" };
    let status = Command::new("tar")
        .arg(flags)
        .arg(archive)
        .arg("-C")
        .arg(into)
        .arg("--no-same-owner")
        .status()
        .unwrap();
    assert!(status.success(), "tar {flags} {}", archive.display());
}

/// True when the ELF file asks for no program interpreter (no `PT_INTERP`): it runs in an
/// image that has no dynamic loader, as FROM scratch has none.
fn is_static_elf(bytes: &[u8]) -> bool {
    assert_eq!(&bytes[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(bytes[4], 2, "not a 64-bit ELF file");
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let phoff = u64::from_le_bytes(bytes[0x20..0x28].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(0x36), u16_at(0x38));
    const PT_INTERP: u32 = 3;
    (0..count).all(|i| {
        let at = phoff + i * size;
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) != PT_INTERP
    })
}

#[test]
fn image_archive_runs_svcgen_as_a_non_root_user_from_a_static_binary() {
    let Some(_) = support::tool("buildah") else {
        return;
    };
    let Some(_) = support::tool("rustup") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("svcgen.tar");
    // What the image holds and how it runs do not depend on optimization: the test builds it
    // unoptimized (cargo's own profile settings, not a switch of svcgen's), minutes less on CI.
    let output = Command::new(repo().join("scripts/image.sh"))
        .arg(&archive)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "scripts/image.sh failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let layout = dir.path().join("layout");
    untar(&archive, &layout, false);
    assert_eq!(
        json_file(&layout.join("oci-layout"))["imageLayoutVersion"],
        "1.0.0"
    );
    let index = json_file(&layout.join("index.json"));
    let manifests = index["manifests"].as_array().unwrap();
    assert_eq!(manifests.len(), 1, "{index}");
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        manifests[0]["annotations"]["org.opencontainers.image.ref.name"],
        format!("svcgen:{version}")
    );
    let manifest = json_file(&blob(&layout, manifests[0]["digest"].as_str().unwrap()));
    let config = json_file(&blob(
        &layout,
        manifest["config"]["digest"].as_str().unwrap(),
    ));
    assert_eq!(config["os"], "linux");
    assert_eq!(config["architecture"], "amd64");
    let user = config["config"]["User"].as_str().unwrap();
    let uid: u32 = user
        .split(':')
        .next()
        .unwrap()
        .parse()
        .expect("a numeric user");
    assert!(uid >= 1000, "the image runs as uid {uid}");
    let entrypoint: Vec<&str> = config["config"]["Entrypoint"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(entrypoint, ["/usr/local/bin/svcgen"]);

    // The layers, in order, make the root file system: the binary and the working folder only.
    let rootfs = dir.path().join("rootfs");
    for layer in manifest["layers"].as_array().unwrap() {
        assert!(
            layer["mediaType"].as_str().unwrap().ends_with("tar+gzip"),
            "{layer}"
        );
        untar(
            &blob(&layout, layer["digest"].as_str().unwrap()),
            &rootfs,
            true,
        );
    }
    let binary = rootfs.join(entrypoint[0].trim_start_matches('/'));
    let bytes = std::fs::read(&binary).unwrap();
    assert!(
        is_static_elf(&bytes),
        "{} needs a dynamic loader",
        binary.display()
    );
    assert_eq!(support::file_names(&rootfs), ["usr", "work"]);
    let ran = Command::new(&binary).arg("--version").output().unwrap();
    assert!(ran.status.success());
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout),
        format!("svcgen {version}\n")
    );
    // And it does svcgen's work: a profile read from a folder mounted read-only.
    let profile = repo().join("examples/b-consul-vault-sql.toml");
    let ran = Command::new(&binary)
        .args(["validate", "--quiet"])
        .arg(&profile)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    image_binary_runs_preflight_from_its_environment(&binary);
}

/// The image's binary has preflight's network clients (the feature `live`): from a bare
/// environment, as the preflight Job gives it, it dials a local consul fake (found), and a
/// refused vault.
fn image_binary_runs_preflight_from_its_environment(binary: &Path) {
    let help = Command::new(binary)
        .args(["preflight", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--from-env"));
    let Some(consul) = support::servers::fake("consul", &["ready", ""]) else {
        return;
    };
    let refused = support::servers::refused_port();
    let ran = Command::new(binary)
        .args([
            "preflight",
            "--from-env",
            "--edition",
            "B",
            "--format",
            "json",
        ])
        .args(["--timeout", "2"])
        .env_clear()
        .env("CN_CONFIG_CONSUL_HOST", "127.0.0.1")
        .env("CN_CONFIG_CONSUL_PORT", consul.port.to_string())
        .env("CN_CONFIG_CONSUL_SCHEME", "http")
        .env(
            "CN_SECRET_VAULT_ADDR",
            format!("https://127.0.0.1:{refused}"),
        )
        .env("CN_PERSISTENCE_TYPE", "sql")
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&ran.stdout).unwrap_or_else(|_| {
        panic!(
            "no report: {}{}",
            String::from_utf8_lossy(&ran.stdout),
            String::from_utf8_lossy(&ran.stderr)
        )
    });
    assert_eq!(ran.status.code(), Some(1), "{report:#}");
    let step = |name: &str| {
        (report["steps"].as_array().unwrap().iter())
            .find(|s| s["step"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no step {name}: {report:#}"))
    };
    assert_eq!(step("config")["status"], "ok", "{report:#}");
    assert_eq!(step("secret")["status"], "failed", "{report:#}");
}

#[test]
fn image_script_refuses_a_name_that_is_no_archive() {
    for (arg, message) in [
        ("x.zip", "must end in .tar"),
        ("/nonexistent/x.tar", "no such folder"),
    ] {
        let output = Command::new(repo().join("scripts/image.sh"))
            .arg(arg)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{arg}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{arg}: {stderr}");
    }
}

/// The guide's "Use in CI" (docs/guide.md) runs the image of this version with the profile
/// folder read-only.
#[test]
fn the_guide_runs_the_image_with_the_profiles_mounted_read_only() {
    let guide = std::fs::read_to_string(repo().join("docs/guide.md")).unwrap();
    let section = guide
        .split_once("\n## Use in CI\n")
        .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
        .expect("the guide has a section \"Use in CI\"");
    let image = format!("svcgen:{}", env!("CARGO_PKG_VERSION"));
    for engine in ["docker run", "podman run"] {
        let line = section
            .lines()
            .find(|l| l.starts_with(engine))
            .unwrap_or_else(|| panic!("no `{engine}` line"));
        assert!(
            line.contains(":/work:ro\"") && line.contains(&image),
            "{line}"
        );
    }
}
