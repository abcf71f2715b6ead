//! `svcgen krm`: svcgen as a KRM function (kpt `fn eval --exec`, kustomize exec generators, an
//! Argo CD config management plugin). A `ResourceList` comes in on stdin with the profile's TOML in
//! `functionConfig.data.profile`; the same list goes out with every item kept, the rendered objects
//! added (replacing earlier renderings of the same objects) and the diagnostics as `results`.

mod input;
mod results;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::profile::{Extends, SetKind, Stack};
use crate::render::k8s_plan::plan;
use crate::render::{EnvOptions, RenderError, Target, Templates, environment, render};
use crate::resolve::Resolved;
use crate::source::Sources;
use input::FunctionInput;
use results::Results;
use serde_json::{Map, Value, json};
use std::path::Path;

/// The largest `ResourceList` read (the profile limit: a list carries a profile and manifests).
pub const MAX_INPUT_BYTES: u64 = crate::profile::MAX_PROFILE_BYTES;

/// The `ResourceList` written back, and whether it carries an error result (exit 1).
pub struct Output {
    pub text: String,
    pub failed: bool,
}

/// Runs the function on the text of a `ResourceList`. Relative paths of the profile (secret
/// files) are read from `base_dir`, the folder the orchestrator runs the function in.
pub fn run(input: &str, base_dir: &Path, templates: &Templates) -> Output {
    let mut results = Results::default();
    let (items, added) = match FunctionInput::read(input, &mut results) {
        Some(function) => {
            let added = render_objects(&function, base_dir, templates, &mut results);
            (function.items, added)
        }
        None => (Vec::new(), Vec::new()),
    };
    let items = merge_items(items, added);
    let failed = results.has_errors();
    let list = json!({
        "apiVersion": input::API_VERSION,
        "kind": input::KIND,
        "items": items,
        "results": results.into_values(),
    });
    let mut options = serde_saphyr::SerializerOptions::default();
    // Sequences indented below their key, as yamllint's default rules want.
    options.compact_list_indent = false;
    let text = serde_saphyr::to_string_with_options(&list, options).unwrap_or_else(|e| {
        // A `serde_json::Value` always serializes; keep the contract (a list on stdout) anyway.
        format!(
            "apiVersion: {}\nkind: {}\nitems: []\n# {e}\n",
            input::API_VERSION,
            input::KIND
        )
    });
    Output {
        text: format!("---\n{text}"),
        failed,
    }
}

/// Checks the profile and renders its Kubernetes objects (no secret values: never in a KRM
/// stream); every diagnostic and every object the operator must create becomes a result.
fn render_objects(
    function: &FunctionInput,
    base_dir: &Path,
    templates: &Templates,
    results: &mut Results,
) -> Vec<Value> {
    let mut sources = Sources::new();
    let (resolved, diagnostics) = check(function, base_dir, &mut sources);
    results.diagnostics(&diagnostics, &sources, function);
    let Some(resolved) = resolved else {
        return Vec::new();
    };
    let env = match environment(&resolved, EnvOptions::default()) {
        Ok(env) => env,
        Err(diags) => {
            results.diagnostics(&diags, &sources, function);
            return Vec::new();
        }
    };
    for object in plan(&resolved, &env, None).to_create {
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
    match render(Target::K8s, &resolved, &env, templates) {
        Ok(text) => match serde_saphyr::from_multiple::<Value>(&text) {
            Ok(objects) => objects.into_iter().filter(Value::is_object).collect(),
            Err(e) => {
                results.error(format!("svcgen could not read back its own manifests: {e}"));
                Vec::new()
            }
        },
        Err(RenderError::Invalid(diags)) => {
            results.diagnostics(&diags, &sources, function);
            Vec::new()
        }
        Err(RenderError::Template(e)) => {
            results.error(format!("the k8s target could not be rendered: {e}"));
            Vec::new()
        }
    }
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

/// The items with the added objects: an item with the same kind, namespace and name as an added
/// object (an earlier rendering) is replaced in place; the others are kept as they came.
fn merge_items(items: Vec<Value>, added: Vec<Value>) -> Vec<Value> {
    let mut out = items;
    for object in added {
        let id = identity(&object);
        match out.iter().position(|item| identity(item) == id) {
            Some(i) => out[i] = object,
            None => out.push(object),
        }
    }
    out
}

/// kind, namespace and name of an object.
fn identity(object: &Value) -> (String, String, String) {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let metadata = object.get("metadata").and_then(Value::as_object);
    let field = |name: &str| text(metadata.and_then(|m: &Map<String, Value>| m.get(name)));
    (text(object.get("kind")), field("namespace"), field("name"))
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
