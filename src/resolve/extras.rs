//! The `[env]` table: variables outside the spec, passed through as they are.

use super::Typed;
use super::convert::is_env_name;
use super::deferred::{DEPLOY_ENV, Deferred, default_text_problem, read_form, unwritable_default};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model};
use crate::profile::{Entry, Value};
use crate::support::suggest::Suggester;

use super::extra::Extra;

/// The "did you mean" of the baked model's env names, shared by the process; `None` for another
/// model (tests).
fn shipped_env_suggester(model: &Model) -> Option<&'static Suggester<'static>> {
    std::ptr::eq(model, Model::get()).then(Model::env_suggester)
}

/// Reads the `[env]` table's entries, with a warning for each and "did you mean" for near names.
pub fn extras(
    model: &Model,
    edition: Edition,
    env: &Entry,
    mode: super::Mode<'_>,
    diags: &mut Diagnostics,
) -> Vec<Extra> {
    let table = match &env.node.value {
        Value::Table(t) => t,
        other => {
            diags.push(
                Diagnostic::wrong_type("env", "a table", other.type_name())
                    .at(env.node.origin)
                    .help("write [env] and then NAME = \"value\" lines"),
            );
            return Vec::new();
        }
    };
    let local;
    let suggester = match shipped_env_suggester(model) {
        Some(shared) => shared,
        None => {
            local = Suggester::new(model.env_names());
            &local
        }
    };
    let mut out = Vec::new();
    for entry in &table.entries {
        if let Some(refused) = refused_name(model, edition, entry) {
            diags.push(refused);
            continue;
        }
        let (value, deploy_env) = match deferred_extra(entry, diags) {
            Some(Some(deferred)) => (String::new(), Some(deferred)),
            Some(None) => continue,
            None => match extra_value(entry, diags) {
                Some(value) => (value, None),
                None => continue,
            },
        };
        // A variable the image reads (a fact of the model) is passed through as what it is, as
        // DEPLOY.md may tell the user to set it: no warning. Any other is unchecked (W0306).
        let image_reads = model.image_reads(&entry.key, edition);
        if image_reads.is_some() {
            let written_empty = deploy_env.is_none() && value.is_empty();
            if let Some(refused) = empty_image_file(model, entry, written_empty) {
                diags.push(refused);
            }
        } else if matches!(mode, super::Mode::Profile) {
            diags.push(passed_through(suggester, entry));
        }
        out.push(Extra {
            name: entry.key.clone(),
            value,
            deploy_env,
            origin: entry.node.origin,
        });
    }
    super::image_env::check(model, edition, &out, diags);
    out
}

/// Why an `[env]` name cannot be passed through: not a name, a secret's old name, a variable of
/// the spec (of this edition or another); `None` when it can.
fn refused_name(model: &Model, edition: Edition, entry: &Entry) -> Option<Diagnostic> {
    let name = &entry.key;
    if !is_env_name(name) {
        return Some(
            Diagnostic::new(
                Code::EnvName,
                format!("`{name}` is not a valid environment variable name"),
            )
            .at(entry.key_origin)
            .label("invalid name")
            .help("use letters, digits and `_`, not starting with a digit"),
        );
    }
    if let Some(var) = crate::diag::redact::secret_var_of_env(name).filter(|v| &v.env != name) {
        return Some(secret_old_name(name, var, entry.key_origin));
    }
    if let Some(var) = model
        .entries_by_env(name)
        .find(|v| v.editions.contains(&edition))
    {
        return Some(
            Diagnostic::new(
                Code::EnvIsSpecVar,
                format!("`{name}` is a variable of the spec: set it with its profile key"),
            )
            .at(entry.key_origin)
            .label("spec variable")
            .help(format!("use `{}` instead", var.key)),
        );
    }
    let var = model.entries_by_env(name).next()?;
    Some(
        Diagnostic::new(
            Code::OtherEdition,
            format!(
                "`{name}` exists only in edition {}; this profile is edition {edition}",
                var.editions_text()
            ),
        )
        .at(entry.key_origin)
        .label(format!("edition {} only", var.editions_text()))
        .help(format!(
            "remove it, or set edition = \"{}\" and use `{}`",
            var.editions_text(),
            var.key
        )),
    )
}

/// An `[env]` value as text: a string, integer or boolean without NUL.
/// `NAME = { deploy_env = "X", default = "d" }`: `Some` when the entry has that form (inside,
/// `None` when it is malformed); its default is a string, integer or boolean as any `[env]` value.
fn deferred_extra(entry: &Entry, diags: &mut Diagnostics) -> Option<Option<Deferred>> {
    let Value::Table(table) = &entry.node.value else {
        return None;
    };
    table.get(DEPLOY_ENV)?;
    let key = format!("env.{}", entry.key);
    let read_default = |default: &Entry, diags: &mut Diagnostics| {
        let text = extra_value(default, diags)?;
        match default_text_problem(&text) {
            None => Some(Typed::Text(text)),
            Some(problem) => {
                diags.push(unwritable_default(&key, problem, default.node.origin));
                None
            }
        }
    };
    Some(read_form(&key, table, read_default, diags))
}

fn extra_value(entry: &Entry, diags: &mut Diagnostics) -> Option<String> {
    let name = &entry.key;
    let value = match &entry.node.value {
        Value::String(s) => s.clone(),
        Value::Integer(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => {
            let key = format!("env.{name}");
            diags.push(
                Diagnostic::wrong_type(&key, "a string, integer or boolean", other.type_name())
                    .at(entry.node.origin),
            );
            return None;
        }
    };
    if value.contains('\0') {
        diags.push(Diagnostic::nul_char(&format!("env.{name}")).at(entry.node.origin));
        return None;
    }
    Some(value)
}

/// The warning that a name outside the spec is passed through: what the image reads from it when
/// the model knows (no near spec name then: the user means this variable), else a near name if
/// any.
fn passed_through(suggester: &Suggester<'_>, entry: &Entry) -> Diagnostic {
    let name = &entry.key;
    let near = suggester.suggest(name);
    let message = match near {
        Some(_) => format!("`{name}` is not a variable of the spec; it is passed through as it is"),
        None => format!("`{name}` is not a variable of the spec; it is passed through unchecked"),
    };
    Diagnostic::new(Code::EnvPassthrough, message)
        .at(entry.key_origin)
        .label("not in the spec")
        .suggest(near)
}

/// The variable that moves the image's SSA file (the model's `[image] ssa_file`) set to the empty
/// string: it names no file, and the image refuses to start without one. What the image makes
/// of an empty path is not known; svcgen mounts the file at a path, so it refuses rather than
/// guess.
fn empty_image_file(model: &Model, entry: &Entry, written_empty: bool) -> Option<Diagnostic> {
    let ssa = &model.image.ssa_file;
    (entry.key == ssa.env && written_empty).then(|| {
        Diagnostic::new(
            Code::ImageRefuses,
            format!(
                "`{}` is empty: it names no SSA file, and the image refuses to start without one",
                ssa.env
            ),
        )
        .at(entry.node.origin)
        .label("an empty path is not \"no file\"")
        .help(format!(
            "remove it to use {}, or name the path the file is mounted at",
            ssa.path
        ))
    })
}

/// A secret variable under an old name in `[env]`: refused, as `[env]` values are written in
/// clear text (and the container does not read the old name).
fn secret_old_name(
    name: &str,
    var: &crate::model::Var,
    at: crate::diag::source::Origin,
) -> Diagnostic {
    Diagnostic::new(
        Code::SecretOldName,
        format!(
            "`{name}` is an old name of the secret `{}`: it is never written in clear text",
            var.env
        ),
    )
    .at(at)
    .label("a secret under an old name")
    .help(format!(
        "set `{} = {{ env = \"NAME\" }}` (or {{ file = \"PATH\" }}) instead; the container does not read `{name}`",
        var.key
    ))
}
