//! The command tree: the top-level options and one subcommand per command, each with its
//! examples (`--help`, completions and man pages are made from it). Each command's own
//! arguments are in its file (`cli/<command>.rs`).

use clap::{Parser, Subcommand, ValueEnum};

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
    #[arg(long, value_enum, value_parser = super::choice::enum_of::<ColorWhen>(), global = true, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
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
    Validate(super::validate::ValidateArgs),
    /// Render a profile to a deployment artifact
    #[command(
        after_help = "Examples:\n  svcgen render profile.toml                    # .env on stdout\n  svcgen render profile.toml -t dotenv -o .env  # written atomically\n  svcgen render profile.toml --minimal          # only what differs from the defaults\n  svcgen render profile.toml -o .env --check    # exit 1 with a diff if .env is stale\n\nSecret values (the secret-manager passphrase) are never written unless --include-secrets\nis given; the output says which variable to supply instead."
    )]
    Render(super::render::RenderArgs),
    /// Show everything the spec model knows of a variable
    #[command(
        after_help = "Examples:\n  svcgen explain CN_SQL_DB_DIALECT\n  svcgen explain persistence.sql.dialect\n  svcgen explain admin_ui.auth_method --edition B\n  svcgen explain --start profile.toml --format json"
    )]
    Explain(super::explain::ExplainArgs),
    /// Compare the resolved environments of two profiles (or layer stacks)
    #[command(
        after_help = "Examples:\n  svcgen diff staging.toml prod.toml\n  svcgen diff base.toml base.toml+eu.toml --format json\n  svcgen diff a-profile.toml b-profile.toml --exit-code\n\nLines: + added, - removed, ~ changed, = same value but default vs set. Consequences the spec\nnames follow: a change that needs another service restarted, an edition switch."
    )]
    Diff(super::diff::DiffArgs),
    /// Turn an existing .env, compose file or Kubernetes manifest into a profile
    #[command(
        after_help = "Examples:\n  svcgen import docker-compose.yml > profile.toml\n  svcgen import .env --edition B -o profile.toml\n  svcgen import k8s.yaml --service admin-ui\n\nThe profile renders back to the same environment; spec defaults are left out (--keep-defaults\nkeeps them); variables outside the spec go to [env] with a warning and \"did you mean\"."
    )]
    Import(super::import::ImportArgs),
    /// Check an existing .env, compose file or Kubernetes manifest as the container would read it
    #[command(
        after_help = "Examples:\n  svcgen lint .env\n  svcgen lint docker-compose.yml --service admin-ui --format json\n\nReports unknown names, values outside the allowed set, booleans the container reads as false\n(`yes`, `on`), wait times it ignores, malformed hybrid mapping JSON and edition mismatches,\nat their line and column in the file."
    )]
    Lint(super::lint::LintArgs),
    /// Rewrite an edition A profile as edition B, keeping comments and layout
    #[command(
        after_help = "Examples:\n  svcgen migrate --to B profile.toml > profile-b.toml\n  svcgen migrate --to B profile.toml --ldap-to sql --in-place\n\nbase_hostname becomes base_url (https://); LDAP has no edition B equivalent (--ldap-to says\nwhere it goes); plugins and scan settings are removed. What changed is printed on stderr."
    )]
    Migrate(super::migrate::MigrateArgs),
    /// Print the Markdown reference of every variable, from the spec model
    #[command(
        after_help = "Examples:\n  svcgen docs > docs/reference.md\n  svcgen docs --edition A -o docs/reference-A.md"
    )]
    Docs(super::docs::DocsArgs),
    /// Write a commented starting profile for the chosen edition, adapters and persistence
    #[command(
        after_help = "Examples:\n  svcgen init > profile.toml\n  svcgen init --edition A --config-adapter kubernetes --secret-adapter kubernetes --persistence hybrid -o admin-ui.toml\n  svcgen schema -o profile.schema.json   # the schema its #:schema line points at"
    )]
    Init(super::init::InitArgs),
    /// Print the JSON Schema of profiles, for editors (Even Better TOML / taplo, VS Code)
    #[command(
        after_help = "Examples:\n  svcgen schema -o schemas/profile.schema.json\n\nPoint an editor at it with a first line `#:schema ./profile.schema.json` in the profile,\nor a taplo.toml rule (see README.md)."
    )]
    Schema(super::schema::SchemaArgs),
    /// Run as a KRM function: a ResourceList on stdin, the rendered objects added on stdout
    #[command(
        after_help = "Examples:\n  kpt fn eval --exec \"svcgen krm\" --fn-config fn-config.yaml .\n  svcgen krm < resource-list.yaml\n\nThe functionConfig is a ConfigMap whose data.profile holds the profile (TOML). Diagnostics\nare the list's results; an invalid profile exits 1. See examples/gitops/."
    )]
    Krm(super::krm::KrmArgs),
    /// Dial the profile's services as the container's start would, each step bounded
    #[cfg(feature = "live")]
    #[command(
        after_help = "Examples:\n  svcgen preflight profile.toml\n  svcgen preflight profile.toml --timeout 3 --format json\n\nSteps in the image's order: config, secret, one per persistence backend, edition A's ssa;\nthen token-server (after start, never changes the exit code).\nExit codes: 0 every start step passed, 1 a step failed, timed out or was not reached,\n2 usage error or an unreadable or invalid profile (nothing is dialled)."
    )]
    Preflight(super::preflight::PreflightArgs),
    /// Print a shell completion script
    #[command(
        after_help = "Examples:\n  svcgen completions bash > /etc/bash_completion.d/svcgen\n  svcgen completions zsh > \"${fpath[1]}/_svcgen\"\n  svcgen completions fish > ~/.config/fish/completions/svcgen.fish"
    )]
    Completions(super::completions::CompletionsArgs),
    /// Run the language server on stdin/stdout, for editors (README: "Language server")
    #[command(
        after_help = "Examples:\n  svcgen lsp    # started by the editor, not by hand\n\nDiagnostics are those of `svcgen validate`, with hover, completion, quick fixes and\ngo to definition on `extends`. An overlay says its base with a comment line\n#:svcgen overlay-of = \"prod.toml\"."
    )]
    Lsp,
    /// Print the man page (roff), or write one page per subcommand into a folder
    #[command(
        after_help = "Examples:\n  svcgen man > svcgen.1 && man ./svcgen.1\n  svcgen man --out-dir ~/.local/share/man/man1   # svcgen.1, svcgen-render.1, ..."
    )]
    Man(super::man::ManArgs),
}
