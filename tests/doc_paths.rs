//! The layout the docs describe is the layout of the code: every `src/…`
//! path that CONTRIBUTING.md ("where to add"), README.md and the other Markdown pages of the
//! repository name exists, so a module moved or renamed without its docs fails here.

use crate::support::repo;
use std::path::{Path, PathBuf};

/// Folders that hold no docs of the repository's own (build output, installed tools, snapshots
/// of generated text).
const NOT_DOCS: [&str; 7] = [
    ".git",
    "target",
    ".venv",
    "node_modules",
    ".peers",
    "bin",
    "snapshots",
];

#[test]
fn every_src_path_the_docs_name_exists() {
    let root = repo();
    let pages = markdown_pages(&root);
    assert!(
        pages.iter().any(|p| p.ends_with("CONTRIBUTING.md")),
        "CONTRIBUTING.md was read: {pages:?}"
    );
    let mut named = 0;
    let mut missing = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for (line, path) in src_paths(&text) {
            named += 1;
            if !root.join(&path).exists() {
                let page = page.strip_prefix(&root).unwrap().display();
                missing.push(format!("{page}:{line}: {path}"));
            }
        }
    }
    assert!(named > 20, "the docs' src/ paths were read ({named})");
    assert!(
        missing.is_empty(),
        "paths the docs name that do not exist (moved or renamed without the docs):\n{}",
        missing.join("\n")
    );
}

#[test]
fn src_paths_are_read_whole_and_placeholders_left_out() {
    let text = "in `src/commands/init.rs`, web/src/lib.rs and src/render/<target>.rs.\n\
                see src/diag/ (and `src/lib.rs`), not mysrc/x.rs";
    assert_eq!(
        src_paths(text),
        [
            (1, "src/commands/init.rs".to_string()),
            (1, "web/src/lib.rs".to_string()),
            (2, "src/diag/".to_string()),
            (2, "src/lib.rs".to_string()),
        ]
    );
}

/// Every path with a `src/` segment in `text`, with its line: a relative path from the
/// repository root. Paths with a `<placeholder>` stand for a file to add and are left out.
fn src_paths(text: &str) -> Vec<(usize, String)> {
    let path = regex::Regex::new(r"[A-Za-z0-9_./<>-]+").unwrap();
    let mut out = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for found in path.find_iter(line) {
            let word = found.as_str().trim_end_matches(['.', ',']);
            let is_src = word.starts_with("src/") || word.contains("/src/");
            if is_src && !word.contains('<') && !word.starts_with('/') {
                out.push((number + 1, word.to_string()));
            }
        }
    }
    out
}

fn markdown_pages(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            if !NOT_DOCS.contains(&name.as_ref()) {
                out.extend(markdown_pages(&path));
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
    out.sort();
    out
}
