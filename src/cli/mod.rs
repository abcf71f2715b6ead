//! The command line: argument definitions (clap) and the dispatch to the module of each command
//! (one per command, or per family: `bring` for import/lint/migrate, `generate` for
//! init/docs/schema/completions/man). Printing diagnostics and the exit code live in `report`.
//! Values a flag accepts (editions, targets) come from the model, not from lists written here.

mod bring;
mod check;
mod choice;
mod diff;
mod explain;
mod generate;
mod krm;
#[cfg(feature = "live")]
mod preflight;
mod render;
mod report;
mod validate;

use crate::render::Target;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit codes: 0 valid (warnings allowed), 1 a problem found in a file (E0246 the wrong file
/// included), 2 usage or I/O error. The README's table and the top help say the same.
pub const EXIT_OK: u8 = 0;
pub const EXIT_INVALID: u8 = 1;
pub const EXIT_IO: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "svcgen",
    version,
    about = "Validate an Admin UI container profile and render it for deployment",
    long_about = "svcgen checks a TOML profile of the Admin UI container against the container's \
spec (every variable, per edition A or B) and renders it as a .env file and other deployment \
artifacts. Every mistake is reported at once, with file, line and column.",
    after_help = "Examples:\n  svcgen validate examples/b-consul-vault-sql.toml\n  svcgen render examples/b-consul-vault-sql.toml -t dotenv\n  svcgen render profile.toml -t dotenv -o .env\n  svcgen explain CN_HYBRID_MAPPING\n\nExit codes: 0 valid (warnings allowed), 1 a problem found in a file (an invalid profile, the wrong kind of\nfile for the command, stale files with --check), 2 usage or I/O error (a mistake on the command line,\na file that cannot be read or written)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Print errors only: no warnings, notes or summaries (any command)
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// When to color diagnostics: auto = on a terminal, unless NO_COLOR is set (CLICOLOR_FORCE=1 forces it)
    #[arg(long, value_enum, value_parser = choice::enum_of::<ColorWhen>(), global = true, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    pub color: ColorWhen,
}

/// `--color`: when diagnostics on stderr are colored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorWhen {
    /// on a terminal, unless NO_COLOR is set; always when CLICOLOR_FORCE is set (not 0)
    #[default]
    Auto,
    Always,
    Never,
}

// `defer`: a subcommand's arguments are built only when it is the one run (or for help,
// completions and man pages, which build the whole tree): `render` no longer builds `migrate`'s.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub enum Command {
    /// Check a profile and report every problem
    #[command(
        after_help = "Examples:\n  svcgen validate profile.toml\n  svcgen validate profile.toml --format json\n  svcgen validate profile.toml --deny-warnings"
    )]
    Validate(validate::ValidateArgs),
    /// Render a profile to a deployment artifact
    #[command(
        after_help = "Examples:\n  svcgen render profile.toml                    # .env on stdout\n  svcgen render profile.toml -t dotenv -o .env  # written atomically\n  svcgen render profile.toml --minimal          # only what differs from the defaults\n  svcgen render profile.toml -o .env --check    # exit 1 with a diff if .env is stale\n\nSecret values (the secret-manager passphrase) are never written unless --include-secrets\nis given; the output says which variable to supply instead."
    )]
    Render(render::RenderArgs),
    /// Show everything the spec model knows of a variable
    #[command(
        after_help = "Examples:\n  svcgen explain CN_SQL_DB_DIALECT\n  svcgen explain persistence.sql.dialect\n  svcgen explain admin_ui.auth_method --edition B"
    )]
    Explain(explain::ExplainArgs),
    /// Compare the resolved environments of two profiles (or layer stacks)
    #[command(
        after_help = "Examples:\n  svcgen diff staging.toml prod.toml\n  svcgen diff base.toml base.toml+eu.toml --format json\n  svcgen diff a-profile.toml b-profile.toml --exit-code\n\nLines: + added, - removed, ~ changed, = same value but default vs set. Consequences the spec\nnames follow: a change that needs another service restarted, an edition switch."
    )]
    Diff(diff::DiffArgs),
    /// Turn an existing .env, compose file or Kubernetes manifest into a profile
    #[command(
        after_help = "Examples:\n  svcgen import docker-compose.yml > profile.toml\n  svcgen import .env --edition B -o profile.toml\n  svcgen import k8s.yaml --service admin-ui\n\nThe profile renders back to the same environment; spec defaults are left out (--keep-defaults\nkeeps them); variables outside the spec go to [env] with a warning and \"did you mean\"."
    )]
    Import(bring::ImportArgs),
    /// Check an existing .env, compose file or Kubernetes manifest as the container would read it
    #[command(
        after_help = "Examples:\n  svcgen lint .env\n  svcgen lint docker-compose.yml --service admin-ui --format json\n\nReports unknown names, values outside the allowed set, booleans the container reads as false\n(`yes`, `on`), wait times it ignores, malformed hybrid mapping JSON and edition mismatches,\nat their line and column in the file."
    )]
    Lint(bring::LintArgs),
    /// Rewrite an edition A profile as edition B, keeping comments and layout
    #[command(
        after_help = "Examples:\n  svcgen migrate --to B profile.toml > profile-b.toml\n  svcgen migrate --to B profile.toml --ldap-to sql --in-place\n\nbase_hostname becomes base_url (https://); LDAP has no edition B equivalent (--ldap-to says\nwhere it goes); plugins and scan settings are removed. What changed is printed on stderr."
    )]
    Migrate(bring::MigrateArgs),
    /// Print the Markdown reference of every variable, from the spec model
    #[command(
        after_help = "Examples:\n  svcgen docs > docs/reference.md\n  svcgen docs --edition A -o docs/reference-A.md"
    )]
    Docs(generate::DocsArgs),
    /// Write a commented starting profile for the chosen edition, adapters and persistence
    #[command(
        after_help = "Examples:\n  svcgen init > profile.toml\n  svcgen init --edition A --config-adapter kubernetes --secret-adapter kubernetes --persistence hybrid -o admin-ui.toml\n  svcgen schema -o profile.schema.json   # the schema its #:schema line points at"
    )]
    Init(generate::InitArgs),
    /// Print the JSON Schema of profiles, for editors (Even Better TOML / taplo, VS Code)
    #[command(
        after_help = "Examples:\n  svcgen schema -o schemas/profile.schema.json\n\nPoint an editor at it with a first line `#:schema ./profile.schema.json` in the profile,\nor a taplo.toml rule (see README.md)."
    )]
    Schema(generate::SchemaArgs),
    /// Run as a KRM function: a ResourceList on stdin, the rendered objects added on stdout
    #[command(
        after_help = "Examples:\n  kpt fn eval --exec \"svcgen krm\" --fn-config fn-config.yaml .\n  svcgen krm < resource-list.yaml\n\nThe functionConfig is a ConfigMap whose data.profile holds the profile (TOML). Diagnostics\nare the list's results; an invalid profile exits 1. See examples/gitops/."
    )]
    Krm(krm::KrmArgs),
    /// Dial the profile's services as the container's start would, each step bounded
    #[cfg(feature = "live")]
    #[command(
        after_help = "Examples:\n  svcgen preflight profile.toml\n  svcgen preflight profile.toml --timeout 3 --format json\n\nSteps in the image's order: config, secret, one per persistence backend, edition A's ssa;\nthen token-server (after start, never changes the exit code).\nExit codes: 0 every start step passed, 1 a step failed, timed out or was not reached,\n2 usage error or an unreadable or invalid profile (nothing is dialled)."
    )]
    Preflight(preflight::PreflightArgs),
    /// Print a shell completion script
    #[command(
        after_help = "Examples:\n  svcgen completions bash > /etc/bash_completion.d/svcgen\n  svcgen completions zsh > \"${fpath[1]}/_svcgen\"\n  svcgen completions fish > ~/.config/fish/completions/svcgen.fish"
    )]
    Completions(generate::CompletionsArgs),
    /// Run the language server on stdin/stdout, for editors (README: "Language server")
    #[command(
        after_help = "Examples:\n  svcgen lsp    # started by the editor, not by hand\n\nDiagnostics are those of `svcgen validate`, with hover, completion, quick fixes and\ngo to definition on `extends`. An overlay says its base with a comment line\n#:svcgen overlay-of = \"prod.toml\"."
    )]
    Lsp,
    /// Print the man page (roff), or write one page per subcommand into a folder
    #[command(
        after_help = "Examples:\n  svcgen man > svcgen.1 && man ./svcgen.1\n  svcgen man --out-dir ~/.local/share/man/man1   # svcgen.1, svcgen-render.1, ..."
    )]
    Man(generate::ManArgs),
}

/// How diagnostics are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// rustc-style text for people
    #[default]
    Human,
    /// a JSON array, one object per diagnostic
    Json,
    /// SARIF 2.1.0, for code scanning (GitHub, Azure DevOps): one result per diagnostic
    Sarif,
    /// a GitLab code-quality report (the JSON array the merge-request widget reads)
    Gitlab,
}

impl Format {
    /// True for the formats CI dashboards read: one document for the whole run, diagnostics
    /// and stale files (`--check`) alike.
    pub fn for_ci(self) -> bool {
        matches!(self, Format::Sarif | Format::Gitlab)
    }
}

// Options every command that checks a profile shares. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug, Clone)]
pub struct DiagnosticArgs {
    /// How to print diagnostics
    #[arg(long, value_enum, value_parser = choice::enum_of::<Format>(), default_value_t = Format::Human)]
    pub format: Format,
    /// Exit 1 when there is any warning not acknowledged by the profile's `allow = ["W0306"]`
    #[arg(long)]
    pub deny_warnings: bool,
    /// Print errors only: set by the global `-q/--quiet`
    #[arg(skip)]
    pub quiet: bool,
}

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

/// [`crate::pipeline::check_layers`] for the files named on the command line: a compose file,
/// `.env` or manifest given as a profile gets one error saying what it is and which command reads
/// it, instead of every TOML error of reading it as a profile. (Here, at the edge: import's
/// content detection sits above the pipeline, which import itself uses.)
pub fn check_layers(
    layers: &crate::profile::Layers,
    sources: &mut crate::diag::source::Sources,
) -> Result<crate::pipeline::Checked, String> {
    let first = sources.len();
    let mut checked = crate::pipeline::check_layers(layers, sources)?;
    if checked.diagnostics.has_errors()
        && let Some(diagnostics) =
            crate::import::kind::not_profiles(sources, first, &checked.diagnostics)
    {
        checked.resolved = None;
        checked.diagnostics = diagnostics;
    }
    Ok(checked)
}

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
    use clap::{CommandFactory, FromArgMatches};
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
    parsed.unwrap_or_else(|e| e.exit())
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
        Command::Schema(args) => generate::schema(&args),
        Command::Diff(args) => diff::run(&args),
        Command::Import(args) => bring::import_command(&args),
        Command::Lint(args) => bring::lint_command(&args),
        Command::Migrate(args) => bring::migrate_command(&args),

        Command::Docs(args) => generate::docs(&args),
        Command::Init(args) => generate::init(&args),

        Command::Krm(args) => krm::run(&args),
        #[cfg(feature = "live")]
        Command::Preflight(args) => preflight::run(&args, cli.quiet),
        Command::Completions(args) => generate::completions(&args),
        Command::Man(args) => generate::man(&args),
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

// The profile arguments, with the layers put over each. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug, Clone)]
pub struct ProfileArg {
    /// The profile (TOML); several profiles, or a folder of them, are a batch
    #[arg(required = true, value_name = "PROFILE")]
    pub profiles: Vec<PathBuf>,
    #[command(flatten)]
    pub layers: LayerArgs,
}

// Layers over a profile: overlay files, then single values. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug, Clone, Default)]
pub struct LayerArgs {
    /// Merge this profile over it (repeatable; later files win key by key, lists are replaced)
    #[arg(short = 'f', long = "overlay", value_name = "FILE", value_parser = choice::PathParser(choice::PathRole::ReadFile))]
    pub overlays: Vec<PathBuf>,
    /// Set one key, typed by the spec model: --set config.consul.port=8501 (repeatable; applied last)
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = choice::AssignmentParser { flag: "--set", form: "KEY=VALUE" })]
    pub sets: Vec<String>,
    /// Set one key from a file's content (a secret becomes a { file = PATH } reference; applied before --set)
    #[arg(long = "set-file", value_name = "KEY=PATH", value_parser = choice::AssignmentParser { flag: "--set-file", form: "KEY=PATH" })]
    pub set_files: Vec<String>,
}

impl LayerArgs {
    /// The layers over `profile`, in the order they apply.
    pub fn layers(&self, profile: &std::path::Path) -> crate::profile::Layers {
        use crate::profile::SetKind;
        let sets = self
            .set_files
            .iter()
            .map(|s| (SetKind::File, s.clone()))
            .chain(self.sets.iter().map(|s| (SetKind::Value, s.clone())))
            .collect();
        crate::profile::Layers {
            profile: profile.to_path_buf(),
            overlays: self.overlays.clone(),
            sets,
        }
    }
}

impl ProfileArg {
    /// [`expand`](Self::expand) for a command: its error printed, `Err` is the exit code.
    pub fn expand_or_exit(&self) -> Result<Vec<PathBuf>, u8> {
        self.expand().map_err(|e| {
            report::io_error(&e);
            EXIT_IO
        })
    }

    /// The profile files: folders are replaced by the `*.toml` files in them, sorted.
    pub fn expand(&self) -> Result<Vec<PathBuf>, String> {
        let mut out = Vec::new();
        for path in &self.profiles {
            if !path.is_dir() {
                out.push(path.clone());
                continue;
            }
            let entries = std::fs::read_dir(path)
                .map_err(|e| format!("{}: cannot read the folder: {e}", path.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                // Every `*.toml` entry but a folder: a FIFO, a device or a dangling link is
                // kept, so the bounded reader refuses it and the batch counts it as failed
                // instead of skipping it silently.
                .filter(|p| !p.is_dir() && p.extension().is_some_and(|x| x == "toml"))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(format!(
                    "{}: is a folder with no *.toml profile in it",
                    path.display()
                ));
            }
            out.extend(found);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
