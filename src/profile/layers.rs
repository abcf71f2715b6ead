//! A profile with its layers: `extends` bases, then `--overlay` files, then `--set` values.
//!
//! Each layer is merged over the ones before it (see `merge`); every value keeps the origin of the
//! layer that wrote it. `extends` is followed first, depth first, in the order listed, with cycles
//! and missing files reported at the `extends` value with the whole chain.

use super::load::ReadError;
use super::merge::{Overridden, merge_recording};
use super::set::{SetKind, parse_set};
use super::{Entry, Table, Value, load_file};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::source::{Origin, SourceId, Sources};
use std::path::{Path, PathBuf};

/// The key naming a profile's bases.
pub const EXTENDS: &str = "extends";

/// What a profile is made of.
#[derive(Debug, Clone, Default)]
pub struct Layers {
    pub profile: PathBuf,
    /// `--overlay` files, in order (each may have its own `extends`).
    pub overlays: Vec<PathBuf>,
    /// `--set` / `--set-file` arguments, in order.
    pub sets: Vec<(SetKind, String)>,
}

impl Layers {
    pub fn single(profile: impl Into<PathBuf>) -> Layers {
        Layers {
            profile: profile.into(),
            ..Layers::default()
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
}

/// Loads every layer and merges them. `Err` is an unreadable profile or overlay (exit code 2);
/// problems in their content are diagnostics.
pub fn load_layers(layers: &Layers, sources: &mut Sources) -> Result<Loaded, ReadError> {
    let mut walk = Walk::new(sources);
    let (main, mut table) = walk.load_with_bases(&layers.profile)?;
    // An overlay that names its base (`#:svcgen overlay-of = "prod.toml"`) is checked over it,
    // as the language server does.
    if let Some(base) = directive_base(walk.sources.get(main)) {
        let named_by = walk.sources.get(main).name.clone();
        let (_, mut under) = walk.load_with_bases(&base).map_err(|e| {
            ReadError(format!(
                "{} (the base named by `#:svcgen overlay-of` in {}; fix that line, or validate \
                 the base with --overlay instead)",
                e.0,
                crate::escape::one_line(&named_by)
            ))
        })?;
        merge_recording(&mut under, table, "", &mut walk.overridden);
        table = under;
    }
    for overlay in &layers.overlays {
        let (_, over) = walk.load_with_bases(overlay)?;
        merge_recording(&mut table, over, "", &mut walk.overridden);
    }
    let Walk {
        sources,
        mut diags,
        mut overridden,
        ..
    } = walk;
    for (kind, arg) in &layers.sets {
        match parse_set(arg, *kind, sources) {
            Ok(over) => merge_recording(&mut table, over, "", &mut overridden),
            Err(d) => diags.extend(d),
        }
    }
    let table = if diags.has_errors() {
        Err(diags)
    } else {
        Ok(table)
    };
    Ok(Loaded {
        main,
        table,
        overridden,
    })
}

/// The base named by a profile's overlay directive, relative to the profile's folder.
fn directive_base(source: &crate::source::Source) -> Option<PathBuf> {
    let (base, _) = super::overlay_of(&source.text)?;
    let dir = source.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    Some(dir.join(base))
}

/// The state of one walk through `extends`: the chain being followed (for cycles), and every
/// file already loaded with its bases, by identity, so that a base shared by several profiles (a
/// diamond, repeated at every level) is read and merged once, not once per path to it; with
/// what the walk reports and records on the way.
struct Walk<'s> {
    chain: Vec<PathBuf>,
    done: std::collections::HashMap<PathBuf, (SourceId, Table)>,
    sources: &'s mut Sources,
    diags: Diagnostics,
    overridden: Overridden,
}

impl<'s> Walk<'s> {
    fn new(sources: &'s mut Sources) -> Walk<'s> {
        Walk {
            chain: Vec::new(),
            done: std::collections::HashMap::new(),
            sources,
            diags: Diagnostics::default(),
            overridden: Vec::new(),
        }
    }

    /// One file with its `extends` bases merged under it (from the walk's cache when it was
    /// loaded before).
    fn load_with_bases(&mut self, path: &Path) -> Result<(SourceId, Table), ReadError> {
        let me = identity(path);
        // Standard input is a stream, not a file: a second `-` is read again (and refused there),
        // never served from the cache.
        let cached = !super::is_stdio(path);
        if let Some((id, table)) = self.done.get(&me).filter(|_| cached) {
            return Ok((*id, table.clone()));
        }
        let (id, table) = self.load_uncached(path)?;
        self.done.insert(me, (id, table.clone()));
        Ok((id, table))
    }

    fn load_uncached(&mut self, path: &Path) -> Result<(SourceId, Table), ReadError> {
        let (id, parsed) = load_file(path, self.sources)?;
        let mut table = match parsed {
            Ok(t) => t,
            Err(d) => {
                self.diags.extend(d);
                return Ok((id, Table::default()));
            }
        };
        let Some(position) = table.entries.iter().position(|e| e.key == EXTENDS) else {
            return Ok((id, table));
        };
        let extends = table.entries.remove(position);
        let Some(bases) = bases_of(&extends, &mut self.diags) else {
            return Ok((id, table));
        };
        self.chain.push(identity(path));
        let dir = self
            .sources
            .get(id)
            .dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("."));
        let mut merged = Table::default();
        for (base, origin) in bases {
            self.merge_base(&dir, &base, origin, &mut merged);
        }
        self.chain.pop();
        merge_recording(&mut merged, table, "", &mut self.overridden);
        Ok((id, merged))
    }

    /// Merges one base (a path relative to `dir`) into `merged`; reports a cycle or a base that
    /// cannot be read.
    fn merge_base(&mut self, dir: &Path, base: &str, origin: Origin, merged: &mut Table) {
        let base_path = dir.join(base);
        let names = self
            .chain
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" -> ");
        if self.chain.contains(&identity(&base_path)) {
            self.diags.push(
                Diagnostic::new(
                    Code::Extends,
                    format!(
                        "`extends` makes a cycle: {names} -> {}",
                        identity(&base_path).display()
                    ),
                )
                .at(origin)
                .label("already in the chain")
                .help("a profile cannot extend itself, directly or through its bases"),
            );
            return;
        }
        match self.load_with_bases(&base_path) {
            Ok((_, base_table)) => merge_recording(merged, base_table, "", &mut self.overridden),
            Err(ReadError(why)) => self.diags.push(
                Diagnostic::new(Code::Extends, format!("cannot extend {base:?}: {why}"))
                    .at(origin)
                    .label("base not readable")
                    .help(format!(
                        "paths are relative to this file's folder; chain: {names}"
                    )),
            ),
        }
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
                Diagnostic::new(
                    Code::WrongType,
                    format!(
                        "`extends` must be a path or a list of paths, found {}",
                        other.type_name()
                    ),
                )
                .at(extends.node.origin)
                .label("expected \"base.toml\" or [\"a.toml\", \"b.toml\"]"),
            );
            None
        }
    }
}

/// A path as it identifies a file for cycle detection (canonical when it exists).
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
