//! Writing an analysed environment as a profile: spec variables under their profile keys in the
//! model's order (typed: booleans, numbers, lists, the hybrid mapping as a table, secrets as
//! `{ env = "NAME" }`), spec defaults left out, other variables under `[env]`, and the deployment
//! names read along when they differ from the defaults. The same values, each with the origin of
//! its text in the input, are checked as a profile first: resolve does every check of a value
//! and across values, and its diagnostics point at the input's lines.

use super::analyze::{Analysis, analyze};
use super::unread::effect_unknown;
use super::{EnvValue, Read};
use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostics};
use crate::model::{Edition, Model};
use crate::pipeline::check_environment;
use crate::profile::{Entry, Node, Table, Value};
use crate::resolve::deploy::names;
use crate::resolve::{Environment, Resolved};
use toml_edit::{Array, DocumentMut, InlineTable, Item};

/// How to import.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions {
    /// The edition; `None` infers it from the variables (an error when they do not decide).
    pub edition: Option<Edition>,
    /// Write values equal to the spec's defaults too.
    pub keep_defaults: bool,
}

/// An imported profile.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The profile (TOML text).
    pub profile: String,
    pub edition: Edition,
    /// Warnings, at the input's lines.
    pub diagnostics: Diagnostics,
    /// Where the edition came from when the variables fit both: the image, `name:line:col`.
    pub edition_from_image: Option<String>,
}

/// The edition given, else the one the image tag names when the variables fit both, with the
/// place of the image (`file:line:col` and the image as written).
fn edition_to_use(
    read: &Read,
    options: ImportOptions,
    sources: &Sources,
) -> (Option<Edition>, Option<String>) {
    if options.edition.is_some() {
        return (options.edition, None);
    }
    let Some((edition, (image, at))) =
        super::edition::from_image(&read.entries, read.deploy.image.as_ref())
    else {
        return (None, None);
    };
    let source = sources.get(at.source);
    let (line, start) = source.line_of(at.start);
    let place = format!(
        "{}:{line}:{} (`{}`)",
        crate::support::escape::one_line(&source.name),
        at.start - start + 1,
        crate::support::escape::one_line(image)
    );
    (Some(edition), Some(place))
}

/// Builds the profile of what was read. `Err` holds every diagnostic when there is an error:
/// the profile could not carry the environment as it is.
pub fn import(
    read: &Read,
    options: ImportOptions,
    sources: &Sources,
) -> Result<Imported, Diagnostics> {
    let decided = decide(read, options, sources)?;
    let (edition, from_image) = (decided.edition, decided.from_image);
    let mut header = format!(
        "Imported by svcgen from {} ({}).",
        crate::support::escape::one_line(&sources.get(read.source).name),
        read.format.name()
    );
    if let Some(place) = &from_image {
        header.push_str(&format!(
            "\n# Edition {edition}: named by the image tag at {place}; the variables fit both."
        ));
    }
    let written = Written {
        header: &header,
        deploy: &decided.deploy,
        keep_defaults: options.keep_defaults,
    };
    Ok(Imported {
        profile: written.text(read, &decided.analysis, edition, Some(&decided.resolved)),
        edition,
        diagnostics: decided.diagnostics,
        edition_from_image: from_image,
    })
}

/// The environment read, resolved as the profile `import` writes of it resolves (every check
/// of its values, at the input's lines), with its warnings; `Err` holds every diagnostic when
/// there is an error. `preflight --from-env` dials what this resolves.
pub fn resolve_environment(
    read: &Read,
    options: ImportOptions,
    sources: &Sources,
) -> Result<(Resolved, Diagnostics), Diagnostics> {
    decide(read, options, sources).map(|d| (d.resolved, d.diagnostics))
}

/// What an import decides before it writes: the edition, the values, the deployment names read
/// along and the profile resolved, with the diagnostics.
struct Decided {
    analysis: Analysis,
    edition: Edition,
    from_image: Option<String>,
    deploy: Vec<DeploySetting>,
    resolved: Resolved,
    diagnostics: Diagnostics,
}

/// Decides an import; `Err` holds every diagnostic when there is an error.
fn decide(read: &Read, options: ImportOptions, sources: &Sources) -> Result<Decided, Diagnostics> {
    let (given, from_image) = edition_to_use(read, options, sources);
    let analysis = analyze(&read.entries, given, sources, false);
    let mut diags = read.diagnostics.clone();
    diags.extend(read.deploy.left_out.clone());
    let unreadable = diags.has_errors();
    // When the file could not be read, the edition it does not decide is beside the point.
    diags.extend(Diagnostics {
        items: analysis
            .diagnostics
            .items
            .iter()
            .filter(|d| !(unreadable && d.code == Code::Edition))
            .cloned()
            .collect(),
    });
    let Some(edition) = analysis.edition.filter(|_| !diags.has_errors()) else {
        // No profile can be written; the values are still checked, exactly as lint checks them.
        diags.extend(profile_check(read, &analysis, sources).1);
        super::in_variable_names(&mut diags, analysis.read_as);
        diags.sort();
        return Err(diags);
    };
    let (deploy, (resolved, found)) = with_deploy_names(read, &analysis, edition, sources);
    diags.extend(found);
    super::in_variable_names(&mut diags, edition);
    diags.sort();
    let Some(resolved) = resolved.filter(|_| !diags.has_errors()) else {
        return Err(diags);
    };
    Ok(Decided {
        analysis,
        edition,
        from_image,
        deploy,
        resolved,
        diagnostics: diags,
    })
}

/// The best profile that can be written of a file whose import failed (`import` gave `Err`):
/// every value read, as read, at its key, under a header saying it does not validate. `None`
/// when the file could not be read or its edition is not known (nothing to build on).
pub fn draft(read: &Read, options: ImportOptions, sources: &Sources) -> Option<String> {
    if read.diagnostics.has_errors() {
        return None;
    }
    let (given, _) = edition_to_use(read, options, sources);
    let analysis = analyze(&read.entries, given, sources, false);
    let edition = analysis.edition?;
    let header = format!(
        "DRAFT imported by svcgen from {} ({}): it does not validate yet.\n\
         # Fix what `svcgen validate` reports at each key, then remove this line.\n\
         # Values under names of secrets are left out: give them as {{ env = \"NAME\" }}.\n\
         # A URL holding a password is left to the deploying environment: {{ deploy_env = \"NAME\" }}.",
        crate::support::escape::one_line(&sources.get(read.source).name),
        read.format.name()
    );
    let written = Written {
        header: &header,
        deploy: &[],
        keep_defaults: options.keep_defaults,
    };
    Some(written.text(read, &analysis, edition, None))
}

/// The deployment names read along that the profile takes, with the check of the profile that
/// holds them: the names are decided first ([`deploy_settings`]), so the profile is resolved once.
fn with_deploy_names(
    read: &Read,
    analysis: &Analysis,
    edition: Edition,
    sources: &Sources,
) -> (Vec<DeploySetting>, Checked) {
    let deploy = deploy_settings(read, edition);
    let checked = check(read, analysis, (edition, true), &deploy, sources);
    (deploy, checked)
}

/// True when reading the file or its names found an error (an undecided edition aside: that is
/// a question to the user, not a problem of a value): then some values never reached the
/// profile, and the checks that need every value are left out.
pub(crate) fn reading_failed(read: &Read, analysis: &Analysis) -> bool {
    read.diagnostics.has_errors()
        || (analysis.diagnostics.items.iter()).any(|d| d.is_error() && d.code != Code::Edition)
}

/// Every check of the profile an analysis makes, for the edition its values were read as, at
/// the input's lines (for `lint`, and for an import that already failed, so that every mistake
/// is reported at once). Plugin archives are left out: an environment never says where they
/// come from. When the reading already found an error, the checks that need every value are
/// left out too ([`reading_failed`]): lint and import decide it alike, and resolve leaves them
/// out ([`Environment`]).
/// The environment resolved comes back too (`None` when it could not be), for the checks of the
/// workload that holds it.
pub fn profile_check(read: &Read, analysis: &Analysis, sources: &Sources) -> Checked {
    check(read, analysis, (analysis.read_as, false), &[], sources)
}

pub type Checked = (Option<Resolved>, Diagnostics);

/// Resolves the profile of the analysed values as `edition` (`writes_profile`: for a profile
/// import writes, not only for lint), at the input's lines.
fn check(
    read: &Read,
    analysis: &Analysis,
    (edition, writes_profile): (Edition, bool),
    deploy: &[DeploySetting],
    sources: &Sources,
) -> Checked {
    let table = profile_table(read, analysis, edition, deploy);
    let effect_unknown = effect_unknown(read, analysis);
    // An environment, not a profile: resolve leaves out the checks of a profile's own form, and
    // those that what was read leaves open.
    let environment = Environment {
        incomplete: reading_failed(read, analysis),
        writes_profile,
        effect_unknown: &effect_unknown,
    };
    let checked = check_environment(read.source, &table, sources, environment);
    let mut found = checked.diagnostics;
    for d in &mut found.items {
        // A fix is an edit of a profile's TOML text; the input is a .env or YAML file.
        d.fixes.clear();
    }
    (checked.resolved, found)
}

/// The `[deploy]` names read along that differ from what the profile gives without them: the
/// deployment's name and namespace, and the Secret of secret references (whose default follows
/// the name). A name is taken only when its setting accepts it, by the setting's own rule (and
/// the Service's, for the deployment's name), so that it never makes the profile invalid.
fn deploy_settings(read: &Read, edition: Edition) -> Vec<DeploySetting> {
    let hints = &read.deploy;
    let mut out = Vec::new();
    carried(hints, edition, &mut out);
    let name = accepted("name", hints.name.as_deref()).filter(|n| names::is_service_name(n));
    let default_name = names::default_deployment_name(Model::get()).to_string();
    let effective_name = name.clone().unwrap_or_else(|| default_name.clone());
    if let Some(name) = name.filter(|n| *n != default_name) {
        out.push(("name", Value::String(name)));
    }
    if let Some(namespace) = accepted("namespace", hints.namespace.as_deref())
        .filter(|n| Some(n) != default_of("namespace").as_ref())
    {
        out.push(("namespace", Value::String(namespace)));
    }
    if let Some(secret) = accepted("secret_name", hints.secret_name.as_deref())
        .filter(|s| *s != names::default_secret_name(&effective_name))
    {
        out.push(("secret_name", Value::String(secret)));
    }
    out
}

/// A `[deploy]` setting read along from the file: its key under `deploy.` and its value.
type DeploySetting = (&'static str, Value);

/// The table path and leaf of the `[deploy]` setting `key` (`image.tag`: `deploy.image`, `tag`).
fn deploy_path(key: &str) -> (String, &str) {
    match key.rsplit_once('.') {
        Some((path, leaf)) => (format!("deploy.{path}"), leaf),
        None => ("deploy".to_string(), key),
    }
}

/// The image's repository and tag, and the replica count, read along (a compose service's or
/// a workload's), where they differ from what the profile gives without them and their
/// settings accept them: an import keeps what it read.
fn carried(hints: &super::DeployHints, edition: Edition, out: &mut Vec<DeploySetting>) {
    if let Some((image, _)) = &hints.image {
        let last = image.rsplit('/').next().unwrap_or(image);
        let (repository, tag) = match last.rsplit_once(':') {
            Some((_, tag)) => (&image[..image.len() - tag.len() - 1], Some(tag)),
            None => (image.as_str(), None),
        };
        if let Some(repository) = accepted("image.repository", Some(repository))
            .filter(|r| Some(r) != default_of("image.repository").as_ref())
        {
            out.push(("image.repository", Value::String(repository)));
        }
        let edition_tag = Model::get().editions.iter().find(|e| e.id == edition);
        if let Some(tag) =
            accepted("image.tag", tag).filter(|t| Some(t) != edition_tag.map(|e| &e.image_tag))
        {
            out.push(("image.tag", Value::String(tag)));
        }
    }
    let replicas = (hints.replicas.as_ref()).and_then(|(text, _)| text.parse::<i64>().ok());
    let setting = Model::get().setting("deploy.replicas");
    if let (Some(n), Some(setting)) = (replicas, setting)
        && setting
            .ty
            .rules()
            .setting_text(setting, &Value::Integer(n))
            .is_ok()
        && Some(n.to_string()) != default_of("replicas")
    {
        out.push(("replicas", Value::Integer(n)));
    }
}

/// `text` as the `[deploy]` setting `key` reads it, when the setting's type accepts it.
fn accepted(key: &str, text: Option<&str>) -> Option<String> {
    let setting = Model::get().setting(&format!("deploy.{key}"))?;
    let value = Value::String(text?.to_string());
    setting.ty.rules().setting_text(setting, &value).ok()
}

/// The default of the `[deploy]` setting `key`, when it has a value.
fn default_of(key: &str) -> Option<String> {
    let setting = Model::get().setting(&format!("deploy.{key}"))?;
    setting.default.value().map(str::to_string)
}

/// The profile of the analysed values as a table, each key and value at the origin of the
/// name and text it was read from: the table that resolve checks.
fn profile_table(
    read: &Read,
    analysis: &Analysis,
    edition: Edition,
    deploy: &[DeploySetting],
) -> Table {
    let file = Origin::new(read.source, 0..0);
    let mut table = Table::default();
    let text = |t: &str| Node {
        value: Value::String(t.to_string()),
        origin: file,
    };
    table
        .entries
        .push(entry("edition", file, text(edition.as_str())));
    for setting in &analysis.settings {
        let name_origin = read.entries[setting.entry].name_origin;
        let (path, leaf) = setting
            .var
            .key
            .rsplit_once('.')
            .unwrap_or(("", &setting.var.key));
        table_at(&mut table, path, name_origin).entries.push(entry(
            leaf,
            name_origin,
            setting.node.clone(),
        ));
    }
    let env: Vec<Entry> = analysis
        .extras
        .iter()
        .map(|&i| {
            let e = &read.entries[i];
            entry(&e.name, e.name_origin, extra_node(e))
        })
        .collect();
    if !env.is_empty() {
        table_at(&mut table, "env", file).entries = env;
    }
    for (key, value) in deploy {
        let (path, leaf) = deploy_path(key);
        let at = table_at(&mut table, &path, file);
        let node = Node {
            value: value.clone(),
            origin: file,
        };
        at.entries.push(entry(leaf, file, node));
    }
    table
}

/// True for a name that stands for a secret (an old name, or a misspelling of one).
fn names_a_secret(name: &str) -> bool {
    crate::diag::redact::secret_var_of_env(name).is_some()
        || crate::diag::redact::nearly_names_a_secret(name)
}

/// An `[env]` value: its text, or `{ deploy_env = "X" }` (with its default) for a whole
/// placeholder, which the compose and `.env` renderings write back as one.
fn extra_node(e: &super::EnvEntry) -> Node {
    let at = e.origin;
    let text = |t: &str| Node {
        value: Value::String(t.to_string()),
        origin: at,
    };
    if let EnvValue::FromEnv { text: written, .. } = &e.value
        && let Some((shell, default)) = super::interpolate::deploy_form(written)
    {
        use crate::resolve::deferred::{DEFAULT, DEPLOY_ENV};
        let mut entries = vec![entry(DEPLOY_ENV, at, text(shell))];
        entries.extend(default.map(|d| entry(DEFAULT, at, text(d))));
        return Node {
            value: Value::Table(Table { entries }),
            origin: at,
        };
    }
    text(e.value.text().unwrap_or_default())
}

fn entry(key: &str, key_origin: Origin, node: Node) -> Entry {
    Entry {
        key: key.to_string(),
        key_origin,
        node,
    }
}

/// The table at a dotted path of a profile table, created (at `origin`) when missing.
fn table_at<'t>(mut table: &'t mut Table, path: &str, origin: Origin) -> &'t mut Table {
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let index = match table.entries.iter().position(|e| e.key == part) {
            Some(i) => i,
            None => {
                let node = Node {
                    value: Value::Table(Table::default()),
                    origin,
                };
                table.entries.push(entry(part, origin, node));
                table.entries.len() - 1
            }
        };
        table = match &mut table.entries[index].node.value {
            Value::Table(inner) => inner,
            _ => unreachable!("the profile table has only tables on key paths"),
        };
    }
    table
}

/// How the profile text is written.
struct Written<'a> {
    header: &'a str,
    deploy: &'a [DeploySetting],
    keep_defaults: bool,
}

impl Written<'_> {
    /// The profile text: the checked values whose group applies (defaults left out unless
    /// kept; the selectors always written), then `[env]` and `[deploy]`.
    /// Without `resolved` (a draft of a profile that does not validate), every value read is
    /// written as read, at its key.
    fn text(
        &self,
        read: &Read,
        analysis: &Analysis,
        edition: Edition,
        resolved: Option<&Resolved>,
    ) -> String {
        let mut doc = DocumentMut::new();
        let mut position = 0;
        doc.insert("edition", toml_edit::value(edition.as_str()));
        if let Some(mut key) = doc.as_table_mut().key_mut("edition") {
            key.leaf_decor_mut()
                .set_prefix(format!("# {}\n", self.header));
        }
        for setting in &analysis.settings {
            let var = setting.var;
            if let Some(resolved) = resolved {
                let Some(set) = resolved
                    .vars
                    .iter()
                    .find(|r| std::ptr::eq(r.var, var) && r.origin.is_some())
                else {
                    continue; // its group does not apply (reported by resolve)
                };
                // A secret reference has no text, so it is never the default.
                let text = set.value.env_text();
                let is_default = text.is_some_and(|t| Some(t.as_str()) == var.default.value());
                if is_default && !self.keep_defaults && !var.selector {
                    continue;
                }
            }
            let (path, leaf) = var.key.rsplit_once('.').unwrap_or(("", var.key.as_str()));
            let table = doc_table_at(&mut doc, path, &mut position);
            let value = credential_reference(&setting.node.value, &var.env)
                .unwrap_or_else(|| toml_value(&setting.node.value));
            table.insert(leaf, Item::Value(value));
        }
        if !analysis.extras.is_empty() {
            let table = doc_table_at(&mut doc, "env", &mut position);
            for &i in &analysis.extras {
                let entry = &read.entries[i];
                // A draft is written before resolve refuses a secret under an old or
                // misspelled name in `[env]` (E0225): its value never reaches the draft.
                if resolved.is_none() && names_a_secret(&entry.name) {
                    continue;
                }
                let node = extra_node(entry);
                let value = credential_reference(&node.value, &entry.name)
                    .unwrap_or_else(|| toml_value(&node.value));
                table.insert(&entry.name, Item::Value(value));
            }
        }
        if !self.deploy.is_empty() {
            let model = Model::get();
            for (key, value) in self.deploy {
                debug_assert!(model.setting(&format!("deploy.{key}")).is_some());
                let (path, leaf) = deploy_path(key);
                let table = doc_table_at(&mut doc, &path, &mut position);
                table.insert(leaf, Item::Value(toml_value(value)));
            }
        }
        doc.to_string()
    }
}

/// The table at a dotted path of the TOML document, created (in order) when missing.
fn doc_table_at<'d>(
    doc: &'d mut DocumentMut,
    path: &str,
    position: &mut isize,
) -> &'d mut toml_edit::Table {
    let mut table = doc.as_table_mut();
    if path.is_empty() {
        return table;
    }
    for part in path.split('.') {
        if !table.contains_key(part) {
            let mut new = toml_edit::Table::new();
            *position += 1;
            new.set_position(Some(*position));
            new.set_implicit(true);
            table.insert(part, Item::Table(new));
        }
        table = table[part]
            .as_table_mut()
            .expect("the profile builder creates only tables on key paths");
    }
    table.set_implicit(false);
    table
}

/// A URL holding a password is not written into the profile (which is committed): it is
/// deferred to the deploying environment's variable `env` (`{ deploy_env = "NAME" }`), as a
/// secret's value becomes `{ env = "NAME" }`. `None` for any other value.
fn credential_reference(value: &Value, env: &str) -> Option<toml_edit::Value> {
    let Value::String(text) = value else {
        return None;
    };
    if crate::diag::redact::url_password_ranges(text).is_empty() {
        return None;
    }
    let mut table = toml_edit::InlineTable::new();
    table.insert(crate::resolve::deferred::DEPLOY_ENV, env.into());
    Some(toml_edit::Value::InlineTable(table))
}

/// A profile value as TOML: tables inline (the hybrid mapping, `{ env = "NAME" }`).
fn toml_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::String(t) | Value::Datetime(t) => toml_edit::Value::from(t.as_str()),
        Value::Bool(b) => toml_edit::Value::from(*b),
        Value::Integer(n) => toml_edit::Value::from(*n),
        Value::Float(f) => toml_edit::Value::from(*f),
        Value::Array(items) => {
            let mut array = Array::new();
            for item in items {
                array.push(toml_value(&item.value));
            }
            toml_edit::Value::Array(array)
        }
        Value::Table(table) => {
            let mut inline = InlineTable::new();
            for entry in &table.entries {
                inline.insert(&entry.key, toml_value(&entry.node.value));
            }
            toml_edit::Value::InlineTable(inline)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ReadOptions, read_text};
    use crate::pipeline::counted::resolves;

    /// A Deployment naming the deployment, its namespace and the Secret of a secret reference.
    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: portal\n  namespace: identity\nspec:\n  template:\n    spec:\n      containers:\n        - name: admin-ui\n          image: svc/admin-ui:1\n          env:\n            - name: CN_CONFIG_ADAPTER\n              value: consul\n            - name: CN_SECRET_ADAPTER\n              value: vault\n            - name: CN_PERSISTENCE_TYPE\n              value: ldap\n            - name: CN_LDAP_PASSWORD\n              valueFrom:\n                secretKeyRef: {name: identity-secrets, key: pw}\n";

    /// The profile imported (as edition A) from the manifest `text`, and how many times the
    /// import resolved it.
    fn import_counting(text: &str) -> (String, usize) {
        let mut sources = Sources::new();
        let read = read_text("d.yaml", text, &ReadOptions::default(), &mut sources);
        let options = ImportOptions {
            edition: Some(Edition::A),
            keep_defaults: false,
        };
        let mut imported = None;
        let count = resolves(|| imported = Some(import(&read, options, &sources)));
        let imported = imported.unwrap().unwrap_or_else(|d| panic!("{d:?}"));
        (imported.profile, count)
    }

    /// Import resolves the profile of a file once, with every deployment name it takes (the
    /// Secret's default follows the name, so it was resolved again per name before).
    #[test]
    fn import_resolves_once_with_the_names_read_along() {
        let (profile, count) = import_counting(DEPLOYMENT);
        assert_eq!(count, 1);
        for line in [
            "name = \"portal\"",
            "namespace = \"identity\"",
            "secret_name = \"identity-secrets\"",
        ] {
            assert!(profile.contains(line), "{profile}");
        }
    }

    /// A name the profile could not take (a Service name cannot start with a digit) is left
    /// out, and the import still resolves once.
    #[test]
    fn a_name_the_profile_refuses_is_left_out_without_resolving_again() {
        let text = DEPLOYMENT.replace("name: portal", "name: 1portal");
        let (profile, count) = import_counting(&text);
        assert_eq!(count, 1);
        assert!(!profile.contains("1portal"), "{profile}");
        assert!(
            profile.contains("secret_name = \"identity-secrets\""),
            "{profile}"
        );
    }
}
