//! The command line: the dispatch to the file of each command (`cli/<command>.rs`: its
//! arguments and printing; its library side is `src/commands/<command>.rs` or a stage). The
//! command tree is `command`, the arguments several commands share `args`; printing diagnostics
//! and the exit code live in `report`. Values a flag accepts (editions, targets) come from the
//! model, not from lists written here.

mod args;
mod check;
mod choice;
mod command;
mod completions;
mod diff;
mod docs;
mod emit;
mod explain;
mod explain_start;
mod import;
mod init;
mod krm;
mod lint;
mod man;
mod migrate;
#[cfg(feature = "live")]
mod preflight;
mod progress;
mod render;
mod report;
mod schema;
mod validate;

pub use args::{LayerArgs, ProfileArg};
pub use command::{Cli, ColorWhen, Command};
pub use report::{DiagnosticArgs, Format};

use crate::render::Target;
use clap::CommandFactory;
use std::process::ExitCode;

/// Exit codes: 0 valid (warnings allowed), 1 a problem found in a file (E0246 the wrong file
/// included), 2 usage or I/O error. The README's table and the top help say the same.
pub const EXIT_OK: u8 = 0;
pub const EXIT_INVALID: u8 = 1;
pub const EXIT_IO: u8 = 2;

pub use crate::profile::is_stdio;

/// A profile argument as diagnostics name it (`<stdin>` for `-`).
pub fn display_name(path: &std::path::Path) -> String {
    if is_stdio(path) {
        crate::profile::STDIN_NAME.to_string()
    } else {
        path.display().to_string()
    }
}

pub use crate::profile::read_host_file;

pub use crate::commands::render::check_layers;

/// The target `render` writes when no `-t` is given.
pub fn default_target() -> Target {
    Target::Dotenv
}

/// `--out-dir -` refused: `-` is standard output, which holds one file, not a folder of them;
/// without this a folder named `-` would be created (as `import -o -` once wrote a file `-`).
pub fn refuse_stdio_folder(dir: &std::path::Path) -> Result<(), String> {
    if is_stdio(dir) {
        return Err(
            "--out-dir -: `-` is standard output, which holds one file, not a folder: give a \
             folder (./- for a folder named -), or leave out --out-dir to print to stdout"
                .to_string(),
        );
    }
    Ok(())
}

/// The editions a flag accepts, from the model (so a new edition needs no change here).
pub fn editions() -> choice::ChoiceParser {
    choice::ChoiceParser::new(
        "--edition",
        crate::model::Edition::ALL.map(|e| e.as_str()).to_vec(),
    )
}

/// Parses the arguments and runs the command; never panics on user input.
pub fn main() -> ExitCode {
    if let Some(version) = version_only(std::env::args_os().skip(1)) {
        // A line on stdout cannot fail in a way the caller could act on; clap ignores it too.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), version.as_bytes());
        return ExitCode::from(EXIT_OK);
    }
    ExitCode::from(run(parse()))
}

/// The command line, parsed as `Cli::parse` parses it (the same errors and exits), but clap's
/// command tree and matches are left to the process's end instead of being freed one node at a
/// time (about 0.1 M instructions of a one-target render).
fn parse() -> Cli {
    use clap::FromArgMatches;
    let mut command = Cli::command();
    let parsed = command
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|mut matches| {
            let cli = Cli::from_arg_matches_mut(&mut matches);
            std::mem::forget(matches);
            cli
        })
        .map_err(|e| e.format(&mut command));
    std::mem::forget(command);
    parsed.unwrap_or_else(|e| exit_masked(&e))
}

/// Ends the process on clap's answer as `clap::Error::exit` does, but a usage error (which
/// quotes what was typed: `--set "google.secret_manager_passphrase: VALUE"`, an unknown
/// argument) is printed with what follows a secret's name masked, whatever `--format` says.
fn exit_masked(e: &clap::Error) -> ! {
    use clap::error::ErrorKind;
    if !e.use_stderr() || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        e.exit()
    }
    let text = crate::diag::redact::mask_echo(&e.render().to_string());
    let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
    std::process::exit(e.exit_code())
}

/// clap's answer to a lone `--version`/`-V`, without building the command tree (every
/// subcommand, and the spec model some help texts read) only to print one line. The text is
/// clap's own format (`svcgen 0.1.0`); a test checks it against `Cli::command()`.
fn version_only(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<String> {
    let first = args.next()?;
    (args.next().is_none() && (first == "--version" || first == "-V"))
        .then(|| format!("svcgen {}\n", env!("CARGO_PKG_VERSION")))
}

/// Runs a parsed command line; returns the exit code.
fn run(mut cli: Cli) -> u8 {
    report::set_color(cli.color);
    if let Some(diagnostics) = diagnostic_args(&mut cli.command) {
        diagnostics.quiet = cli.quiet;
    }
    match cli.command {
        Command::Validate(args) => validate::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Schema(args) => schema::schema(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Import(args) => import::import_command(&args),
        Command::Lint(args) => lint::lint_command(&args),
        Command::Migrate(args) => migrate::migrate_command(&args),

        Command::Docs(args) => docs::docs(&args),
        Command::Init(args) => init::init(&args),

        Command::Krm(args) => krm::run(&args),
        #[cfg(feature = "live")]
        Command::Preflight(args) => preflight::run(&args, cli.quiet),
        Command::Completions(args) => completions::completions(&args, Cli::command()),
        Command::Man(args) => man::man(&args, Cli::command()),
        Command::Lsp => crate::lsp::run(),
    }
}

/// The diagnostic options of the commands that have them.
fn diagnostic_args(command: &mut Command) -> Option<&mut DiagnosticArgs> {
    match command {
        Command::Validate(args) => Some(&mut args.diagnostics),
        Command::Render(args) => Some(&mut args.diagnostics),
        Command::Import(args) => Some(&mut args.diagnostics),
        Command::Lint(args) => Some(&mut args.diagnostics),
        Command::Migrate(args) => Some(&mut args.diagnostics),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The command of a command line (the test fails on a usage error).
    pub(super) fn command(argv: &[&str]) -> Command {
        Cli::try_parse_from(argv)
            .expect("a valid command line")
            .command
    }

    /// Runs a command line as `main` does.
    fn run_line(argv: &[&str]) -> u8 {
        run(Cli::try_parse_from(argv).expect("a valid command line"))
    }

    #[test]
    fn start_work_proportional_version_is_clap_s_own_text() {
        use clap::CommandFactory;
        let args = |argv: &[&str]| {
            argv.iter()
                .map(std::ffi::OsString::from)
                .collect::<Vec<_>>()
        };
        let clap_text = Cli::command().render_version().to_string();
        for flag in ["--version", "-V"] {
            assert_eq!(
                version_only(args(&[flag]).into_iter()),
                Some(clap_text.clone())
            );
        }
        // Anything else goes through clap (a usage error, a subcommand, a second flag).
        for argv in [
            &["--version", "-q"][..],
            &["render", "--version"],
            &["-v"],
            &[],
        ] {
            assert_eq!(version_only(args(argv).into_iter()), None, "{argv:?}");
        }
    }

    #[test]
    fn man_out_dir_dash_is_a_usage_error_and_creates_nothing() {
        assert_eq!(run_line(&["svcgen", "man", "--out-dir", "-"]), EXIT_IO);
        assert!(!std::path::Path::new("-").exists());
    }

    #[test]
    fn krm_with_a_missing_templates_folder_is_a_usage_error_before_stdin_is_read() {
        let argv = [
            "svcgen",
            "krm",
            "--templates",
            "/nonexistent/svcgen-templates",
        ];
        // Refused while the command line is read, before the command (and its stdin) starts.
        let refused = Cli::try_parse_from(argv).expect_err("a usage error");
        assert_eq!(refused.exit_code(), i32::from(EXIT_IO));
    }

    #[test]
    fn migrate_writes_to_o_but_never_over_its_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.toml");
        let example = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/a-couchbase-google.toml"
        );
        std::fs::copy(example, &input).unwrap();
        let before = std::fs::read_to_string(&input).unwrap();
        let (input_arg, output) = (input.to_str().unwrap(), dir.path().join("b.toml"));
        let argv = ["svcgen", "migrate", "--to", "B", input_arg, "-q", "-o"];
        let code = run_line(&[&argv[..], &[output.to_str().unwrap()]].concat());
        assert_eq!(code, EXIT_OK);
        let written = std::fs::read_to_string(&output).unwrap();
        assert!(written.contains("edition = \"B\""), "{written}");
        let code = run_line(&[&argv[..], &[input_arg]].concat());
        assert_eq!(code, EXIT_IO);
        assert_eq!(std::fs::read_to_string(&input).unwrap(), before);
        let both = [
            "svcgen",
            "migrate",
            "--to",
            "B",
            "a.toml",
            "-o",
            "b.toml",
            "--in-place",
        ];
        assert!(Cli::try_parse_from(both).is_err());
    }
}
