//! `svcgen krm`: read a `ResourceList` on stdin, write it back on stdout (see `crate::krm`).

use super::report::io_error;
use super::{EXIT_INVALID, EXIT_IO, EXIT_OK};
use crate::krm::{MAX_INPUT_BYTES, run as run_function};
use clap::Args;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct KrmArgs {
    /// Use templates from this folder instead of the built-in ones of the same file name
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::ReadFolder))]
    pub templates: Option<PathBuf>,
}

pub fn run(args: &KrmArgs) -> u8 {
    // As every command with --templates: a missing folder is a usage error, not the built-ins.
    let templates = match super::render::load_templates(
        args.templates.as_deref(),
        &crate::support::inputs::Inputs::default(),
    ) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let input = match read_stdin() {
        Ok(text) => text,
        Err(e) => {
            io_error(&e);
            return EXIT_IO;
        }
    };
    let output = run_function(&input, Path::new("."), &templates);
    if let Err(e) = std::io::stdout().write_all(output.text.as_bytes()) {
        io_error(&format!("stdout: cannot write: {e}"));
        return EXIT_IO;
    }
    if output.failed { EXIT_INVALID } else { EXIT_OK }
}

/// Stdin, at most [`MAX_INPUT_BYTES`], as UTF-8.
fn read_stdin() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("stdin: cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "stdin: a ResourceList may have at most {MAX_INPUT_BYTES} bytes"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "stdin: the ResourceList is not UTF-8".to_string())
}
