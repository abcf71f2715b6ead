//! `svcgen init`: a commented starting profile (the library side is `crate::commands::init`).

use super::EXIT_IO;
use super::emit::emit;
use crate::support::inputs::Inputs;
use clap::Args;
use std::path::PathBuf;

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
