//! The comment that opens each built-in template lists the context it receives, for users who
//! override a template with `--templates DIR`. This test keeps those comments true: every field
//! the renderers give a template (gathered from real contexts, over profiles and options that fill
//! every optional part) is named there at its place in the tree, every field named there exists,
//! and each filter svcgen registers is named.

use super::{EnvOptions, Input, Target, environment, template_context};
use crate::model::Edition;
use crate::templates::{BUILTIN, filters};
use minijinja::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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

/// The opening `{#- ... -#}` comment of a template.
fn opening_comment(text: &str) -> &str {
    let body = text
        .strip_prefix("{#-")
        .expect("the template opens with `{#-`");
    &body[..body
        .find("-#}")
        .expect("the opening comment is closed by `-#}`")]
}

/// The fields the comment lists: lines `  name  meaning`, each two spaces deeper than its parent.
fn documented_paths(comment: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack: Vec<String> = Vec::new();
    for line in comment.lines() {
        let field = line.trim_start();
        let indent = line.len() - field.len();
        let name = field.split_whitespace().next().unwrap_or_default();
        let is_field = indent >= 2
            && indent % 2 == 0
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            && (field.len() == name.len() || field[name.len()..].starts_with("  "));
        if !is_field {
            continue;
        }
        stack.truncate(indent / 2 - 1);
        stack.push(name.to_string());
        out.insert(stack.join("."));
    }
    out
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
        let mut sources = crate::source::Sources::new();
        let checked = crate::pipeline::check_profile(&path, &mut sources).unwrap();
        let resolved = checked.resolved.expect("every example is valid");
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
            let input = Input {
                resolved: &resolved,
                env,
                folder,
                options,
            };
            for target in Target::ALL {
                let (template, context) = template_context(target, &input).unwrap();
                field_paths(&context, "", fields.entry(template).or_default());
            }
        }
    }
    for edition in std::iter::once(None).chain(Edition::ALL.map(Some)) {
        let context = crate::docs::template_context(edition);
        field_paths(
            &context,
            "",
            fields.entry(crate::docs::TEMPLATE).or_default(),
        );
    }
    fields
}

#[test]
fn each_template_opens_with_the_context_it_receives() {
    let fields = rendered_fields();
    assert_eq!(fields.len(), BUILTIN.len(), "a context for every built-in");
    for (name, text) in BUILTIN {
        let comment = opening_comment(text);
        let documented = documented_paths(comment);
        let given = &fields[name];
        let missing: Vec<_> = given.difference(&documented).collect();
        let stale: Vec<_> = documented.difference(given).collect();
        assert!(missing.is_empty(), "{name}: not described: {missing:?}");
        assert!(stale.is_empty(), "{name}: described, not given: {stale:?}");
        for (filter, _) in filters::FILTERS {
            assert!(
                comment.contains(filter),
                "{name}: filter {filter} not named"
            );
        }
    }
}
