//! Depth is bounded: a chain of `extends` deeper than the named limit is an error naming the
//! chain (exit 1), never a stack overflow, alone, in a batch's worker threads and in the
//! language server; and its memory stays linear in the input.

use crate::support::lsp::{Client, file_uri};
use crate::support::memory::peak_during;
use crate::support::scenario::Test;
use std::path::{Path, PathBuf};
use svcgen::diag::source::Sources;
use svcgen::profile::{Layers, load_layers};

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

/// Writes a chain of `levels` files of `keys` keys each (`w0.toml` extends `w1.toml` ...) and
/// one file that holds all of them; returns the chain's top and the one file.
fn wide_chain(dir: &Path, levels: usize, keys: usize) -> (PathBuf, PathBuf) {
    let own_keys = |level: usize| -> String {
        (0..keys)
            .map(|k| format!("V{level}_{k} = \"value {level} {k}\"\n"))
            .collect()
    };
    let mut flat = String::from("edition = \"B\"\n[env]\n");
    for level in 0..levels {
        let head = if level + 1 < levels {
            format!("extends = \"w{}.toml\"\n", level + 1)
        } else {
            "edition = \"B\"\n".to_string()
        };
        let text = format!("{head}[env]\n{}", own_keys(level));
        std::fs::write(dir.join(format!("w{level}.toml")), text).unwrap();
        flat.push_str(&own_keys(level));
    }
    std::fs::write(dir.join("flat.toml"), flat).unwrap();
    (dir.join("w0.toml"), dir.join("flat.toml"))
}

/// The most memory loading `profile` with its bases took, and how many `[env]` keys it merged.
fn peak_of_loading(profile: &Path) -> (usize, usize) {
    let (keys, peak) = peak_during(|| {
        let mut sources = Sources::new();
        let loaded = load_layers(&Layers::single(profile), &mut sources).unwrap();
        let table = loaded.table.expect("the chain merges");
        match &table.get("env").expect("an [env] table").node.value {
            svcgen::profile::Value::Table(env) => env.entries.len(),
            other => panic!("[env] is {other:?}"),
        }
    });
    (peak, keys)
}

#[test]
fn a_deep_chain_of_wide_bases_takes_memory_linear_in_its_keys() {
    // The spec model is parsed once per process, on first use: not part of what is measured.
    svcgen::model::Model::get();
    let dir = tempfile::tempdir().unwrap();
    let (levels, keys) = (60, 200);
    let (chain, flat) = wide_chain(dir.path(), levels, keys);
    let (flat_peak, flat_keys) = peak_of_loading(&flat);
    let (chain_peak, chain_keys) = peak_of_loading(&chain);
    assert_eq!((flat_keys, chain_keys), (levels * keys, levels * keys));
    eprintln!("peak memory: {chain_peak} bytes for {levels} layers, {flat_peak} for one file");
    // The same keys in 60 files: each file's table held once, and one merged table. A merged
    // copy kept per layer would hold about 30 times the keys (1 + 2 + ... + 60 layers' worth).
    assert!(
        chain_peak < 3 * flat_peak,
        "{levels} layers of {keys} keys took {chain_peak} bytes at the peak; the same keys in \
         one file {flat_peak}"
    );
}
