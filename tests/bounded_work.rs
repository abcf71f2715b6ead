//! svcgen's work grows with its input, never faster, and no input makes it read forever:
//! a diamond of `extends` loads each file once, `--check` diffs in linear memory, `lint`,
//! `import` and `diff` stay near-linear at 200,000 entries, and `/dev/zero` or a FIFO named
//! anywhere a file is read is refused at once.
//!
//! Nothing here measures time: a deadline only guards against a hang (a run past it is killed and
//! fails), and work is asserted by counting (files loaded) or by a memory limit that a quadratic
//! diff would exceed by far.

use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use svcgen::diag::source::Sources;
use svcgen::profile::{Layers, load_layers};

/// A hang guard, not a timing assertion: the linear runs take seconds even in a debug build.
const DEADLINE: Duration = Duration::from_secs(600);

/// Runs svcgen in `dir` (optionally under an address-space limit); returns exit code and output.
fn run(dir: &Path, args: &[&str], memory_limit: Option<u64>) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_svcgen"));
    command
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(bytes) = memory_limit {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let read_all = |mut r: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let (out, err) = (read_all(Box::new(stdout)), read_all(Box::new(stderr)));
    let status = support::wait_until(&mut child, DEADLINE)
        .unwrap_or_else(|| panic!("svcgen {args:?} still ran after {DEADLINE:?}: unbounded work"));
    let code = status.code();
    (code, out.join().unwrap(), err.join().unwrap())
}

/// `top.toml` extends `l0.toml` and `r0.toml`; `li` and `ri` both extend `m{i+1}`... a diamond
/// repeated `depth` times: 2^depth paths to the bottom file.
fn diamond(dir: &Path, depth: usize) -> std::path::PathBuf {
    let level = |i: usize| format!("m{i}.toml");
    for i in 0..depth {
        std::fs::write(
            dir.join(level(i)),
            format!("extends = [\"l{i}.toml\", \"r{i}.toml\"]\n[env]\nM{i} = \"m\"\n"),
        )
        .unwrap();
        for side in ["l", "r"] {
            std::fs::write(
                dir.join(format!("{side}{i}.toml")),
                format!(
                    "extends = \"{}\"\n[env]\n{}{i} = \"x\"\n",
                    level(i + 1),
                    side.to_uppercase()
                ),
            )
            .unwrap();
        }
    }
    std::fs::write(dir.join(level(depth)), "edition = \"B\"\n").unwrap();
    dir.join(level(0))
}

#[test]
fn a_diamond_of_extends_loads_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 30;
    let top = diamond(dir.path(), depth);
    let mut sources = Sources::new();
    let loaded = load_layers(&Layers::single(&top), &mut sources).unwrap();
    let table = loaded.table.unwrap();
    assert!(table.get_path(&format!("env.M{}", depth - 1)).is_some());
    assert!(table.get_path("env.L0").is_some() && table.get_path("env.R0").is_some());
    assert_eq!(
        sources.len(),
        3 * depth + 1,
        "each of the {} files is read once (2^{depth} times if every path is followed)",
        3 * depth + 1
    );
    // And the command line finishes with every layer merged.
    let (code, _, stderr) = run(dir.path(), &["validate", "m0.toml"], None);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn check_diffs_a_25000_line_file_in_linear_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut profile = String::from("edition = \"B\"\n[env]\n");
    for i in 0..25_000 {
        profile.push_str(&format!("VAR_{i} = \"value {i}\"\n"));
    }
    std::fs::write(dir.path().join("p.toml"), profile).unwrap();
    let (code, _, stderr) = run(dir.path(), &["render", "p.toml", "-o", "out.env"], None);
    assert_eq!(code, Some(0), "{stderr}");
    let written = std::fs::read_to_string(dir.path().join("out.env")).unwrap();
    let lines: Vec<String> = written
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i % 100 == 7 {
                format!("{l}-old")
            } else {
                l.to_string()
            }
        })
        .collect();
    let changed = lines
        .iter()
        .filter(|l| l.starts_with("VAR_") && l.ends_with("-old"))
        .count();
    assert!(changed >= 240, "{changed}");
    std::fs::write(dir.path().join("out.env"), lines.join("\n") + "\n").unwrap();
    // A table of every pair of lines would take 25,000² × 4 bytes = 2.5 GB; 512 MiB of address
    // space is far more than a linear diff needs.
    let (code, stdout, stderr) = run(
        dir.path(),
        &["render", "p.toml", "-o", "out.env", "--check"],
        Some(512 * 1024 * 1024),
    );
    assert_eq!(code, Some(1), "stale, not out of memory: {stderr}");
    assert!(
        stdout.contains("-old\n+VAR_"),
        "{}",
        &stdout[..stdout.len().min(2000)]
    );
    assert_eq!(
        stdout.matches("\n+VAR_").count(),
        changed,
        "one line per changed line"
    );
    assert!(stderr.contains("stale"), "{stderr}");
}

fn many_entries(dir: &Path, n: usize) {
    let mut env = String::from("CN_CONFIG_ADAPTER=consul\n");
    let mut old = String::from("edition = \"B\"\n[env]\n");
    let mut new = old.clone();
    for i in 0..n {
        env.push_str(&format!("X_{i}=v{i}\n"));
        old.push_str(&format!("X_{i} = \"v{i}\"\n"));
        let changed = if i % 1000 == 0 { "changed" } else { "" };
        new.push_str(&format!("X_{i} = \"v{i}{changed}\"\n"));
    }
    env.push_str("X_0=again\n");
    std::fs::write(dir.join("big.env"), env).unwrap();
    std::fs::write(dir.join("old.toml"), old).unwrap();
    std::fs::write(dir.join("new.toml"), new).unwrap();
}

#[test]
fn lint_import_and_diff_stay_near_linear_at_200000_entries() {
    let dir = tempfile::tempdir().unwrap();
    let n = 200_000;
    many_entries(dir.path(), n);
    let (code, _, stderr) = run(
        dir.path(),
        &["lint", "big.env", "--edition", "B", "-q"],
        None,
    );
    assert_eq!(code, Some(0), "{}", &stderr[..stderr.len().min(2000)]);
    let (code, stdout, stderr) = run(
        dir.path(),
        &["import", "big.env", "--edition", "B", "-q"],
        None,
    );
    assert_eq!(code, Some(0), "{}", &stderr[..stderr.len().min(2000)]);
    assert_eq!(
        stdout.matches("\nX_").count(),
        n,
        "every entry imported once"
    );
    assert!(
        stdout.contains("X_0 = \"again\""),
        "the later definition wins"
    );
    let (code, stdout, stderr) = run(dir.path(), &["diff", "old.toml", "new.toml"], None);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("~ X_")).count(),
        n / 1000
    );
}

#[test]
fn dev_zero_and_fifos_are_refused_wherever_a_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(d.join("p.toml"), "edition = \"B\"\n").unwrap();
    for special in ["/dev/zero", fifo.to_str().unwrap()] {
        std::fs::write(
            d.join("docker-compose.yml"),
            format!("services:\n  ui:\n    image: x\n    env_file: {special}\n"),
        )
        .unwrap();
        for command in ["import", "lint"] {
            let (code, _, stderr) = run(d, &[command, "docker-compose.yml"], None);
            assert_eq!(code, Some(1), "{command} env_file {special}: {stderr}");
            assert!(stderr.contains("not a regular file"), "{stderr}");
        }
        let set_file = format!("env.X={special}");
        let (code, _, stderr) = run(d, &["validate", "p.toml", "--set-file", &set_file], None);
        assert_eq!(code, Some(1), "--set-file {special}: {stderr}");
        assert!(stderr.contains("not a regular file"), "{stderr}");
        let (code, stdout, _) = run(d, &["render", "p.toml", "-o", special, "--check"], None);
        assert_eq!(code, Some(1), "--check against {special}");
        assert!(stdout.contains("not a regular file"), "{stdout}");
        let templates = d.join("templates");
        std::fs::create_dir_all(&templates).unwrap();
        let _ = std::fs::remove_file(templates.join("dotenv.env.j2"));
        std::os::unix::fs::symlink(special, templates.join("dotenv.env.j2")).unwrap();
        let (code, _, stderr) = run(d, &["render", "p.toml", "--templates", "templates"], None);
        assert_ne!(code, Some(0), "--templates with {special}: {stderr}");
    }
}

/// An edition A profile listing `names` as plugins, each with an archive in one ConfigMap.
fn plugins_profile(names: &[String]) -> String {
    let listed: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    let mut text = format!(
        "edition = \"A\"\n[config]\nadapter = \"consul\"\nconsul = {{ host = \"consul\", port = 8500 }}\n\
         [secret]\nadapter = \"vault\"\nvault = {{ addr = \"http://localhost:8200\" }}\n\
         [persistence]\ntype = \"ldap\"\nldap = {{ url = \"ldap.internal:1636\", use_ssl = true }}\n\
         [token_server]\nbase_hostname = \"auth.example.org\"\nclient_id = \"1001.abc\"\n\
         [admin_ui]\nauth_method = \"casa\"\nplugins = [{}]\n\
         [scan]\nauth_url = \"https://account.example.org\"\napi_url = \"https://scan.example.org\"\n\
         [deploy.plugins]\n",
        listed.join(", ")
    );
    let mut seen = std::collections::HashSet::new();
    for name in names.iter().filter(|n| seen.insert(n.as_str())) {
        text.push_str(&format!(
            "{name} = {{ configmap = \"admin-ui-plugins\", key = \"{name}.zip\" }}\n"
        ));
    }
    text
}

/// The checks over a list (plugin names listed twice, archives declared, mount paths,
/// keys of one generated object) look each entry up in a set or map: 50,000 plugins are checked
/// and rendered well within the hang guard (a check that scans the entries before each one runs
/// for about twenty minutes here). The growth itself is measured by `benches/lists.rs`.
#[test]
fn fifty_thousand_plugins_are_checked_without_quadratic_work() {
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<String> = (0..50_000).map(|i| format!("p{i}")).collect();
    std::fs::write(dir.path().join("p.toml"), plugins_profile(&names)).unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["render", "p.toml", "-t", "k8s"], None);
    assert_eq!(code, Some(0), "{}", &stderr[..stderr.len().min(2000)]);
    let mounted = stdout.matches(".zip").count();
    assert!(mounted >= 50_000, "every archive is mounted: {mounted}");
    assert!(stdout.contains("p49999.zip"), "the last archive too");
    names.push("p7".to_string());
    std::fs::write(dir.path().join("twice.toml"), plugins_profile(&names)).unwrap();
    let (code, _, stderr) = run(dir.path(), &["validate", "twice.toml"], None);
    assert_eq!(code, Some(1), "{}", &stderr[..stderr.len().min(2000)]);
    assert_eq!(
        stderr.matches("listed twice").count(),
        1,
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
}
