//! The shape the house style asks of `src/`: no function over 80 lines, and no two files of one
//! folder that use each other (a module and the modules it declares are one unit and not
//! counted). Both are read from the source, comments and literals left out.
//!
//! [`LONG_FUNCTIONS`] and [`FILES_USING_EACH_OTHER`] list what is still so in files other work is
//! reshaping; an entry that no longer holds fails too, so each list only shrinks.

use crate::module_graph::{blank_comments_and_literals, identifier, rust_files, top_level_names};
use crate::support::repo;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a function may span, from `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;

/// Functions still longer (file, function), to shorten where they live.
const LONG_FUNCTIONS: [(&str, &str); 0] = [];

/// Files of one folder still using each other, to part where they live.
const FILES_USING_EACH_OTHER: [(&str, &str); 0] = [];

fn src_files() -> Vec<(String, String)> {
    let root = repo();
    rust_files(&root.join("src"))
        .into_iter()
        .map(|path| {
            let code = blank_comments_and_literals(&std::fs::read_to_string(&path).unwrap());
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            (name, code)
        })
        .collect()
}

#[test]
fn no_function_in_src_is_over_80_lines() {
    let mut long = BTreeSet::new();
    let mut seen = 0;
    for (file, code) in src_files() {
        for (name, lines) in functions(&code) {
            seen += 1;
            if lines > MAX_FUNCTION_LINES {
                long.insert((file.clone(), name, lines));
            }
        }
    }
    assert!(seen > 1000, "the functions of src/ were read ({seen})");
    let found: BTreeSet<(&str, &str)> = long
        .iter()
        .map(|(f, n, _)| (f.as_str(), n.as_str()))
        .collect();
    let known: BTreeSet<(&str, &str)> = LONG_FUNCTIONS.into_iter().collect();
    let new: Vec<String> = long
        .iter()
        .filter(|(f, n, _)| !known.contains(&(f.as_str(), n.as_str())))
        .map(|(f, n, lines)| format!("{f}: fn {n}: {lines} lines"))
        .collect();
    assert!(
        new.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them):\n{}",
        new.join("\n")
    );
    let gone: Vec<_> = known.difference(&found).collect();
    assert!(
        gone.is_empty(),
        "no longer over {MAX_FUNCTION_LINES} lines: remove from LONG_FUNCTIONS: {gone:?}"
    );
}

#[test]
fn no_two_files_of_a_folder_use_each_other() {
    let files = src_files();
    let uses: BTreeMap<String, BTreeSet<String>> = files
        .iter()
        .map(|(file, code)| (file.clone(), siblings_used(file, code)))
        .collect();
    let edges: usize = uses.values().map(BTreeSet::len).sum();
    assert!(
        edges > 50,
        "the files' uses of their siblings were read ({edges})"
    );
    let mut pairs = BTreeSet::new();
    for (file, used) in &uses {
        for other in used {
            if uses.get(other).is_some_and(|back| back.contains(file)) {
                let (a, b) = if file < other {
                    (file, other)
                } else {
                    (other, file)
                };
                pairs.insert((a.clone(), b.clone()));
            }
        }
    }
    let known: BTreeSet<(String, String)> = FILES_USING_EACH_OTHER
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let new: Vec<_> = pairs.difference(&known).collect();
    assert!(
        new.is_empty(),
        "files that use each other (move what both need below them): {new:?}"
    );
    let gone: Vec<_> = known.difference(&pairs).collect();
    assert!(
        gone.is_empty(),
        "no longer using each other: remove from FILES_USING_EACH_OTHER: {gone:?}"
    );
}

#[test]
fn function_lengths_and_sibling_uses_are_read_from_the_code() {
    let code = "fn short() {\n    let s = \"{\";\n}\n\nimpl X {\n    pub fn two(\n        a: u8,\n    ) -> u8 {\n        a\n    }\n}\nfn decl();\n";
    let code = blank_comments_and_literals(code);
    assert_eq!(
        functions(&code),
        [("short".to_string(), 3), ("two".to_string(), 5)]
    );
    let used = siblings_used(
        "src/value_type/hybrid.rs",
        "use super::hybrid_env::table;\nuse super::{formats, Typed};\nuse crate::value_type::text::X;\nuse super::super::model;\n",
    );
    assert_eq!(
        used,
        [
            "src/value_type/formats.rs",
            "src/value_type/hybrid_env.rs",
            "src/value_type/text.rs",
        ]
        .map(String::from)
        .into_iter()
        .collect()
    );
}

/// Each function with a body in `code` (comments and literals blanked): its name and its lines,
/// from the line of `fn` to the line of its closing brace.
fn functions(code: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    // Open functions: name, first line, the brace depth inside their body.
    let mut open: Vec<(String, usize, usize)> = Vec::new();
    let mut pending: Option<(String, usize)> = None;
    let mut depth = 0;
    for (number, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("fn ") {
            let before = rest[..at].chars().last();
            let name: String = rest[at + 3..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') && !name.is_empty() {
                pending = Some((name, number));
            }
            rest = &rest[at + 3..];
        }
        for c in line.chars() {
            match c {
                '{' => {
                    depth += 1;
                    if let Some((name, first)) = pending.take() {
                        open.push((name, first, depth));
                    }
                }
                '}' => {
                    if open.last().is_some_and(|(_, _, d)| *d == depth) {
                        let (name, first, _) = open.pop().unwrap();
                        found.push((name, number - first + 1));
                    }
                    depth -= 1;
                }
                ';' => pending = None,
                _ => {}
            }
        }
    }
    found
}

/// The files of the same folder that `file` names: `super::x` from a file that is not a
/// folder's `mod.rs`, and `crate::<its folder>::x`, `x` being a sibling's module (a group
/// `super::{x, y::z}` names `x` and `y`). A `mod.rs` and what it declares are not siblings.
fn siblings_used(file: &str, code: &str) -> BTreeSet<String> {
    let path = Path::new(file);
    let own = path.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = path.parent().unwrap();
    let mut used = BTreeSet::new();
    if own == "mod" || own == "lib" {
        return used;
    }
    let folder_module = dir
        .strip_prefix("src")
        .unwrap()
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("::");
    let mut prefixes = vec!["super::".to_string()];
    if !folder_module.is_empty() {
        prefixes.push(format!("crate::{folder_module}::"));
    }
    for prefix in &prefixes {
        let mut rest = code;
        while let Some(at) = rest.find(prefix.as_str()) {
            let before = rest[..at].chars().last();
            let after = &rest[at + prefix.len()..];
            rest = after;
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for name in first_segments(after) {
                if name == own || name == "super" {
                    continue;
                }
                let sibling = sibling_file(dir, &name);
                if let Some(sibling) = sibling {
                    used.insert(sibling.display().to_string());
                }
            }
        }
    }
    used
}

/// The first path segment after a `prefix::`: one name, or each item's of a `{...}` group.
fn first_segments(after: &str) -> Vec<String> {
    match after.strip_prefix('{') {
        Some(group) => top_level_names(group).into_iter().map(|(n, _)| n).collect(),
        None => vec![identifier(after)],
    }
}

/// The file of module `name` in `dir`, when it is one (`name.rs` or `name/mod.rs`).
fn sibling_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let root = repo();
    [
        dir.join(format!("{name}.rs")),
        dir.join(name).join("mod.rs"),
    ]
    .into_iter()
    .find(|candidate| root.join(candidate).is_file())
}

/// Proptest keeps a failure's seeds beside the test file that found it
/// (`tests/<file>.proptest-regressions`) and reads them there on every run: each property test
/// is configured through `support::proptest_cases`, each seed file has its test file, and no
/// seeds lie in a `proptest-regressions/` folder at the root (proptest's default for a test
/// crate whose `lib.rs` is in `tests/`).
#[test]
fn property_tests_keep_their_seeds_beside_their_test_file() {
    let root = repo();
    assert!(
        !root.join("proptest-regressions").exists(),
        "seeds at the root: move them to tests/<file>.proptest-regressions"
    );
    let mut configs = 0;
    let mut seed_files = 0;
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".proptest-regressions") {
            seed_files += 1;
            let test = std::fs::read_to_string(root.join("tests").join(format!("{stem}.rs")))
                .unwrap_or_default();
            assert!(
                test.contains("proptest!"),
                "{name}: no property test reads it"
            );
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            let configured = |l: &&str| l.trim_start().starts_with("#![proptest_config(");
            for line in text.lines().filter(configured) {
                configs += 1;
                assert!(
                    line.contains("support::proptest_cases("),
                    "{name}: `{}` keeps its seeds where proptest's default puts them",
                    line.trim()
                );
            }
        }
    }
    assert!(
        configs > 0 && seed_files > 0,
        "{configs} configs, {seed_files} seed files"
    );
}
