//! Credential files the image opens on every try of its startup wait (the model's
//! `needed_at_start`): a deployment without a source for one starts a container that waits out
//! `wait.max_time` and stops. A warning names the file, its variable and that failure.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::Model;
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

/// One warning per needed file without a source, at the variable, else the setting that made
/// it apply (its adapter or backend), else the profile ([`Resolved::deployment_origin`]): a
/// default adapter deploys the same files as a chosen one. A render-time check, of the targets
/// that run the container (`render::checks`): a `.env` or the docs need no file.
pub fn check(resolved: &Resolved, diags: &mut Diagnostics) {
    let model = Model::get();
    let max_time_key = &model.container.startup_checks.max_time;
    let max_time = (resolved.vars.iter())
        .find(|rv| &rv.var.key == max_time_key)
        .and_then(|rv| rv.value.env_text())
        .unwrap_or_default();
    for (rv, path) in without_source(resolved) {
        let var = rv.var;
        diags.push(
            Diagnostic::new(
                Code::CredentialFileMissing,
                format!(
                    "`{}` ({}) names {path}, and the profile gives no source for it: the image \
                     retries opening it until `{max_time_key}` ({max_time} s) runs out, then stops",
                    var.key, var.env
                ),
            )
            .at(resolved.deployment_origin(rv))
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
