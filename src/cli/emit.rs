//! Where a command's one text goes: standard output, or a file written atomically (`-o`).

use super::{EXIT_IO, EXIT_OK};
use crate::output::write_atomic;
use crate::support::inputs::Inputs;
use std::io::Write;
use std::path::PathBuf;

/// Prints text, or writes it atomically to `output` (its missing folders created, and removed
/// again when the write fails).
pub fn emit(text: &str, output: Option<&PathBuf>, inputs: &Inputs) -> u8 {
    match output.filter(|path| !super::is_stdio(path)) {
        Some(path) => {
            let written = super::render::create_parents(path).and_then(|made| {
                write_atomic(path, text, false, inputs).inspect_err(|_| {
                    super::render::remove_made(&made);
                })
            });
            match written {
                Ok(()) => EXIT_OK,
                Err(e) => {
                    super::report::io_error(&e);
                    EXIT_IO
                }
            }
        }
        None => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            EXIT_OK
        }
    }
}
