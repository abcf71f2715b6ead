//! `explain`: everything the spec model knows of one variable, found by env name or profile key.

use crate::model::{Condition, Edition, Model, Var};
use crate::support::suggest::did_you_mean;
use std::fmt::Write;

/// The entries matching an env name (any case) or a profile key, limited to `edition` if given.
pub fn lookup(query: &str, edition: Option<Edition>) -> Result<Vec<&'static Var>, String> {
    let model = Model::get();
    let upper = query.to_ascii_uppercase();
    let found: Vec<&Var> = model
        .vars
        .iter()
        .filter(|v| v.env == upper || v.key == query)
        .filter(|v| edition.is_none_or(|e| v.editions.contains(&e)))
        .collect();
    if !found.is_empty() {
        return Ok(found);
    }
    if let Some(e) = edition
        && model.vars.iter().any(|v| v.env == upper || v.key == query)
    {
        let shown = crate::support::escape::one_line(query);
        return Err(format!("`{shown}` does not exist in edition {e}"));
    }
    let names = model.env_names();
    let keys = model.keys();
    let near = did_you_mean(query, names.iter().chain(keys.iter()).copied());
    let shown = crate::support::escape::one_line(query);
    let mut message = format!("`{shown}` is neither a variable name nor a profile key of the spec");
    if let Some(near) = near {
        let _ = write!(message, "; did you mean `{near}`?");
    }
    Err(message)
}

/// The text `svcgen explain` prints for one entry.
pub fn describe(var: &Var) -> String {
    let model = Model::get();
    let group = model.group(&var.group);
    let mut out = String::new();
    let _ = writeln!(out, "{}  (profile key `{}`)", var.env, var.key);
    let _ = writeln!(out, "  {}", var.meaning);
    let _ = writeln!(out, "  editions:      {}", var.editions_text());
    values(var, &mut out);
    uses(var, group, &mut out);
    let _ = writeln!(out, "  spec section:  {} ({})", group.section, group.title);
    out
}

/// What the variable takes: its type, unit, default, allowed values, keys, file and secrecy.
fn values(var: &Var, out: &mut String) {
    let _ = writeln!(out, "  type:          {}", var.ty.name());
    if let Some(unit) = var.unit {
        let _ = writeln!(
            out,
            "  unit:          {}, at least {}",
            unit.words(),
            var.min.unwrap_or(1)
        );
    }
    let _ = writeln!(out, "  default:       {}", var.default.describe());
    if let Some(allowed) = &var.allowed {
        let _ = writeln!(out, "  allowed:       {}", allowed.join(", "));
    } else if var.allowed_not_shown {
        let _ = writeln!(
            out,
            "  allowed:       not shown by the spec (any non-empty string is accepted)"
        );
    }
    if !var.mapping_keys.is_empty() {
        let _ = writeln!(
            out,
            "  keys:          {} (all required)",
            var.mapping_keys.join(", ")
        );
    }
    if let Some(kind) = var.file {
        let _ = writeln!(
            out,
            "  file:          the container reads a {} file at this path",
            kind.name()
        );
    }
    if var.secret {
        let _ = writeln!(
            out,
            "  secret:        yes; never written in clear text unless --include-secrets"
        );
    }
    if var.required {
        let _ = writeln!(out, "  required:      whenever it applies");
    }
}

/// When it applies and what reads it: its group's conditions, a restart, a note, the texts it
/// is put into raw.
fn uses(var: &Var, group: &crate::model::Group, out: &mut String) {
    let applies = if group.when.is_empty() {
        "always".to_string()
    } else {
        group
            .when
            .iter()
            .map(Condition::to_string)
            .collect::<Vec<_>>()
            .join(", or ")
    };
    let _ = writeln!(out, "  applies when:  {applies}");
    if let Some(restart) = &var.restart {
        let _ = writeln!(
            out,
            "  restart:       changing it needs a restart of the {restart}"
        );
    }
    if let Some(note) = &var.note {
        let _ = writeln!(out, "  note:          {note}");
    }
    for (consumer, text) in var
        .consumers
        .iter()
        .zip(crate::value_type::consumer::described(var))
    {
        let _ = writeln!(out, "  put raw into:  {text}");
        if !consumer.reserved.is_empty() {
            let _ = writeln!(out, "  reserved:      {}", consumer.reserved.join(" "));
        }
    }
}
