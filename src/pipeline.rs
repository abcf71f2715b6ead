//! The stages run in order for one profile: load, resolve (with validation).

use crate::diag::Diagnostics;
use crate::profile::load_file;
use crate::resolve::{Options, Resolved, resolve};
use crate::source::Sources;
use std::path::Path;

/// A profile that could be read: its resolution (when valid) and every diagnostic.
pub struct Checked {
    pub resolved: Option<Resolved>,
    pub diagnostics: Diagnostics,
}

/// Loads and checks the profile at `path`. `Err` is an I/O problem (exit code 2).
pub fn check_profile(path: &Path, sources: &mut Sources) -> Result<Checked, String> {
    let (source, table) = load_file(path, sources).map_err(|e| e.0)?;
    let table = match table {
        Ok(t) => t,
        Err(diagnostics) => {
            return Ok(Checked {
                resolved: None,
                diagnostics,
            });
        }
    };
    let options = Options {
        base_dir: path.parent(),
    };
    let (resolved, diagnostics) = resolve(&table, source, options);
    Ok(Checked {
        resolved,
        diagnostics,
    })
}
