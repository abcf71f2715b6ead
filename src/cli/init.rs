//! `svcgen init`, `svcgen docs`, `svcgen schema`, `svcgen completions` and `svcgen man`: artifacts
//! generated from the spec model and from the command-line definition itself.

use super::{Cli, EXIT_IO, EXIT_OK};
use crate::output::write_atomic;
use crate::support::inputs::Inputs;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Write the schema to this file (atomically) instead of stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
}

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

pub fn schema(args: &SchemaArgs) -> u8 {
    emit(
        &crate::artifacts::schema::profile_schema_text(),
        args.output.as_ref(),
        &Inputs::default(),
    )
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

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write one page per command into this folder (svcgen.1, svcgen-render.1, ...) instead of
    /// printing the top page
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::WriteFolder))]
    pub out_dir: Option<PathBuf>,
}

/// The top page and one page per subcommand (`svcgen-render.1`, ...): (file name, roff text).
fn man_pages() -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    let mut command = Cli::command().disable_help_subcommand(true);
    // Building names each subcommand `svcgen-<name>`, the page's title and file name.
    command.build();
    let subcommands = command.get_subcommands().filter(|s| !s.is_hide_set());
    let mut pages = Vec::new();
    for cmd in std::iter::once(&command).chain(subcommands) {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut roff = Vec::new();
        man.render(&mut roff)?;
        let roff = with_usage_synopsis(&String::from_utf8_lossy(&roff), cmd);
        pages.push((man.get_filename(), roff.into_bytes()));
    }
    Ok(pages)
}

/// The page with its SYNOPSIS replaced by the usage line `-h` prints (clap_mangen writes its
/// own, which lists options `-h` folds into `[OPTIONS]` and names the subcommands otherwise).
fn with_usage_synopsis(roff: &str, cmd: &clap::Command) -> String {
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage.trim().strip_prefix("Usage: ").unwrap_or(usage.trim());
    let escaped = usage.replace('\\', "\\e").replace('-', "\\-");
    let Some(start) = roff.find(".SH SYNOPSIS\n") else {
        return roff.to_string();
    };
    let body = start + ".SH SYNOPSIS\n".len();
    let end = roff[body..]
        .find("\n.SH ")
        .map_or(roff.len(), |i| body + i + 1);
    format!("{}{escaped}\n{}", &roff[..body], &roff[end..])
}

pub fn man(args: &ManArgs) -> u8 {
    if let Some(Err(problem)) = args.out_dir.as_deref().map(super::refuse_stdio_folder) {
        super::report::io_error(&problem);
        return EXIT_IO;
    }
    let pages = match man_pages() {
        Ok(pages) => pages,
        Err(e) => {
            super::report::io_error(&format!("cannot render the man pages: {e}"));
            return EXIT_IO;
        }
    };
    let Some(dir) = &args.out_dir else {
        let _ = std::io::stdout().write_all(&pages[0].1);
        return EXIT_OK;
    };
    // An output folder like render's: locked, and no page written through a link leading out.
    let out = match crate::output::OutDir::open(dir, &Inputs::default()) {
        Ok(out) => out,
        Err(e) => {
            super::report::io_error(&e);
            return EXIT_IO;
        }
    };
    let files: Vec<(PathBuf, String)> = pages
        .into_iter()
        .map(|(name, roff)| {
            (
                out.root.join(name),
                String::from_utf8_lossy(&roff).into_owned(),
            )
        })
        .collect();
    let options = crate::output::WriteOptions {
        durability: crate::output::Durability::Fsync,
        ..crate::output::WriteOptions::default()
    };
    match crate::output::write_files(&files, Some(&out.root), options) {
        Ok(_) => EXIT_OK,
        Err(e) => {
            super::report::io_error(&e);
            EXIT_IO
        }
    }
}

#[derive(Args, Debug)]
pub struct DocsArgs {
    /// Only this edition's variables (default: both, edition-only rows marked)
    #[arg(long, value_parser = super::editions())]
    pub edition: Option<String>,
    /// Write to this file (atomically) instead of stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
    /// Use templates from this folder instead of the built-in ones of the same file name
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::ReadFolder))]
    pub templates: Option<PathBuf>,
    /// Do not write: exit 1 with a diff when the file of -o differs from the reference
    #[arg(long, requires = "output")]
    pub check: bool,
    /// How --check reports a stale file (json: {"stale": [{"file", "diff"}]} on stdout; sarif,
    /// gitlab: one finding per stale file, on stdout)
    #[arg(long, value_enum, value_parser = super::choice::enum_of::<super::Format>(), default_value_t = super::Format::Human, requires = "check")]
    pub format: super::Format,
}

pub fn docs(args: &DocsArgs) -> u8 {
    if args.check {
        return check_docs(args);
    }
    let edition = args
        .edition
        .as_deref()
        .and_then(crate::model::Edition::parse);
    let inputs = Inputs::default();
    let templates = match super::render::load_templates(args.templates.as_deref(), &inputs) {
        Ok(t) => t,
        Err(code) => return code,
    };
    match crate::artifacts::docs::reference(edition, &templates) {
        Ok(text) => emit(&text, args.output.as_ref(), &inputs),
        Err(e) => {
            super::report::io_error(&format!("template {e}"));
            super::EXIT_INVALID
        }
    }
}

#[derive(Args, Debug)]
pub struct InitArgs {
    /// The edition of the new profile
    // Default: the current edition, the one `migrate` moves profiles to (not a letter written here).
    #[arg(long, value_parser = super::editions(), default_value = crate::commands::migrate::TO.as_str())]
    pub edition: String,
    #[arg(
        long,
        help = crate::commands::init::choice_help(crate::commands::init::CONFIG_ADAPTER_KEY),
        value_parser = super::choice::ChoiceParser::new("--config-adapter", crate::commands::init::choice_values(crate::commands::init::CONFIG_ADAPTER_KEY))
    )]
    pub config_adapter: Option<String>,
    #[arg(
        long,
        help = crate::commands::init::choice_help(crate::commands::init::SECRET_ADAPTER_KEY),
        value_parser = super::choice::ChoiceParser::new("--secret-adapter", crate::commands::init::choice_values(crate::commands::init::SECRET_ADAPTER_KEY))
    )]
    pub secret_adapter: Option<String>,
    #[arg(
        long,
        help = crate::commands::init::choice_help(&crate::model::Model::get().backends.selector),
        value_parser = super::choice::ChoiceParser::new("--persistence", crate::commands::init::choice_values(&crate::model::Model::get().backends.selector))
    )]
    pub persistence: Option<String>,
    /// The path or URL of the JSON Schema written on the profile's `#:schema` line
    #[arg(long, default_value = "./profile.schema.json")]
    pub schema: String,
    /// Write the profile to this file (atomically; refuses to overwrite) instead of stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
}

pub fn init(args: &InitArgs) -> u8 {
    let Some(edition) = crate::model::Edition::parse(&args.edition) else {
        return super::EXIT_IO;
    };
    let mut options = crate::commands::init::InitOptions::new(edition, args.schema.clone());
    options.config_adapter = args.config_adapter.clone();
    options.secret_adapter = args.secret_adapter.clone();
    options.persistence = args.persistence.clone();
    match crate::commands::init::starting_profile(&options) {
        Ok(text) => {
            if let Some(path) = &args.output
                && !super::is_stdio(path)
                && path.exists()
            {
                super::report::io_error(&format!(
                    "{} exists: svcgen init does not overwrite a profile",
                    path.display()
                ));
                return EXIT_IO;
            }
            emit(&text, args.output.as_ref(), &Inputs::default())
        }
        // A choice the edition does not allow is a mistake on the command line: exit 2.
        Err(message) => {
            super::report::io_error(&message);
            EXIT_IO
        }
    }
}

/// `docs -o FILE --check`: compares FILE with the reference (through the one bounded reader,
/// as `render --check` does) and reports it in `--format` when stale.
fn check_docs(args: &DocsArgs) -> u8 {
    use super::check::{check_files, report_stale, stale_item};
    let Some(path) = args.output.as_ref().filter(|p| !super::is_stdio(p)) else {
        super::report::io_error("--check compares a file on disk: give -o FILE");
        return EXIT_IO;
    };
    let diagnostics = super::DiagnosticArgs {
        format: args.format,
        deny_warnings: false,
        quiet: false,
    };
    let mut reporter = super::report::Reporter::new(&diagnostics, true);
    let edition = args
        .edition
        .as_deref()
        .and_then(crate::model::Edition::parse);
    let reference = super::render::load_templates(args.templates.as_deref(), &Inputs::default())
        .and_then(|t| {
            crate::artifacts::docs::reference(edition, &t).map_err(|e| {
                reporter.io_error(&format!("template {e}"));
                super::EXIT_INVALID
            })
        });
    let text = match reference {
        Ok(text) => text,
        Err(code) => {
            reporter.finish();
            return code;
        }
    };
    let stale = check_files(
        &[(path.clone(), crate::output::Contents::Text(text))],
        false,
    );
    report_stale(&stale, args.format);
    reporter.stale(stale.iter().map(stale_item));
    reporter.finish();
    if stale.is_empty() {
        return EXIT_OK;
    }
    super::report::io_error(&format!(
        "{} is stale: run svcgen docs again without --check to update it",
        path.display()
    ));
    super::EXIT_INVALID
}
