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
    let mut diags = Diagnostics::default();
    let mut overridden = Vec::new();
    let mut walk = Walk::default();
    let (main, mut table) = load_with_bases(
        &layers.profile,
        &mut walk,
        sources,
        &mut diags,
        &mut overridden,
    )?;
    for overlay in &layers.overlays {
        let (_, over) = load_with_bases(overlay, &mut walk, sources, &mut diags, &mut overridden)?;
        merge_recording(&mut table, over, "", &mut overridden);
    }
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

/// The state of one walk through `extends`: the chain being followed (for cycles), and every
/// file already loaded with its bases, by identity, so that a base shared by several profiles (a
/// diamond, repeated at every level) is read and merged once, not once per path to it.
#[derive(Default)]
struct Walk {
    chain: Vec<PathBuf>,
    done: std::collections::HashMap<PathBuf, (SourceId, Table)>,
}

/// One file with its `extends` bases merged under it (from the walk's cache when it was loaded
/// before).
fn load_with_bases(
    path: &Path,
    walk: &mut Walk,
    sources: &mut Sources,
    diags: &mut Diagnostics,
    overridden: &mut Overridden,
) -> Result<(SourceId, Table), ReadError> {
    let me = identity(path);
    // Standard input is a stream, not a file: a second `-` is read again (and refused there),
    // never served from the cache.
    let cached = path.as_os_str() != "-";
    if let Some((id, table)) = walk.done.get(&me).filter(|_| cached) {
        return Ok((*id, table.clone()));
    }
    let (id, table) = load_uncached(path, walk, sources, diags, overridden)?;
    walk.done.insert(me, (id, table.clone()));
    Ok((id, table))
}

fn load_uncached(
    path: &Path,
    walk: &mut Walk,
    sources: &mut Sources,
    diags: &mut Diagnostics,
    overridden: &mut Overridden,
) -> Result<(SourceId, Table), ReadError> {
    let (id, parsed) = load_file(path, sources)?;
    let mut table = match parsed {
        Ok(t) => t,
        Err(d) => {
            diags.extend(d);
            return Ok((id, Table::default()));
        }
    };
    let Some(position) = table.entries.iter().position(|e| e.key == EXTENDS) else {
        return Ok((id, table));
    };
    let extends = table.entries.remove(position);
    let Some(bases) = bases_of(&extends, diags) else {
        return Ok((id, table));
    };
    walk.chain.push(identity(path));
    let dir = sources
        .get(id)
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."));
    let mut merged = Table::default();
    for (base, origin) in bases {
        let base_path = dir.join(&base);
        let names = walk
            .chain
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" -> ");
        if walk.chain.contains(&identity(&base_path)) {
            diags.push(
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
            continue;
        }
        match load_with_bases(&base_path, walk, sources, diags, overridden) {
            Ok((_, base_table)) => merge_recording(&mut merged, base_table, "", overridden),
            Err(ReadError(why)) => diags.push(
                Diagnostic::new(Code::Extends, format!("cannot extend \"{base}\": {why}"))
                    .at(origin)
                    .label("base not readable")
                    .help(format!(
                        "paths are relative to this file's folder; chain: {names}"
                    )),
            ),
        }
    }
    walk.chain.pop();
    merge_recording(&mut merged, table, "", overridden);
    Ok((id, merged))
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
