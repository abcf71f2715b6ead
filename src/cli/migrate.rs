//! `svcgen migrate`: an edition A profile rewritten as edition B (the library side is
//! `crate::commands::migrate`).

use super::emit::emit;
use super::report::{Reporter, io_error};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::import::kind::{Kind, PROFILE_WANTED, kind_of, wrong_file_diagnostic};
use crate::output::write_in_place;
use clap::Args;
use std::path::PathBuf;

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
                return code.max(emit(
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
