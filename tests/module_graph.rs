//! Layers without cycles: the top-level modules of `src/` form a directed
//! acyclic graph, so each can be read, tested and built (for the browser too) from the modules
//! below it alone. The graph is read from the source: every `crate::<module>` path outside
//! comments and literals is an edge from the module of the file it is written in.
//!
//! The folders that group modules by role ([`GROUPS`]) are layers too: the
//! modules in them are nodes of their own (`commands::lint`), and with each folder taken as one
//! node the graph is still a DAG, so the layout shows the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The folders of `src/` that only group modules by role; each module in them is a node.
const GROUPS: [&str; 3] = ["artifacts", "commands", "support"];

/// An edge of the graph, with one place it comes from (to name it when it closes a cycle).
type Graph = BTreeMap<String, BTreeMap<String, String>>;

#[test]
fn module_graph_has_no_cycle() {
    let graph = graph(&src());
    assert!(graph.len() > 10, "the modules of src/ were read: {graph:?}");
    assert_acyclic(&graph);
}

#[test]
fn module_graph_groups_have_no_cycle() {
    let src = src();
    for group in GROUPS {
        assert!(
            src.join(group).join("mod.rs").is_file(),
            "src/{group}/ is a group"
        );
    }
    let graph = graph(&src);
    assert!(
        GROUPS
            .iter()
            .all(|g| graph.keys().any(|m| m.starts_with(&format!("{g}::")))),
        "the modules of every group were read: {graph:?}"
    );
    assert_acyclic(&by_group(&graph));
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The graph with each group folder taken as one node (its modules' edges merged).
fn by_group(graph: &Graph) -> Graph {
    let group_of = |module: &str| module.split("::").next().unwrap_or(module).to_string();
    let mut grouped = Graph::new();
    for (from, edges) in graph {
        let from = group_of(from);
        let node = grouped.entry(from.clone()).or_default();
        for (to, place) in edges {
            let to = group_of(to);
            if to != from {
                node.entry(to).or_insert_with(|| place.clone());
            }
        }
    }
    grouped
}

fn assert_acyclic(graph: &Graph) {
    if let Some(cycle) = find_cycle(graph) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("  {} -> {} ({})", w[0], w[1], graph[&w[0]][&w[1]]))
            .collect();
        panic!(
            "a cycle among src/'s top-level modules: {}\n{}\npass what is needed as a value, or move it \
             to the lower module",
            cycle.join(" -> "),
            steps.join("\n")
        );
    }
}

#[test]
fn module_graph_reader_sees_real_paths_only() {
    let code = "use crate::{diag::Code, model};\n// crate::cli in a comment\n\
                /* crate::lsp /* nested */ crate::krm */ let s = \"crate::batch\";\n\
                let r = r#\"crate::docs\"#; let c = '\"'; fn f<'a>(x: &'a str) { crate::render::x(); }\n\
                macro_rules! m { () => { $crate::init::x() } }";
    let found: BTreeSet<String> = crate_paths(code).into_iter().map(|(m, _)| m).collect();
    let expected: BTreeSet<String> = ["diag", "model", "render"].map(String::from).into();
    assert_eq!(found, expected);
    let grouped = "use crate::{commands::{self, lint}, support::escape::one_line, diag};\n\
                   use crate::commands::{init, migrate::Migrated};\nlet x = crate::artifacts::docs::f();";
    let found: BTreeSet<String> = crate_paths(grouped).into_iter().map(|(m, _)| m).collect();
    let expected: BTreeSet<String> = [
        "artifacts::docs",
        "commands",
        "commands::init",
        "commands::lint",
        "commands::migrate",
        "diag",
        "support::escape",
    ]
    .map(String::from)
    .into();
    assert_eq!(found, expected);
    let graph: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .into_iter()
        .fold(Graph::new(), |mut g, (from, to)| {
            g.entry(from.into())
                .or_default()
                .insert(to.into(), "x.rs:1".into());
            g
        });
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
}

/// Every top-level module's edges to the others, from the `.rs` files under `src`.
fn graph(src: &Path) -> Graph {
    let mut graph = Graph::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).unwrap();
        let mut parts = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy());
        let first = parts.next().unwrap().into_owned();
        let mut module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        if GROUPS.contains(&module.as_str()) {
            let child = parts.next().unwrap();
            if child != "mod.rs" {
                module = format!("{module}::{}", child.trim_end_matches(".rs"));
            }
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let edges = graph.entry(module.clone()).or_default();
        for (to, line) in crate_paths(&text) {
            if to != module {
                edges
                    .entry(to)
                    .or_insert_with(|| format!("src/{}:{line}", relative.display()));
            }
        }
    }
    graph
}

pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The top-level module of every `crate::` path in `code` (with its line), comments, string
/// and character literals and `$crate` left out; `crate::{a, b::c}` names `a` and `b`. In a
/// group folder the module is named: `crate::commands::{lint, init}` names `commands::lint` and
/// `commands::init`.
fn crate_paths(code: &str) -> Vec<(String, usize)> {
    let code = blank_comments_and_literals(code);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::").map(|i| i + from) {
        from = at + "crate::".len();
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let rest = &code[from..];
        let (names, brace) = match rest.strip_prefix('{') {
            Some(group) => (top_level_names(group), 1),
            None => (vec![(identifier(rest), 0)], 0),
        };
        for (name, at) in names {
            if !name.is_empty() {
                let after = &rest[brace + at + name.len()..];
                out.extend(in_group(name, after).into_iter().map(|n| (n, line)));
            }
        }
    }
    out
}

/// `name` itself, or when it is a group folder, the modules of it that the path goes on to name
/// (`after` is the text after `name`).
fn in_group(name: String, after: &str) -> Vec<String> {
    let rest = after.trim_start().strip_prefix("::").map(str::trim_start);
    let Some(rest) = rest.filter(|_| GROUPS.contains(&name.as_str())) else {
        return vec![name];
    };
    let children = match rest.strip_prefix('{') {
        Some(group) => top_level_names(group).into_iter().map(|(n, _)| n).collect(),
        None => vec![identifier(rest)],
    };
    children
        .into_iter()
        .map(|child| match child.as_str() {
            "self" | "" => name.clone(),
            _ => format!("{name}::{child}"),
        })
        .collect()
}

/// The first path segment of each item of a `{a, b::c, d::{e}}` group (text after the `{`),
/// with where it starts in `group`.
pub(crate) fn top_level_names(group: &str) -> Vec<(String, usize)> {
    let mut names = Vec::new();
    let mut depth = 0;
    let mut expect_name = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => expect_name = true,
            c if expect_name && depth == 0 && (c.is_alphabetic() || c == '_') => {
                names.push((identifier(&group[i..]), i));
                expect_name = false;
            }
            _ => {}
        }
    }
    names
}

pub(crate) fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// `code` with comments and string and character literals replaced by spaces (newlines kept,
/// so that line numbers hold).
pub(crate) fn blank_comments_and_literals(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < chars.len() {
        let end = literal_or_comment_end(&chars, i);
        if end == i {
            out.push(chars[i]);
            i += 1;
        } else {
            chars[i..end].iter().for_each(|&c| blank(&mut out, c));
            i = end;
        }
    }
    out
}

/// Where the comment or literal starting at `i` ends (`i` itself when none starts there).
fn literal_or_comment_end(chars: &[char], i: usize) -> usize {
    let at = |k: usize| chars.get(k).copied();
    let word_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    match (chars[i], at(i + 1)) {
        ('/', Some('/')) => (i..chars.len())
            .find(|&k| chars[k] == '\n')
            .unwrap_or(chars.len()),
        ('/', Some('*')) => block_comment_end(chars, i),
        ('"', _) => string_end(chars, i + 1),
        ('r', Some('"' | '#')) if !word_before => raw_string_end(chars, i + 1).unwrap_or(i),
        ('b', Some('"')) if !word_before => string_end(chars, i + 2),
        ('\'', Some('\\')) => (i + 2..chars.len())
            .find(|&k| chars[k] == '\'')
            .map_or(i, |k| k + 1),
        ('\'', Some(_)) if at(i + 2) == Some('\'') => i + 3,
        _ => i,
    }
}

fn block_comment_end(chars: &[char], start: usize) -> usize {
    let mut depth = 0;
    let mut k = start;
    while k + 1 < chars.len() {
        match (chars[k], chars[k + 1]) {
            ('/', '*') => {
                depth += 1;
                k += 2;
            }
            ('*', '/') => {
                depth -= 1;
                k += 2;
                if depth == 0 {
                    return k;
                }
            }
            _ => k += 1,
        }
    }
    chars.len()
}

/// The end of a `"..."` literal whose text starts at `k`.
fn string_end(chars: &[char], mut k: usize) -> usize {
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 2,
            '"' => return k + 1,
            _ => k += 1,
        }
    }
    chars.len()
}

/// The end of a raw string `r#"..."#` whose hashes start at `k`; `None` when it is no raw string.
fn raw_string_end(chars: &[char], k: usize) -> Option<usize> {
    let hashes = chars[k..].iter().take_while(|&&c| c == '#').count();
    if chars.get(k + hashes) != Some(&'"') {
        return None;
    }
    let mut j = k + hashes + 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// A cycle of `graph` as the modules along it, the first repeated last; `None` when it is a DAG.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = path.iter().position(|n| n == node).unwrap();
                let mut cycle = path[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flat_map(|e| e.keys()) {
            if let Some(cycle) = visit(next, graph, marks, path) {
                return Some(cycle);
            }
        }
        path.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, graph, &mut marks, &mut Vec::new()) {
            return Some(cycle);
        }
    }
    None
}

/// One test binary: a test file that `tests/lib.rs` does not declare as a
/// module is never compiled, so its tests would silently never run. Every `tests/*.rs` is one.
#[test]
fn every_test_file_is_a_module_of_the_one_test_binary() {
    let tests = crate::support::repo().join("tests");
    let lib = std::fs::read_to_string(tests.join("lib.rs")).unwrap();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|line| line.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let files: Vec<String> = std::fs::read_dir(&tests)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
        .filter(|stem| stem != "lib")
        .collect();
    assert!(files.len() > 20, "the test files were listed: {files:?}");
    let missing: Vec<&String> = files
        .iter()
        .filter(|stem| !declared.contains(stem.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/{{{}}}.rs not declared as `mod …;` in tests/lib.rs: they would never be compiled",
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
}
