//! The one function that both `validate` and `render` call, so that `validate` fails wherever
//! `render` would: the deployment decided once (secrets read, every check made), then each
//! target formatted through its template.

use super::{Contexts, EnvOptions, Input, Target, TemplateError, Templates, format};
use crate::deployment::host_files::{self, HostRead, HostReader};
use crate::deployment::{Deployment, decide};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::resolve::Resolved;
use std::path::Path;

/// The outcome of rendering some targets of one profile.
pub struct Rendered {
    /// Every target's text, in the order asked; empty when there is any error.
    pub files: Vec<(Target, String)>,
    pub diagnostics: Diagnostics,
    /// Templates that failed (each also counted as an error diagnostic).
    pub template_errors: Vec<TemplateError>,
    /// The files the kustomize base holds besides the targets (with `copy_host_files` and the
    /// kustomization among the targets): each host file's copy, by its path relative to the
    /// output folder, and a `.gitignore` beside secret ones; empty when there is any error.
    pub copies: Vec<HostCopy>,
    /// The Secrets and ConfigMaps the operator creates, from the one plan (`svcgen krm` lists
    /// them as results; the `deploy-notes` target from the same plan).
    pub to_create: Vec<crate::deployment::k8s_plan::ToCreate>,
}

/// A file the kustomize base holds a copy of.
pub struct HostCopy {
    /// Relative to the output folder, `/`-separated.
    pub relative: String,
    /// The host file copied, as it was read (`None`: a file svcgen makes, the `.gitignore`).
    pub host: Option<crate::profile::FileAsRead>,
    pub bytes: Vec<u8>,
}

/// Renders `targets` of `resolved`, to be written into `folder` (host paths are relative to it;
/// `None`: the profile's own folder): the deployment is decided once
/// ([`crate::deployment::decide`], its host files read through `reader`; `None` where there is
/// no file system), then each target it passed is formatted. `validate` and `render` both come
/// here, so a host file one cannot read fails both.
pub fn render_checked(
    resolved: &Resolved,
    options: EnvOptions,
    targets: &[Target],
    templates: &Templates,
    folder: Option<&Path>,
    reader: Option<HostReader<'_>>,
) -> Rendered {
    let mut out = Rendered {
        files: Vec::new(),
        diagnostics: Diagnostics::default(),
        template_errors: Vec::new(),
        copies: Vec::new(),
        to_create: Vec::new(),
    };
    let carriers = super::carriers(targets);
    let mut deployment = match decide(resolved, options, &carriers, folder, reader) {
        Ok(deployment) => deployment,
        Err(diags) => {
            out.diagnostics = diags;
            return out;
        }
    };
    let failed = format_all(&deployment, targets, templates, &mut out);
    out.diagnostics = std::mem::take(&mut deployment.diagnostics);
    // A target that could not be formatted says so after its own diagnostics.
    for (at, diagnostic) in failed.into_iter().rev() {
        out.diagnostics.items.insert(at, diagnostic);
    }
    if options.copy_host_files && targets.contains(&Target::Kustomization) {
        out.copies = copies(&deployment.plan.host_files);
    }
    if out.diagnostics.has_errors() {
        out.files.clear();
        out.copies.clear();
    } else {
        out.to_create = std::mem::take(&mut deployment.plan.to_create);
    }
    out
}

/// Formats each of `targets` its verdict lets through into `out`; returns the error diagnostic
/// of each that failed, with where it goes among the deployment's diagnostics.
fn format_all(
    deployment: &Deployment<'_>,
    targets: &[Target],
    templates: &Templates,
    out: &mut Rendered,
) -> Vec<(usize, Diagnostic)> {
    let input = Input::of(deployment);
    let mut contexts = Contexts::default();
    let mut failed = Vec::new();
    for (&target, verdict) in targets.iter().zip(&deployment.verdicts) {
        if !verdict.renders {
            continue;
        }
        match format(target, &input, templates, &mut contexts) {
            Ok(text) => out.files.push((target, text)),
            Err(error) => {
                failed.push((
                    verdict.diagnostics_end,
                    Diagnostic::new(
                        Code::Unwritable,
                        format!("the {} target could not be rendered", target.name()),
                    ),
                ));
                out.template_errors.push(error);
            }
        }
    }
    failed
}

/// The copies of the host files read, and a `.gitignore` beside secret ones.
fn copies(files: &[host_files::HostFile<'_>]) -> Vec<HostCopy> {
    let mut out: Vec<HostCopy> = files
        .iter()
        .filter_map(|file| match &file.read {
            HostRead::Read(read) => Some(HostCopy {
                relative: file.relative.clone(),
                host: Some(read.file),
                bytes: read.bytes.clone(),
            }),
            HostRead::Unreadable(_) | HostRead::NotRead => None,
        })
        .collect();
    if files.iter().any(|f| f.secret) {
        out.push(HostCopy {
            relative: format!("{}/.gitignore", host_files::SECRETS_FOLDER),
            host: None,
            bytes: SECRETS_GITIGNORE.as_bytes().to_vec(),
        });
    }
    out
}

/// Keeps the copied secret files (and itself) out of git.
const SECRETS_GITIGNORE: &str = "# Written by svcgen render --include-secrets: these files hold secrets; never commit them.\n*\n";
