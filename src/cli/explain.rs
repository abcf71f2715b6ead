//! `svcgen explain`: print what the spec model knows of a variable and, with `--profile`, the
//! value in effect in that profile and the layer that set it.

use super::check_layers;
use super::report::{io_error, report};
use super::{DiagnosticArgs, EXIT_INVALID, EXIT_IO, EXIT_OK, LayerArgs};
use crate::commands::explain::{describe, lookup};
use crate::diag::source::{Origin, Sources};
use crate::model::{Edition, Var};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A variable name (CN_SQL_DB_DIALECT) or profile key (persistence.sql.dialect)
    #[arg(required_unless_present = "start")]
    pub name: Option<String>,
    /// Print the start of this profile's image as a timeline instead: each wait, its worst-case
    /// start and end, its source, and where each runtime ends the start
    #[arg(long, value_name = "PROFILE", conflicts_with_all = ["name", "profile", "edition"], value_parser = super::choice::PathParser(super::choice::PathRole::ReadFile))]
    pub start: Option<PathBuf>,
    /// How to print the timeline of --start
    #[arg(long, value_parser = super::choice::ChoiceParser::new("--format", vec!["human", "json"]))]
    pub format: Option<String>,
    /// Show only this edition's entry
    #[arg(long, value_parser = super::editions())]
    pub edition: Option<String>,
    /// Also show the value in effect in this profile (with its layers) and where it was set
    #[arg(long, value_name = "PROFILE", value_parser = super::choice::PathParser(super::choice::PathRole::ReadFile))]
    pub profile: Option<PathBuf>,
    #[command(flatten)]
    pub layers: LayerArgs,
}

pub fn run(args: &ExplainArgs) -> u8 {
    if let Some(profile) = &args.start {
        let json = args.format.as_deref() == Some("json");
        return super::explain_start::run(profile, &args.layers, json);
    }
    if args.format.is_some() {
        io_error("--format applies to the timeline of --start PROFILE only");
        return EXIT_IO;
    }
    let edition = args.edition.as_deref().and_then(Edition::parse);
    let vars = match lookup(args.name.as_deref().unwrap_or_default(), edition) {
        Ok(vars) => vars,
        Err(message) => {
            eprintln!("error: {message}");
            return EXIT_INVALID;
        }
    };
    match &args.profile {
        Some(profile) => in_profile(profile, args, &vars, edition.is_some()),
        None => {
            describe_all(&vars);
            EXIT_OK
        }
    }
}

/// What the spec model says of each entry.
fn describe_all(vars: &[&Var]) {
    let text: Vec<String> = vars.iter().map(|v| describe(v)).collect();
    print(&text.join("\n"));
}

/// Writes to stdout; a closed pipe (`| head`) ends the output quietly instead of panicking as
/// `print!` does.
fn print(text: &str) {
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn at(sources: &Sources, origin: Origin) -> String {
    let pos = sources.line_col(origin.source, origin.start);
    format!(
        "{}:{}:{}",
        sources.get(origin.source).name,
        pos.line,
        pos.column
    )
}

/// The entry of the profile's edition (every entry when `--edition` chose, or when the edition
/// has none), then the value in effect in the profile and every layer that set the key.
fn in_profile(
    profile: &std::path::Path,
    args: &ExplainArgs,
    vars: &[&Var],
    edition_given: bool,
) -> u8 {
    let mut sources = Sources::new();
    let checked = match check_layers(&args.layers.layers(profile), &mut sources) {
        Ok(c) => c,
        Err(e) => {
            io_error(&e);
            return EXIT_IO;
        }
    };
    let Some(resolved) = &checked.resolved else {
        let quiet = DiagnosticArgs {
            format: super::Format::Human,
            deny_warnings: false,
            quiet: true,
        };
        describe_all(vars);
        report(&checked.diagnostics, &sources, &quiet, false);
        return EXIT_INVALID;
    };
    if let Some(asked) = args
        .edition
        .as_deref()
        .filter(|e| *e != resolved.edition.as_str())
    {
        io_error(&format!(
            "--edition {asked} contradicts --profile {}, which is edition {}: leave out \
             --edition (the profile's edition is shown), or name a profile of edition {asked}",
            super::display_name(profile),
            resolved.edition
        ));
        return EXIT_IO;
    }
    let own: Vec<&Var> = vars
        .iter()
        .copied()
        .filter(|v| v.editions.contains(&resolved.edition))
        .collect();
    describe_all(if edition_given || own.is_empty() {
        vars
    } else {
        &own
    });
    let mut out = format!(
        "\nin {} (edition {}):\n",
        super::display_name(profile),
        resolved.edition
    );
    let Some(var) = vars.iter().find(|v| v.editions.contains(&resolved.edition)) else {
        out.push_str(&format!(
            "  not a variable of edition {}\n",
            resolved.edition
        ));
        print(&out);
        return EXIT_OK;
    };
    out.push_str(&value_line(resolved, var, &sources));
    out.push_str(&overrides(&checked.overridden, var, &sources));
    print(&out);
    EXIT_OK
}

/// The variable's value in the profile and where it was set, as one line.
fn value_line(resolved: &crate::resolve::Resolved, var: &Var, sources: &Sources) -> String {
    let Some(rv) = resolved.vars.iter().find(|rv| rv.var.key == var.key) else {
        return format!(
            "  {} is not in the environment: its group does not apply, or it has no value\n",
            var.env
        );
    };
    let value = match &rv.value {
        crate::resolve::Typed::Deferred(d) => format!("${{{}}} (filled in at deploy time)", d.var),
        other => other
            .env_text()
            .unwrap_or_else(|| "<secret reference>".to_string()),
    };
    match rv.origin {
        Some(origin) => format!(
            "  {} = {value:?}, set at {}\n",
            var.env,
            at(sources, origin)
        ),
        None => format!("  {} = {value:?}, the spec's default\n", var.env),
    }
}

/// One line per value of the variable (or below its key) that a later layer replaced.
fn overrides(overridden: &crate::profile::Overridden, var: &Var, sources: &Sources) -> String {
    let nested = format!("{}.", var.key);
    (overridden.iter())
        .filter(|(k, _)| *k == var.key || k.starts_with(&nested))
        .map(|(key, origin)| format!("  overrides {key} set at {}\n", at(sources, *origin)))
        .collect()
}
