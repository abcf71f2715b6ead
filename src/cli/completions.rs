//! `svcgen completions`: a shell completion script, made by clap from the command line's own
//! definition (nothing of it is svcgen's logic, so it has no library side).

use super::EXIT_OK;
use clap::Args;
use clap_complete::Shell;
use std::io::Write;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum, value_parser = super::choice::enum_of::<CompletionShell>())]
    pub shell: CompletionShell,
}

/// The shells `completions` supports.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// Prints the completion script of `command` (the whole command line) for the shell asked.
pub fn completions(args: &CompletionsArgs, mut command: clap::Command) -> u8 {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "svcgen", &mut out);
    let _ = std::io::stdout().write_all(&out);
    EXIT_OK
}
