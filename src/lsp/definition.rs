//! Go to definition: from an `extends` entry (or the overlay directive) to the base it names.

use super::analysis::folder;
use super::diagnostics::extends_entries;
use crate::profile::overlay_of;
use lsp_types::{Location, Range};
use std::path::Path;

/// The base file named at byte `offset` of the document at `path`, if it exists.
pub fn definition(path: &Path, text: &str, offset: usize) -> Option<Location> {
    let named = extends_entries(text)
        .into_iter()
        .chain(overlay_of(text))
        .find(|(_, span)| span.start <= offset && offset <= span.end)?;
    let base = crate::diag::source::lexical(&folder(path).join(named.0));
    if !base.is_file() {
        return None;
    }
    Some(Location::new(
        super::uri::from_path(&base)?,
        Range::default(),
    ))
}
