//! `svcgen explain`: print what the spec model knows of a variable.

use super::{EXIT_INVALID, EXIT_OK};
use crate::explain::{describe, lookup};
use crate::model::Edition;
use clap::Args;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A variable name (CN_SQL_DB_DIALECT) or profile key (persistence.sql.dialect)
    pub name: String,
    /// Show only this edition's entry
    #[arg(long, value_parser = ["A", "B"])]
    pub edition: Option<String>,
}

pub fn run(args: &ExplainArgs) -> u8 {
    let edition = args.edition.as_deref().and_then(Edition::parse);
    match lookup(&args.name, edition) {
        Ok(vars) => {
            let text: Vec<String> = vars.into_iter().map(describe).collect();
            print!("{}", text.join("\n"));
            EXIT_OK
        }
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_INVALID
        }
    }
}
