//! Every check that rendering makes, in one function that both `validate` and `render` call, so
//! that `validate` fails wherever `render` would: reading secrets that are asked for, values a
//! target cannot carry (or that a reader would read differently), and each template rendered.

use super::host_files::{self, HostRead, HostReader};
use super::{EnvOptions, Input, Target, TemplateError, Templates, checks, environment, format};
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
    /// Where resolve warned about a host path (W0310: missing, a folder) that rendering then
    /// could not copy (E0245): the error says it, so the warning is left out (one cause, one
    /// diagnostic). See [`Rendered::drop_superseded`].
    pub superseded: Vec<crate::diag::source::Origin>,
    /// The Secrets and ConfigMaps the operator creates, from the one plan (`svcgen krm` lists
    /// them as results; the `deploy-notes` target from the same plan).
    pub to_create: Vec<super::k8s_plan::ToCreate>,
}

impl Rendered {
    /// Removes from `earlier` (resolve's diagnostics) the warnings this rendering's errors
    /// replace; the caller then adds `self.diagnostics`.
    pub fn drop_superseded(&self, earlier: &mut Diagnostics) {
        earlier.items.retain(|d| {
            !(d.code == Code::HostPathMissing
                && d.origin.is_some_and(|o| self.superseded.contains(&o)))
        });
    }
}

/// A file the kustomize base holds a copy of.
pub struct HostCopy {
    /// Relative to the output folder, `/`-separated.
    pub relative: String,
    /// The host file copied (`None`: a file svcgen makes, the `.gitignore`).
    pub host_path: Option<std::path::PathBuf>,
    pub bytes: Vec<u8>,
}

/// Renders `targets` of `resolved`, to be written into `folder` (host paths are relative to it;
/// `None`: the profile's own folder), and gathers every diagnostic rendering produces. The
/// deployment is planned once, its host files read through `reader`: `validate` and `render`
/// both come here, so a host file one cannot read fails both. `reader` is `None` where there is
/// no file system (the browser playground): host files are then not read, and not reported.
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
        superseded: Vec::new(),
        to_create: Vec::new(),
    };
    let env = match environment(resolved, options) {
        Ok(env) => env,
        Err(diags) => {
            out.diagnostics = diags;
            return out;
        }
    };
    let mut input = Input::new(resolved, &env, folder, options, reader);
    out.diagnostics
        .extend(host_files::unreadable(&input.plan.host_files));
    out.superseded = input
        .plan
        .host_files
        .iter()
        .filter(|f| matches!(f.read, HostRead::Unreadable(_)))
        .filter_map(|f| f.host_origin)
        .collect();
    for &target in targets {
        let found = checks::target(target, resolved, &env);
        let stop = found.has_errors();
        // The same problem of several targets (a value no Kubernetes target carries) once.
        out.diagnostics.extend_new(found.items);
        if stop {
            continue;
        }
        match format(target, &input, templates) {
            Ok(text) => out.files.push((target, text)),
            Err(error) => {
                out.diagnostics.push(Diagnostic::new(
                    Code::Unwritable,
                    format!("the {} target could not be rendered", target.name()),
                ));
                out.template_errors.push(error);
            }
        }
    }
    out.diagnostics
        .extend_new(checks::deployed(resolved, targets).items);
    crate::resolve::allow::acknowledge(&mut out.diagnostics, &resolved.allow);
    if options.copy_host_files && targets.contains(&Target::Kustomization) {
        out.copies = copies(&input.plan.host_files);
    }
    if out.diagnostics.has_errors() {
        out.files.clear();
        out.copies.clear();
    } else {
        out.to_create = std::mem::take(&mut input.plan.to_create);
    }
    out
}

/// The copies of the host files read, and a `.gitignore` beside secret ones.
fn copies(files: &[host_files::HostFile<'_>]) -> Vec<HostCopy> {
    let mut out: Vec<HostCopy> = files
        .iter()
        .filter_map(|file| match &file.read {
            HostRead::Read(bytes) => Some(HostCopy {
                relative: file.relative.clone(),
                host_path: Some(file.host_path.to_path_buf()),
                bytes: bytes.clone(),
            }),
            HostRead::Unreadable(_) | HostRead::NotRead => None,
        })
        .collect();
    if files.iter().any(|f| f.secret) {
        out.push(HostCopy {
            relative: format!("{}/.gitignore", super::k8s_plan::SECRETS_FOLDER),
            host_path: None,
            bytes: SECRETS_GITIGNORE.as_bytes().to_vec(),
        });
    }
    out
}

/// Keeps the copied secret files (and itself) out of git.
const SECRETS_GITIGNORE: &str = "# Written by svcgen render --include-secrets: these files hold secrets; never commit them.\n*\n";
