//! Depth is bounded: a chain of `extends` deeper than the named limit is an error naming the
//! chain (exit 1), never a stack overflow, alone, in a batch's worker threads and in the
//! language server; and its memory stays linear in the input.

use crate::support::lsp::{Client, file_uri};
use crate::support::scenario::Test;
use std::path::Path;

/// Writes `l0.toml` … `l{levels-1}.toml`, each extending the next, into `dir`.
fn chain(dir: &Path, levels: usize) {
    for i in 0..levels {
        let extends = if i + 1 < levels {
            format!("extends = \"l{}.toml\"\n", i + 1)
        } else {
            "edition = \"B\"\n".to_string()
        };
        std::fs::write(
            dir.join(format!("l{i}.toml")),
            format!("{extends}[env]\nV{i} = \"x\"\n"),
        )
        .unwrap();
    }
}

const LEVELS: usize = 3_800;

#[test]
fn a_chain_of_bases_deeper_than_the_limit_is_an_error_naming_the_chain() {
    let test = Test::new();
    chain(test.path(), LEVELS);
    let limit = svcgen::profile::MAX_EXTENDS_DEPTH;
    test.args(["render", "l0.toml", "-t", "dotenv"])
        .timeout(120)
        .code(1)
        .stderr_has(&format!("deeper than {limit} layers"))
        .stderr_has("l0.toml -> ")
        .stderr_has(&format!("l{limit}.toml"))
        .run();
}

#[test]
fn a_deep_chain_in_a_batch_is_that_profile_s_error_not_an_abort() {
    let test = Test::new()
        .file(".git/HEAD", "ref: refs/heads/main\n")
        .file("profiles/a.toml", "extends = \"../chain/l0.toml\"\n")
        .file("profiles/b.toml", "extends = \"../chain/l1.toml\"\n")
        .file("profiles/good.toml", "edition = \"B\"\n");
    let dir = test.path().join("chain");
    std::fs::create_dir(&dir).unwrap();
    chain(&dir, LEVELS);
    // Each deep profile fails on its own in a worker thread; the others render.
    test.args(["render", "profiles", "--out-dir", "out"])
        .timeout(300)
        .code(1)
        .stderr_has("deeper than")
        .stderr_has("rendered 1 profile(s), 2 failed")
        .run();
}

#[test]
fn the_language_server_reports_a_deep_chain_and_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    chain(dir.path(), LEVELS);
    let uri = file_uri(&dir.path().join("l0.toml"));
    let text = std::fs::read_to_string(dir.path().join("l0.toml")).unwrap();
    let mut client = Client::opened(&uri, &text);
    let diagnostics = client.diagnostics(&uri, 1);
    assert!(
        diagnostics
            .iter()
            .any(|d| d["message"].as_str().unwrap().contains("deeper than")),
        "{diagnostics:?}"
    );
    assert_eq!(client.shutdown(), Some(0));
}
