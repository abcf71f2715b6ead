//! Arbitrary bytes as a stack of layers: the bytes are cut at NUL bytes into up to four files
//! (`a.toml`, `b.toml`, `c.toml`, `d.toml`) in a scratch folder, each of which may `extends` the
//! others (cycles and diamonds included); `a.toml` is loaded with `b.toml` as an overlay and the
//! lines of the fifth part as `--set` values, then checked and its diagnostics printed. Any panic,
//! hang or huge allocation here is a bug of svcgen's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;
use svcgen::pipeline::check_layers;
use svcgen::profile::{Layers, SetKind};
use svcgen::diag::source::Sources;

/// One scratch folder per fuzzing process.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("svcgen-fuzz-layers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = scratch();
    let mut parts = data.split(|&b| b == 0);
    for name in ["a.toml", "b.toml", "c.toml", "d.toml"] {
        let part = parts.next().unwrap_or_default();
        std::fs::write(dir.join(name), part).expect("the scratch folder is writable");
    }
    let sets: Vec<(SetKind, String)> = parts
        .next()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .unwrap_or_default()
        .lines()
        .take(8)
        .map(|line| (SetKind::Value, line.to_string()))
        .collect();
    let layers = Layers {
        profile: dir.join("a.toml"),
        overlays: vec![dir.join("b.toml")],
        sets,
    };
    let mut sources = Sources::new();
    // Whatever the `extends` shape (cycles, diamonds, self-references), each file is read once:
    // an exponential walk shows up as a timeout.
    if let Ok(checked) = check_layers(&layers, &mut sources) {
        let _ = svcgen::diag::human::render(&checked.diagnostics, &sources, false);
        let _ = svcgen::diag::json::to_json(&checked.diagnostics, &sources);
    }
});
