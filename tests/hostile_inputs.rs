//! Whatever svcgen is fed, it ends with a clear result: exit 0 or 1 with diagnostics for content,
//! exit 2 for what cannot be read or written, never a panic, a hang or a partial output folder.
//! Also replays every input the fuzzer found (`tests/fuzz-regressions/`).
//!
//! Every run has a generous deadline (a hang guard, not a timing assertion): a run that outlives
//! it is killed and the test fails.

use crate::support;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use support::write_file as write;

const DEADLINE: Duration = Duration::from_secs(120);
const TEN_MB: usize = 10 * 1024 * 1024;

/// How a run of svcgen ended.
struct Run {
    /// `None` when it was killed at the deadline.
    code: Option<i32>,
    stderr: String,
}

impl Run {
    fn assert_code(&self, expected: i32, what: &str) {
        assert!(
            !self.stderr.contains("panicked"),
            "{what}: svcgen panicked:\n{}",
            self.stderr
        );
        assert_eq!(
            self.code,
            Some(expected),
            "{what}: expected exit {expected}; stderr:\n{}",
            self.stderr
        );
    }

    fn assert_no_panic(&self, what: &str) {
        assert!(
            !self.stderr.contains("panicked"),
            "{what}: svcgen panicked:\n{}",
            self.stderr
        );
        assert!(
            matches!(self.code, Some(0..=2)),
            "{what}: expected exit 0, 1 or 2, got {:?}; stderr:\n{}",
            self.code,
            self.stderr
        );
    }
}

/// Runs svcgen with `args`, output to files (a full pipe never blocks it), killed at `deadline`.
fn svcgen(args: &[&Path], deadline: Duration) -> Run {
    run(Path::new(env!("CARGO_BIN_EXE_svcgen")), args, deadline)
}

fn run(program: &Path, args: &[&Path], deadline: Duration) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let stdout = fs::File::create(dir.path().join("stdout")).unwrap();
    let stderr_path = dir.path().join("stderr");
    let stderr = fs::File::create(&stderr_path).unwrap();
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("svcgen starts");
    let code = support::wait_until(&mut child, deadline).and_then(|status| status.code());
    let stderr = String::from_utf8_lossy(&fs::read(&stderr_path).unwrap()).into_owned();
    Run { code, stderr }
}

fn validate(profile: &Path) -> Run {
    svcgen(&[Path::new("validate"), profile], DEADLINE)
}

fn render(profile: &Path, out_dir: &Path) -> Run {
    svcgen(
        &[
            Path::new("render"),
            profile,
            Path::new("--out-dir"),
            out_dir,
        ],
        DEADLINE,
    )
}

/// Names in a folder (an absent folder has none).
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

const VALID: &str = "edition = \"B\"\n\n[token_server]\nbase_url = \"https://auth.example.org\"\nclient_id = \"2001.abc\"\n";

#[test]
fn a_ten_megabyte_string_value_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{VALID}\n[env]\nBIG = \"{}\"\n", "y".repeat(TEN_MB));
    let profile = write(dir.path(), "big.toml", text);
    let run = validate(&profile);
    run.assert_no_panic("validate a 10 MB value");
    assert_ne!(run.code, Some(2), "{}", run.stderr);
    let out = dir.path().join("out");
    let run = render(&profile, &out);
    run.assert_no_panic("render a 10 MB value");
    if run.code == Some(0) {
        assert!(fs::metadata(out.join(".env")).unwrap().len() > TEN_MB as u64);
    } else {
        assert!(entries(&out).is_empty(), "{:?}", entries(&out));
    }
}

#[test]
fn ten_megabytes_of_large_env_entries_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = format!("{VALID}\n[env]\n");
    let value = "v".repeat(10 * 1024);
    for i in 0..1030 {
        text.push_str(&format!("EXTRA_{i:05} = \"{value}\"\n"));
    }
    assert!(text.len() >= TEN_MB);
    let profile = write(dir.path(), "big.toml", text);
    let run = validate(&profile);
    run.assert_no_panic("validate 1,030 entries of 10 kB");
    assert_ne!(run.code, Some(2), "{}", run.stderr);
}

/// 140,000 short `[env]` entries, each a warning with a "did you mean" search. This took minutes
/// until diagnostics found their line by binary search and suggestions were pruned by a cheap
/// lower bound of the edit distance (both found by this test).
#[test]
fn ten_megabytes_of_short_env_entries_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = format!("{VALID}\n[env]\n");
    let mut i = 0;
    while text.len() < TEN_MB {
        text.push_str(&format!(
            "EXTRA_VAR_{i:07} = \"value-{i}-{}\"\n",
            "x".repeat(40)
        ));
        i += 1;
    }
    let profile = write(dir.path(), "big.toml", text);
    // A hang guard, not a timing: the debug build needs about 30 s of CPU for this (measured
    // with /usr/bin/time), which on a loaded 2-core machine can exceed 60 s of wall time; a
    // quadratic walk over 140,000 entries would need hours, so 300 s still tells them apart.
    let run = svcgen(&[Path::new("validate"), &profile], Duration::from_secs(300));
    run.assert_no_panic("validate 140,000 short entries");
}

#[test]
fn ten_thousand_nested_arrays_are_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{VALID}x = {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let run = validate(&write(dir.path(), "deep.toml", deep));
    run.assert_code(1, "10,000 nested arrays");
    assert!(run.stderr.contains("error"), "{}", run.stderr);
}

#[test]
fn ten_thousand_nested_inline_tables_are_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!(
        "{VALID}x = {}1{}\n",
        "{a = ".repeat(10_000),
        "}".repeat(10_000)
    );
    let run = validate(&write(dir.path(), "deep.toml", deep));
    run.assert_code(1, "10,000 nested inline tables");
    assert!(run.stderr.contains("error"), "{}", run.stderr);
}

#[test]
fn ten_thousand_nested_table_headers_are_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let header = vec!["a"; 10_000].join(".");
    let deep = format!("{VALID}[{header}]\nk = 1\n");
    let run = validate(&write(dir.path(), "deep.toml", deep));
    run.assert_code(1, "a table header 10,000 keys deep");
}

#[test]
fn invalid_utf8_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = VALID.as_bytes().to_vec();
    bytes.extend_from_slice(b"[env]\nX = \"\xff\xfe\"\n");
    let profile = write(dir.path(), "latin1.toml", bytes);
    let run = validate(&profile);
    run.assert_code(1, "invalid UTF-8");
    assert!(run.stderr.contains("UTF-8"), "{}", run.stderr);
    let out = dir.path().join("out");
    render(&profile, &out).assert_code(1, "render invalid UTF-8");
    assert!(entries(&out).is_empty());
}

#[test]
fn nul_bytes_are_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("in-string.toml", format!("{VALID}[env]\nX = \"a\0b\"\n")),
        ("in-comment.toml", format!("# \0\n{VALID}")),
        ("bare.toml", format!("{VALID}\0\0\0")),
    ] {
        let run = validate(&write(dir.path(), name, text));
        run.assert_code(1, name);
        assert!(run.stderr.contains("NUL"), "{name}: {}", run.stderr);
    }
}

#[test]
fn a_directory_as_the_profile_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let run = validate(dir.path());
    run.assert_code(2, "a directory");
    let out = dir.path().join("out");
    render(dir.path(), &out).assert_code(2, "render a directory");
    assert!(!out.exists());
}

#[test]
fn a_fifo_as_the_profile_does_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("profile.toml");
    if !support::mkfifo(&fifo) {
        return;
    }
    // Nobody ever writes to the FIFO: reading it would block forever.
    let run = svcgen(&[Path::new("validate"), &fifo], Duration::from_secs(10));
    assert!(
        run.code.is_some(),
        "svcgen validate blocked on a FIFO for 10 s and was killed"
    );
    run.assert_code(2, "a FIFO");
}

/// Runs svcgen with `args` under a 1 GB address-space limit (`ulimit -v`), so that an unbounded
/// read fails fast instead of exhausting the machine.
fn svcgen_limited(args: &[&Path], deadline: Duration) -> Run {
    let mut script = String::from("ulimit -v 1000000; exec \"$0\"");
    for i in 0..args.len() {
        script.push_str(&format!(" \"${}\"", i + 1));
    }
    let mut full: Vec<&Path> = vec![Path::new("-c"), Path::new(&script)];
    full.push(Path::new(env!("CARGO_BIN_EXE_svcgen")));
    full.extend_from_slice(args);
    run(Path::new("sh"), &full, deadline)
}

#[test]
fn an_endless_device_as_the_profile_is_refused_without_reading_it_whole() {
    let run = svcgen_limited(
        &[Path::new("validate"), Path::new("/dev/zero")],
        Duration::from_secs(60),
    );
    run.assert_code(2, "/dev/zero as the profile");
    assert!(
        !run.stderr.contains("out of memory"),
        "svcgen read /dev/zero until memory ran out:\n{}",
        run.stderr
    );
}

const ZERO_SECRET: &str = "edition = \"B\"\n[config]\nadapter = \"google\"\n[secret]\nadapter = \"google\"\n[google]\nproject_id = \"p\"\nsecret_manager_passphrase = { file = \"/dev/zero\" }\n";

#[test]
fn an_endless_secret_file_is_refused_without_reading_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", ZERO_SECRET);
    let run = svcgen_limited(
        &[
            Path::new("render"),
            &profile,
            Path::new("--include-secrets"),
            Path::new("-t"),
            Path::new("dotenv"),
        ],
        Duration::from_secs(60),
    );
    run.assert_code(1, "/dev/zero as a secret file");
    assert!(
        !run.stderr.contains("out of memory"),
        "svcgen read /dev/zero until memory ran out:\n{}",
        run.stderr
    );
}

#[test]
fn a_fifo_as_a_secret_file_does_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("passphrase");
    if !support::mkfifo(&fifo) {
        return;
    }
    let text = ZERO_SECRET.replace("/dev/zero", &fifo.display().to_string());
    let profile = write(dir.path(), "p.toml", text);
    let run = svcgen(
        &[
            Path::new("render"),
            &profile,
            Path::new("--include-secrets"),
            Path::new("-t"),
            Path::new("dotenv"),
        ],
        Duration::from_secs(10),
    );
    assert!(
        run.code.is_some(),
        "svcgen render --include-secrets blocked on a FIFO for 10 s and was killed"
    );
    run.assert_code(1, "a FIFO as a secret file");
}

#[test]
fn an_unreadable_profile_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "secret.toml", VALID);
    fs::set_permissions(&profile, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&profile).is_ok() {
        support::record_skip(
            "this user (root) reads a file of mode 000: run the tests as a non-root user to cover it",
        );
        return;
    }
    validate(&profile).assert_code(2, "an unreadable file");
    let out = dir.path().join("out");
    render(&profile, &out).assert_code(2, "render an unreadable file");
    assert!(!out.exists());
}

/// Makes `dir` read-only; false (after saying so) when this user can write there anyway (root).
fn read_only(dir: &Path) -> bool {
    fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
    let probe = dir.join("probe");
    if fs::write(&probe, "x").is_ok() {
        let _ = fs::remove_file(&probe);
        support::record_skip(
            "this user (root) writes into a folder of mode 555: run the tests as a non-root user to cover it",
        );
        return false;
    }
    true
}

#[test]
fn a_read_only_output_folder_is_an_io_error_and_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", VALID);
    let out = dir.path().join("out");
    fs::create_dir(&out).unwrap();
    if !read_only(&out) {
        return;
    }
    let run = render(&profile, &out);
    fs::set_permissions(&out, fs::Permissions::from_mode(0o755)).unwrap();
    run.assert_code(2, "a read-only output folder");
    assert_eq!(entries(&out), Vec::<String>::new());
}

#[test]
fn an_output_folder_inside_a_read_only_folder_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", VALID);
    let parent = dir.path().join("locked");
    fs::create_dir(&parent).unwrap();
    if !read_only(&parent) {
        return;
    }
    let run = render(&profile, &parent.join("out"));
    fs::set_permissions(&parent, fs::Permissions::from_mode(0o755)).unwrap();
    run.assert_code(2, "an output folder that cannot be created");
    assert_eq!(entries(&parent), Vec::<String>::new());
}

/// One output that cannot be written (a folder is in the way) must not leave the others written:
/// works as root too.
#[test]
fn an_output_that_cannot_be_written_leaves_no_partial_files() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", VALID);
    let out = dir.path().join("out");
    fs::create_dir_all(out.join("k8s.yaml")).unwrap();
    let run = render(&profile, &out);
    run.assert_code(2, "a folder where k8s.yaml goes");
    assert_eq!(
        entries(&out),
        ["k8s.yaml"],
        "files were written beside the failure"
    );
}

/// Every input the fuzzer found (saved by hand from `fuzz/artifacts/`) is replayed through
/// `validate` and `render --out-dir`: no panic, exit 0, 1 or 2.
#[test]
fn fuzz_regressions_do_not_panic() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut inputs: Vec<PathBuf> = fs::read_dir(&folder)
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    inputs.retain(|p| p.is_file() && p.extension().is_none_or(|x| x != "md"));
    inputs.sort();
    let mut failures = Vec::new();
    for input in &inputs {
        let out = tempfile::tempdir().unwrap();
        let name = input.file_name().unwrap().to_string_lossy();
        for (what, run) in [
            ("validate", validate(input)),
            ("render --out-dir", render(input, &out.path().join("out"))),
        ] {
            let ok = !run.stderr.contains("panicked") && matches!(run.code, Some(0..=2));
            if !ok {
                failures.push(format!(
                    "{name}: {what}: exit {:?}\n{}",
                    run.code, run.stderr
                ));
            }
        }
    }
    eprintln!("replayed {} fuzz regression input(s)", inputs.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `svcgen render PROFILE -t k8s-env --templates TEMPLATES -o OUT`, under the memory limit.
fn render_k8s_env_with(profile: &Path, templates: &Path, out: &Path) -> Run {
    let args = [
        Path::new("render"),
        profile,
        Path::new("-t"),
        Path::new("k8s-env"),
        Path::new("--templates"),
        templates,
        Path::new("-o"),
        out,
    ];
    svcgen_limited(&args, DEADLINE)
}

/// A `--templates` folder holding `k8s-env.yaml.j2` written as `text`.
fn custom_k8s_env(dir: &Path, text: &str) -> PathBuf {
    let templates = dir.join("templates");
    fs::create_dir_all(&templates).unwrap();
    write(&templates, "k8s-env.yaml.j2", text);
    templates
}

/// Every file below `dir` with its bytes (what a run must leave as it was).
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = support::walk(dir)
        .into_iter()
        .map(|path| {
            let bytes = fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

/// A run that a template's memory stopped: it failed (svcgen's memory is the process's limit;
/// past it the allocation fails and the process ends), without a panic.
fn assert_stopped_by_the_memory_limit(run: &Run, what: &str) {
    assert_ne!(run.code, Some(0), "{what}: it succeeded:\n{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
}

/// A template that doubles a 50 MB string inside a macro's arguments (fewer levels than the
/// recursion limit, little fuel): only the process's memory limit stops it.
const DOUBLING_MACRO: &str = "{% macro d(s, n) %}{% if n %}{{ d(s ~ s, n - 1) }}{% endif %}{% endmacro %}\n{{ d('x' * 50000000, 10) }}\n";

/// A custom template's memory is bounded by the process's limits (here `ulimit -v`): past it the
/// run ends, and an `-o` file keeps its old content with nothing beside it (renders come before
/// writes: no temporary file was made).
#[test]
fn a_template_past_the_memory_limit_ends_the_run_and_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", VALID);
    let templates = custom_k8s_env(dir.path(), DOUBLING_MACRO);
    let out = write(dir.path(), "env.yaml", "old: true\n");
    let run = render_k8s_env_with(&profile, &templates, &out);
    assert_stopped_by_the_memory_limit(&run, "a string doubled in a macro's arguments");
    assert_eq!(fs::read_to_string(&out).unwrap(), "old: true\n");
    assert_eq!(entries(dir.path()), ["env.yaml", "p.toml", "templates"]);
}

/// The same in an `--out-dir` render and in a batch: the folders hold what the last good run
/// wrote, byte for byte.
#[test]
fn a_template_past_the_memory_limit_leaves_output_folders_whole() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.toml", VALID);
    let b = write(dir.path(), "b.toml", VALID);
    let templates = custom_k8s_env(dir.path(), DOUBLING_MACRO);
    let single = dir.path().join("single");
    let batch = dir.path().join("batch");
    let runs: [(&str, Vec<&Path>, &Path); 2] = [
        ("--out-dir", vec![Path::new("render"), &a], &single),
        ("a batch", vec![Path::new("render"), &a, &b], &batch),
    ];
    for (what, args, folder) in runs {
        let mut args = args;
        args.extend([Path::new("--out-dir"), folder]);
        svcgen(&args, DEADLINE).assert_code(0, what);
        let before = contents(folder);
        args.extend([Path::new("--templates"), &templates]);
        let run = svcgen_limited(&args, DEADLINE);
        assert_stopped_by_the_memory_limit(&run, what);
        assert_eq!(contents(folder), before, "{what}: the folder changed");
    }
}
