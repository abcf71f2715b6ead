//! `svcgen-site OUT WASM EXAMPLES`: writes OUT/index.html (the reference) and OUT/playground.html
//! (with WASM, the module of this crate built for wasm32-unknown-unknown, embedded, and the
//! `*.toml` profiles of EXAMPLES to start from). Run by `scripts/site.sh`, which builds WASM.
//! Inputs go through svcgen's one bounded reader, outputs through its atomic writer.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [out, wasm, examples] = args.as_slice() else {
        eprintln!("usage: svcgen-site OUT WASM EXAMPLES_DIR");
        return ExitCode::from(2);
    };
    match build(out, wasm, examples) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn build(out: &Path, wasm: &Path, examples_dir: &Path) -> Result<(), String> {
    let wasm = svcgen::profile::read_regular(wasm).map_err(|e| e.0)?;
    let inputs = svcgen::support::inputs::Inputs::default();
    let examples = examples(examples_dir, &inputs)?;
    if examples.is_empty() {
        return Err(format!(
            "{}: no *.toml example to start from",
            examples_dir.display()
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| format!("{}: cannot create: {e}", out.display()))?;
    let files = [
        (out.join("index.html"), svcgen_web::site::index_html()),
        (
            out.join("playground.html"),
            svcgen_web::site::playground_html(&wasm, &examples),
        ),
    ];
    // The examples read are inputs: no page is written over one.
    svcgen::output::write_all_atomic(&files, false, &inputs)?;
    for (path, text) in &files {
        println!("{}: {} bytes", path.display(), text.len());
    }
    Ok(())
}

/// The `*.toml` files of `dir`, sorted by name, as (file name, text).
fn examples(
    dir: &Path,
    inputs: &svcgen::support::inputs::Inputs,
) -> Result<Vec<(String, String)>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("{}: cannot list: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = svcgen::profile::read_input_text(path, inputs).map_err(|e| e.0)?;
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            Ok((name, text))
        })
        .collect()
}
