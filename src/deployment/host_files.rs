//! The host files a kustomize base carries a copy of, with their read status, decided once per
//! render in the plan. Reading is the edge's job: the caller injects a [`HostReader`] (the CLI
//! passes the one bounded reader), so this module does no I/O itself, and `validate` and
//! `render` read the same files through the same plan and cannot disagree about them.

use super::env::EnvOptions;
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::profile::HostBytes;
use crate::resolve::deploy::{FileSource, K8sKind, names};
use std::path::Path;

/// Where `--out-dir` copies non-secret host files (`files/<object>/<key>`): kustomize's load
/// restrictor refuses a generator file outside the base, so the base holds a copy.
pub const FILES_FOLDER: &str = "files";
/// Where `--out-dir --include-secrets` copies secret host files (`secrets/<object>/<key>`, 0600,
/// beside a `.gitignore` that ignores them all).
pub const SECRETS_FOLDER: &str = "secrets";

/// Reads one host file whole; `Err` says why it cannot be read (a FIFO, a folder, too large).
pub type HostReader<'r> = &'r (dyn Fn(&Path) -> Result<HostBytes, String> + Sync);

/// A host file the base may generate an object from (a non-secret one, or a secret one when
/// secrets are written): where its copy goes and what reading it gave.
#[derive(Debug)]
pub struct HostFile<'a> {
    /// Where the copy goes, relative to the output folder (`/`-separated): the generator's file.
    pub relative: String,
    pub host_path: &'a Path,
    /// The host path as the profile writes it.
    pub written: &'a str,
    /// The profile key whose file it is (`token_server.cert_file`, `deploy.plugins.<name>`).
    pub key: &'a str,
    /// Where the profile names the file.
    pub origin: Origin,
    /// Where the profile writes its host path.
    pub host_origin: Option<Origin>,
    /// A Secret's file: written 0600 under [`SECRETS_FOLDER`].
    pub secret: bool,
    pub read: HostRead,
}

/// What reading a host file gave.
#[derive(Debug)]
pub enum HostRead {
    /// Its bytes.
    Read(HostBytes),
    /// Why it cannot be read.
    Unreadable(String),
    /// Not read: no reader was given (`svcgen krm`, which never reads host files).
    NotRead,
}

/// The host files of `files` the kustomize base generates objects from, each read through
/// `reader` (when given). Which files these are does not depend on where the outputs go, so
/// that every command that plans the same profile reads the same files.
pub fn host_files<'a>(
    files: &'a [FileSource],
    options: EnvOptions,
    reader: Option<HostReader<'_>>,
) -> Vec<HostFile<'a>> {
    files
        .iter()
        .filter_map(|file| {
            let mut host = base_file(file, options)?;
            host.read = match reader {
                Some(read) => match read(host.host_path) {
                    Ok(bytes) => HostRead::Read(bytes),
                    Err(why) => HostRead::Unreadable(why),
                },
                None => HostRead::NotRead,
            };
            Some(host)
        })
        .collect()
}

/// The host file of `file` that a base would copy: one with a host path and a Kubernetes
/// object, secret ones only when secrets are written; not read yet.
pub fn base_file(file: &FileSource, options: EnvOptions) -> Option<HostFile<'_>> {
    let (k8s, host_path) = (file.k8s.as_ref()?, file.host_path.as_deref()?);
    let secret = k8s.kind == K8sKind::Secret;
    if secret && !options.include_secrets {
        return None;
    }
    let folder = if secret { SECRETS_FOLDER } else { FILES_FOLDER };
    Some(HostFile {
        relative: names::host_copy_path(folder, &k8s.name, &k8s.key),
        host_path,
        written: file.host.as_deref().unwrap_or_default(),
        key: &file.key,
        origin: file.origin,
        host_origin: file.host_origin,
        secret,
        read: HostRead::NotRead,
    })
}

/// One error per host file that could not be read.
pub fn unreadable(files: &[HostFile<'_>]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for file in files {
        let HostRead::Unreadable(why) = &file.read else {
            continue;
        };
        // The path as the profile writes it, not as it was read (joined to the profile's folder):
        // a message, and the fingerprint the CI formats make of it, must not depend on where the
        // repository is checked out.
        let read_as = format!("{}: ", file.host_path.display());
        let reason = why.strip_prefix(read_as.as_str()).unwrap_or(why);
        diags.push(
            Diagnostic::new(
                Code::HostFileUnreadable,
                format!(
                    "cannot copy the host file of `{}` ({:?}): {reason}",
                    file.key, file.written
                ),
            )
            .at(file.origin)
            .label("host file")
            .help(format!(
                "name a regular file (a relative path starts at the folder of the profile that \
                 writes it): the kustomize base holds a copy of it as {}",
                file.relative
            )),
        );
    }
    diags
}

/// One warning per host path that names nothing, or a folder, among the files the base did not
/// read: a file it read is there, and one it could not read is its error ([`unreadable`]), so
/// each file is said once. Compose binds the path and the container reads one file there.
/// Without a file system (the browser build) nothing is looked at.
pub fn missing(files: &[FileSource], read: &[HostFile<'_>]) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for file in files {
        let (Some(written), Some(path), Some(origin)) =
            (&file.host, &file.host_path, file.host_origin)
        else {
            continue;
        };
        let looked_at = read
            .iter()
            .any(|r| r.host_origin == Some(origin) && !matches!(r.read, HostRead::NotRead));
        if looked_at {
            continue;
        }
        if let Some(warning) = not_a_file(written, path, origin) {
            diags.push(warning);
        }
    }
    diags
}

/// Without a file system (the browser build) no host path is looked at.
#[cfg(not(feature = "host"))]
fn not_a_file(_: &str, _: &Path, _: Origin) -> Option<Diagnostic> {
    None
}

/// The warning for a host path that is a folder or names nothing.
#[cfg(feature = "host")]
fn not_a_file(written: &str, path: &Path, origin: Origin) -> Option<Diagnostic> {
    if path.is_dir() {
        return Some(
            Diagnostic::new(
                Code::HostPathMissing,
                format!("the host path \"{written}\" is a folder, not a file"),
            )
            .at(origin)
            .label("a folder")
            .help("name the file itself: the container reads one file at this path"),
        );
    }
    (!path.exists()).then(|| {
        Diagnostic::new(
            Code::HostPathMissing,
            format!("the host path \"{written}\" does not exist"),
        )
        .at(origin)
        .label("not found")
        .help(
            "relative paths are checked from the profile's folder; svcgen writes them relative \
             to the output's folder",
        )
    })
}

#[cfg(all(test, feature = "host"))]
mod tests {
    use crate::deployment::{Carrier, EnvOptions, decide};
    use crate::diag::Code;
    use crate::diag::source::Sources;

    /// The codes the deployment of `deploy_files` gives (its base's host files read through a
    /// reader that fails), after checking that resolve said nothing of the host path.
    fn deployment_codes(deploy_files: &str) -> Vec<Code> {
        let text = format!("edition = \"B\"\n[deploy.files]\n{deploy_files}\n");
        let mut sources = Sources::new();
        let checked = crate::pipeline::check_text("p.toml", &text, None, &mut sources);
        assert!(
            !(checked.diagnostics.items.iter()).any(|d| d.code == Code::HostPathMissing),
            "resolve looked at the host file: {:?}",
            checked.diagnostics
        );
        let resolved = checked.resolved.expect("a valid profile");
        let options = EnvOptions {
            copy_host_files: true,
            ..EnvOptions::default()
        };
        let fails = |_: &std::path::Path| Err("cannot read it".to_string());
        let deployment = decide(&resolved, options, &[] as &[Carrier], None, Some(&fails));
        let deployment = deployment.unwrap_or_else(|_| panic!("no secret is read"));
        deployment
            .diagnostics
            .items
            .iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn a_missing_host_path_is_said_once_by_the_deployment_stage() {
        let missing = "\"token_server.cert_file\" = { host = \"/no/such/file.crt\" }";
        assert_eq!(deployment_codes(missing), [Code::HostPathMissing]);
        // The base copies it: that it cannot be read is the one diagnostic.
        let copied =
            "\"token_server.cert_file\" = { host = \"/no/such/file.crt\", configmap = \"certs\" }";
        assert_eq!(deployment_codes(copied), [Code::HostFileUnreadable]);
        let folder = "\"token_server.cert_file\" = { host = \"/\" }";
        assert_eq!(deployment_codes(folder), [Code::HostPathMissing]);
    }
}
