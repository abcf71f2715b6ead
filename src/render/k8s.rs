//! The `k8s` target and the rest of the kustomize base: `k8s.yaml` (the ConfigMap of the
//! environment, named after its content, the Deployment and its Service), `kustomization.yaml`
//! (which lists it and generates Secrets and ConfigMaps from host files) and `DEPLOY.md` (what the
//! operator still creates, and how). The three share one context: the objects' plan.

use super::{Input, to_value};
use crate::deployment::k8s_plan::{MANIFESTS, Plan};
use crate::model::Model;
use crate::resolve::deploy::{credentials, image};
use minijinja::Value;
use schemars::JsonSchema;
use serde::Serialize;

/// The templates of the base's files.
pub const MANIFESTS_TEMPLATE: &str = "k8s.yaml.j2";
pub const KUSTOMIZATION_TEMPLATE: &str = "kustomization.yaml.j2";
pub const NOTES_TEMPLATE: &str = "deploy.md.j2";
pub const TEMPLATES: [&str; 3] = [MANIFESTS_TEMPLATE, KUSTOMIZATION_TEMPLATE, NOTES_TEMPLATE];

/// The context of the kustomize base's templates (`k8s.yaml.j2`, `kustomization.yaml.j2`,
/// `deploy.md.j2`).
#[derive(Serialize, JsonSchema)]
pub struct Context {
    /// The Kubernetes objects of the profile, decided once for k8s.yaml, kustomization.yaml and
    /// DEPLOY.md (names come from svcgen's names module: content-hashed where known).
    #[schemars(with = "Plan<'static>")]
    pub plan: Value,
    /// The file name of the manifests in the base (k8s.yaml).
    pub manifests: &'static str,
    /// Facts about the real image, not the spec, for DEPLOY.md's "real image" section.
    pub image: ImageFacts,
}

/// Facts about the real image of the profile's edition, not the spec (the model's `[image]`, and
/// the image's own defaults among the model's settings and API objects).
#[derive(Serialize, JsonSchema)]
pub struct ImageFacts {
    /// The file the wait script refuses to start without, and the variable (outside the spec)
    /// that moves it; none when the edition's image reads none.
    pub ssa_file: Option<ImageFile>,
    /// Where the plugin builder looks for each archive (`<name>` is replaced); none when the
    /// edition's image builds no plugin.
    pub plugin_path: Option<String>,
    /// Where the spec (and the base) mount each plugin archive instead (`<name>` is replaced).
    pub spec_plugin_path: Option<String>,
    /// The Secret's name with the `kubernetes` secret adapter: read by the image from another
    /// variable than the spec's.
    pub secret_name: Option<ObjectName>,
    /// The paths the image writes at run time.
    pub writes: Vec<String>,
    /// The port its nginx serves HTTP on (`deploy.port`'s default).
    pub port: i64,
    /// The user it runs as (`deploy.security.run_as_user`'s default).
    pub user: i64,
    /// Where the model's facts about this edition's image were read (upstream commit).
    pub facts_from: String,
    /// The deployment runs the edition's tag, which moves: what its current build dropped.
    pub moving_tag: Option<MovingTagNote>,
}

/// The edition's moving tag, when the deployment runs it.
#[derive(Serialize, JsonSchema)]
pub struct MovingTagNote {
    /// The tag.
    pub tag: String,
    /// The upstream commit (and date) of the build last checked.
    pub checked_at: String,
    /// The persistence backends that build no longer has.
    pub dropped: Vec<String>,
    /// Those of `dropped` this profile uses (its groups apply).
    pub used: Vec<String>,
    /// What shows it upstream.
    pub why: String,
    /// The tag that matches the model's facts.
    pub pin: String,
    /// What that tag is.
    pub pin_note: String,
}

/// A file the image reads, and the variable that moves it.
#[derive(Serialize, JsonSchema)]
pub struct ImageFile {
    /// The variable (outside the spec) that moves the file.
    pub env: String,
    /// Where the image reads it: its default, or where the profile's `[env]` moves it.
    pub path: String,
}

/// An object's name the image reads from `image_env` (default `image_default`), where the spec
/// documents `spec_env`.
#[derive(Serialize, JsonSchema)]
pub struct ObjectName {
    /// The variable the spec documents for the name.
    pub spec_env: String,
    /// The variable the image reads it from instead (outside the spec).
    pub image_env: String,
    /// The image's name when that variable is not set.
    pub image_default: String,
}

pub fn context(input: &Input) -> Value {
    to_value(&Context {
        plan: input.plan_value(),
        manifests: MANIFESTS,
        image: image_facts(input.resolved),
    })
}

/// The model's facts about the image of the profile's edition (its SSA file where `[env]` moves
/// it).
fn image_facts(resolved: &crate::resolve::Resolved) -> ImageFacts {
    let edition = resolved.edition;
    let model = Model::get();
    let facts = &model.image;
    let default = |key: &str| image::model_default(model, key).unwrap_or_default();
    let secret_name = (model.container.api_objects.iter()).find_map(|object| {
        let image = object.image_name.as_ref()?;
        Some(ObjectName {
            spec_env: model.var_by_key(&object.name, edition)?.env.clone(),
            image_env: image.env.clone(),
            image_default: image.default.clone(),
        })
    });
    ImageFacts {
        ssa_file: credentials::ssa_path(edition, &resolved.extras).map(|(path, _)| ImageFile {
            env: facts.ssa_file.env.clone(),
            path,
        }),
        plugin_path: (facts.plugin_path.editions.contains(&edition))
            .then(|| facts.plugin_path.path.clone()),
        spec_plugin_path: (model.var_of_type(edition, crate::model::VarType::PluginList))
            .and_then(|var| var.mount_path.clone()),
        secret_name,
        writes: facts.writes.iter().map(|w| w.path.clone()).collect(),
        port: default(image::PORT),
        user: default(image::USER),
        facts_from: (model.editions.iter().find(|e| e.id == edition))
            .map(|e| e.facts_from.clone())
            .unwrap_or_default(),
        moving_tag: crate::resolve::moving_tag_in_use(resolved).map(|(info, moving, used)| {
            MovingTagNote {
                tag: info.image_tag.clone(),
                checked_at: moving.checked_at.clone(),
                dropped: moving.dropped_backends.clone(),
                used,
                why: moving.why.clone(),
                pin: moving.pin.clone(),
                pin_note: moving.pin_note.clone(),
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use crate::render::{EnvOptions, Target, Templates, environment, render};

    /// DEPLOY.md's `kubectl create ... --from-file=KEY=PATH` is run by the operator: a host path
    /// with a space, `$` or `'` must reach kubectl as one argument, as a real shell reads it.
    #[test]
    fn deploy_notes_quote_host_paths_for_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let host = "my files/it's $HOME;x.zip";
        std::fs::create_dir_all(dir.path().join("my files")).unwrap();
        std::fs::write(dir.path().join(host), "zip").unwrap();
        let profile = dir.path().join("p.toml");
        let example = std::fs::read_to_string("examples/a-ldap-plugins.toml").unwrap();
        let text = example
            .replace(
                "files/plugins/user-management.zip",
                &host.replace('\\', "\\\\"),
            )
            .replace("files/plugins/audit-log.zip", "plain.zip");
        std::fs::write(dir.path().join("plain.zip"), "zip").unwrap();
        std::fs::write(&profile, text).unwrap();
        let mut sources = crate::diag::source::Sources::new();
        let checked = crate::pipeline::check_profile(&profile, &mut sources).unwrap();
        let resolved = checked.resolved.expect("valid");
        let env = environment(&resolved, EnvOptions::default()).unwrap();
        let notes = render(
            Target::DeployNotes,
            &resolved,
            &env,
            &Templates::load(None).unwrap(),
        )
        .unwrap();
        let line = notes
            .lines()
            .find(|l| l.contains("--from-file=user-management.zip="))
            .unwrap_or_else(|| panic!("{notes}"));
        let words = line.trim().trim_end_matches('\\');
        let shell = std::process::Command::new("sh")
            .args(["-c", &format!("printf '%s\\n' {words}")])
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(shell.stdout).unwrap(),
            format!("--from-file=user-management.zip={host}\n"),
            "{line}"
        );
        assert!(
            notes.contains("--from-file=audit-log.zip=plain.zip\n"),
            "{notes}"
        );
    }
}
