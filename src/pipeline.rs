//! The one entry point of the stages for one profile: load its layers (files or text in
//! memory, `--set` values over them, `extends` as the caller's policy says), then resolve (with
//! validation). The CLI, `krm`, the language server and the tests all come through [`check`];
//! the other functions here only say how common callers build its [`Stack`].

use crate::diag::Diagnostics;
use crate::diag::source::{SourceId, Sources};
use crate::profile::{Extends, Layers, Overridden, Stack, Table, load_stack};
use crate::resolve::{Environment, Mode, Options, Resolved, resolve};
use crate::support::root::Root;
use std::path::Path;

/// A profile that could be read: its resolution (when valid) and every diagnostic.
pub struct Checked {
    pub resolved: Option<Resolved>,
    pub diagnostics: Diagnostics,
    /// Values a later layer replaced (dotted key, where the replaced value was written).
    pub overridden: Overridden,
    /// The folder the profile may read host files from (`None`: a table made in memory, which
    /// names no host file to read).
    pub root: Option<Root>,
}

/// Loads a profile's layers and checks the result. `Err` is an I/O problem (exit code 2).
pub fn check(stack: &Stack, sources: &mut Sources) -> Result<Checked, String> {
    let loaded = load_stack(stack, sources).map_err(|e| e.0)?;
    let mut checked = check_loaded(loaded.main, loaded.table, sources);
    checked.overridden = loaded.overridden;
    checked.root = Some(loaded.root);
    Ok(checked)
}

/// Loads and checks the profile at `path` (its `extends` followed).
pub fn check_profile(path: &Path, sources: &mut Sources) -> Result<Checked, String> {
    check_layers(&Layers::single(path), sources)
}

/// Loads a profile file with its `extends`, overlays and `--set` values, and checks the result.
pub fn check_layers(layers: &Layers, sources: &mut Sources) -> Result<Checked, String> {
    check(&Stack::from(layers), sources)
}

/// Checks profile text that did not come from a file (an untitled editor buffer, a generated
/// profile); its `extends` is left out: text with no folder has no bases to find.
pub fn check_text(
    name: &str,
    text: &str,
    base_dir: Option<&Path>,
    sources: &mut Sources,
) -> Checked {
    let stack = Stack {
        extends: Extends::Ignore,
        ..Stack::text(name, text, base_dir)
    };
    match check(&stack, sources) {
        Ok(checked) => checked,
        Err(_) => unreachable!("text in memory is never read from disk"),
    }
}

fn check_loaded(source: SourceId, table: Result<Table, Diagnostics>, sources: &Sources) -> Checked {
    let table = match table {
        Ok(t) => t,
        Err(diagnostics) => {
            return Checked {
                resolved: None,
                diagnostics,
                overridden: Vec::new(),
                root: None,
            };
        }
    };
    check_table(source, &table, sources)
}

/// Checks a profile table made in memory (an imported or linted environment), whose origins
/// point into `sources`: its diagnostics are at the lines of the file it was made from, and a
/// problem of the profile as a whole is at the start of `source`.
pub fn check_table(source: SourceId, table: &Table, sources: &Sources) -> Checked {
    resolve_table(source, table, sources, Mode::Profile)
}

/// Checks the table of an environment read from a file (`import`, `lint`), its origins into
/// `sources`: resolve leaves out the checks of a profile's own form ([`Mode::Environment`]),
/// and those that `environment` says would claim what is not so.
pub fn check_environment(
    source: SourceId,
    table: &Table,
    sources: &Sources,
    environment: Environment<'_>,
) -> Checked {
    resolve_table(source, table, sources, Mode::Environment(environment))
}

fn resolve_table(source: SourceId, table: &Table, sources: &Sources, mode: Mode<'_>) -> Checked {
    #[cfg(test)]
    counted::RESOLVES.with(|n| n.set(n.get() + 1));
    let (resolved, diagnostics) = resolve(table, source, Options { sources, mode });
    Checked {
        resolved,
        diagnostics,
        overridden: Vec::new(),
        root: None,
    }
}

/// How many tables this thread resolved: the tests of `import` and `lint` count them (once per
/// file read).
#[cfg(test)]
pub(crate) mod counted {
    thread_local! {
        pub static RESOLVES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// The number of tables `run` resolves.
    pub fn resolves(run: impl FnOnce()) -> usize {
        let before = RESOLVES.with(std::cell::Cell::get);
        run();
        RESOLVES.with(std::cell::Cell::get) - before
    }
}
