//! The context each built-in template receives is typed once, in Rust (`dotenv::Context`,
//! `compose::Context`, `k8s_env::Context`, `k8s::Context` with the `Plan`, `docs::Context`), and
//! documented once: `docs/templates.md` is generated from those types' JSON Schema (their doc
//! comments), for users who override a template with `--templates DIR`; each template's opening
//! comment points there. These tests keep it true: every field the renderers give a template
//! (gathered from real contexts, over profiles and options that fill every optional part) is in
//! its type's schema and the reverse, and the checked-in reference is what the types give
//! (`UPDATE_DOCS=1 cargo test --lib context_doc` rewrites it).

use super::{EnvOptions, Input, Target, environment, template_context};
use crate::deployment::Deployment;
use crate::model::Edition;
use crate::templates::{BUILTIN, filters};
use minijinja::Value;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

/// The checked-in reference, relative to the repository.
const REFERENCE: &str = "docs/templates.md";

/// How a template prints `{{ x }}`.
const YAML: &str = "Every `{{ x }}` prints a string as a YAML double-quoted scalar (numbers and \
booleans plain, none an error); `x|safe` prints it as is. svcgen then folds lines longer than \
yamllint's default width.";
const DOTENV: &str = "Every `{{ x }}` prints a string quoted as a .env value (none is an error); \
`x|safe` prints it as is. Values `.env` cannot carry are refused before rendering, with the reason.";
const MARKDOWN: &str = "Every `{{ x }}` prints as is (Markdown: no escaping).";

/// The limits of a user's template, from the constants that set them.
fn limits() -> String {
    use crate::templates::{TEMPLATE_FUEL, TEMPLATE_MAX_OUTPUT_BYTES, TEMPLATE_RECURSION_LIMIT};
    let mib = |bytes: usize| bytes / (1024 * 1024);
    format!(
        "A template of `--templates DIR` is bounded: {TEMPLATE_FUEL} instructions (minijinja's \
         fuel), macros, includes and blocks nested {TEMPLATE_RECURSION_LIMIT} deep and {} MiB \
         of output, each an error naming the template and line. Its memory is bounded by the \
         process's limits (`ulimit -v`, a container's memory limit): run svcgen under one when \
         the templates are not yours.\n\n",
        mib(TEMPLATE_MAX_OUTPUT_BYTES),
    )
}

/// Each built-in template: what it renders, how it prints, and its context's schema.
fn described() -> Vec<(&'static str, &'static str, &'static str, Json)> {
    let schema = |s: schemars::Schema| s.to_value();
    vec![
        (
            "dotenv.env.j2",
            "the `.env` of `svcgen render -t dotenv`",
            DOTENV,
            schema(schemars::schema_for!(super::dotenv::Context)),
        ),
        (
            "compose.yaml.j2",
            "the docker-compose.yml of `svcgen render -t compose`",
            YAML,
            schema(schemars::schema_for!(super::compose::Context)),
        ),
        (
            "k8s-env.yaml.j2",
            "the container `env:` list of `svcgen render -t k8s-env`",
            YAML,
            schema(schemars::schema_for!(super::k8s_env::Context)),
        ),
        (
            "k8s.yaml.j2",
            "the k8s.yaml (ConfigMap, Secret, Deployment, Service) of `svcgen render -t k8s` and \
             of the kustomize base",
            YAML,
            schema(schemars::schema_for!(super::k8s::Context)),
        ),
        (
            "kustomization.yaml.j2",
            "the kustomization.yaml of the kustomize base (`svcgen render -t kustomization`, \
             `--out-dir`)",
            YAML,
            schema(schemars::schema_for!(super::k8s::Context)),
        ),
        (
            "deploy.md.j2",
            "the DEPLOY.md of the kustomize base (`svcgen render -t deploy-notes`, `--out-dir`)",
            MARKDOWN,
            schema(schemars::schema_for!(super::k8s::Context)),
        ),
        (
            "preflight-job.yaml.j2",
            "the preflight Job of `svcgen render -t preflight-job` (preflight-job.yaml in \
             `--out-dir`)",
            YAML,
            schema(schemars::schema_for!(super::preflight_job::Context)),
        ),
        (
            crate::artifacts::docs::TEMPLATE,
            "the Markdown reference of `svcgen docs` (and `render -t docs`), built from the spec \
             model only; table cells are already escaped for a Markdown table",
            MARKDOWN,
            schema(schemars::schema_for!(crate::artifacts::docs::Context)),
        ),
    ]
}

/// The reference of every template's context, as Markdown.
fn reference() -> String {
    let mut out = String::from(
        "<!-- Generated from the Rust types of the template contexts (src/render/context_doc.rs); \
         do not edit: UPDATE_DOCS=1 cargo test --lib context_doc -->\n\
         # Template contexts\n\n\
         svcgen renders each output through a template (`templates/` in the repository, built into \
         the binary). A file of the same name in `--templates DIR` replaces the built-in one and \
         receives the same context, described here. An undefined field is an error.\n\n",
    );
    out.push_str(&limits());
    out.push_str("Filters svcgen adds to minijinja's built-in ones:\n\n");
    for (name, _, what) in filters::FILTERS {
        let _ = writeln!(out, "- `{name}`: {what}");
    }
    for (template, what, printing, schema) in described() {
        let _ = write!(
            out,
            "\n## `{template}`\n\n{}.\n\n{printing}\n\n",
            capitalized(what)
        );
        let mut fields = Vec::new();
        schema_fields(&schema, &schema, 0, &mut fields);
        for (depth, line) in fields {
            let _ = writeln!(out, "{}- {line}", "  ".repeat(depth));
        }
    }
    out
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The schema `schema` stands for: a `$ref` followed into `root`'s definitions.
fn resolved<'a>(schema: &'a Json, root: &'a Json) -> &'a Json {
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.rsplit('/').next().unwrap_or_default();
            &root["$defs"][name]
        }
        None => schema,
    }
}

/// The object a field's items or value are made of (its fields are listed under it).
fn object_of<'a>(schema: &'a Json, root: &'a Json) -> Option<&'a Json> {
    let schema = resolved(schema, root);
    if schema.get("properties").is_some() {
        return Some(schema);
    }
    let inner = match (schema.get("anyOf"), schema.get("items")) {
        (Some(Json::Array(options)), _) => options.iter().find(|o| o["type"] != "null")?,
        (_, Some(items)) => items,
        _ => return None,
    };
    object_of(inner, root)
}

/// A field's type in words: `string`, `integer or none`, `list of strings`, `list`.
fn type_words(schema: &Json, root: &Json) -> String {
    let schema = resolved(schema, root);
    if let Some(Json::Array(options)) = schema.get("anyOf") {
        let words: Vec<String> = options.iter().map(|o| type_words(o, root)).collect();
        return words.join(" or ");
    }
    if schema.get("properties").is_some() {
        return "map".to_string();
    }
    let kinds: Vec<String> = match &schema["type"] {
        Json::String(kind) => vec![kind.clone()],
        Json::Array(kinds) => kinds
            .iter()
            .filter_map(|k| k.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    kinds
        .iter()
        .map(|kind| match kind.as_str() {
            "null" => "none".to_string(),
            "object" => "map".to_string(),
            "array" => match (schema.get("items"), schema.get("prefixItems")) {
                (_, Some(Json::Array(pair))) => {
                    let parts: Vec<String> = pair.iter().map(|p| type_words(p, root)).collect();
                    format!("list of [{}] pairs", parts.join(", "))
                }
                (Some(items), _) if object_of(items, root).is_none() => {
                    format!("list of {}s", type_words(items, root))
                }
                _ => "list".to_string(),
            },
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// One line per field of the object `schema` (depth, text), its own fields after it one deeper.
fn schema_fields(schema: &Json, root: &Json, depth: usize, out: &mut Vec<(usize, String)>) {
    let Some(Json::Object(properties)) = resolved(schema, root).get("properties") else {
        return;
    };
    for (name, field) in properties {
        let about = field["description"]
            .as_str()
            .or_else(|| resolved(field, root)["description"].as_str())
            .unwrap_or_else(|| {
                panic!("the field `{name}` of a template context has no doc comment")
            })
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let about = about.strip_suffix('.').unwrap_or(&about);
        out.push((
            depth,
            format!("`{name}` ({}): {about}", type_words(field, root)),
        ));
        if let Some(object) = object_of(field, root) {
            schema_fields(object, root, depth + 1, out);
        }
    }
}

/// Every `a.b.c` path of the fields of the object `schema` (list items add no part of their own).
fn schema_paths(schema: &Json, root: &Json, prefix: &str, out: &mut BTreeSet<String>) {
    let Some(Json::Object(properties)) = resolved(schema, root).get("properties") else {
        return;
    };
    for (name, field) in properties {
        let path = match prefix {
            "" => name.clone(),
            _ => format!("{prefix}.{name}"),
        };
        if let Some(object) = object_of(field, root) {
            schema_paths(object, root, &path, out);
        }
        out.insert(path);
    }
}

/// Every `a.b.c` path of a map key in `value` (list items add no part of their own).
fn field_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    use minijinja::value::ValueKind;
    let Ok(items) = value.try_iter() else { return };
    match value.kind() {
        ValueKind::Map => {
            for key in items {
                let path = match prefix {
                    "" => key.to_string(),
                    _ => format!("{prefix}.{key}"),
                };
                if let Ok(inner) = value.get_item(&key) {
                    field_paths(&inner, &path, out);
                }
                out.insert(path);
            }
        }
        ValueKind::Seq | ValueKind::Iterable => {
            for item in items {
                field_paths(&item, prefix, out);
            }
        }
        _ => {}
    }
}

/// The fields each environment template receives, over the examples and the options that fill
/// the optional parts (host-file copies, generated and referenced Secrets).
fn rendered_fields() -> BTreeMap<&'static str, BTreeSet<String>> {
    let mut fields: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    let folder = Path::new("out");
    for entry in std::fs::read_dir("examples").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let mut sources = crate::diag::source::Sources::new();
        let checked = crate::pipeline::check_profile(&path, &mut sources).unwrap();
        let mut resolved = checked.resolved.expect("every example is valid");
        // The preflight Job's own fields are given once svcgen's image is named.
        resolved.deploy.preflight_repository = Some("registry.example.org/svcgen".into());
        let copies = EnvOptions {
            copy_host_files: true,
            ..EnvOptions::default()
        };
        let plain = environment(&resolved, EnvOptions::default()).unwrap();
        // The secrets given a value, as `--include-secrets` would read them.
        let mut read: Vec<_> = plain.clone();
        for var in read.iter_mut().filter(|v| v.secret) {
            var.value = Some("secret".into());
        }
        // A value filled in at deploy time (`{ deploy_env = "X", default = ... }`).
        let mut deferred: Vec<_> = plain.clone();
        if let Some(var) = deferred.iter_mut().find(|v| !v.secret) {
            var.value = None;
            var.deploy_env = Some(super::DeployEnv {
                name: "DEPLOY_VALUE".into(),
                default: Some("d".into()),
            });
        }
        for (env, options, folder) in [
            (&plain, EnvOptions::default(), None),
            (&plain, copies, Some(folder)),
            (&read, copies, Some(folder)),
            (&deferred, EnvOptions::default(), None),
        ] {
            let deployment = Deployment::planned(&resolved, env.clone(), folder, options, None);
            let input = Input::of(&deployment);
            for target in Target::VARIANTS {
                if let Some((template, context)) = template_context(*target, &input) {
                    field_paths(&context, "", fields.entry(template).or_default());
                }
            }
        }
    }
    for edition in std::iter::once(None).chain(Edition::ALL.map(Some)) {
        let context = crate::artifacts::docs::template_context(edition);
        field_paths(
            &context,
            "",
            fields.entry(crate::artifacts::docs::TEMPLATE).or_default(),
        );
    }
    fields
}

/// The opening `{#- ... -#}` comment of a template.
fn opening_comment(text: &str) -> &str {
    let body = text
        .strip_prefix("{#-")
        .expect("the template opens with `{#-`");
    &body[..body
        .find("-#}")
        .expect("the opening comment is closed by `-#}`")]
}

#[test]
fn each_context_type_describes_what_its_template_receives() {
    let fields = rendered_fields();
    let described = described();
    assert_eq!(fields.len(), BUILTIN.len(), "a context for every built-in");
    assert_eq!(described.len(), BUILTIN.len(), "a type for every built-in");
    for (name, _, _, schema) in &described {
        let mut typed = BTreeSet::new();
        schema_paths(schema, schema, "", &mut typed);
        let given = &fields[name];
        let missing: Vec<_> = given.difference(&typed).collect();
        let stale: Vec<_> = typed.difference(given).collect();
        assert!(
            missing.is_empty(),
            "{name}: given, not in its type: {missing:?}"
        );
        assert!(
            stale.is_empty(),
            "{name}: in its type, never given: {stale:?}"
        );
    }
}

#[test]
fn the_templates_reference_is_fresh_and_each_template_points_there() {
    let generated = reference();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(REFERENCE);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{REFERENCE} is stale: run UPDATE_DOCS=1 cargo test --lib context_doc"
    );
    for (name, text) in BUILTIN {
        let comment = opening_comment(text);
        assert!(
            comment.contains(REFERENCE),
            "{name}: does not point to {REFERENCE}"
        );
        assert!(
            comment.lines().count() <= 8,
            "{name}: its context is described in {REFERENCE}, not repeated in the template"
        );
        assert!(
            generated.contains(&format!("## `{name}`")),
            "{name}: not in the reference"
        );
    }
}
