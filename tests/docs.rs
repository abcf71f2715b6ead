//! The Markdown reference: the checked-in files under `docs/` are fresh, each edition's page names
//! exactly that edition's variables, tables are well formed, and the spec's restart rule is there.
//!
//! Regenerate the checked-in pages with `UPDATE_DOCS=1 cargo test --test integration docs::`.

use crate::support;

use regex::Regex;
use svcgen::artifacts::docs::{file_name, reference};
use svcgen::model::{Edition, Model};
use svcgen::render::Templates;

/// Every page: both editions, then each edition.
fn scopes() -> Vec<Option<Edition>> {
    std::iter::once(None)
        .chain(Edition::ALL.map(Some))
        .collect()
}

fn page(edition: Option<Edition>) -> String {
    let templates = Templates::load(None).expect("built-in templates compile");
    reference(edition, &templates).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn checked_in_docs_are_fresh() {
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let dir = support::repo().join("docs");
    let mut stale = Vec::new();
    for edition in scopes() {
        let path = dir.join(file_name(edition));
        let fresh = page(edition);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &fresh).unwrap();
            continue;
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        if checked_in != fresh {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale: {stale:?}; regenerate with UPDATE_DOCS=1 cargo test --test integration docs::"
    );
}

#[test]
fn the_output_is_deterministic() {
    for edition in scopes() {
        assert_eq!(page(edition), page(edition));
    }
}

fn mentions(page: &str, name: &str) -> bool {
    Regex::new(&format!(r"\b{}\b", regex::escape(name)))
        .unwrap()
        .is_match(page)
}

#[test]
fn each_edition_names_its_variables_and_no_other() {
    let model = Model::get();
    for edition in Edition::ALL {
        let text = page(Some(edition));
        for env in model.env_names() {
            let belongs = model
                .entries_by_env(env)
                .any(|v| v.editions.contains(&edition));
            assert_eq!(
                mentions(&text, env),
                belongs,
                "{env} in the edition {edition} page: expected {belongs}"
            );
        }
        for var in model.vars_of(edition) {
            assert!(
                text.contains(&format!("`{}`", var.key)),
                "{} in the edition {edition} page",
                var.key
            );
        }
    }
    let both = page(None);
    for env in model.env_names() {
        assert!(mentions(&both, env), "{env} in the page of both editions");
    }
}

#[test]
fn edition_specific_rows_are_marked_in_the_page_of_both() {
    let model = Model::get();
    let both = page(None);
    for var in model.vars.iter().filter(|v| v.editions.len() == 1) {
        let marked = format!("| `{}` ({}) |", var.env, var.editions_text());
        assert!(both.contains(&marked), "{marked}");
    }
}

#[test]
fn the_restart_of_the_configuration_api_is_documented() {
    // The rule of spec 2.7, in the words of the spec.
    let sentence = "Changing `SVC_ADMIN_UI_AUTH_METHOD` (`admin_ui.auth_method`) needs a restart \
                    of the configuration API service.";
    for edition in scopes() {
        assert!(page(edition).contains(sentence), "{edition:?}");
    }
}

/// Splits a table row into cells at the `|` that are not escaped.
fn cells(row: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = row.trim().chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => out.push(std::mem::take(&mut cell)),
            _ => cell.push(c),
        }
    }
    out.push(cell);
    // The leading and trailing `|` open and close the row.
    out[1..out.len() - 1]
        .iter()
        .map(|c| c.trim().to_string())
        .collect()
}

#[test]
fn every_table_row_has_the_columns_of_its_header() {
    for edition in scopes() {
        let text = page(edition);
        let mut columns: Option<usize> = None;
        for line in text.lines() {
            if !line.starts_with('|') {
                columns = None;
                continue;
            }
            let n = cells(line).len();
            match columns {
                None => columns = Some(n),
                Some(c) => assert_eq!(n, c, "{edition:?}: {line}"),
            }
        }
    }
}

#[test]
fn variable_tables_have_the_eight_columns() {
    let text = page(None);
    let header = "| variable | profile key | type | default | allowed values | editions | applies when | meaning |";
    let groups_with_vars = Model::get()
        .groups
        .iter()
        .filter(|g| Model::get().vars.iter().any(|v| v.group == g.id))
        .count();
    assert_eq!(text.matches(header).count(), groups_with_vars);
    assert_eq!(cells(header).len(), 8);
}

#[test]
fn image_tags_and_hybrid_backends_come_from_the_model() {
    let model = Model::get();
    for edition in Edition::ALL {
        let text = page(Some(edition));
        let tag = &model.edition(edition).image_tag;
        assert!(
            text.contains(&format!("- Edition {edition}: `{tag}`")),
            "{tag}"
        );
        let mapping = model
            .var_by_key(&model.backends.mapping, edition)
            .expect("the mapping exists");
        let backends = mapping
            .allowed
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|b| format!("`{b}`"))
            .collect::<Vec<_>>()
            .join(", ");
        assert!(
            text.contains(&format!("| {edition} | {backends} |")),
            "{backends}"
        );
        for setting in &model.settings {
            assert!(
                text.contains(&format!("| `{}` |", setting.key)),
                "{}",
                setting.key
            );
        }
    }
}
