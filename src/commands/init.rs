//! `init`: a commented starting profile for the chosen edition, adapters and persistence type.
//!
//! Everything comes from the spec model: which groups apply (their `when` conditions, evaluated
//! for the choices), every key of them commented out at its default with its meaning above it,
//! and the keys the model marks `required` written out with a placeholder to replace. The result
//! validates with `svcgen validate` (warnings allowed) and renders.

use crate::model::{Applies, Condition, DefaultValue, Edition, Group, Lookup, Model, Var};
use std::collections::HashMap;
use std::fmt::Write;

/// The profile key of the config backend selector (what `--config-adapter` sets).
pub const CONFIG_ADAPTER_KEY: &str = "config.adapter";

/// The profile key of the secret backend selector (what `--secret-adapter` sets).
pub const SECRET_ADAPTER_KEY: &str = "secret.adapter";

/// Comment lines are wrapped to stay within this width.
const WIDTH: usize = 100;

/// What the starting profile is for. `None` choices take the model's default for the edition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitOptions {
    pub edition: Edition,
    pub config_adapter: Option<String>,
    pub secret_adapter: Option<String>,
    /// The persistence type (the model's backend selector, `persistence.type`).
    pub persistence: Option<String>,
    /// Where the `#:schema` line points: a path relative to the profile's folder, or a URL.
    pub schema_ref: String,
}

impl InitOptions {
    /// The defaults of an edition, with the schema at `schema_ref`.
    pub fn new(edition: Edition, schema_ref: impl Into<String>) -> InitOptions {
        InitOptions {
            edition,
            config_adapter: None,
            secret_adapter: None,
            persistence: None,
            schema_ref: schema_ref.into(),
        }
    }
}

/// The `#:schema` reference is one comment line: a line break (or any control character) would
/// end it and write the rest into the profile as TOML.
fn schema_ref_fits_its_line(schema_ref: &str) -> Result<(), String> {
    match schema_ref.chars().find(|c| c.is_control()) {
        Some(c) => Err(format!(
            "--schema \"{}\": holds the control character {c:?}, which would end the `#:schema` \
             line and write the rest into the profile; give a path or URL without control \
             characters",
            crate::support::escape::one_line(schema_ref)
        )),
        None => Ok(()),
    }
}

/// The commented starting profile; `Err` names a choice that the edition does not allow, with the
/// allowed values.
pub fn starting_profile(options: &InitOptions) -> Result<String, String> {
    schema_ref_fits_its_line(&options.schema_ref)?;
    let model = Model::get();
    let edition = options.edition;
    let choices = Choices::new(model, options)?;

    let mut entries: Vec<(&Group, &Var, Option<&Condition>)> = Vec::new();
    for group in &model.groups {
        let Some(cause) = choices.applies(group) else {
            continue;
        };
        for var in model.vars_of(edition).filter(|v| v.group == group.id) {
            entries.push((group, var, cause));
        }
    }
    // Each TOML table once, in the order its first key appears.
    let mut tables: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, (_, var, _)) in entries.iter().enumerate() {
        let table = parent(&var.key);
        match tables.iter_mut().find(|(t, _)| *t == table) {
            Some((_, members)) => members.push(i),
            None => tables.push((table, vec![i])),
        }
    }

    let mut out = header(options, model);

    let mut announced: Vec<&str> = Vec::new();
    for (table, members) in &tables {
        out.push('\n');
        for (n, &i) in members.iter().enumerate() {
            let (group, var, cause) = entries[i];
            if n > 0 {
                out.push('\n');
            }
            if !announced.contains(&group.id.as_str()) {
                announced.push(&group.id);
                banner(&mut out, group, cause);
            }
            if n == 0 {
                let _ = writeln!(out, "[{table}]");
            }
            key_lines(&mut out, var, &choices)?;
        }
    }
    let needed: Vec<&Var> = (entries.iter())
        .map(|(_, var, _)| *var)
        .filter(|var| var.needed_at_start)
        // A file the image opens only when its variable is set (none by default) needs no source.
        .filter(|var| var.default.value().is_some_and(|path| !path.is_empty()))
        .collect();
    let mut needed: Vec<(&str, &str)> = (needed.iter())
        .map(|var| (var.key.as_str(), var.leaf()))
        .collect();
    // The image's own SSA file (edition A): by its `[deploy.files]` key, its file's name as key.
    let ssa = &model.image.ssa_file;
    if ssa.editions.contains(&edition) {
        needed.push((
            &ssa.key,
            crate::resolve::deploy::names::file_name(&ssa.path),
        ));
    }
    // A `kubernetes` adapter reaches its objects through the cluster's API: what W0341 checks.
    let kube_api = (entries.iter())
        .any(|(_, var, _)| (model.container.api_objects.iter()).any(|o| o.kube_config == var.key));
    deploy_section(&mut out, model, &needed, kube_api);
    pinned_tag(&mut out, model, edition, &choices.backends);
    Ok(out)
}

/// The profile's first lines: its `#:schema` line, what it is, and its edition.
fn header(options: &InitOptions, model: &Model) -> String {
    let edition = options.edition;
    let mut out = String::new();
    let _ = writeln!(out, "#:schema {}", options.schema_ref);
    let tag = &model.edition(edition).image_tag;
    comment(
        &mut out,
        &format!(
            "A starting profile for the Admin UI container, edition {edition}, written by `svcgen init`. \
             Every group that applies to the choices below is listed with each key commented out at its \
             default: uncomment a key to change it. `svcgen explain KEY` tells more about a key; \
             `svcgen validate` checks the profile and `svcgen render` writes the artifacts."
        ),
    );
    out.push('\n');
    let editions = Edition::ALL.map(|e| format!("\"{e}\"")).join(" or ");
    comment(
        &mut out,
        &format!("The edition: {editions}; edition {edition} runs the image tag {tag}."),
    );
    let _ = writeln!(out, "edition = {}", toml::Value::from(edition.as_str()));
    out
}

/// `[deploy.image] tag` pinned to the build the model's facts come from, when the edition's tag
/// moves and its current build no longer has a backend chosen (W0344 otherwise).
fn pinned_tag(out: &mut String, model: &Model, edition: Edition, backends: &[String]) {
    let Some(moving) = model.edition(edition).moving_tag.as_ref() else {
        return;
    };
    let Some(dropped) = (moving.dropped_backends.iter()).find(|b| backends.contains(b)) else {
        return;
    };
    out.push('\n');
    comment(
        out,
        &format!(
            "The edition's tag `{}` moves, and its build at {} no longer has the {dropped} backend: \
             the tag is pinned to {} ({}).",
            model.edition(edition).image_tag,
            moving.checked_at,
            moving.pin,
            moving.pin_note
        ),
    );
    out.push_str("[deploy.image]\n");
    let _ = writeln!(out, "tag = {}", toml::Value::from(moving.pin.as_str()));
}

/// The `[deploy]` table: a `[deploy.files]` source for each file the image opens at start
/// (`needed`: its key there and the Secret key it comes from; the model's `needed_at_start`, and
/// edition A's SSA file): without one the profile warns (W0331), and a container started from it
/// stops. One Secret the operator creates holds them all, a key per file. Those are Kubernetes
/// sources, and a `kubernetes` adapter (`kube_api`) reaches the cluster's API, which compose has
/// not (W0341): either way the profile says it is not deployed with compose.
fn deploy_section(out: &mut String, model: &Model, needed: &[(&str, &str)], kube_api: bool) {
    if needed.is_empty() && !kube_api {
        return;
    }
    let deployment = crate::resolve::deploy::names::default_deployment_name(model);
    let secret = crate::resolve::deploy::names::credentials_secret_name(deployment);
    let compose = crate::resolve::deploy::Mounts::HostFile.setting();
    let compose = compose.strip_prefix("deploy.").unwrap_or(compose);
    out.push('\n');
    if kube_api {
        comment(
            out,
            &format!(
                "A kubernetes adapter reads and writes its objects through the cluster's API, which \
                 only a Kubernetes pod reaches (its service account): the profile is not deployed \
                 with compose (`{compose} = false`)."
            ),
        );
    }
    if !needed.is_empty() {
        comment(
            out,
            &format!(
                "Files the image opens at start, and where they come from: here, keys of a Secret \
                 `{secret}` that you create (DEPLOY.md lists it), for Kubernetes.{}",
                if kube_api {
                    ""
                } else {
                    " Compose mounts a file of this machine instead: to deploy with compose too, \
                     give each source a `host` path and remove the line `compose` below."
                }
            ),
        );
    }
    out.push_str("[deploy]\n");
    let _ = writeln!(out, "{compose} = false");
    if needed.is_empty() {
        return;
    }
    out.push_str("\n[deploy.files]\n");
    for (key, data_key) in needed {
        let _ = writeln!(
            out,
            "{} = {{ secret = {}, key = {} }}",
            toml::Value::from(*key),
            toml::Value::from(secret.as_str()),
            toml::Value::from(*data_key)
        );
    }
}

/// The selectors' values for this profile, and which backends they put in use.
struct Choices<'m> {
    model: &'m Model,
    edition: Edition,
    /// Selector key -> chosen value.
    values: HashMap<String, String>,
    /// The hybrid mapping written out, when the persistence type is the mixed one.
    mapping: Option<Vec<(String, String)>>,
    backends: Vec<String>,
}

impl<'m> Choices<'m> {
    fn new(model: &'m Model, options: &InitOptions) -> Result<Choices<'m>, String> {
        let edition = options.edition;
        let rule = &model.backends;
        let asked = [
            (CONFIG_ADAPTER_KEY, &options.config_adapter),
            (SECRET_ADAPTER_KEY, &options.secret_adapter),
            (rule.selector.as_str(), &options.persistence),
        ];
        let mut values = HashMap::new();
        for (key, given) in asked {
            let var = model
                .var_by_key(key, edition)
                .ok_or_else(|| format!("edition {edition} has no `{key}`"))?;
            let value = match given {
                Some(v) => v.clone(),
                None => var
                    .default
                    .value()
                    .ok_or_else(|| format!("`{key}` has no default; choose a value"))?
                    .to_string(),
            };
            if let Some(allowed) = &var.allowed
                && !allowed.contains(&value)
            {
                let mut message = format!(
                    "`{key}` cannot be \"{value}\" in edition {edition}; allowed values: {}",
                    allowed.join(", ")
                );
                if let Some(other) = editions_allowing(model, key, &value, edition).first() {
                    message.push_str(&format!(
                        "\n  tip: \"{value}\" is edition {other}'s: add --edition {other}"
                    ));
                }
                return Err(message);
            }
            values.insert(key.to_string(), value);
        }
        let selected = values[&rule.selector].clone();
        let (mapping, backends) = if selected == rule.mixed {
            let var = model
                .var_by_key(&rule.mapping, edition)
                .ok_or_else(|| format!("edition {edition} has no `{}`", rule.mapping))?;
            let backend = first_backend(model, edition, var)?;
            let pairs = var
                .mapping_keys
                .iter()
                .map(|k| (k.clone(), backend.clone()))
                .collect();
            (Some(pairs), vec![backend])
        } else {
            (None, vec![selected])
        };
        Ok(Choices {
            model,
            edition,
            values,
            mapping,
            backends,
        })
    }

    /// `Some(cause)` when the group applies (`Some(None)`: always), `None` when it does not.
    fn applies<'g>(&self, group: &'g Group) -> Option<Option<&'g Condition>> {
        match Condition::applies(&group.when, self) {
            Applies::Yes(cause) => Some(cause),
            Applies::No | Applies::Unknown => None,
        }
    }
}

impl Lookup for Choices<'_> {
    /// The value of a key as the profile will have it: chosen, else the default.
    fn value(&self, key: &str) -> Option<String> {
        if let Some(v) = self.values.get(key) {
            return Some(v.clone());
        }
        let var = self.model.var_by_key(key, self.edition)?;
        var.default.value().map(str::to_string)
    }

    fn backends(&self) -> Vec<String> {
        self.backends.clone()
    }
}

/// The help of an `init` flag that chooses the value of `key`: the values each edition allows,
/// from the model ("key (a, b)" when every edition allows the same, else "key (A: a; B: b)").
pub fn choice_help(key: &str) -> String {
    let model = Model::get();
    let lists: Vec<(Edition, String)> = Edition::ALL
        .iter()
        .filter_map(|&e| {
            let allowed = model.var_by_key(key, e)?.allowed.as_deref()?.join(", ");
            Some((e, allowed))
        })
        .collect();
    let same = lists.windows(2).all(|w| w[0].1 == w[1].1);
    let values = match lists.first() {
        Some((_, only)) if same => only.clone(),
        _ => lists
            .iter()
            .map(|(e, list)| format!("{e}: {list}"))
            .collect::<Vec<_>>()
            .join("; "),
    };
    format!("{key} ({values})")
}

/// Every value `key` allows in any edition, in the model's order (for the command line's parser:
/// the edition's own list is checked once the edition is known).
pub fn choice_values(key: &str) -> Vec<&'static str> {
    let model = Model::get();
    let mut values: Vec<&'static str> = Vec::new();
    for &edition in &Edition::ALL {
        let allowed = model
            .var_by_key(key, edition)
            .and_then(|v| v.allowed.as_deref())
            .unwrap_or_default();
        for value in allowed {
            if !values.contains(&value.as_str()) {
                values.push(value);
            }
        }
    }
    values
}

/// The editions other than `edition` whose `key` allows `value` (to say which `--edition` to
/// give).
fn editions_allowing(model: &Model, key: &str, value: &str, edition: Edition) -> Vec<Edition> {
    Edition::ALL
        .into_iter()
        .filter(|&e| e != edition)
        .filter(|&e| {
            model
                .var_by_key(key, e)
                .and_then(|v| v.allowed.as_ref())
                .is_some_and(|allowed| allowed.iter().any(|a| a == value))
        })
        .collect()
}

/// The backend every category of a new hybrid mapping names: the first persistence type of the
/// edition that is a single backend and that the mapping allows.
fn first_backend(model: &Model, edition: Edition, mapping: &Var) -> Result<String, String> {
    let rule = &model.backends;
    let selector = model
        .var_by_key(&rule.selector, edition)
        .ok_or_else(|| format!("edition {edition} has no `{}`", rule.selector))?;
    let allowed = mapping.allowed.as_deref().unwrap_or_default();
    selector
        .allowed
        .as_deref()
        .unwrap_or_default()
        .iter()
        .find(|b| **b != rule.mixed && allowed.contains(b))
        .or_else(|| allowed.first())
        .cloned()
        .ok_or_else(|| format!("`{}` allows no backend", mapping.key))
}

/// The comment that opens a group: its title, spec section and why it is here.
fn banner(out: &mut String, group: &Group, cause: Option<&Condition>) {
    let why = match cause {
        Some(c) => format!("; applies because {c}"),
        None => String::new(),
    };
    // One line, however long: a banner is read at a glance.
    let _ = writeln!(
        out,
        "# --- {} (spec {}){why} ---",
        group.title, group.section
    );
}

/// The lines of one key: its meaning and hints as comments, then the key, set or commented out.
fn key_lines(out: &mut String, var: &Var, choices: &Choices<'_>) -> Result<(), String> {
    comment(out, &var.meaning);
    for hint in hints(var) {
        comment(out, &hint);
    }
    let leaf = key_text(var.leaf());
    if let Some(value) = choices.values.get(&var.key) {
        let _ = writeln!(out, "{leaf} = {}", toml::Value::from(value.as_str()));
        return Ok(());
    }
    // The model's per-category mapping (the backend rule's), written out for the mixed type.
    if var.key == choices.model.backends.mapping
        && let Some(pairs) = &choices.mapping
    {
        let mut table = toml::Table::new();
        for (category, backend) in pairs {
            table.insert(category.clone(), toml::Value::from(backend.as_str()));
        }
        comment(
            out,
            "Every category starts on one backend; name another backend for any of them.",
        );
        let _ = writeln!(out, "{leaf} = {}", toml::Value::Table(table));
        return Ok(());
    }
    if verifies_asked_address(var, choices) {
        comment(
            out,
            "Set: the address asked for below is https, and its certificate is verified.",
        );
        let _ = writeln!(out, "{leaf} = true");
        return Ok(());
    }
    if asks_for_value(var) {
        let value = placeholder(var)?;
        let why = match var.default.value() {
            Some(default) if !var.required => format!(
                "Replace this placeholder with your value: the default, \"{default}\", is the container itself once deployed."
            ),
            _ => "Required here: replace this placeholder with your value.".to_string(),
        };
        comment(out, &why);
        let _ = writeln!(out, "{leaf} = {value}");
        return Ok(());
    }
    match &var.default {
        DefaultValue::Value(text) => {
            let _ = writeln!(out, "# {leaf} = {}", var.ty.rules().toml_default(text));
        }
        other => {
            let why = match other {
                DefaultValue::NotShown => "(no default: the spec does not show one)",
                DefaultValue::Unset => "(no default: unset unless you set it)",
                DefaultValue::Hidden => {
                    "(no default shown: the container falls back to a fixed default the spec does not show)"
                }
                _ => "(no fixed default)",
            };
            comment(out, why);
            // Uncommented, the line is valid TOML holding a placeholder to replace, never a
            // syntax error.
            match placeholder(var) {
                Ok(value) => {
                    let _ = writeln!(out, "# {leaf} = {value}   # a placeholder: your value");
                }
                Err(_) => match var.allowed.as_deref().and_then(<[String]>::first) {
                    Some(first) => {
                        let value = toml::Value::from(first.as_str());
                        let _ = writeln!(out, "# {leaf} = {value}   # one of the values above");
                    }
                    None => {
                        let _ = writeln!(out, "# {leaf} = \"\"   # your value");
                    }
                },
            }
        }
    }
    Ok(())
}

/// Whether the starting profile writes a placeholder for `var` to be replaced: a required key; a
/// hidden default, a fixed word the container falls back to (warned of when unset); or a host its
/// users reach from outside or a service it connects to whose loopback default points at the
/// container itself once deployed (W0333, which `validate` gives as compose and Kubernetes are
/// rendered).
fn asks_for_value(var: &Var) -> bool {
    let loopback = crate::deployment::checks::must_not_be_loopback(var, false)
        .then(|| var.default.value())
        .flatten()
        .is_some_and(crate::value_type::formats::is_loopback_url);
    var.required || var.default == DefaultValue::Hidden || loopback
}

/// Whether `var` is the switch that verifies the vault address's certificate while the starting
/// profile asks for an https address (left false, the profile would warn W0304).
fn verifies_asked_address(var: &Var, choices: &Choices<'_>) -> bool {
    let (addr_key, verify_key) = crate::resolve::rules::VAULT_TLS;
    var.key == verify_key
        && choices
            .model
            .var_by_key(addr_key, choices.edition)
            .filter(|addr| asks_for_value(addr))
            .and_then(|addr| placeholder(addr).ok())
            .is_some_and(|value| value.as_str().is_some_and(|t| t.starts_with("https://")))
}

/// Extra facts worth a comment line: allowed values, unit, file kind, secret form.
fn hints(var: &Var) -> Vec<String> {
    let mut out = Vec::new();
    let rules = var.ty.rules();
    if let Some(values) = rules.init_values_hint(var) {
        out.push(values);
    } else if let Some(allowed) = &var.allowed {
        let list: Vec<String> = allowed
            .iter()
            .map(|a| toml::Value::from(a.as_str()).to_string())
            .collect();
        out.push(format!("One of: {}", list.join(", ")));
    } else if var.allowed_not_shown {
        out.push("Allowed values: not shown by the spec (any non-empty string)".to_string());
    }
    if let (Some(unit), Some(min)) = (var.unit, var.min) {
        out.push(format!("Unit: {}; at least {min}", unit.words()));
    }
    if let Some(kind) = var.file {
        out.push(format!(
            "The container reads this {} file; an absolute path inside the container",
            kind.name()
        ));
    }
    out.extend(rules.init_form_hint(var));
    if let Some(note) = &var.note {
        out.push(format!("Note: {note}"));
    }
    out
}

/// A value that validates for a required key, obviously to be replaced (the type's placeholder).
fn placeholder(var: &Var) -> Result<toml::Value, String> {
    let word = format!("my-{}", var.leaf().replace('_', "-"));
    var.ty.rules().init_placeholder(var, &word).ok_or_else(|| {
        format!(
            "`{}` is required, but svcgen init has no placeholder for a {}",
            var.key,
            var.ty.name()
        )
    })
}

/// The table a key lives in (`config.consul` of `config.consul.port`).
fn parent(key: &str) -> &str {
    key.rsplit_once('.').map_or("", |(table, _)| table)
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
fn key_text(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        toml::Value::from(key).to_string()
    }
}

/// Appends `text` as `# ` comment lines, wrapped at the width.
fn comment(out: &mut String, text: &str) {
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 1 && line.len() + 1 + word.len() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adapter_keys_are_selectors_of_every_edition() {
        let model = Model::get();
        for edition in Edition::ALL {
            for key in [CONFIG_ADAPTER_KEY, SECRET_ADAPTER_KEY] {
                let var = model.var_by_key(key, edition).expect("the key exists");
                assert!(var.selector, "{key}");
            }
        }
    }

    #[test]
    fn long_comments_are_wrapped() {
        let mut out = String::new();
        comment(&mut out, &"word ".repeat(40));
        assert!(out.lines().count() > 1);
        assert!(out.lines().all(|l| l.len() <= WIDTH && l.starts_with("# ")));
    }

    #[test]
    fn keys_are_quoted_only_when_they_must_be() {
        assert_eq!(key_text("use_ssl"), "use_ssl");
        assert_eq!(key_text("a.b"), "\"a.b\"");
    }

    #[test]
    fn a_value_the_edition_does_not_allow_lists_the_allowed_ones() {
        let mut options = InitOptions::new(Edition::B, "schema.json");
        let model = Model::get();
        let a_only = model
            .var_by_key(&model.backends.selector, Edition::A)
            .and_then(|v| v.allowed.clone())
            .unwrap_or_default()
            .into_iter()
            .find(|b| {
                !model
                    .var_by_key(&model.backends.selector, Edition::B)
                    .and_then(|v| v.allowed.as_ref())
                    .is_some_and(|allowed| allowed.contains(b))
            })
            .expect("edition A has a persistence type that B lacks");
        options.persistence = Some(a_only.clone());
        let err = starting_profile(&options).unwrap_err();
        assert!(err.contains(&a_only), "{err}");
        let allowed = model
            .var_by_key(&model.backends.selector, Edition::B)
            .and_then(|v| v.allowed.clone())
            .unwrap_or_default();
        assert!(err.contains(&allowed.join(", ")), "{err}");
    }
}
