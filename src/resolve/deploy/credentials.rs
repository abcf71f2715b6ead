//! Credential files the image opens on every try of its startup wait (the model's
//! `needed_at_start`): a deployment without a source for one starts a container that waits out
//! `wait.max_time` and stops. A warning names the file, its variable and that failure.

use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Condition, Model};
use crate::resolve::{Resolved, ResolvedVar};

/// The needed files that no `[deploy.files]` entry provides, in model order.
pub fn without_source(resolved: &Resolved) -> Vec<(&ResolvedVar, String)> {
    resolved
        .vars
        .iter()
        .filter(|rv| rv.var.needed_at_start)
        .filter(|rv| !(resolved.deploy.files.iter()).any(|f| f.env.as_deref() == Some(&rv.var.env)))
        .filter_map(|rv| Some((rv, rv.value.env_text().filter(|p| !p.is_empty())?)))
        .collect()
}

/// One warning per needed file without a source, at the variable or the setting that made it
/// apply (its adapter or backend). A profile that writes neither leaves the adapter at its
/// default without choosing it: that is left to DEPLOY.md's list, which names every file.
pub fn check(resolved: &Resolved, diags: &mut Diagnostics) {
    let model = Model::get();
    let max_time_key = &model.container.startup_checks.max_time;
    let max_time = (resolved.vars.iter())
        .find(|rv| &rv.var.key == max_time_key)
        .and_then(|rv| rv.value.env_text())
        .unwrap_or_default();
    for (rv, path) in without_source(resolved) {
        let var = rv.var;
        let Some(origin) = rv.origin.or_else(|| cause_origin(model, resolved, var)) else {
            continue;
        };
        diags.push(
            Diagnostic::new(
                Code::CredentialFileMissing,
                format!(
                    "`{}` ({}) names {path}, and the profile gives no source for it: the image \
                     retries opening it until `{max_time_key}` ({max_time} s) runs out, then stops",
                    var.key, var.env
                ),
            )
            .at(origin)
            .label(format!("{path} must exist in the container"))
            .help(format!(
                "add it under [deploy.files]: \"{}\" = {{ secret = \"NAME\", key = \"KEY\" }} (or \
                 host = \"PATH\"); DEPLOY.md lists each file to provide",
                var.key
            ))
            .help(var.meaning.clone()),
        );
    }
}

/// Where the setting that makes the variable's group apply was written (its adapter or backend).
fn cause_origin(model: &Model, resolved: &Resolved, var: &crate::model::Var) -> Option<Origin> {
    model.group(&var.group).when.iter().find_map(|condition| {
        let key = match condition {
            Condition::KeyEquals { key, .. } => key,
            Condition::Backend { .. } => &model.backends.selector,
        };
        resolved.vars.iter().find(|rv| &rv.var.key == key)?.origin
    })
}
