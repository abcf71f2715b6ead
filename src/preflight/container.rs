//! Which of a container's process variables `preflight --from-env` reads: the spec's variables
//! (either edition), the image's own beyond the spec (the model's `[image]`), and every other
//! name under the image's prefixes (`CN_`, and the legacy ones the model names, `GLUU_`), so that
//! a misspelt one is reported with its nearest name instead of being ignored. What the runtime
//! adds (`PATH`, `HOSTNAME`, Kubernetes' service variables) is not the image's and is left out.

use crate::model::Model;

/// The image's variables among `vars`, sorted by name (the process's own order is arbitrary).
pub fn image_variables(vars: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> =
        vars.into_iter().filter(|(n, _)| is_image_name(n)).collect();
    kept.sort();
    kept
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
