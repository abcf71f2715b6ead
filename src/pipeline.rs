//! The stages run in order for one profile: load its layers, then resolve (with validation).

use crate::diag::Diagnostics;
use crate::profile::{Layers, Overridden, Table, load_layers, parse_text};
use crate::resolve::{Options, Resolved, resolve};
use crate::source::{SourceId, Sources};
use std::path::Path;

/// A profile that could be read: its resolution (when valid) and every diagnostic.
pub struct Checked {
    pub resolved: Option<Resolved>,
    pub diagnostics: Diagnostics,
    /// Values a later layer replaced (dotted key, where the replaced value was written).
    pub overridden: Overridden,
}

/// Loads and checks the profile at `path`. `Err` is an I/O problem (exit code 2).
pub fn check_profile(path: &Path, sources: &mut Sources) -> Result<Checked, String> {
    check_layers(&Layers::single(path), sources)
}

/// Loads a profile with its `extends`, overlays and `--set` values, and checks the result.
pub fn check_layers(layers: &Layers, sources: &mut Sources) -> Result<Checked, String> {
    let first = sources.len();
    let loaded = load_layers(layers, sources).map_err(|e| e.0)?;
    let mut checked = check_loaded(loaded.main, loaded.table, sources);
    checked.overridden = loaded.overridden;
    // A compose file, `.env` or manifest given as a profile: one error saying what it is and
    // which command reads it, instead of every TOML error of reading it as a profile.
    if checked.diagnostics.has_errors()
        && let Some(diagnostics) =
            crate::import::kind::not_profiles(sources, first, &checked.diagnostics)
    {
        checked.resolved = None;
        checked.diagnostics = diagnostics;
    }
    Ok(checked)
}

/// Checks profile text that did not come from a file (tests, generated profiles).
pub fn check_text(
    name: &str,
    text: &str,
    base_dir: Option<&Path>,
    sources: &mut Sources,
) -> Checked {
    let (source, table) = parse_text(name.to_string(), text.to_string(), sources);
    sources.set_dir(source, base_dir.map(Path::to_path_buf));
    check_loaded(source, table, sources)
}

fn check_loaded(source: SourceId, table: Result<Table, Diagnostics>, sources: &Sources) -> Checked {
    let table = match table {
        Ok(t) => t,
        Err(diagnostics) => {
            return Checked {
                resolved: None,
                diagnostics,
                overridden: Vec::new(),
            };
        }
    };
    check_table(source, &table, sources)
}

/// Checks a profile table made in memory (an imported or linted environment), whose origins
/// point into `sources`: its diagnostics are at the lines of the file it was made from, and a
/// problem of the profile as a whole is at the start of `source`.
pub fn check_table(source: SourceId, table: &Table, sources: &Sources) -> Checked {
    let (resolved, diagnostics) = resolve(table, source, Options { sources });
    Checked {
        resolved,
        diagnostics,
        overridden: Vec::new(),
    }
}
