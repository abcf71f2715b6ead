//! `svcgen import`: a profile from an existing .env, compose file or Kubernetes manifest (the
//! library side is `crate::import`); and the input arguments `import` and `lint` share.

use super::emit::emit;
use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::import::kind::{ENVIRONMENT_WANTED, Kind, kind_of, wrong_file_diagnostic};
use crate::import::{ImportOptions, ReadOptions, import, read_file};
use crate::model::Edition;
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
    pub(super) fn edition(&self) -> Option<Edition> {
        self.edition.as_deref().and_then(Edition::parse)
    }

    /// Reads the file; `Err` says why it cannot be read, or that `--service` was given for a
    /// `.env` file, which has no services (a usage error, as any option that does not apply).
    pub(super) fn read(&self, sources: &mut Sources) -> Result<crate::import::Read, String> {
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
    pub(super) fn wrong_file(
        &self,
        read: &crate::import::Read,
        sources: &Sources,
    ) -> Option<Diagnostics> {
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
            return emit(&imported.profile, args.output.as_ref(), sources.inputs());
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
    let written = emit(draft, output, inputs);
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
