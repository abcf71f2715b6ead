//! `svcgen import`, `svcgen lint` and `svcgen migrate`: bringing existing deployments in.

use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::import::kind::{
    ENVIRONMENT_WANTED, Kind, PROFILE_WANTED, kind_of, wrong_file_diagnostic,
};
use crate::import::{ImportOptions, ReadOptions, import, read_file};
use crate::model::Edition;
use crate::output::write_in_place;
use clap::Args;
use std::path::PathBuf;

// What `import` and `lint` read. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug)]
pub struct InputArgs {
    /// The file: .env, compose YAML or Kubernetes YAML
    pub file: PathBuf,
    /// The file's kind (by default detected from its name and content)
    #[arg(long, value_enum, value_parser = super::choice::enum_of::<crate::import::Format>())]
    pub from: Option<crate::import::Format>,
    /// The compose service, or the Kubernetes workload, container or ConfigMap, to read
    #[arg(long)]
    pub service: Option<String>,
    /// The edition (inferred when the variables decide it)
    #[arg(long, value_parser = super::editions())]
    pub edition: Option<String>,
}

impl InputArgs {
    fn edition(&self) -> Option<Edition> {
        self.edition.as_deref().and_then(Edition::parse)
    }

    /// Reads the file; `Err` says why it cannot be read, or that `--service` was given for a
    /// `.env` file, which has no services (a usage error, as any option that does not apply).
    fn read(&self, sources: &mut Sources) -> Result<crate::import::Read, String> {
        let options = ReadOptions {
            format: self.from,
            service: self.service.as_deref(),
            base_dir: None,
        };
        let read = read_file(&self.file, &options, sources)?;
        if let (Some(service), crate::import::Format::Dotenv) = (&self.service, read.format) {
            return Err(format!(
                "--service {}: {} is a {} file, which has no services; leave out --service (it \
                 chooses a compose service or a Kubernetes workload)",
                crate::support::escape::one_line(service),
                crate::support::escape::one_line(&super::display_name(&self.file)),
                read.format.name()
            ));
        }
        Ok(read)
    }

    /// A profile given to import or lint: one error (E0246) naming what it is and what reads
    /// it, reported as every command reports a wrong file (exit 1).
    fn wrong_file(&self, read: &crate::import::Read, sources: &Sources) -> Option<Diagnostics> {
        let source = sources.get(read.source);
        if self.from.is_some() || kind_of(&source.name, &source.text) != Some(Kind::Profile) {
            return None;
        }
        let mut diags = Diagnostics::default();
        diags.push(wrong_file_diagnostic(
            Some(read.source),
            &source.name,
            Kind::Profile,
            ENVIRONMENT_WANTED,
        ));
        Some(diags)
    }
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Keep values equal to the spec's defaults (left out by default)
    #[arg(long)]
    pub keep_defaults: bool,
    /// Write the profile to this file (atomically) instead of stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn import_command(args: &ImportArgs) -> u8 {
    let mut sources = Sources::new();
    let read = match args.input.read(&mut sources) {
        Ok(r) => r,
        Err(e) => {
            io_error(&e);
            return EXIT_IO;
        }
    };
    let options = ImportOptions {
        edition: args.input.edition(),
        keep_defaults: args.keep_defaults,
    };
    let mut reporter = Reporter::new(&args.diagnostics, false);
    if let Some(wrong) = args.input.wrong_file(&read, &sources) {
        let code = reporter.add(&wrong, &sources);
        reporter.finish();
        return code;
    }
    let code = match import(&read, options, &sources) {
        Ok(imported) => {
            if let Some(place) = &imported.edition_from_image
                && !args.diagnostics.quiet
            {
                eprintln!(
                    "note: edition {}: named by the image tag at {place}, as the variables fit both editions (--edition chooses another)",
                    imported.edition
                );
            }
            let code = reporter.add(&imported.diagnostics, &sources);
            reporter.finish();
            if code != EXIT_OK {
                return code;
            }
            // `-o -` is standard output, as for every command.
            return super::generate::emit(
                &imported.profile,
                args.output.as_ref(),
                sources.inputs(),
            );
        }
        Err(diags) => reporter.add(&diags, &sources).max(EXIT_INVALID),
    };
    reporter.finish();
    if let Some(draft) = crate::import::draft(&read, options, &sources) {
        return write_draft(&draft, args.output.as_ref(), sources.inputs()).max(code);
    }
    code
}

/// Writes the draft of a failed import where the profile would have gone, and says so: the run
/// still fails (exit 1), so that no script takes the draft for a profile.
fn write_draft(
    draft: &str,
    output: Option<&PathBuf>,
    inputs: &crate::support::inputs::Inputs,
) -> u8 {
    // Never over the file it was imported from, as the profile's own write.
    let written = super::generate::emit(draft, output, inputs);
    if written == EXIT_OK {
        let place = match output.filter(|p| !super::is_stdio(p)) {
            Some(path) => path.display().to_string(),
            None => "standard output".to_string(),
        };
        io_error(&format!(
            "the imported profile does not validate: wrote a draft to {} (its first line says \
             so); fix what is reported above, then check it with svcgen validate",
            crate::support::escape::one_line(&place)
        ));
        return EXIT_INVALID;
    }
    written
}

#[derive(Args, Debug)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn lint_command(args: &LintArgs) -> u8 {
    let file = &args.input.file;
    let mut sources = Sources::new();
    let mut reporter = Reporter::new(&args.diagnostics, true);
    if file.extension().is_some_and(|x| x == "toml") {
        let mut wrong = Diagnostics::default();
        wrong.push(wrong_file_diagnostic(
            None,
            &file.display().to_string(),
            Kind::Profile,
            ENVIRONMENT_WANTED,
        ));
        let code = reporter.add(&wrong, &sources);
        reporter.finish();
        return code;
    }
    let read = match args.input.read(&mut sources) {
        Ok(r) => r,
        Err(e) => {
            // In the report: a CI format still prints its document (the run failed).
            reporter.io_error(&e);
            reporter.finish();
            return EXIT_IO;
        }
    };
    if let Some(wrong) = args.input.wrong_file(&read, &sources) {
        let code = reporter.add(&wrong, &sources);
        reporter.finish();
        return code;
    }
    let diags = crate::commands::lint::lint(&read, args.input.edition(), &sources);
    let code = reporter.add(&diags, &sources);
    reporter.finish();
    if code == EXIT_OK
        && diags.is_empty()
        && args.diagnostics.format == super::Format::Human
        && !args.diagnostics.quiet
    {
        eprintln!("{}: no problems found", super::display_name(file));
    }
    code
}

#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// The edition to migrate to (edition A profiles become edition B)
    #[arg(long, value_parser = super::choice::ChoiceParser::new("--to", vec![crate::commands::migrate::TO.as_str()]))]
    pub to: String,
    /// The profile to migrate
    pub profile: PathBuf,
    #[arg(
        long,
        value_name = "BACKEND",
        help = crate::commands::migrate::ldap_to_help(),
        value_parser = super::choice::ChoiceParser::new("--ldap-to", crate::commands::migrate::ldap_to_values())
    )]
    pub ldap_to: Option<String>,
    /// Rewrite the profile file (atomically) instead of printing the result
    #[arg(long, conflicts_with = "output")]
    pub in_place: bool,
    /// Write the result to this file (atomically; not the profile itself: see --in-place)
    /// instead of stdout; `-o -` is stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub diagnostics: DiagnosticArgs,
}

pub fn migrate_command(args: &MigrateArgs) -> u8 {
    if args.in_place && super::is_stdio(&args.profile) {
        io_error("--in-place rewrites a file: give the profile's path, not standard input (-)");
        return EXIT_IO;
    }
    let mut sources = Sources::new();
    let (name, bytes) = match crate::profile::read_input_or_stdin(&args.profile, sources.inputs()) {
        Ok(read) => read,
        Err(e) => {
            io_error(&e.0);
            return EXIT_IO;
        }
    };
    let mut reporter = Reporter::new(&args.diagnostics, false);
    let text = match utf8_text(name.clone(), bytes, &mut sources) {
        Ok(text) => text,
        Err(diags) => {
            let code = reporter.add(&diags, &sources);
            reporter.finish();
            return code.max(EXIT_INVALID);
        }
    };
    if let Some(kind) = kind_of(&name, &text).filter(|kind| *kind != Kind::Profile) {
        let mut wrong = Diagnostics::default();
        let id = sources.add(name.clone(), text.clone());
        wrong.push(wrong_file_diagnostic(Some(id), &name, kind, PROFILE_WANTED));
        let code = reporter.add(&wrong, &sources);
        reporter.finish();
        return code.max(EXIT_INVALID);
    }
    match crate::commands::migrate::migrate_to_b(
        &name,
        &text,
        args.ldap_to.as_deref(),
        args.profile.parent(),
        &mut sources,
    ) {
        Ok(migrated) => {
            let code = reporter.add(&migrated.diagnostics, &sources);
            reporter.finish();
            if !args.diagnostics.quiet {
                for change in &migrated.changes {
                    eprintln!("changed: {change}");
                }
                if migrated.changes.is_empty() {
                    eprintln!("{name}: already edition B; nothing to change");
                }
            }
            if !args.in_place {
                return code.max(super::generate::emit(
                    &migrated.profile,
                    args.output.as_ref(),
                    sources.inputs(),
                ));
            }
            if let Err(e) = write_in_place(&args.profile, &migrated.profile) {
                io_error(&e);
                return EXIT_IO;
            }
            code
        }
        Err(diags) => {
            let code = reporter.add(&diags, &sources).max(EXIT_INVALID);
            reporter.finish();
            code
        }
    }
}

/// The profile's text; bytes that are not UTF-8 get the profile reader's own diagnostic (the
/// first bad byte, at its line and column), as `validate` reports them.
fn utf8_text(name: String, bytes: Vec<u8>, sources: &mut Sources) -> Result<String, Diagnostics> {
    String::from_utf8(bytes).map_err(|e| {
        let (_, parsed) = crate::profile::parse_bytes(name, e.into_bytes(), sources);
        parsed.err().unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_that_is_not_utf8_is_reported_at_its_bad_byte() {
        let mut sources = Sources::new();
        let bytes = b"edition = \"A\"\n# caf\xe9\n".to_vec();
        let diags = utf8_text("p.toml".into(), bytes, &mut sources).unwrap_err();
        let origin = diags.items[0].origin.expect("a place");
        let at = sources.line_col(origin.source, origin.start);
        assert_eq!((at.line, at.column), (2, 6));
        assert_eq!(sources.get(origin.source).name, "p.toml");
    }
}
