//! `svcgen krm`: svcgen as a KRM function (kpt `fn eval --exec`, kustomize exec generators, an
//! Argo CD config management plugin). A `ResourceList` comes in on stdin with the profile's TOML in
//! `functionConfig.data.profile`; the same list goes out with every item it does not own copied
//! as written (`emit`), its rendered objects added or replacing those of an earlier run, the ones
//! it no longer renders removed (known by its annotation only: `items`), and the diagnostics as
//! `results`. The guide's "GitOps" section (docs/guide.md) states exactly what changes in a `ResourceList`.

mod emit;
mod form;
mod input;
mod items;
mod results;
pub mod yaml;

use crate::diag::source::Sources;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::profile::{Extends, SetKind, Stack};
use crate::render::{EnvOptions, Target, Templates, render_checked};
use crate::resolve::Resolved;
use input::FunctionInput;
use results::Results;
use serde_json::{Map, Value, json};
use std::path::Path;

/// The largest `ResourceList` read (the profile limit: a list carries a profile and manifests).
pub const MAX_INPUT_BYTES: u64 = crate::profile::MAX_PROFILE_BYTES;

/// The annotation svcgen puts on every object it generates: the one mark by which a later run
/// knows its own objects (to replace them, or remove those it no longer generates).
pub const GENERATED_ANNOTATION: &str = "svcgen.dev/generated-by";

/// The data key of the function config that holds the profile's TOML text (read by `input`,
/// named by the `field` of `results`).
const PROFILE_KEY: &str = "profile";

/// The data key of `--set` values over the profile, one `KEY=VALUE` per line.
const SET_KEY: &str = "set";

/// The value of [`GENERATED_ANNOTATION`].
pub(crate) const GENERATED_BY: &str = "svcgen krm";

/// The annotation naming the function config that generated an object (`namespace/name` of its
/// ConfigMap): two svcgen function configs in one package (two tenants, two pipeline steps)
/// each replace and prune only their own objects, and keep and report each other's.
pub const OWNER_ANNOTATION: &str = "svcgen.dev/function-config";

/// The `ResourceList` written back, and whether it carries an error result (exit 1).
pub struct Output {
    pub text: String,
    pub failed: bool,
}

/// Runs the function on the text of a `ResourceList`. Relative paths of the profile (secret
/// files) are read from `base_dir`, the folder the orchestrator runs the function in.
pub fn run(input: &str, base_dir: &Path, templates: &Templates) -> Output {
    let mut results = Results::default();
    let read = FunctionInput::read(input, &mut results);
    let added = read
        .function
        .as_ref()
        .and_then(|function| render_objects(function, base_dir, templates, &mut results));
    items::report_non_finite(&read.items, &mut results);
    form::report_changes(input, &read.items, &mut results);
    let owner = read.function.as_ref().map_or("", |f| f.owner.as_str());
    let items = items::merge(&read.items, added, owner, &mut results);
    let failed = results.has_errors();
    let results = results.into_values();
    match emit::write(input, &items, &results) {
        Ok(text) => Output { text, failed },
        Err(why) => {
            // Nothing is written that would change an item: the list with the reason only.
            let error = json!([{ "message": why, "severity": "error" }]);
            let text = emit::write(input, &[], error.as_array().expect("an array"))
                .expect("a list without items reads back");
            Output { text, failed: true }
        }
    }
}

/// Checks the profile and renders its Kubernetes objects (no secret values: never in a KRM
/// stream), each marked with [`GENERATED_ANNOTATION`]; every diagnostic and every object the
/// operator must create becomes a result. `None` when nothing could be rendered (the objects of
/// an earlier run then stay as they are).
fn render_objects(
    function: &FunctionInput,
    base_dir: &Path,
    templates: &Templates,
    results: &mut Results,
) -> Option<Vec<Value>> {
    let mut sources = Sources::new();
    let (resolved, diagnostics) = check(function, base_dir, &mut sources);
    results.diagnostics(
        &diagnostics,
        &sources,
        &function.config_ref,
        function.config_file.as_deref(),
        &|set| function.set_place(set),
    );
    let resolved = resolved?;
    // Planned once, as `render -t k8s` plans (no host file read: a KRM function reads none),
    // with every check of the k8s target, its warnings included.
    let options = EnvOptions::default();
    let rendered = render_checked(&resolved, options, &[Target::K8s], templates, None, None);
    for object in &rendered.to_create {
        let keys: Vec<&str> = object.keys.iter().map(|k| k.name.as_str()).collect();
        results.info(format!(
            "create the {} {} (keys: {}): the Deployment mounts or reads it, and its content is not in the profile",
            object.kind,
            object.name,
            keys.join(", ")
        ));
    }
    for file in &resolved.deploy.files {
        if let (Some(k8s), Some(_)) = (&file.k8s, &file.host) {
            results.info(format!(
                "`{}`: a KRM function does not read host files; create the object {} with the key {} (or render a kustomize base with svcgen render --out-dir)",
                file.key, k8s.name, k8s.key
            ));
        }
    }
    results.diagnostics(
        &rendered.diagnostics,
        &sources,
        &function.config_ref,
        function.config_file.as_deref(),
        &|set| function.set_place(set),
    );
    for error in &rendered.template_errors {
        results.error(format!("the k8s target could not be rendered: {error}"));
    }
    let (_, text) = rendered.files.into_iter().next()?;
    match serde_saphyr::from_multiple::<Value>(&text) {
        Ok(objects) => Some(
            objects
                .into_iter()
                .filter(Value::is_object)
                .map(|object| mark_generated(object, &function.owner))
                .collect(),
        ),
        Err(e) => {
            results.error(format!("svcgen could not read back its own manifests: {e}"));
            None
        }
    }
}

/// The object with [`GENERATED_ANNOTATION`] and its function config's [`OWNER_ANNOTATION`]
/// among its annotations.
fn mark_generated(mut object: Value, owner: &str) -> Value {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let annotations = metadata
            .entry("annotations")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(annotations) = annotations.as_object_mut() {
            annotations.insert(GENERATED_ANNOTATION.into(), Value::from(GENERATED_BY));
            annotations.insert(OWNER_ANNOTATION.into(), Value::from(owner));
        }
    }
    object
}

/// The profile with its `data.set` values over it, checked through the pipeline (as `render
/// --set` does); `extends` is refused: a KRM function reads no files.
fn check(
    function: &FunctionInput,
    base_dir: &Path,
    sources: &mut Sources,
) -> (Option<Resolved>, Diagnostics) {
    let refused = Diagnostic::new(
        Code::KrmInput,
        format!(
            "`{}` is not followed by svcgen krm (a KRM function reads no files)",
            crate::profile::EXTENDS
        ),
    )
    .label("not followed")
    .help("put the whole profile in functionConfig.data.profile");
    let stack = Stack {
        sets: (function.sets.iter())
            .map(|line| (SetKind::Value, line.clone()))
            .collect(),
        extends: Extends::Refuse(refused),
        ..Stack::text(&function.profile_name, &function.profile, Some(base_dir))
    };
    match crate::pipeline::check(&stack, sources) {
        Ok(checked) => (checked.resolved, checked.diagnostics),
        // Only files are read from disk, and this stack has none.
        Err(why) => {
            let mut diags = Diagnostics::default();
            diags.push(Diagnostic::new(Code::KrmInput, why));
            (None, diags)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value the k8s target cannot carry (an `[env]` name too long for a ConfigMap key) is a
    /// result with its code and the position in the profile, as every other diagnostic is.
    /// The function run on `profile`: whether it failed, the result with `code`, and the output.
    fn result_of(profile: &str, code: Code) -> (bool, Value, String) {
        let list = serde_json::json!({
            "apiVersion": input::API_VERSION,
            "kind": input::KIND,
            "items": [],
            "functionConfig": { "kind": "ConfigMap", "data": { "profile": profile } },
        });
        let templates = Templates::load(None).unwrap();
        let output = run(&list.to_string(), Path::new("."), &templates);
        let list: Value = serde_saphyr::from_str(&output.text).unwrap();
        let result = list["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["tags"]["code"] == code.id())
            .cloned()
            .unwrap_or_else(|| panic!("a {} result: {}", code.id(), output.text));
        (output.failed, result, output.text)
    }

    /// `extends` is refused at its key, as every other profile error is.
    #[test]
    fn extends_is_refused_at_its_position() {
        let profile = "edition = \"B\"\nextends = \"base.toml\"\n";
        let (failed, error, text) = result_of(profile, Code::KrmInput);
        assert!(failed, "{text}");
        assert_eq!(
            (&error["tags"]["line"], &error["tags"]["column"]),
            (&Value::from("2"), &Value::from("1")),
            "{text}"
        );
        assert!(
            error["message"].as_str().unwrap().contains("`extends`"),
            "{text}"
        );
    }

    #[test]
    fn a_render_check_failure_is_a_result_at_its_position() {
        let name = "A".repeat(300);
        let profile = format!("edition = \"B\"\n[env]\n{name} = \"x\"\n");
        let (failed, error, text) = result_of(&profile, Code::K8sLimit);
        assert!(failed, "{text}");
        assert_eq!(error["tags"]["line"], "3", "{text}");
        let message = error["message"].as_str().unwrap();
        assert!(message.starts_with("profile:3:304: E0242 "), "{text}");
        assert!(!text.contains("Diagnostics"), "no debug dump");
    }
}
