//! `svcgen schema`, `svcgen completions` and `svcgen man`: artifacts generated from the spec model
//! and from the command-line definition itself.

use super::{Cli, EXIT_IO, EXIT_OK};
use crate::output::write_atomic;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Write the schema to this file (atomically) instead of stdout
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// The shells `completions` supports.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// Prints text, or writes it atomically to `output`.
pub fn emit(text: &str, output: Option<&PathBuf>) -> u8 {
    match output {
        Some(path) => match write_atomic(path, text, false) {
            Ok(()) => EXIT_OK,
            Err(e) => {
                super::report::io_error(&e);
                EXIT_IO
            }
        },
        None => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            EXIT_OK
        }
    }
}

pub fn schema(args: &SchemaArgs) -> u8 {
    emit(&crate::schema::profile_schema_text(), args.output.as_ref())
}

pub fn completions(args: &CompletionsArgs) -> u8 {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "svcgen", &mut out);
    let _ = std::io::stdout().write_all(&out);
    EXIT_OK
}

pub fn man() -> u8 {
    let mut out = Vec::new();
    match clap_mangen::Man::new(Cli::command()).render(&mut out) {
        Ok(()) => {
            let _ = std::io::stdout().write_all(&out);
            EXIT_OK
        }
        Err(e) => {
            super::report::io_error(&format!("cannot render the man page: {e}"));
            EXIT_IO
        }
    }
}
