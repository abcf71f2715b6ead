//! `docs`: the Markdown reference of every variable, per edition, generated from the spec model.
//!
//! The context is built here from the model only (no variable name, default or allowed value is
//! written in this file or in `templates/docs.md.j2`); the template lays it out. Table cells are
//! escaped here, once, so a `|` in a meaning cannot break a table.

use crate::model::{Condition, DefaultValue, Edition, Group, Model, Var, VarType};
use crate::templates::{TemplateError, Templates};
use serde::Serialize;

/// The template that lays out the reference.
pub const TEMPLATE: &str = "docs.md.j2";

/// The Markdown reference of one edition, or of both (`None`) with edition-specific rows marked.
pub fn reference(edition: Option<Edition>, templates: &Templates) -> Result<String, TemplateError> {
    templates.render(TEMPLATE, template_context(edition))
}

/// The context `docs.md.j2` receives (described by the comment at its top).
pub(crate) fn template_context(edition: Option<Edition>) -> minijinja::Value {
    minijinja::Value::from(minijinja::value::Serde(&context(Model::get(), edition)))
}

/// The file name of a reference under `docs/`: `reference.md`, `reference-A.md`, `reference-B.md`.
pub fn file_name(edition: Option<Edition>) -> String {
    match edition {
        Some(e) => format!("reference-{e}.md"),
        None => "reference.md".to_string(),
    }
}

/// The context of `docs.md.j2`.
#[derive(Serialize, schemars::JsonSchema)]
pub(crate) struct Context {
    /// The editions covered ("edition A", "editions A and B").
    scope: String,
    /// One per group of variables, in the model's order.
    groups: Vec<GroupDoc>,
    /// The hybrid mapping; none when the scope has none.
    hybrid: Option<HybridDoc>,
    /// One per plugin-list variable.
    plugins: Vec<PluginDoc>,
    /// One per variable whose change needs a restart of another service.
    restarts: Vec<RestartDoc>,
    /// One per deployment setting, as rows of the variables' table.
    settings: Vec<Row>,
    /// One per edition.
    images: Vec<ImageDoc>,
}

/// A group of variables.
#[derive(Serialize, schemars::JsonSchema)]
struct GroupDoc {
    /// The group's title.
    title: String,
    /// Its section in the container spec.
    section: String,
    /// When the group applies.
    applies: String,
    /// One per variable (table cells).
    rows: Vec<Row>,
}

/// One table row; every cell already escaped for a Markdown table.
#[derive(Serialize, schemars::JsonSchema)]
struct Row {
    /// The variable's name (empty for a deployment setting, which is not a container variable).
    variable: String,
    /// Its profile key.
    key: String,
    /// Its type.
    ty: String,
    /// Its default ("not shown" when the spec gives none).
    default: String,
    /// Its allowed values.
    allowed: String,
    /// The editions it belongs to.
    editions: String,
    /// When it applies.
    applies: String,
    /// What it means.
    meaning: String,
}

/// The hybrid mapping.
#[derive(Serialize, schemars::JsonSchema)]
struct HybridDoc {
    /// The profile key that selects it.
    selector: String,
    /// The selector's value that asks for it.
    mixed: String,
    /// The mapping's profile key.
    key: String,
    /// The mapping's variable.
    env: String,
    /// The mapping's keys (data categories), listed.
    keys: String,
    /// [editions, backends] string pairs, the backends allowed per edition.
    backends: Vec<(String, String)>,
}

/// A plugin-list variable.
#[derive(Serialize, schemars::JsonSchema)]
struct PluginDoc {
    /// The variable.
    env: String,
    /// Its profile key.
    key: String,
    /// Its editions, when the scope covers another one.
    only: Option<String>,
    /// Where each plugin's archive is mounted.
    mount_path: String,
    /// A note from the spec.
    note: Option<String>,
}

/// A variable whose change needs a restart of another service.
#[derive(Serialize, schemars::JsonSchema)]
struct RestartDoc {
    /// The variable.
    env: String,
    /// Its profile key.
    key: String,
    /// The service to restart.
    service: String,
    /// The editions, when the scope covers one where it does not hold.
    only: Option<String>,
    #[serde(skip)]
    editions: Vec<Edition>,
}

/// The image of one edition.
#[derive(Serialize, schemars::JsonSchema)]
struct ImageDoc {
    /// The edition.
    edition: String,
    /// Its image tag.
    tag: String,
}

/// Which editions a doc covers: one, or all of them (`edition` is `None`).
struct Scope {
    edition: Option<Edition>,
    editions: Vec<Edition>,
}

impl Scope {
    fn new(edition: Option<Edition>) -> Scope {
        let editions = match edition {
            Some(e) => vec![e],
            None => Edition::ALL.to_vec(),
        };
        Scope { edition, editions }
    }

    /// True when the variable belongs to an edition the doc covers.
    fn covers(&self, var: &Var) -> bool {
        var.editions.iter().any(|e| self.editions.contains(e))
    }

    /// An entry is marked when the doc covers an edition it does not belong to.
    fn marked(&self, var: &Var) -> bool {
        self.edition.is_none() && var.editions.len() < Edition::ALL.len()
    }

    /// The variables the doc covers, in the model's order.
    fn vars<'m>(&self, model: &'m Model) -> impl Iterator<Item = &'m Var> {
        model.vars.iter().filter(|v| self.covers(v))
    }

    fn title(&self) -> String {
        match self.edition {
            Some(e) => format!("edition {e}"),
            None => format!(
                "editions {}",
                Edition::ALL.map(|e| e.as_str()).join(" and ")
            ),
        }
    }
}

fn context(model: &Model, edition: Option<Edition>) -> Context {
    let scope = Scope::new(edition);
    Context {
        scope: scope.title(),
        groups: group_docs(model, &scope),
        hybrid: hybrid_doc(model, &scope),
        plugins: plugin_docs(model, &scope),
        restarts: restart_docs(model, &scope),
        settings: setting_rows(model, edition),
        images: image_docs(model, &scope),
    }
}

/// One table per group that has a variable in scope, in the model's order.
fn group_docs(model: &Model, scope: &Scope) -> Vec<GroupDoc> {
    walk(model, scope)
        .into_iter()
        .map(|group| GroupDoc {
            title: group.group.title.clone(),
            section: group.group.section.clone(),
            applies: group.applies,
            rows: group.entries.iter().map(var_row).collect(),
        })
        .collect()
}

/// A group of the reference with the entries it has in scope: what every reference (this
/// Markdown one, the HTML site's) lays out, before a format escapes it.
pub struct GroupEntries<'m> {
    pub group: &'m Group,
    /// When the group applies, as a sentence ("always" when it has no condition).
    pub applies: String,
    pub entries: Vec<VarEntry<'m>>,
}

/// One entry of a variable as the references show it, plain text.
pub struct VarEntry<'m> {
    pub var: &'m Var,
    pub ty: String,
    pub default: String,
    /// The allowed values, or a note such as "not shown"; empty when any value of the type goes.
    pub allowed: Allowed<'m>,
    pub editions: String,
    pub applies: String,
    /// The meaning with the notes every reference adds (keys, required, secret, note).
    pub meaning: String,
    /// True when the reference covers an edition the entry does not belong to.
    pub marked: bool,
}

/// A variable's allowed values as the references show them.
pub enum Allowed<'m> {
    Values(&'m [String]),
    NotShown,
    Any,
}

/// The reference of one edition, or of both (`None`): the groups with a variable in scope, in
/// the model's order, each with its entries.
pub fn reference_groups(edition: Option<Edition>) -> Vec<GroupEntries<'static>> {
    walk(Model::get(), &Scope::new(edition))
}

fn walk<'m>(model: &'m Model, scope: &Scope) -> Vec<GroupEntries<'m>> {
    model
        .groups
        .iter()
        .filter_map(|group| {
            let applies = applies_text(&group.when);
            let entries: Vec<VarEntry> = scope
                .vars(model)
                .filter(|v| v.group == group.id)
                .map(|v| var_entry(v, &applies, scope.marked(v)))
                .collect();
            (!entries.is_empty()).then_some(GroupEntries {
                group,
                applies,
                entries,
            })
        })
        .collect()
}

/// The hybrid backend mapping, when a variable in scope has that type.
fn hybrid_doc(model: &Model, scope: &Scope) -> Option<HybridDoc> {
    let mapping: Vec<&Var> = scope
        .vars(model)
        .filter(|v| v.ty == VarType::HybridMapping)
        .collect();
    let first = mapping.first()?;
    Some(HybridDoc {
        selector: model.backends.selector.clone(),
        mixed: model.backends.mixed.clone(),
        key: first.key.clone(),
        env: first.env.clone(),
        keys: code_list(&first.mapping_keys),
        backends: mapping
            .iter()
            .map(|v| {
                (
                    v.editions_text(),
                    code_list(v.allowed.as_deref().unwrap_or_default()),
                )
            })
            .collect(),
    })
}

/// The plugin lists in scope that are mounted from a folder.
fn plugin_docs(model: &Model, scope: &Scope) -> Vec<PluginDoc> {
    scope
        .vars(model)
        .filter(|v| v.ty == VarType::PluginList)
        .filter_map(|v| {
            Some(PluginDoc {
                env: v.env.clone(),
                key: v.key.clone(),
                only: scope.marked(v).then(|| v.editions_text()),
                mount_path: v.mount_path.clone()?,
                note: v.note.clone(),
            })
        })
        .collect()
}

/// One sentence per variable and service that needs a restart, over all its entries; `only`
/// names the editions when the doc covers one the sentence does not apply to.
fn restart_docs(model: &Model, scope: &Scope) -> Vec<RestartDoc> {
    let mut restarts: Vec<RestartDoc> = Vec::new();
    for var in scope.vars(model) {
        let Some(service) = &var.restart else {
            continue;
        };
        let index = match restarts
            .iter()
            .position(|r| r.env == var.env && &r.service == service)
        {
            Some(i) => i,
            None => {
                restarts.push(RestartDoc {
                    env: var.env.clone(),
                    key: var.key.clone(),
                    service: service.clone(),
                    only: None,
                    editions: Vec::new(),
                });
                restarts.len() - 1
            }
        };
        restarts[index].editions.extend(&var.editions);
    }
    for restart in &mut restarts {
        let missing = scope.editions.iter().any(|e| !restart.editions.contains(e));
        if missing {
            restart.only = Some(join_editions(&restart.editions));
        }
    }
    restarts
}

/// The profile's own settings (not variables), one row each.
fn setting_rows(model: &Model, edition: Option<Edition>) -> Vec<Row> {
    model
        .settings
        .iter()
        .map(|s| {
            let mut ty = s.ty.name().to_string();
            if let Some(min) = s.min {
                ty.push_str(&format!(" (at least {min})"));
            }
            Row {
                variable: String::new(),
                key: cell(&format!("`{}`", s.key)),
                ty: cell(&ty),
                default: cell(&setting_default(model, edition, &s.default)),
                allowed: String::new(),
                editions: String::new(),
                applies: String::new(),
                meaning: cell(&s.meaning),
            }
        })
        .collect()
}

/// The image tag of each edition in scope.
fn image_docs(model: &Model, scope: &Scope) -> Vec<ImageDoc> {
    model
        .editions
        .iter()
        .filter(|e| scope.editions.contains(&e.id))
        .map(|e| ImageDoc {
            edition: e.id.to_string(),
            tag: e.image_tag.clone(),
        })
        .collect()
}

/// A setting's default; the edition's image tag is named when the doc is for one edition.
fn setting_default(model: &Model, edition: Option<Edition>, default: &DefaultValue) -> String {
    match (default, edition) {
        (DefaultValue::ByEdition, Some(e)) => {
            format!("`{}` ({})", model.edition(e).image_tag, default.describe())
        }
        _ => default.describe(),
    }
}

fn var_entry<'m>(var: &'m Var, applies: &str, marked: bool) -> VarEntry<'m> {
    VarEntry {
        var,
        ty: type_text(var),
        default: var.default.describe(),
        allowed: match &var.allowed {
            Some(values) => Allowed::Values(values),
            None if var.allowed_not_shown => Allowed::NotShown,
            None => Allowed::Any,
        },
        editions: var.editions_text(),
        applies: applies.to_string(),
        meaning: meaning_text(var),
        marked,
    }
}

fn var_row(entry: &VarEntry) -> Row {
    let mut variable = format!("`{}`", entry.var.env);
    if entry.marked {
        variable.push_str(&format!(" ({})", entry.editions));
    }
    let allowed = match entry.allowed {
        Allowed::Values(values) => code_list(values),
        Allowed::NotShown => Allowed::NOT_SHOWN.to_string(),
        Allowed::Any => String::new(),
    };
    Row {
        variable: cell(&variable),
        key: cell(&format!("`{}`", entry.var.key)),
        ty: cell(&entry.ty),
        default: cell(&entry.default),
        allowed: cell(&allowed),
        editions: cell(&entry.editions),
        applies: cell(&entry.applies),
        meaning: cell(&entry.meaning),
    }
}

impl Allowed<'_> {
    /// How a reference says the spec does not show the allowed values.
    pub const NOT_SHOWN: &'static str = "not shown";
}

fn type_text(var: &Var) -> String {
    let mut text = var.ty.name().to_string();
    if let Some(unit) = var.unit {
        text.push_str(&format!(
            " ({}, at least {})",
            unit.words(),
            var.min.unwrap_or(1)
        ));
    }
    if let Some(kind) = var.file {
        text.push_str(&format!(" ({})", kind.name()));
    }
    text
}

fn meaning_text(var: &Var) -> String {
    let mut text = var.meaning.clone();
    if !var.mapping_keys.is_empty() {
        text.push_str(&format!(
            ". Keys (all required): {}",
            code_list(&var.mapping_keys)
        ));
    }
    if var.required {
        text.push_str(". Required whenever it applies");
    }
    if var.secret {
        text.push_str(". Secret: give it as `{ env = \"NAME\" }` or `{ file = \"PATH\" }`");
    }
    if let Some(note) = &var.note {
        text.push_str(&format!(". Note: {note}"));
    }
    for consumer in crate::value_type::consumer::described(var) {
        text.push_str(&format!(". The image puts it as it is into {consumer}"));
    }
    text
}

/// A group's conditions as one text: "always" when it has none.
fn applies_text(when: &[Condition]) -> String {
    if when.is_empty() {
        return "always".to_string();
    }
    Condition::any_text(when)
}

fn code_list(values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Editions as "A" or "A, B", in the editions' order, without repeats.
fn join_editions(given: &[Edition]) -> String {
    Edition::ALL
        .iter()
        .filter(|e| given.contains(e))
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text safe inside one Markdown table cell: `|` escaped, line breaks as spaces.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipe_cannot_break_a_table() {
        assert_eq!(cell("a | b\nc"), "a \\| b c");
    }

    #[test]
    fn no_conditions_means_always() {
        assert_eq!(applies_text(&[]), "always");
    }

    #[test]
    fn file_names_follow_the_edition() {
        assert_eq!(file_name(None), "reference.md");
        assert_eq!(file_name(Some(Edition::B)), "reference-B.md");
    }
}
