//! A profile with its layers: `extends` bases, then `--overlay` files, then `--set` values.
//!
//! Each layer is merged over the ones before it (see `merge`); every value keeps the origin of the
//! layer that wrote it. `extends` is followed first, depth first, in the order listed, with cycles
//! and missing files reported at the `extends` value with the whole chain.
//!
//! The walk reads every file once and keeps only its own table; the layers are then merged in
//! one pass, each table once (see [`merge_order`]), into one table that keeps an index of its
//! keys. Memory and work grow with the input: a chain of 60 bases of 2,000 keys each holds its
//! 120,000 entries once, not a merged copy per layer.

use super::load::ReadError;
use super::merge::{Overridden, Stacked};
use super::set::{SetKind, parse_set};
use super::{Entry, Table, Value, load_file, parse_text};
use crate::diag::source::{Origin, SourceId, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::support::root::Root;
use std::path::{Path, PathBuf};

/// The key naming a profile's bases.
pub const EXTENDS: &str = "extends";

/// Most layers of bases a profile may stand on (a chain of `extends`, overlays' directives
/// included). Far above any real layering; it keeps the walk's recursion, which reads each base
/// on the way down, within every thread's stack (a batch's workers have small ones).
pub const MAX_EXTENDS_DEPTH: usize = 64;

/// What a profile is made of, as files (the command line's form; see [`Stack`] for layers
/// held in memory).
#[derive(Debug, Clone, Default)]
pub struct Layers {
    pub profile: PathBuf,
    /// `--overlay` files, in order (each may have its own `extends`).
    pub overlays: Vec<PathBuf>,
    /// `--set` / `--set-file` arguments, in order.
    pub sets: Vec<(SetKind, String)>,
    /// The folder the profile may read bases and host files from, when the command line names
    /// one (`--root`); else it is found from the profile (see [`Root`]).
    pub root: Option<PathBuf>,
}

impl Layers {
    pub fn single(profile: impl Into<PathBuf>) -> Layers {
        Layers {
            profile: profile.into(),
            ..Layers::default()
        }
    }
}

/// Where one layer's text comes from.
#[derive(Debug, Clone)]
pub enum Layer {
    /// A file (`-`: standard input); an editor's unsaved text stands for it (see
    /// `Sources::set_unsaved`).
    File(PathBuf),
    /// Text that is no file: a KRM function's config, an untitled editor buffer, a test. Its
    /// relative paths (and bases) are taken from `base_dir`.
    Text {
        name: String,
        text: String,
        base_dir: Option<PathBuf>,
    },
}

impl Layer {
    /// The folder its relative paths start at (`.` for standard input and text with none).
    fn folder(&self) -> PathBuf {
        let dir = match self {
            Layer::File(path) if !super::is_stdio(path) => path.parent().map(Path::to_path_buf),
            Layer::File(_) => None,
            Layer::Text { base_dir, .. } => base_dir.clone(),
        };
        dir.filter(|d| !d.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."))
    }
}

/// What a layer's `extends` does.
#[derive(Debug, Clone, Default)]
pub enum Extends {
    /// Its bases are read and merged under it.
    #[default]
    Follow,
    /// It is left out without a word (an unsaved editor buffer: no folder to find bases in).
    Ignore,
    /// It is an error, this diagnostic placed at the `extends` key (a KRM function reads no
    /// files).
    Refuse(Diagnostic),
}

/// A profile as the pipeline takes it: its layers (files or text), the `--set` values over
/// them, and what `extends` does.
#[derive(Debug, Clone)]
pub struct Stack {
    pub profile: Layer,
    /// Merged over the profile in order, each with its own `extends`.
    pub overlays: Vec<Layer>,
    /// `--set` / `--set-file` arguments, applied last, in order.
    pub sets: Vec<(SetKind, String)>,
    pub extends: Extends,
    /// The root named on the command line (`--root`), if any (see [`Root`]).
    pub root: Option<PathBuf>,
}

impl Stack {
    /// One layer of text, with nothing over it.
    pub fn text(name: &str, text: &str, base_dir: Option<&Path>) -> Stack {
        Stack {
            profile: Layer::Text {
                name: name.to_string(),
                text: text.to_string(),
                base_dir: base_dir.map(Path::to_path_buf),
            },
            overlays: Vec::new(),
            sets: Vec::new(),
            extends: Extends::Follow,
            root: None,
        }
    }
}

impl From<&Layers> for Stack {
    fn from(layers: &Layers) -> Stack {
        Stack {
            profile: Layer::File(layers.profile.clone()),
            overlays: layers.overlays.iter().cloned().map(Layer::File).collect(),
            sets: layers.sets.clone(),
            extends: Extends::Follow,
            root: layers.root.clone(),
        }
    }
}

/// A profile's layers, merged.
pub struct Loaded {
    /// The profile named on the command line.
    pub main: SourceId,
    /// The merged table, or the problems that kept it from being made.
    pub table: Result<Table, Diagnostics>,
    /// Values that a later layer replaced: (dotted key, where the replaced value was written).
    pub overridden: Overridden,
    /// The folder its bases were read from, and its host files may be.
    pub root: Root,
}

/// Loads every layer and merges them. `Err` is an unreadable profile or overlay (exit code 2);
/// problems in their content are diagnostics.
pub fn load_layers(layers: &Layers, sources: &mut Sources) -> Result<Loaded, ReadError> {
    load_stack(&Stack::from(layers), sources)
}

/// Loads every layer of `stack` (files or text) and merges them, `extends` as its policy says.
/// `Err` is an unreadable profile or overlay (exit code 2); problems in their content are
/// diagnostics.
pub fn load_stack(stack: &Stack, sources: &mut Sources) -> Result<Loaded, ReadError> {
    let root = Root::of_within(
        &stack.profile.folder(),
        stack.root.as_deref(),
        sources.inputs(),
    );
    let mut walk = Walk::new(sources, stack.extends.clone(), root);
    // The profile and every base it reaches: an overlay that names its base
    // (`#:svcgen overlay-of = "prod.toml"`) is checked over it, as the language server does
    // (where bases are read at all: `extends` is followed), and a loop through directives and
    // `extends` is a cycle.
    walk.directives = matches!(stack.extends, Extends::Follow);
    let profile = walk.load_layer(&stack.profile)?;
    let main = walk.files[profile].id;
    // An `--overlay` file's base is the profile it is given over, not its directive's.
    walk.directives = false;
    let mut layers = vec![profile];
    for overlay in &stack.overlays {
        layers.push(walk.load_layer(overlay)?);
    }
    let Walk {
        sources,
        mut diags,
        mut files,
        root,
        ..
    } = walk;
    let mut overridden = Vec::new();
    let mut table = Stacked::default();
    for file in merge_order(&files, &layers) {
        table.merge(std::mem::take(&mut files[file].table), &mut overridden);
    }
    for (kind, arg) in &stack.sets {
        match parse_set(arg, *kind, sources) {
            Ok(over) => table.merge(over, &mut overridden),
            Err(d) => diags.extend(d),
        }
    }
    let table = if diags.has_errors() {
        Err(diags)
    } else {
        Ok(table.into_table())
    };
    Ok(Loaded {
        main,
        table,
        overridden,
        root,
    })
}

/// How a base is named, as a cycle's message says which link closed it.
const EXTENDS_LINK: &str = "`extends`";
const DIRECTIVE_LINK: &str = "`#:svcgen overlay-of`";

/// One layer read: its own table (without `extends`) and the layers it stands on, in the order
/// they merge under it (its directive's base, then its `extends`), as indexes into the walk's
/// files.
struct File {
    id: SourceId,
    table: Table,
    bases: Vec<usize>,
}

/// The order in which the files merge, each once: a file's bases (in order) under it, the
/// `layers` (the profile, then its overlays) in order, where a file that several paths reach
/// (a diamond) takes the place of its last path.
///
/// Merging every path's copy in turn would give each key the value of the last copy that sets
/// it, which is that file's last copy: the copies before it decide nothing. The last copies, in
/// order, are the first ones of the reversed walk (a file first, then its bases from the last),
/// which a walk that skips a file seen before finds without following every path.
fn merge_order(files: &[File], layers: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; files.len()];
    let mut order = Vec::with_capacity(files.len());
    let mut stack: Vec<usize> = layers.to_vec();
    while let Some(file) = stack.pop() {
        if std::mem::replace(&mut seen[file], true) {
            continue;
        }
        order.push(file);
        stack.extend(&files[file].bases);
    }
    order.reverse();
    order
}

/// The state of one walk through `extends`: the chain being followed (for cycles), and every
/// file already read, by identity, so that a base shared by several profiles (a diamond,
/// repeated at every level) is read once, not once per path to it; with what the walk reports
/// on the way.
struct Walk<'s> {
    chain: Vec<PathBuf>,
    /// Each file read, by identity, as an index into `files`.
    done: std::collections::HashMap<PathBuf, usize>,
    /// The first file read, not yet in `done` (see [`Walk::load_first`]).
    pending: Option<(PathBuf, usize)>,
    files: Vec<File>,
    sources: &'s mut Sources,
    diags: Diagnostics,
    extends: Extends,
    /// Whether a file's `#:svcgen overlay-of` names its lowest base: for the profile and every
    /// base it reaches (an overlay of an overlay, a base that is an overlay), so that a loop
    /// through directives and `extends` is found as a cycle instead of each file read alone;
    /// not for `--overlay` files, whose base is the profile they are given over.
    directives: bool,
    /// The folder every base must lie in.
    root: Root,
}

impl<'s> Walk<'s> {
    fn new(sources: &'s mut Sources, extends: Extends, root: Root) -> Walk<'s> {
        Walk {
            chain: Vec::new(),
            done: std::collections::HashMap::new(),
            pending: None,
            files: Vec::new(),
            sources,
            diags: Diagnostics::default(),
            extends,
            directives: false,
            root,
        }
    }

    /// One layer with its bases (a file through the walk's cache, or text), as an index into
    /// `files`.
    fn load_layer(&mut self, layer: &Layer) -> Result<usize, ReadError> {
        match layer {
            Layer::File(path) if self.files.is_empty() && self.done.is_empty() => {
                self.load_first(path)
            }
            Layer::File(path) => self.load_with_bases(path),
            Layer::Text {
                name,
                text,
                base_dir,
            } => {
                let (id, parsed) = parse_text(name.clone(), text.clone(), self.sources);
                self.sources.set_dir(id, base_dir.clone());
                let me = base_dir.as_deref().unwrap_or(Path::new(".")).join(name);
                Ok(self.with_bases(id, parsed, &me))
            }
        }
    }

    /// One file with its `extends` bases read (from the walk's cache when it was read before).
    fn load_with_bases(&mut self, path: &Path) -> Result<usize, ReadError> {
        self.identify_pending();
        let me = identity(path);
        // Standard input is a stream, not a file: a second `-` is read again (and refused there),
        // never served from the cache.
        let cached = !super::is_stdio(path);
        if let Some(file) = self.done.get(&me).filter(|_| cached) {
            return Ok(*file);
        }
        let file = self.load_uncached(path)?;
        self.done.insert(me, file);
        Ok(file)
    }

    /// The first file of the walk with its `extends` bases read. Its identity (its canonical
    /// path, which costs a look-up per folder of its path) is found only when a later file is
    /// looked up (see [`Walk::identify_pending`]): a profile that names no base and has no
    /// overlay never needs it.
    fn load_first(&mut self, path: &Path) -> Result<usize, ReadError> {
        let file = self.load_uncached(path)?;
        self.pending = Some((path.to_path_buf(), file));
        Ok(file)
    }

    /// Enters the first file into `done` under its identity, before any other file is looked
    /// up there.
    fn identify_pending(&mut self) {
        if let Some((path, file)) = self.pending.take() {
            self.done.insert(identity(&path), file);
        }
    }

    fn load_uncached(&mut self, path: &Path) -> Result<usize, ReadError> {
        let (id, parsed) = load_file(path, self.sources)?;
        Ok(self.with_bases(id, parsed, path))
    }

    /// A parsed layer (at `path`, for cycles) with its `extends` bases read, as the walk's
    /// policy says; the index of its [`File`].
    fn with_bases(
        &mut self,
        id: SourceId,
        parsed: Result<Table, Diagnostics>,
        path: &Path,
    ) -> usize {
        let mut bases = Vec::new();
        let table = match parsed {
            Ok(mut table) => {
                self.read_bases(id, &mut table, path, &mut bases);
                table
            }
            Err(d) => {
                self.diags.extend(d);
                Table::default()
            }
        };
        self.files.push(File { id, table, bases });
        self.files.len() - 1
    }

    /// Takes `extends` out of `table` and reads the bases it and the file's directive name into
    /// `read` (in merge order), as the walk's policy says.
    fn read_bases(&mut self, id: SourceId, table: &mut Table, path: &Path, read: &mut Vec<usize>) {
        // A file's directive names its lowest base (see `directives`).
        let directive = super::overlay_of(&self.sources.get(id).text)
            .filter(|_| self.directives)
            .map(|(base, span)| (base, Origin::new(id, span)));
        let position = table.entries.iter().position(|e| e.key == EXTENDS);
        if position.is_none() && directive.is_none() {
            return;
        }
        let mut bases = Vec::new();
        if let Some(extends) = position.map(|p| table.entries.remove(p)) {
            match &self.extends {
                Extends::Follow => {}
                Extends::Ignore => return,
                Extends::Refuse(diagnostic) => {
                    self.diags.push(diagnostic.clone().at(extends.key_origin));
                    return;
                }
            }
            bases = bases_of(&extends, &mut self.diags).unwrap_or_default();
        }
        self.chain.push(identity(path));
        let dir = self
            .sources
            .get(id)
            .dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("."));
        if let Some((base, origin)) = directive {
            read.extend(self.read_base(&dir, &base, (origin, DIRECTIVE_LINK)));
        }
        for (base, origin) in bases {
            read.extend(self.read_base(&dir, &base, (origin, EXTENDS_LINK)));
        }
        self.chain.pop();
    }

    /// Reads one base (a path relative to `dir`, named at `origin` by `link`) with its own
    /// bases; reports a cycle or a base that cannot be read (`None`).
    fn read_base(
        &mut self,
        dir: &Path,
        base: &str,
        (origin, link): (Origin, &str),
    ) -> Option<usize> {
        let base_path = dir.join(base);
        if let Some(refused) = self.refused_base(&base_path, base, (origin, link)) {
            self.diags.push(refused);
            return None;
        }
        let why = match self.load_with_bases(&base_path) {
            Ok(file) => return Some(file),
            Err(ReadError(why)) => why,
        };
        let chain = chain_names(&self.chain);
        self.diags.push(if link == DIRECTIVE_LINK {
            Diagnostic::new(
                Code::Extends,
                format!("cannot read the base named by {link} ({base:?}): {why}"),
            )
            .at(origin)
            .label("base not readable")
            .help(format!(
                "fix that line (paths are relative to this file's folder), or validate the \
                 base with --overlay instead; chain: {chain}"
            ))
        } else {
            Diagnostic::new(Code::Extends, format!("cannot extend {base:?}: {why}"))
                .at(origin)
                .label("base not readable")
                .help(format!(
                    "paths are relative to this file's folder; chain: {chain}"
                ))
        });
        None
    }

    /// Why the base at `base_path` is not merged, if it is not: one layer past the limit, a
    /// base outside the profile's root, or a cycle.
    fn refused_base(
        &self,
        base_path: &Path,
        base: &str,
        (origin, link): (Origin, &str),
    ) -> Option<Diagnostic> {
        if self.chain.len() >= MAX_EXTENDS_DEPTH {
            return Some(
                Diagnostic::new(
                    Code::Extends,
                    format!(
                        "{link} goes deeper than {MAX_EXTENDS_DEPTH} layers: {} -> {}",
                        chain_names(&self.chain),
                        base_path.display()
                    ),
                )
                .at(origin)
                .label("one layer too many")
                .help(format!(
                    "a profile may stand on at most {MAX_EXTENDS_DEPTH} layers of bases \
                     (MAX_EXTENDS_DEPTH): merge some of them into one file"
                )),
            );
        }
        if let Err(why) = self.root.admit(base_path, "the base") {
            return Some(
                Diagnostic::new(Code::Extends, format!("cannot extend {base:?}: {why}"))
                    .at(origin)
                    .label("base outside the root")
                    .help(format!("chain: {}", chain_names(&self.chain))),
            );
        }
        if self.chain.contains(&identity(base_path)) {
            return Some(
                Diagnostic::new(
                    Code::Extends,
                    format!(
                        "{link} makes a cycle: {} -> {}",
                        chain_names(&self.chain),
                        identity(base_path).display()
                    ),
                )
                .at(origin)
                .label("already in the chain")
                .help(
                    "a profile cannot extend itself, directly or through its bases (the files \
                     `extends` and `#:svcgen overlay-of` name)",
                ),
            );
        }
        None
    }
}

/// The paths an `extends` value names, with their origins (`None`, reported, when it is not a
/// path or a list of paths).
fn bases_of(extends: &Entry, diags: &mut Diagnostics) -> Option<Vec<(String, Origin)>> {
    match &extends.node.value {
        Value::String(s) => Some(vec![(s.clone(), extends.node.origin)]),
        Value::Array(items) if items.iter().all(|i| matches!(i.value, Value::String(_))) => Some(
            items
                .iter()
                .filter_map(|i| match &i.value {
                    Value::String(s) => Some((s.clone(), i.origin)),
                    _ => None,
                })
                .collect(),
        ),
        other => {
            diags.push(
                Diagnostic::wrong_type("extends", "a path or a list of paths", other.type_name())
                    .at(extends.node.origin)
                    .label("expected \"base.toml\" or [\"a.toml\", \"b.toml\"]"),
            );
            None
        }
    }
}

/// The bases the document's `extends` names, with the span of each name.
pub fn extends_entries(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut scratch = Sources::new();
    let (_, table) = super::parse_text(String::new(), text.to_string(), &mut scratch);
    let Ok(table) = table else {
        return Vec::new();
    };
    let Some(entry) = table.get(EXTENDS) else {
        return Vec::new();
    };
    match &entry.node.value {
        Value::String(s) => vec![(s.clone(), entry.node.origin.span())],
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match &i.value {
                Value::String(s) => Some((s.clone(), i.origin.span())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The chain of files being followed, for a message. Built only for one: kept at every level
/// of a deep chain, the names would grow with the square of its length.
fn chain_names(chain: &[PathBuf]) -> String {
    chain
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" -> ")
}

/// A path as it identifies a file for cycle detection (canonical when it exists).
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files standing on the bases given, by index.
    fn files(bases: &[&[usize]]) -> Vec<File> {
        let mut sources = Sources::new();
        bases
            .iter()
            .map(|bases| File {
                id: parse_text("f.toml".into(), String::new(), &mut sources).0,
                table: Table::default(),
                bases: bases.to_vec(),
            })
            .collect()
    }

    #[test]
    fn a_base_two_paths_reach_merges_once_in_the_place_of_the_last_path() {
        // 0 stands on [1, 2], both on 3; merging each path's copy would be 3 1 3 2 0.
        let diamond = files(&[&[1, 2], &[3], &[3], &[]]);
        assert_eq!(merge_order(&diamond, &[0]), [1, 3, 2, 0]);
        // An overlay (4) over the profile (0) that stands on 1 too.
        let stack = files(&[&[1, 2], &[3], &[3], &[], &[1]]);
        assert_eq!(merge_order(&stack, &[0, 4]), [2, 0, 3, 1, 4]);
        // A chain: the lowest base first.
        let chain = files(&[&[1], &[2], &[3], &[]]);
        assert_eq!(merge_order(&chain, &[0]), [3, 2, 1, 0]);
    }
}
