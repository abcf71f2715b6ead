//! The spec model against the spec itself: every table row of `spec/admin-ui-env.md` (the
//! repository's copy of the shared spec, see `spec/README.md`) is
//! read and compared with `schemas/spec.toml` (names, edition markers, meanings, defaults,
//! allowed values, hybrid backends, image tags).

use crate::support;

use svcgen::model::{DefaultValue, Edition, Model, Var, VarType};

/// One variable row of the spec's tables.
#[derive(Debug)]
struct Row {
    name: String,
    editions: Vec<Edition>,
    meaning: String,
    default: DefaultValue,
    allowed: Option<Vec<String>>,
    allowed_not_shown: bool,
}

/// The repository's copy of the spec; it is part of the repository, so it is never skipped.
fn spec_text() -> String {
    let path = support::repo().join("spec/admin-ui-env.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The backtick-quoted words of a cell fragment.
fn quoted(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Reads a "Default / allowed values" cell. Each form the spec uses is matched explicitly, so
/// a new form makes this test fail instead of being misread.
fn parse_default(cell: &str) -> (DefaultValue, Option<Vec<String>>, bool) {
    let cell = cell.trim();
    if let Some((allowed, default)) = cell.split_once("; ") {
        let default = match default {
            "default: not shown" => DefaultValue::NotShown,
            d if d.starts_with("default `") => DefaultValue::Value(quoted(d)[0].clone()),
            "allowed values: not shown" => {
                let value = quoted(allowed)[0].clone();
                return (DefaultValue::Value(value), None, true);
            }
            d => panic!("unrecognised default in cell: {d}"),
        };
        let allowed = if allowed.starts_with("one of ") || allowed.contains("` or `") {
            quoted(allowed)
        } else {
            panic!("unrecognised allowed values in cell: {allowed}")
        };
        return (default, Some(allowed), false);
    }
    let default = match cell {
        "default: not shown" => DefaultValue::NotShown,
        "empty string" | "empty" => DefaultValue::Value(String::new()),
        "unset" => DefaultValue::Unset,
        "a fixed default word, <DEFAULT_PASSPHRASE>" => DefaultValue::Hidden,
        // A JSON string literal shown in backticks: the value is what is inside the quotes.
        "`\"{}\"`" => DefaultValue::Value("{}".to_string()),
        c if c.starts_with('`') && quoted(c).len() == 1 => {
            DefaultValue::Value(quoted(c)[0].clone())
        }
        c => panic!("unrecognised default cell: {c}"),
    };
    (default, None, false)
}

fn rows(spec: &str) -> Vec<Row> {
    let mut out = Vec::new();
    for line in spec.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        if cells.len() != 3 || !cells[0].starts_with("| `") {
            continue;
        }
        let head = cells[0].trim_start_matches("| ");
        let name = quoted(head)[0].clone();
        if !name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            continue;
        }
        let editions = if head.ends_with("(A)") {
            vec![Edition::A]
        } else if head.ends_with("(B)") {
            vec![Edition::B]
        } else {
            vec![Edition::A, Edition::B]
        };
        let (default, allowed, allowed_not_shown) = parse_default(cells[2].trim_end_matches(" |"));
        out.push(Row {
            name,
            editions,
            meaning: cells[1].to_string(),
            default,
            allowed,
            allowed_not_shown,
        });
    }
    out
}

/// The model entries of a row: one covering its editions, or one per edition (the model splits a
/// variable whose allowed values differ by edition).
fn entries_for<'m>(model: &'m Model, row: &'m Row) -> Option<Vec<&'m Var>> {
    if let Some(var) = model
        .entries_by_env(&row.name)
        .find(|v| v.editions == row.editions)
    {
        return Some(vec![var]);
    }
    row.editions
        .iter()
        .map(|e| model.entries_by_env(&row.name).find(|v| v.editions == [*e]))
        .collect()
}

#[test]
fn every_spec_variable_is_in_the_model_with_its_editions_meaning_and_default() {
    let spec = spec_text();
    let model = Model::get();
    let rows = rows(&spec);
    let mut problems = Vec::new();
    for row in &rows {
        let Some(vars) = entries_for(model, row) else {
            problems.push(format!(
                "{} ({:?}) is not in the model",
                row.name, row.editions
            ));
            continue;
        };
        for var in vars {
            if var.meaning != row.meaning {
                problems.push(format!(
                    "{}: meaning {:?} != spec {:?}",
                    row.name, var.meaning, row.meaning
                ));
            }
            if var.default != row.default {
                problems.push(format!(
                    "{}: default {:?} != spec {:?}",
                    row.name, var.default, row.default
                ));
            }
            if row.allowed.is_some() && var.allowed != row.allowed {
                problems.push(format!(
                    "{}: allowed {:?} != spec {:?}",
                    row.name, var.allowed, row.allowed
                ));
            }
            if row.allowed.is_some() && var.ty != VarType::Enum {
                problems.push(format!(
                    "{}: the spec lists allowed values but the type is {:?}",
                    row.name, var.ty
                ));
            }
            if var.allowed_not_shown != row.allowed_not_shown {
                problems.push(format!("{}: allowed values 'not shown' differs", row.name));
            }
        }
    }
    for var in &model.vars {
        let in_spec = rows
            .iter()
            .any(|r| r.name == var.env && var.editions.iter().all(|e| r.editions.contains(e)));
        if !in_spec {
            problems.push(format!(
                "{} ({:?}) is in the model but not in the spec",
                var.env, var.editions
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "model and spec differ:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_model_has_71_names_68_in_edition_a_and_65_in_edition_b() {
    let spec = spec_text();
    let rows = rows(&spec);
    let count = |edition: Option<Edition>| {
        let mut names: Vec<&str> = rows
            .iter()
            .filter(|r| edition.is_none_or(|e| r.editions.contains(&e)))
            .map(|r| r.name.as_str())
            .collect();
        names.sort();
        names.dedup();
        names.len()
    };
    assert_eq!(
        (
            count(None),
            count(Some(Edition::A)),
            count(Some(Edition::B))
        ),
        (71, 68, 65)
    );
    let model = Model::get();
    let model_count = |edition: Edition| {
        let mut names: Vec<&str> = model.vars_of(edition).map(|v| v.env.as_str()).collect();
        names.dedup();
        names.len()
    };
    assert_eq!(model.env_names().len(), 71);
    assert_eq!(model_count(Edition::A), 68);
    assert_eq!(model_count(Edition::B), 65);
}

#[test]
fn types_agree_with_the_spec_defaults() {
    let model = Model::get();
    for var in &model.vars {
        let Some(default) = var.default.value() else {
            continue;
        };
        if default == "true" || default == "false" {
            assert_eq!(var.ty, VarType::Bool, "{}", var.env);
        }
        if !default.is_empty() && default.chars().all(|c| c.is_ascii_digit()) {
            assert!(
                matches!(var.ty, VarType::Port | VarType::Integer),
                "{}",
                var.env
            );
        }
        if default.starts_with("/etc/") {
            assert_eq!(var.ty, VarType::File, "{}", var.env);
        }
        if var.meaning.starts_with("Path to file") {
            assert_eq!(var.ty, VarType::File, "{}", var.env);
        }
        if var.env.ends_with("_ENDPOINT") {
            assert_eq!(var.ty, VarType::UrlPath, "{}", var.env);
        }
    }
}

#[test]
fn hybrid_backends_and_keys_match_section_2_8() {
    let spec = spec_text();
    let section = spec
        .split("### 2.8")
        .nth(1)
        .expect("section 2.8")
        .split("### 2.9")
        .next()
        .unwrap();
    let keys: Vec<String> = section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| quoted(l)[0].clone())
        .collect();
    let backends_line = section
        .lines()
        .find(|l| l.starts_with("Allowed backend names"))
        .expect("backend line");
    let (a, b) = backends_line
        .split_once("Edition B:")
        .expect("both editions");
    let model = Model::get();
    for (edition, text) in [(Edition::A, a), (Edition::B, b)] {
        let var = model
            .var_of_type(edition, VarType::HybridMapping)
            .expect("a hybrid mapping");
        assert_eq!(var.mapping_keys, keys, "edition {edition}");
        let mut expected = quoted(text);
        let mut actual = var.allowed.clone().unwrap();
        expected.sort();
        actual.sort();
        assert_eq!(actual, expected, "edition {edition} backends");
    }
}

#[test]
fn image_tags_match_section_9() {
    let spec = spec_text();
    let section = spec.split("## 9.").nth(1).expect("section 9");
    let model = Model::get();
    for edition in Edition::ALL {
        let row = section
            .lines()
            .find(|l| l.starts_with(&format!("| {edition} |")))
            .expect("a row per edition");
        assert_eq!(quoted(row), vec![model.edition(edition).image_tag.clone()]);
    }
}

/// Facts about the real image that are not the spec (its SSA file, plugin folder,
/// the paths it writes, the variable it reads a Secret's name from and its default) live in the
/// model (`[image]`, and `image_name` of an API object), marked as such: no source file or
/// template names them, so a new fact about the image is a line of `schemas/spec.toml`.
#[test]
fn facts_about_the_image_are_named_only_in_the_model() {
    let model = Model::get();
    let image = &model.image;
    let mut facts = vec![
        image.ssa_file.env.clone(),
        image.ssa_file.path.clone(),
        image.sql_password_file.env.clone(),
        image.sql_password_file.path.clone(),
        image.plugin_path.path.clone(),
    ];
    // `/tmp` is every image's temporary folder, not a fact about this one (the manifests mount
    // a scratch volume there for any read-only root; tests use it as a path).
    facts.extend(
        (image.writes.iter())
            .filter(|w| w.path != "/tmp")
            .map(|w| w.path.clone()),
    );
    for object in &model.container.api_objects {
        if let Some(name) = &object.image_name {
            facts.push(name.env.clone());
            facts.push(format!("`{}`", name.default));
        }
    }
    let root = support::repo();
    let mut files = support::walk(&root.join("src"));
    files.extend(support::walk(&root.join("templates")));
    assert!(files.len() > 20, "{files:?}");
    let mut named = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for fact in &facts {
            if text.contains(fact.as_str()) {
                named.push(format!("{} names {fact}", file.display()));
            }
        }
    }
    assert!(
        named.is_empty(),
        "image facts outside the model: {named:#?}"
    );
    // The section says what it is.
    let text = std::fs::read_to_string(root.join("schemas/spec.toml")).unwrap();
    assert!(text.contains("FACTS ABOUT THE IMAGE, NOT THE SPEC"));
}
