//! Which of a container's process variables `preflight --from-env` reads: the spec's variables
//! (either edition), the image's own beyond the spec (the model's `[image]`), and every other
//! name under the image's prefixes (`CN_`, and the legacy ones the model names, `GLUU_`), so that
//! a misspelt one is reported with its nearest name instead of being ignored. What the runtime
//! adds (`PATH`, `HOSTNAME`, Kubernetes' service variables) is not the image's and is left out
//! of that reading; only the API address the image's Kubernetes client reads (the model's
//! `[image] kube_api`) is handed to the steps as it is.

use super::setting::{FileReader, Setting};
use crate::diag::Diagnostics;
use crate::diag::source::Sources;
use crate::model::{Edition, Model};

/// What `--from-env` makes of a container's variables: the diagnostics of reading them as
/// `import` reads an environment (at `name:line:col`), and the setting, `None` when they are
/// not usable (nothing is dialled then), `Err` when a secret value cannot be read.
pub struct FromEnvironment {
    pub diagnostics: Diagnostics,
    pub setting: Option<Result<Setting, String>>,
}

/// Reads the container's variables `vars` (any order; the runtime's are left out here) under
/// the name `name`, resolved by import's own path ([`crate::import::resolve_environment`]).
/// The variables the resolved environment does not hold (the image's own outside the spec, the
/// Kubernetes API address) are kept as the container has them, so every step reads what the
/// image would read.
pub fn from_environment(
    name: &str,
    vars: Vec<(String, String)>,
    edition: Option<Edition>,
    sources: &mut Sources,
    reader: FileReader,
) -> FromEnvironment {
    let kube = &Model::get().image.kube_api;
    let runtime: Vec<(String, String)> = (vars.iter())
        .filter(|(n, _)| *n == kube.host || *n == kube.port)
        .cloned()
        .collect();
    let pairs = image_variables(vars);
    let read = crate::import::read_environment(name, &pairs, sources);
    let options = crate::import::ImportOptions {
        edition,
        keep_defaults: true,
    };
    match crate::import::resolve_environment(&read, options, sources) {
        Err(diagnostics) => FromEnvironment {
            diagnostics: for_a_container(diagnostics),
            setting: None,
        },
        Ok((resolved, diagnostics)) => {
            let kept = pairs.into_iter().chain(runtime).collect();
            FromEnvironment {
                diagnostics: for_a_container(diagnostics),
                setting: Some(Setting::from_container(&resolved, reader, kept)),
            }
        }
    }
}

/// The diagnostics of reading a container's environment, without those whose advice is about a
/// file the user edits (there is none): a secret variable is where a container's secrets
/// belong, not "a secret written in clear text in this file" to move into the environment.
/// On every path: an environment the image cannot use is reported with the same advice.
fn for_a_container(mut diagnostics: Diagnostics) -> Diagnostics {
    (diagnostics.items).retain(|d| d.code != crate::diag::Code::SecretInProfile);
    diagnostics
}

/// The image's variables among `vars`, sorted by name (the process's own order is arbitrary).
pub fn image_variables(vars: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> =
        vars.into_iter().filter(|(n, _)| is_image_name(n)).collect();
    kept.sort();
    kept
}

/// True for a variable `--from-env` takes from the process: the image's (below) and the
/// Kubernetes API address its client reads.
pub fn is_container_name(name: &str) -> bool {
    let kube = &Model::get().image.kube_api;
    is_image_name(name) || name == kube.host || name == kube.port
}

/// True for a name the image reads, or one under its prefixes.
pub fn is_image_name(name: &str) -> bool {
    let model = Model::get();
    let facts = &model.image;
    let prefixes = (model.container.legacy_prefixes.iter()).flat_map(|(old, new)| [old, new]);
    model.entries_by_env(name).next().is_some()
        || [&facts.ssa_file.env, &facts.sql_password_file.env].contains(&&name.to_string())
        || facts.reads.iter().any(|r| r.env == name)
        || prefixes.into_iter().any(|p| name.starts_with(p.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_image_s_names_and_its_prefixes_and_leaves_the_runtime_s_out() {
        // The image's own variable outside the spec, as the model names it.
        let ssa = Model::get().image.ssa_file.env.as_str();
        let vars = [
            ("PATH", "/bin"),
            ("KUBERNETES_SERVICE_HOST", "10.0.0.1"),
            ("SVC_ADMIN_UI_AUTH_METHOD", "basic"),
            ("CN_CONSUL_HOST", "typo"),
            (ssa, "/ssa"),
            ("CN_CONFIG_ADAPTER", "consul"),
            ("HOSTNAME", "pod-1"),
        ]
        .map(|(n, v)| (n.to_string(), v.to_string()));
        let names: Vec<String> = image_variables(vars).into_iter().map(|(n, _)| n).collect();
        let mut want = vec![
            "CN_CONFIG_ADAPTER",
            "CN_CONSUL_HOST",
            ssa,
            "SVC_ADMIN_UI_AUTH_METHOD",
        ];
        want.sort();
        assert_eq!(names, want);
    }
}
