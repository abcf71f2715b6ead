//! `svcgen schema`: the JSON Schema of profiles (the library side is `crate::artifacts::schema`).

use super::emit::emit;
use crate::support::inputs::Inputs;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Write the schema to this file (atomically) instead of stdout
    #[arg(short, long, value_parser = super::choice::PathParser(super::choice::PathRole::WriteFile))]
    pub output: Option<PathBuf>,
}

pub fn schema(args: &SchemaArgs) -> u8 {
    emit(
        &crate::artifacts::schema::profile_schema_text(),
        args.output.as_ref(),
        &Inputs::default(),
    )
}
