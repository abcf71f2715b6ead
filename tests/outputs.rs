//! Where svcgen writes: every output stays inside what the user named, never replaces an input (by
//! identity, not spelling), honours the umask, is not rewritten when unchanged, is locked against a
//! concurrent run, and leaves no temporary file behind on a signal.

use crate::support;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use support::scenario::{Running, Test};

const PROFILE: &str = "edition = \"B\"\n";

use support::{file_names as names, write_file as write};

/// `svcgen render PROFILES... --out-dir OUT`, to run to completion.
fn render_into(profiles: &[&Path], out: &Path) -> Test {
    Test::new()
        .arg("render")
        .args(profiles)
        .arg("--out-dir")
        .arg(out)
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("svcgen")
}

#[test]
fn a_batch_profile_named_dot_dot_cannot_write_into_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = dir.path().join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    write(&profiles, "...toml", PROFILE);
    write(&profiles, "good.toml", PROFILE);
    let out = dir.path().join("work/out");
    std::fs::create_dir_all(&out).unwrap();
    render_into(&[&profiles], &out)
        .code(2)
        .stderr_has("...toml")
        .stderr_has("cannot name an output folder")
        .run();
    assert_eq!(
        names(&dir.path().join("work")),
        ["out"],
        "nothing beside out/"
    );
    assert!(names(&out).is_empty(), "a refused batch writes nothing");
}

#[test]
fn a_batch_profile_name_with_a_newline_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a\nb.toml", PROFILE);
    let b = write(dir.path(), "c.toml", PROFILE);
    let out = dir.path().join("out");
    render_into(&[&a, &b], &out)
        .code(2)
        .stderr_has("control character")
        .run();
}

#[test]
fn an_output_is_never_one_of_the_inputs_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let base = write(dir.path(), "base.toml", PROFILE);
    let profile = write(dir.path(), "p.toml", "extends = \"base.toml\"\n");
    let overlay = write(dir.path(), "over.toml", "[wait]\nmax_time = 100\n");
    let value = write(dir.path(), "v.txt", "150\n");
    let link = dir.path().join("hard.toml");
    std::fs::hard_link(&profile, &link).unwrap();
    let symlink = dir.path().join("sym.toml");
    std::os::unix::fs::symlink(&profile, &symlink).unwrap();
    let spelled = sub.join("../p.toml");
    for output in [&spelled, &link, &symlink, &base, &overlay, &value] {
        Test::new()
            .arg("render")
            .arg(&profile)
            .arg("-f")
            .arg(&overlay)
            .arg("--set-file")
            .arg(format!("wait.sleep_duration={}", value.display()))
            .args(["-t", "dotenv", "-o"])
            .arg(output)
            .code(2)
            .stderr_has("is an input of this command")
            .run();
    }
    assert_eq!(
        std::fs::read_to_string(&profile).unwrap(),
        "extends = \"base.toml\"\n"
    );
    assert_eq!(std::fs::read_to_string(&base).unwrap(), PROFILE);
    assert_eq!(std::fs::read_to_string(&value).unwrap(), "150\n");
    assert!(
        std::fs::symlink_metadata(&symlink)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn import_cannot_replace_its_input_and_migrate_in_place_can() {
    let dir = tempfile::tempdir().unwrap();
    let input = write(dir.path(), "app.env", "CN_WAIT_MAX_TIME=300\n");
    let twin = dir.path().join("twin.env");
    std::fs::hard_link(&input, &twin).unwrap();
    Test::new()
        .args(["import", "--edition", "B"])
        .arg(&input)
        .arg("-o")
        .arg(&twin)
        .code(2)
        .stderr_has("is an input of this command")
        .run();
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        "CN_WAIT_MAX_TIME=300\n"
    );
    // migrate --in-place is the one command that replaces its input, by design.
    let a = write(dir.path(), "a.toml", "edition = \"A\"\n");
    Test::new()
        .args(["migrate", "--to", "B", "--in-place"])
        .arg(&a)
        .run();
    assert!(
        std::fs::read_to_string(&a)
            .unwrap()
            .contains("edition = \"B\"")
    );
}

#[test]
fn a_link_out_of_the_output_folder_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("a")).unwrap();
    let victim = write(&outside, "victim", "keep\n");
    std::os::unix::fs::symlink(&victim, out.join(".env")).unwrap();
    let a = write(dir.path(), "a.toml", PROFILE);
    let b = write(dir.path(), "b.toml", PROFILE);
    render_into(&[&a, &b], &out)
        .code(2)
        .stderr_has("outside")
        .run();
    render_into(&[&a], &out).code(2).stderr_has("outside").run();
    assert_eq!(names(&outside), ["victim"]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
}

#[test]
fn unchanged_outputs_are_not_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let out = dir.path().join("out");
    let render = || {
        render_into(&[&profile], &out).run();
    };
    render();
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for name in names(&out) {
        let file = std::fs::File::options()
            .write(true)
            .open(out.join(&name))
            .unwrap();
        file.set_modified(old).unwrap();
    }
    let before: Vec<u64> = names(&out)
        .iter()
        .map(|n| std::fs::metadata(out.join(n)).unwrap().ino())
        .collect();
    render();
    for (name, ino) in names(&out).iter().zip(before) {
        let meta = std::fs::metadata(out.join(name)).unwrap();
        assert_eq!(meta.modified().unwrap(), old, "{name} was rewritten");
        assert_eq!(meta.ino(), ino, "{name} was replaced");
    }
    std::fs::write(&profile, "edition = \"B\"\n[wait]\nmax_time = 100\n").unwrap();
    render();
    let changed = std::fs::metadata(out.join(".env")).unwrap();
    assert_ne!(
        changed.modified().unwrap(),
        old,
        "a changed file is written"
    );
    assert_eq!(
        names(&out),
        support::OUT_DIR_FILES,
        "no temporary file is left"
    );
}

/// Runs svcgen under a shell with this umask.
fn render_with_umask(umask: &str, profile: &Path, out: &Path, extra: &str) {
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "umask {umask} && exec \"$0\" render \"$1\" --out-dir \"$2\" -q {extra}"
        ))
        .arg(bin())
        .arg(profile)
        .arg(out)
        .env("SECRET", "s3cret")
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn new_files_honour_the_umask_and_secrets_stay_private() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let mode = |p: PathBuf| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    render_with_umask("077", &profile, &dir.path().join("a"), "");
    assert_eq!(mode(dir.path().join("a/k8s.yaml")), 0o600);
    render_with_umask("022", &profile, &dir.path().join("b"), "");
    assert_eq!(mode(dir.path().join("b/k8s.yaml")), 0o644);
    render_with_umask("002", &profile, &dir.path().join("c"), "");
    assert_eq!(mode(dir.path().join("c/.env")), 0o664);
    render_with_umask("000", &profile, &dir.path().join("d"), "--include-secrets");
    assert_eq!(
        mode(dir.path().join("d/.env")),
        0o600,
        "secrets stay private"
    );
}

/// Waits until `dir` holds a temporary file of svcgen.
fn wait_for_temp(dir: &Path) {
    let start = Instant::now();
    while !names(dir).iter().any(|n| n.starts_with(".svcgen-")) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Renders `dir/p.toml` into `out`, changes the profile and starts a second render that pauses
/// with its temporary files written, before renaming them. Returns that run and the first `.env`.
/// The second run must not succeed: it is to be stopped.
fn paused_second_render(dir: &Path, out: &Path) -> (Running, Vec<u8>) {
    let profile = write(dir, "p.toml", PROFILE);
    render_into(&[&profile], out).run();
    let before = std::fs::read(out.join(".env")).unwrap();
    std::fs::write(&profile, "edition = \"B\"\n[wait]\nmax_time = 100\n").unwrap();
    let running = render_into(&[&profile], out)
        .env("SVCGEN_TEST_PAUSE_BEFORE_RENAME", "60")
        .code_is_not(0)
        .spawn();
    wait_for_temp(out);
    (running, before)
}

#[test]
fn a_signal_removes_the_temporary_files_and_keeps_the_old_outputs() {
    for signal in ["TERM", "INT", "HUP", "QUIT", "USR1", "ALRM"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let (running, before) = paused_second_render(dir.path(), &out);
        let killed = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(running.id().to_string())
            .status()
            .unwrap();
        assert!(killed.success());
        // SIG{signal} ends the run, which does not succeed.
        running.finish();
        assert_eq!(
            names(&out),
            support::OUT_DIR_FILES,
            "SIG{signal}: no temporary file is left"
        );
        assert_eq!(
            std::fs::read(out.join(".env")).unwrap(),
            before,
            "old outputs kept"
        );
    }
}

#[test]
fn a_second_run_waits_for_the_one_writing_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // Another run holds the folder (svcgen locks the folder itself, with flock).
    let held = std::fs::File::open(&out).unwrap();
    held.lock().unwrap();
    let mut running = render_into(&[&profile], &out)
        .stderr_has("another svcgen run")
        .spawn();
    std::thread::sleep(Duration::from_millis(700));
    assert!(running.is_running(), "it waits for the lock");
    assert!(names(&out).is_empty(), "and writes nothing meanwhile");
    held.unlock().unwrap();
    running.finish();
    assert_eq!(names(&out), support::OUT_DIR_FILES);
}

#[test]
fn two_concurrent_batches_into_one_folder_leave_one_consistent_set() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        dir.path(),
        "a.toml",
        "edition = \"B\"\n[wait]\nmax_time = 111\n",
    );
    let b = write(
        dir.path(),
        "b.toml",
        "edition = \"B\"\n[wait]\nmax_time = 222\n",
    );
    let out = dir.path().join("out");
    let spawn = |p: &Path| {
        render_into(&[p], &out)
            .arg("-q")
            .env("SVCGEN_TEST_PAUSE_BEFORE_RENAME", "1")
            .spawn()
    };
    let first = spawn(&a);
    std::thread::sleep(Duration::from_millis(300));
    let second = spawn(&b);
    first.finish();
    second.finish();
    // Each run alone, for reference: the contested folder must be one of them, every file.
    let alone = |p: &Path, name: &str| {
        let folder = dir.path().join(name);
        render_into(&[p], &folder).arg("-q").run();
        let files: Vec<(String, Vec<u8>)> = names(&folder)
            .into_iter()
            .map(|n| (n.clone(), std::fs::read(folder.join(&n)).unwrap()))
            .collect();
        files
    };
    let (only_a, only_b) = (alone(&a, "only-a"), alone(&b, "only-b"));
    assert_ne!(only_a, only_b);
    let contested: Vec<(String, Vec<u8>)> = names(&out)
        .into_iter()
        .map(|n| (n.clone(), std::fs::read(out.join(&n)).unwrap()))
        .collect();
    assert!(
        contested == only_a || contested == only_b,
        "the folder mixes both runs: {:?}",
        contested.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
}

#[test]
fn import_cannot_replace_the_env_file_its_compose_file_reads() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = support::repo().join("tests/import/compose-env-file");
    for entry in std::fs::read_dir(&fixture).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let env_file = names(dir.path())
        .into_iter()
        .find(|n| n.ends_with(".env"))
        .expect("the fixture has an env_file");
    let before = std::fs::read(dir.path().join(&env_file)).unwrap();
    Test::new()
        .arg("import")
        .arg(dir.path().join("docker-compose.yml"))
        .arg("-o")
        .arg(dir.path().join(&env_file))
        .code(2)
        .stderr_has("is an input of this command")
        .run();
    assert_eq!(std::fs::read(dir.path().join(&env_file)).unwrap(), before);
}

#[test]
fn check_waits_while_a_run_writes_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let out = dir.path().join("out");
    render_into(&[&profile], &out).run();
    let held = std::fs::File::open(&out).unwrap();
    held.lock().unwrap();
    let mut running = render_into(&[&profile], &out).arg("--check").spawn();
    std::thread::sleep(Duration::from_millis(700));
    assert!(running.is_running(), "--check waits for the writer");
    held.unlock().unwrap();
    running.finish();
}

#[test]
fn a_batch_never_writes_over_a_profile_it_has_yet_to_read() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("a")).unwrap();
    let a = write(dir.path(), "a.toml", PROFILE);
    // A later profile of the batch sits where `a` renders its `k8s.yaml`.
    let later = write(&out.join("a"), "k8s.yaml", "edition = \"B\"\n# keep\n");
    render_into(&[&a, &later], &out)
        .code(2)
        .stderr_has("is an input of this command")
        .run();
    assert_eq!(
        std::fs::read_to_string(&later).unwrap(),
        "edition = \"B\"\n# keep\n"
    );
}

/// Every file below `dir` (links not followed) with its bytes, by path relative to `dir`.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                let bytes = std::fs::read(&path).unwrap();
                out.push((name, bytes));
            }
        }
    }
    out.sort();
    out
}

/// Copies the folder `from` (plain files and folders) to `to`, which must not exist.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (name, bytes) in tree(from) {
        let path = to.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// An edition A profile with `count` plugins, each with its host archive (holding `version`):
/// `render --out-dir` writes one file per plugin, so one commit replaces many files.
fn many_file_profile(dir: &Path, count: usize, version: &str, max_time: u32) -> PathBuf {
    std::fs::create_dir_all(dir.join("plugins")).unwrap();
    let names: Vec<String> = (0..count).map(|i| format!("p{i}")).collect();
    let mut profile = format!(
        "edition = \"A\"\n[wait]\nmax_time = {max_time}\n[admin_ui]\nplugins = [{}]\n[deploy.plugins]\n",
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    for (i, name) in names.iter().enumerate() {
        profile.push_str(&format!(
            "{name} = {{ host = \"plugins/{name}.zip\", configmap = \"plugins-{}\", key = \"{name}.zip\" }}\n",
            i % 20
        ));
        write(
            &dir.join("plugins"),
            &format!("{name}.zip"),
            format!("{version} {name}"),
        );
    }
    write(dir, "p.toml", profile)
}

/// SIGTERM or SIGINT at many points of a commit of 120 files: each time the folder
/// holds the old set or the new one, file for file, and nothing else.
#[test]
fn a_signal_during_a_large_commit_leaves_the_old_folder_or_the_new_one() {
    let dir = tempfile::tempdir().unwrap();
    let profile = many_file_profile(dir.path(), 120, "v1", 300);
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    render_into(&[&profile], &old).arg("-q").run();
    many_file_profile(dir.path(), 120, "v2", 100);
    render_into(&[&profile], &new).arg("-q").run();
    let (old_tree, new_tree) = (tree(&old), tree(&new));
    assert!(old_tree.len() > 120 && old_tree.len() == new_tree.len());
    // Rounds 0-3 signal as soon as the run has begun writing (before or early in its commit);
    // the others once its commit has begun (the first file, `.env`, is in place), then 0-300 ms
    // into the 480 ms commit.
    let mut cut_mid_commit = 0;
    for round in 0..12u64 {
        let out = dir.path().join(format!("out{round}"));
        copy_tree(&old, &out);
        let mut child = std::process::Command::new(bin())
            .arg("render")
            .arg(&profile)
            .arg("--out-dir")
            .arg(&out)
            .arg("-q")
            .env("SVCGEN_TEST_COMMIT_STEP_MS", "4")
            .spawn()
            .unwrap();
        let (phase, delay) = if round < 4 {
            (".svcgen-", 0)
        } else {
            (".env", (round - 4) * 40)
        };
        let old_env = std::fs::read(old.join(".env")).unwrap();
        let begun = |out: &Path| match phase {
            ".env" => std::fs::read(out.join(".env")).is_ok_and(|now| now != old_env),
            _ => names(out).iter().any(|n| n.starts_with(phase)),
        };
        let start = Instant::now();
        while !begun(&out) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "round {round}: no {phase}"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(delay));
        let signal = if round % 2 == 0 { "TERM" } else { "INT" };
        std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        let status = child.wait().unwrap();
        let now = tree(&out);
        assert!(
            now == old_tree || now == new_tree,
            "round {round}, SIG{signal} {delay} ms after {phase}: the folder mixes the two sets ({} files differ from the old, {} from the new)",
            now.iter().filter(|f| !old_tree.contains(f)).count(),
            now.iter().filter(|f| !new_tree.contains(f)).count(),
        );
        // Ended by the signal yet holding the new set: the signal came during the commit.
        if now == new_tree && !status.success() {
            cut_mid_commit += 1;
        }
    }
    assert!(
        cut_mid_commit > 0,
        "no signal landed during a commit: the test did not test anything"
    );
}

/// A killed `-o` write leaves the old file, whole.
#[test]
fn a_killed_single_file_write_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let out = dir.path().join("app.env");
    Test::new()
        .arg("render")
        .arg(&profile)
        .arg("-o")
        .arg(&out)
        .run();
    let before = std::fs::read(&out).unwrap();
    std::fs::write(&profile, "edition = \"B\"\n[wait]\nmax_time = 100\n").unwrap();
    for signal in ["KILL", "TERM"] {
        let running = Test::new()
            .arg("render")
            .arg(&profile)
            .arg("-o")
            .arg(&out)
            .env("SVCGEN_TEST_PAUSE_BEFORE_RENAME", "60")
            .code_is_not(0)
            .spawn();
        wait_for_temp(dir.path());
        std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(running.id().to_string())
            .status()
            .unwrap();
        running.finish();
        assert_eq!(std::fs::read(&out).unwrap(), before, "SIG{signal}");
    }
}

/// After a SIGKILL the next run rewrites the outputs, names the killed run's temporary files
/// (it removes no file whose content it does not know), and leaves every user file alone.
#[test]
fn the_next_run_after_a_kill_names_its_temporary_files_and_removes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("p.toml");
    let out = dir.path().join("out");
    let (mut running, _) = paused_second_render(dir.path(), &out);
    running.kill();
    running.finish();
    let left: Vec<String> = names(&out)
        .into_iter()
        .filter(|n| n.starts_with(".svcgen-"))
        .collect();
    assert!(!left.is_empty());
    std::fs::write(out.join(".svcgen-notes"), "mine").unwrap();
    std::fs::write(out.join("keep.txt"), "mine").unwrap();
    let ran = render_into(&[&profile], &out)
        .stderr_has("a temporary file of an svcgen run that was killed")
        .stderr_has(&left[0])
        .run();
    ran.again()
        .arg("render")
        .arg(&profile)
        .arg("--out-dir")
        .arg(&out)
        .arg("--check")
        .run();
    for user_file in [".svcgen-notes", "keep.txt"] {
        assert_eq!(
            std::fs::read_to_string(out.join(user_file)).unwrap(),
            "mine",
            "{user_file} is the user's: kept"
        );
    }
}

/// A run into X never touches a run into X/sub, even at the same time: both complete.
#[test]
fn renders_into_a_folder_and_a_folder_inside_it_both_complete() {
    let dir = tempfile::tempdir().unwrap();
    let outer_profile = write(dir.path(), "outer.toml", PROFILE);
    let inner_profile = write(
        dir.path(),
        "inner.toml",
        "edition = \"B\"\n[wait]\nmax_time = 100\n",
    );
    let outer = dir.path().join("x");
    let inner = outer.join("sub");
    std::fs::create_dir_all(&inner).unwrap();
    // The inner run stops with its temporary files written; the outer one runs meanwhile.
    let running = render_into(&[&inner_profile], &inner)
        .env("SVCGEN_TEST_PAUSE_BEFORE_RENAME", "2")
        .spawn();
    wait_for_temp(&inner);
    render_into(&[&outer_profile], &outer).run();
    running.finish();
    let mut expected: Vec<String> = support::OUT_DIR_FILES
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(names(&inner), expected);
    assert!(
        std::fs::read_to_string(inner.join(".env"))
            .unwrap()
            .contains("CN_WAIT_MAX_TIME=100")
    );
    expected.push("sub".to_string());
    expected.sort();
    assert_eq!(names(&outer), expected);
}

/// `man --out-dir` refuses a page that is a link leading out of the folder.
#[test]
fn man_pages_are_not_written_through_a_link_out_of_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let victim = write(dir.path(), "victim", "keep\n");
    let out = dir.path().join("man");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("svcgen-render.1")).unwrap();
    Test::new()
        .arg("man")
        .arg("--out-dir")
        .arg(&out)
        .code(2)
        .stderr_has("outside")
        .run();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
    assert_eq!(names(&out), ["svcgen-render.1"], "nothing written");
}

/// `-o` of every single-file writer refuses a link that leads out of its folder.
#[test]
fn no_single_file_writer_follows_a_link_out_of_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let victim = write(&elsewhere, "victim", "keep\n");
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let link = out.join("o");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let profile = write(dir.path(), "p.toml", PROFILE);
    let a_profile = write(dir.path(), "a.toml", "edition = \"A\"\n");
    let env = write(dir.path(), "in.env", "CN_WAIT_MAX_TIME=300\n");
    let commands: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["render".into(), profile.clone().into()],
        vec!["docs".into()],
        vec!["schema".into()],
        vec!["import".into(), "--edition".into(), "B".into(), env.into()],
        vec![
            "migrate".into(),
            "--to".into(),
            "B".into(),
            a_profile.into(),
        ],
    ];
    for command in commands {
        Test::new()
            .args(&command)
            .arg("-o")
            .arg(&link)
            .code(2)
            .stderr_has("outside")
            .run();
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "keep\n",
            "{command:?}"
        );
    }
    // A link inside the folder is the user's choice: followed, the link kept.
    let inside = write(&out, "real.env", "");
    let near = out.join("near.env");
    std::os::unix::fs::symlink(&inside, &near).unwrap();
    Test::new()
        .arg("render")
        .arg(&profile)
        .arg("-o")
        .arg(&near)
        .run();
    assert!(std::fs::read_to_string(&inside).unwrap().contains("CN_"));
}

/// A vault profile naming the host file `certs/role_id` (for a Secret) and, from `extra`, more.
fn host_file_profile(extra: &str) -> String {
    format!(
        "edition = \"B\"\n[secret]\nadapter = \"vault\"\nvault = {{ addr = \"https://vault:8200\" }}\n\
         {extra}[deploy.files]\n\"secret.vault.role_id_file\" = {{ host = \"certs/role_id\", secret = \"approle\", key = \"role_id\" }}\n"
    )
}

/// An `--out-dir` that is or holds the profile, a base, an overlay, a `--set-file`,
/// the passphrase file or a host file the profile names is refused before anything is written,
/// with and without `--include-secrets`.
#[test]
fn no_output_folder_holds_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let profiles = root.join("profiles");
    std::fs::create_dir_all(profiles.join("certs")).unwrap();
    // One repository holds the profiles and the passphrase file, so the profile may read it.
    std::fs::create_dir_all(root.join(".git")).unwrap();
    write(&profiles.join("certs"), "role_id", "r-1\n");
    std::fs::create_dir_all(root.join("pass")).unwrap();
    write(&root.join("pass"), "phrase", "s3cret");
    std::fs::create_dir_all(root.join("bases")).unwrap();
    write(&root.join("bases"), "base.toml", "edition = \"B\"\n");
    let extending = write(root, "e.toml", "extends = \"bases/base.toml\"\n");
    let profile = write(&profiles, "p.toml", host_file_profile(""));
    let with_passphrase = write(
        &profiles,
        "g.toml",
        support::scenario::google_passphrase_profile(&format!(
            "{{ file = \"{}\" }}",
            root.join("pass/phrase").display()
        )),
    );
    std::fs::create_dir_all(root.join("sets")).unwrap();
    write(&root.join("sets"), "v.txt", "150");
    // (profile, extra arguments, output folder holding one of its inputs)
    let cases: Vec<(&Path, Vec<String>, PathBuf)> = vec![
        (&profile, vec![], profiles.clone()),
        (&profile, vec![], root.to_path_buf()),
        (&profile, vec![], profiles.join("certs")),
        (&extending, vec![], root.join("bases")),
        (&with_passphrase, vec![], root.join("pass")),
        (
            &profile,
            vec![
                "--set-file".into(),
                format!("wait.sleep_duration={}", root.join("sets/v.txt").display()),
            ],
            root.join("sets"),
        ),
    ];
    for (profile, extra, out) in cases {
        for secrets in [false, true] {
            let before = support::file_names(&out);
            let mut test = render_into(&[profile], &out).args(&extra).env("S", "x");
            if secrets {
                test = test.arg("--include-secrets");
            }
            test.code(2).stderr_has("is an input of this command").run();
            assert_eq!(
                support::file_names(&out),
                before,
                "{}: nothing written",
                out.display()
            );
        }
    }
    // A host file not there yet, in a folder not there yet: the folder is still not an output.
    let later = write(
        root,
        "later.toml",
        host_file_profile("").replace("certs/role_id", "later/role_id"),
    );
    render_into(&[&later], &root.join("later"))
        .code(2)
        .stderr_has("is an input of this command")
        .run();
    assert!(
        !root.join("later").exists(),
        "the folder made for it is removed"
    );
}

/// `-o` naming the passphrase file or a host file the profile names (there or not) is
/// refused, though this run does not read it.
#[test]
fn no_output_file_is_a_file_the_profile_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let passphrase = write(root, "phrase", "s3cret");
    let g = write(
        root,
        "g.toml",
        support::scenario::google_passphrase_profile("{ file = \"phrase\" }"),
    );
    Test::new()
        .arg("render")
        .arg(&g)
        .arg("-o")
        .arg(&passphrase)
        .code(2)
        .stderr_has("is an input of this command")
        .run();
    assert_eq!(std::fs::read_to_string(&passphrase).unwrap(), "s3cret");
    let p = write(root, "p.toml", host_file_profile(""));
    std::fs::create_dir(root.join("certs")).unwrap();
    for exists in [false, true] {
        let host = root.join("certs/role_id");
        if exists {
            std::fs::write(&host, "r-1").unwrap();
        }
        Test::new()
            .arg("render")
            .arg(&p)
            .args(["-t", "k8s", "-o"])
            .arg(&host)
            .code(2)
            .stderr_has("is an input of this command")
            .run();
        assert_eq!(host.exists(), exists);
    }
}

/// The writer's own guarantees, through its library API (`svcgen::output`).
mod writer {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    use svcgen::output::{Contents, OutDir, WriteOptions, write_atomic, write_files};
    use svcgen::support::inputs::Inputs;

    #[test]
    fn atomic_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.env");
        write_atomic(&path, "A=1\n", false, &Inputs::default()).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o644);
        write_atomic(&path, "A=2\n", false, &Inputs::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "A=2\n");
        let secret = dir.path().join("s.env");
        write_atomic(&secret, "S=x\n", true, &Inputs::default()).unwrap();
        assert_eq!(mode(&secret), 0o600);
        write_atomic(&path, "A=3\n", true, &Inputs::default()).unwrap();
        assert_eq!(mode(&path), 0o600);

        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "no temporary file is left"
        );
    }

    #[test]
    fn bytes_are_written_into_new_folders_and_left_alone_when_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let archive = vec![(
            root.join("files/plugins/a.zip"),
            Contents::Bytes(vec![0x50, 0x4b, 0, 0xff]),
        )];
        let options = WriteOptions::default();
        let first = write_files(&archive, Some(&root), options).unwrap();
        assert_eq!(first.written, 1);
        assert_eq!(std::fs::read(&archive[0].0).unwrap(), [0x50, 0x4b, 0, 0xff]);
        let again = write_files(&archive, Some(&root), options).unwrap();
        assert_eq!((again.written, again.unchanged), (0, 1));
        let outside = vec![(root.join("../x/a.zip"), Contents::Bytes(vec![1]))];
        assert!(write_files(&outside, Some(&root), options).is_err());
    }

    /// `--check` reads a folder only once the run writing it is done.
    #[test]
    fn a_read_lock_waits_for_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let writer = OutDir::open(dir.path(), &Inputs::default()).unwrap();
        let path = dir.path().to_path_buf();
        let reader = std::thread::spawn(move || OutDir::read_lock(&path).unwrap().is_some());
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(
            !reader.is_finished(),
            "it waits while the folder is written"
        );
        drop(writer);
        assert!(reader.join().unwrap(), "then it holds the folder");
    }

    /// A batch profile's folder `X/sub` is locked as a run into `X/sub` locks it, so
    /// the two take turns instead of mixing their files.
    #[test]
    fn a_batch_folder_waits_for_a_run_into_it() {
        let dir = tempfile::tempdir().unwrap();
        let inner = OutDir::open(&dir.path().join("sub"), &Inputs::default()).unwrap();
        let outer = OutDir::open(dir.path(), &Inputs::default()).unwrap();
        let batch = std::thread::spawn(move || outer.sub_folder("sub").map(|(p, _)| p).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert!(!batch.is_finished(), "it waits for the run into X/sub");
        drop(inner);
        assert!(batch.join().unwrap().ends_with("sub"));
    }

    #[test]
    fn special_files_are_written_to_and_links_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.env");
        std::fs::write(&target, "OLD\n").unwrap();
        let link = dir.path().join("link.env");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, "NEW\n", false, &Inputs::default()).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink(),
            "the link stays"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "NEW\n");
        write_atomic(Path::new("/dev/null"), "x", false, &Inputs::default()).unwrap();
        assert!(
            !std::fs::metadata("/dev/null").unwrap().is_file(),
            "/dev/null is not replaced"
        );
    }
}

/// How output paths are checked (`svcgen::output::names`).
mod output_names {
    use std::path::Path;
    use svcgen::output::names::{
        batch_folder_name, canonical_folder, create_inside, ensure_inside, folder_name_problem,
    };

    #[test]
    fn unsafe_batch_names_are_refused() {
        for bad in ["...toml", "a\nb.toml", "\u{7}.toml", "..toml"] {
            assert!(batch_folder_name(Path::new(bad)).is_err(), "{bad:?}");
        }
        assert_eq!(
            batch_folder_name(Path::new("d/prod-eu.toml")).unwrap(),
            "prod-eu"
        );
        assert_eq!(batch_folder_name(Path::new("a..b.toml")).unwrap(), "a..b");
        assert!(
            folder_name_problem(&"x".repeat(256)).is_some(),
            "found by the fuzzer"
        );
        assert!(folder_name_problem(&"x".repeat(255)).is_none());
    }

    #[test]
    fn a_link_out_of_the_root_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root_path = canonical_folder(root.path()).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("p")).unwrap();
        assert!(ensure_inside(&root_path, &root.path().join("p/.env")).is_err());
        assert!(ensure_inside(&root_path, &root_path.join("p/.env")).is_err());
        assert!(ensure_inside(&root_path, &root_path.join("q/../../x")).is_err());
        assert!(ensure_inside(&root_path, &root.path().join(".env")).is_ok());
        assert!(ensure_inside(&root_path, &root_path.join("new/.env")).is_ok());
        assert!(create_inside(&root_path, &root_path.join("p/deeper")).is_err());
        std::os::unix::fs::symlink(root_path.join("files"), root.path().join("in")).unwrap();
        assert!(
            create_inside(&root_path, &root_path.join("in/x")).is_err(),
            "a link inside too"
        );
        assert!(
            !outside.path().join("deeper").exists(),
            "nothing made outside"
        );
        create_inside(&root_path, &root_path.join("files/a/b")).unwrap();
        assert!(root_path.join("files/a/b").is_dir());
    }
}
