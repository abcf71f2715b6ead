//! The files the image opens at start: the credential files of its adapters and backends (the
//! model's `needed_at_start`), opened on every try of its startup wait, and edition A's SSA file
//! (the model's `[image] ssa_file`), without which its wait script refuses to start. A deployment
//! without a source for one that its targets mount starts a container that stops: a warning
//! names the file, its variable, the targets it lacks a source in and that failure.

use super::{FileSource, Mounts};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model};
use crate::resolve::{Extra, Resolved};

/// A file the image opens at start.
#[derive(Debug, Clone, PartialEq)]
pub struct NeededFile {
    /// Its name under `[deploy.files]`: the profile key of its variable, or the image fact's key.
    pub key: String,
    /// The variable naming its path in the container.
    pub env: String,
    /// Where the container opens it.
    pub path: String,
    /// What it is (the variable's meaning, or the image fact).
    pub what: String,
    /// What happens in a container without it.
    pub failure: String,
    /// Where a warning about it points.
    pub origin: Origin,
}

/// Every file a container of `resolved` opens at start, in model order, the SSA file last.
pub fn needed(resolved: &Resolved) -> Vec<NeededFile> {
    let model = Model::get();
    let max_time_key = &model.container.startup_checks.max_time;
    let max_time = (resolved.vars.iter())
        .find(|rv| &rv.var.key == max_time_key)
        .and_then(|rv| rv.value.env_text())
        .unwrap_or_default();
    let mut out: Vec<NeededFile> = (resolved.vars.iter())
        .filter(|rv| rv.var.needed_at_start)
        .filter_map(|rv| {
            Some(NeededFile {
                key: rv.var.key.clone(),
                env: rv.var.env.clone(),
                path: rv.value.env_text().filter(|p| !p.is_empty())?,
                what: rv.var.meaning.clone(),
                failure: format!(
                    "the image retries opening it until `{max_time_key}` ({max_time} s) runs out, then stops"
                ),
                origin: resolved.deployment_origin(rv),
            })
        })
        .collect();
    if let Some((path, moved_at)) = ssa_path(resolved.edition, &resolved.extras) {
        let fact = &model.image.ssa_file;
        out.push(NeededFile {
            key: fact.key.clone(),
            env: fact.env.clone(),
            path,
            what: format!(
                "edition {}'s SSA file (a fact about the image, outside the spec)",
                resolved.edition
            ),
            failure: "the image's wait script refuses to start without it".to_string(),
            origin: moved_at
                .or(resolved.deploy.declared_at)
                .unwrap_or(resolved.edition_at),
        });
    }
    out
}

/// Where the image of `edition` opens its SSA file, and where `[env]` moves it (`None`: the
/// image's path); `None` for an edition whose image has none. A path filled in at deploy time is
/// not known here: its default, else the image's.
pub fn ssa_path(edition: Edition, extras: &[Extra]) -> Option<(String, Option<Origin>)> {
    let fact = &Model::get().image.ssa_file;
    if !fact.editions.contains(&edition) {
        return None;
    }
    let moved = extras.iter().rev().find(|e| e.name == fact.env);
    let path = moved.and_then(|e| match &e.deploy_env {
        None => Some(e.value.clone()),
        Some(deferred) => deferred.default_text(),
    });
    match path.filter(|p| !p.is_empty()) {
        Some(path) => Some((path, moved.map(|e| e.origin))),
        None => Some((fact.path.clone(), None)),
    }
}

/// The deployments (`mounts`, each with the names of its targets) in which `file` has no
/// source: compose mounts `host` sources, Kubernetes `secret` and `configmap` ones.
fn lacking<'a>(
    file: &NeededFile,
    sources: &[FileSource],
    mounts: &'a [(Mounts, Vec<&'static str>)],
) -> Vec<&'a (Mounts, Vec<&'static str>)> {
    let source = sources.iter().find(|f| f.key == file.key);
    (mounts.iter())
        .filter(|(how, _)| !source.is_some_and(|f| f.mounted_by(*how)))
        .collect()
}

/// One warning per needed file that the deployments of `mounts` (each with its targets) lack a
/// source for, naming them all (one cause, one diagnostic), at its source in `[deploy.files]`
/// when it has one of the other kind; else at the variable, else the setting
/// that made it apply (its adapter or backend), else the profile
/// ([`Resolved::deployment_origin`]): a default adapter deploys the same files as a chosen one.
/// A render-time check, of the targets that run the container (`deployment::checks`): a `.env` or
/// the docs need no file.
pub fn check(resolved: &Resolved, mounts: &[(Mounts, Vec<&'static str>)], diags: &mut Diagnostics) {
    for file in needed(resolved) {
        let lacking = lacking(&file, &resolved.deploy.files, mounts);
        if lacking.is_empty() {
            continue;
        }
        let declared = resolved.deploy.files.iter().find(|f| f.key == file.key);
        let targets: Vec<String> = (lacking.iter())
            .map(|(how, names)| format!("{} (-t {})", how.deployment(), names.join(",")))
            .collect();
        let fields: Vec<&str> = lacking.iter().map(|(how, _)| how.fields()).collect();
        let (key, env, path) = (&file.key, &file.env, &file.path);
        let message = if declared.is_some() {
            format!(
                "`{key}` ({env}) names {path}, and its source in [deploy.files] has no {}, which {} mounts: there {}",
                fields.join(" nor "),
                targets.join(" nor "),
                file.failure
            )
        } else {
            format!(
                "`{key}` ({env}) names {path}, and the profile gives no source for it: {} (without a source in {})",
                file.failure,
                targets.join(" nor ")
            )
        };
        let fields: Vec<&str> = lacking.iter().map(|(how, _)| how.source_fields()).collect();
        let mut warning = Diagnostic::new(Code::CredentialFileMissing, message);
        if let [(how, _)] = lacking.as_slice() {
            warning = warning.help(format!(
                "for a profile not deployed with {}: `{} = false` under [deploy]",
                how.deployment(),
                how.setting()
            ));
        }
        diags.push(
            warning
                .at(declared.map_or(file.origin, |f| f.origin))
                .label(format!("{path} must exist in the container"))
                .help(format!(
                    "give it a source under [deploy.files]: \"{key}\" = {{ {} }} (host for compose; \
                     secret or configmap for Kubernetes); DEPLOY.md lists each file to provide",
                    fields.join(", ")
                ))
                .help(file.what.clone()),
        );
    }
}
