//! Resolution: the raw profile checked against the spec model for its edition, giving the one
//! ordered environment every renderer formats.
//!
//! All problems are collected; a [`Resolved`] is only handed out when there is no error, so
//! renderers never see a half-checked profile.

pub mod allow;
mod convert;
pub mod deferred;
pub mod deploy;
mod extra;
mod extras;
mod fitting;
mod groups;
mod image_env;
mod moving_tag;
pub(crate) mod rules;
pub mod timeline;
mod walk;

/// The typed value is the value types' own: resolve hands it on.
pub use crate::value_type::{SecretSource, Typed};
pub use convert::{backend_not_a_string, is_env_name};
pub use extra::Extra;
pub use groups::not_applied;
pub use moving_tag::moving_tag_in_use;
pub use walk::{children, next_segments};

use crate::diag::source::{Origin, SourceId, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Edition, Lookup, Model, Var};
use crate::profile::{Table, Value};
use crate::support::suggest::did_you_mean;
use groups::{Applies, Choices};
use std::collections::HashMap;

/// Root keys that are not variables.
pub const RESERVED_KEYS: [&str; 5] = [
    "edition",
    "env",
    "deploy",
    crate::profile::EXTENDS,
    allow::ALLOW_KEY,
];

/// A variable with its value in the resolved environment.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedVar {
    pub var: &'static Var,
    pub value: Typed,
    /// Where the value was set; `None` when it is the spec's default.
    pub origin: Option<Origin>,
}

impl ResolvedVar {
    /// True when the value equals the spec's default (set explicitly or not).
    pub fn is_default(&self) -> bool {
        self.value.env_text().as_deref() == self.var.default.value()
    }
}

/// A checked profile: the edition, and its environment in the model's order.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub edition: Edition,
    pub vars: Vec<ResolvedVar>,
    /// `[env]` variables outside the spec, in the order written.
    pub extras: Vec<Extra>,
    /// How it is deployed: names, image, file sources.
    pub deploy: deploy::Deploy,
    /// The warnings the profile acknowledges (`allow`): not reported, by resolve nor by render.
    pub allow: Vec<crate::diag::Code>,
    /// Where the profile says its edition (the one key every profile writes).
    pub edition_at: Origin,
    /// Variables that apply and that the profile sets to the empty string: left out of every
    /// output, so the image uses its own default for them (a render check may say what that
    /// default points at), with where each was emptied.
    pub emptied: Vec<(&'static Var, Origin)>,
}

impl Resolved {
    /// Where a warning about `var` in a deployment points: where it was set; else where the
    /// setting that made its group apply was written (its adapter or backend); else the
    /// `[deploy]` table; else the edition. A default the profile never wrote is deployed all the
    /// same, so there is always a place to point at.
    pub fn deployment_origin(&self, var: &ResolvedVar) -> Origin {
        let model = Model::get();
        let cause = || {
            (model.group(&var.var.group).when.iter()).find_map(|condition| {
                let key = match condition {
                    crate::model::Condition::KeyEquals { key, .. } => key,
                    crate::model::Condition::Backend { .. } => &model.backends.selector,
                };
                self.vars.iter().find(|rv| &rv.var.key == key)?.origin
            })
        };
        (var.origin)
            .or_else(cause)
            .or(self.deploy.declared_at)
            .unwrap_or(self.edition_at)
    }
}

/// Settings of resolution that do not come from the profile.
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// The texts the profile came from: relative paths are relative to the folder of the file
    /// that wrote them.
    pub sources: &'a Sources,
    pub mode: Mode<'a>,
}

/// What the table resolved stands for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode<'a> {
    /// A profile someone wrote: every check.
    #[default]
    Profile,
    /// The environment of a running container, read by `import` or `lint` and made a table:
    /// the checks of a profile's own form are left out. Its `[env]` names are the container's,
    /// not written by hand: the reader already reported, with the container's view, those the
    /// spec lacks.
    Environment(Environment<'a>),
}

/// What the reader of an environment knows that its table does not say: which checks would
/// claim what is not so. Resolve decides with it where each check is made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Environment<'a> {
    /// Some value given could not be read (an error of the file): the checks that need every
    /// value (a required value, the backend mapping, a hidden default) are left out.
    pub incomplete: bool,
    /// A profile is written from it (`import`): a listed plugin needs its archive's source. A
    /// linted environment never says where its archives come from.
    pub writes_profile: bool,
    /// Names (where the table has them) of which "has no effect" cannot be said: their group
    /// depends on a value given but not read, or only a whole Secret may hand them over.
    pub effect_unknown: &'a [Origin],
}

impl Mode<'_> {
    /// True when a missing value may be reported: every value given was read.
    fn reports_missing(self) -> bool {
        !matches!(self, Mode::Environment(e) if e.incomplete)
    }

    /// True when a plugin listed without an archive source is reported.
    pub(crate) fn asks_plugin_archives(self) -> bool {
        !matches!(self, Mode::Environment(e) if !e.writes_profile)
    }

    /// True when "has no effect" may be said of the setting named at `at`.
    fn claims_no_effect(self, at: Origin) -> bool {
        !matches!(self, Mode::Environment(e) if e.effect_unknown.contains(&at))
    }
}

/// The explicit settings, converted: key to (typed value, where it was written).
type Explicit = HashMap<String, (Option<Typed>, Origin)>;

/// Checks a profile and resolves it. The result is `Some` only when there is no error.
pub fn resolve(
    table: &Table,
    source: SourceId,
    options: Options<'_>,
) -> (Option<Resolved>, Diagnostics) {
    let model = Model::get();
    let mut diags = Diagnostics::default();
    let Some((edition, edition_at)) = edition(table, source, &mut diags) else {
        diags.sort();
        return (None, diags);
    };

    let mut settings = Vec::new();
    walk::walk(
        model,
        edition,
        table,
        "",
        &RESERVED_KEYS,
        &mut settings,
        &mut diags,
    );
    let explicit = convert_settings(&settings, options.sources, &mut diags);
    let choices = Choices::new(model, edition, &explicit, mapping_origins(model, &settings));
    let vars = environment(
        model,
        edition,
        &settings,
        &explicit,
        (&choices, options.mode),
        source,
        &mut diags,
    );
    let emptied = emptied(model, edition, &explicit, &choices);
    if let Some(cause) = model.var_by_key(&model.backends.selector, edition)
        && options.mode.reports_missing()
    {
        hybrid_required(model, edition, cause, &explicit, &mut diags);
    }

    let extras = match table.get("env") {
        Some(env) => extras::extras(model, edition, env, options.mode, &mut diags),
        None => Vec::new(),
    };
    let deploy = deploy::deploy(
        model,
        edition,
        table.get("deploy"),
        &vars,
        &extras,
        options,
        &mut diags,
    );
    let allow = allow::read(table, &mut diags);
    let resolved = Resolved {
        edition,
        vars,
        extras,
        deploy,
        allow,
        edition_at,
        emptied,
    };
    rules::check(&resolved, &mut diags);
    fitting::check(&resolved, &mut diags);
    // The tag an environment runs is not in it (import and lint): only a profile's is known.
    if matches!(options.mode, Mode::Profile) {
        moving_tag::check(&resolved, &mut diags);
    }
    allow::acknowledge(&mut diags, &resolved.allow);
    diags.sort();
    if diags.has_errors() {
        (None, diags)
    } else {
        (Some(resolved), diags)
    }
}

/// Converts each setting to its typed value (reporting values of the wrong type).
fn convert_settings(
    settings: &[walk::Setting<'_>],
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Explicit {
    let cx = convert::Context { sources };
    let mut explicit = Explicit::new();
    for setting in settings {
        let typed = convert::convert(setting.var, setting.entry, &cx, diags);
        explicit.insert(setting.var.key.clone(), (typed, setting.entry.node.origin));
    }
    explicit
}

/// Where each value of the backend mapping was written: (backend, origin).
fn mapping_origins(model: &Model, settings: &[walk::Setting<'_>]) -> Vec<(String, Origin)> {
    settings
        .iter()
        .filter(|s| s.var.key == model.backends.mapping)
        .flat_map(|s| match &s.entry.node.value {
            Value::Table(t) => t.entries.iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        })
        .filter_map(|e| match &e.node.value {
            Value::String(backend) => Some((backend.clone(), e.node.origin)),
            _ => None,
        })
        .collect()
}

/// The variables of the edition whose group applies, each with its value (set or default), in
/// the model's order; reports settings that have no effect and required values that are missing.
fn environment(
    model: &'static Model,
    edition: Edition,
    settings: &[walk::Setting<'_>],
    explicit: &Explicit,
    (choices, mode): (&Choices<'_>, Mode<'_>),
    source: SourceId,
    diags: &mut Diagnostics,
) -> Vec<ResolvedVar> {
    let key_origins: HashMap<&str, Origin> = settings
        .iter()
        .map(|s| (s.var.key.as_str(), s.entry.key_origin))
        .collect();
    let mut vars = Vec::new();
    for var in model.vars_of(edition) {
        let group = model.group(&var.group);
        let set = explicit.get(&var.key);
        match choices.applies(group) {
            Applies::Yes(cause) => {
                let slot = Slot {
                    var,
                    cause,
                    choices,
                    source,
                    reports_missing: mode.reports_missing(),
                };
                vars.extend(slot.resolve(set, diags));
            }
            Applies::No if set.is_some() => {
                let at = key_origins[var.key.as_str()];
                if mode.claims_no_effect(at) {
                    diags.push(setting_not_applied(var, &group.when, at, choices));
                }
            }
            Applies::No | Applies::Unknown => {}
        }
    }
    vars
}

/// The variables that apply and are set to the empty string ([`Resolved::emptied`]), in the
/// model's order.
fn emptied(
    model: &'static Model,
    edition: Edition,
    explicit: &Explicit,
    choices: &Choices<'_>,
) -> Vec<(&'static Var, Origin)> {
    (model.vars_of(edition))
        .filter(|var| matches!(choices.applies(model.group(&var.group)), Applies::Yes(_)))
        .filter_map(|var| match explicit.get(&var.key) {
            Some((Some(value), origin)) if value.env_text().is_some_and(|t| t.is_empty()) => {
                Some((var, *origin))
            }
            _ => None,
        })
        .collect()
}

/// One variable whose group applies, with what decided that.
struct Slot<'a> {
    var: &'static Var,
    cause: Option<&'a crate::model::Condition>,
    choices: &'a Choices<'a>,
    source: SourceId,
    /// Every value given was read: a missing one may be reported ([`Mode::reports_missing`]).
    reports_missing: bool,
}

impl Slot<'_> {
    /// The variable's value: the one set (unless empty), else its non-empty default; reports a
    /// required value that is missing or empty, and a hidden default that would be used.
    fn resolve(
        &self,
        set: Option<&(Option<Typed>, Origin)>,
        diags: &mut Diagnostics,
    ) -> Option<ResolvedVar> {
        let var = self.var;
        match set {
            Some((Some(value), origin)) => {
                if value.env_text().is_some_and(|t| t.is_empty()) {
                    if var.required && self.reports_missing {
                        diags.push(self.required(Some(*origin)));
                    } else if let Some(object) = Model::get().api_object_of(&var.key) {
                        diags.push(empty_api_name(var, &object.resource, *origin));
                    }
                    if let Some(refused) = empty_needed_file(var, *origin) {
                        diags.push(refused);
                    }
                    return None;
                }
                Some(ResolvedVar {
                    var,
                    value: value.clone(),
                    origin: Some(*origin),
                })
            }
            Some((None, _)) => None,
            None => {
                if var.required {
                    if self.reports_missing {
                        diags.push(self.required(None));
                    }
                    return None;
                }
                if var.default == DefaultValue::Hidden && self.reports_missing {
                    diags.push(hidden_default(var, self.cause, self.choices, self.source));
                }
                let text = var.default.value().filter(|t| !t.is_empty())?;
                Some(ResolvedVar {
                    var,
                    value: Typed::Text(text.to_string()),
                    origin: None,
                })
            }
        }
    }

    fn required(&self, set_at: Option<Origin>) -> Diagnostic {
        required(self.var, self.cause, set_at, self.choices, self.source)
    }
}

/// An empty path of a file the image opens at start (the model's `needed_at_start`) that has a
/// default: the empty variable is left out of every output, so the image opens its default path,
/// which no `[deploy.files]` source can name (its variable no longer applies). Refused rather
/// than resolved to the default: "" reads as "no file", which the image does not allow.
fn empty_needed_file(var: &Var, origin: Origin) -> Option<Diagnostic> {
    let default = var.default.value().filter(|d| !d.is_empty())?;
    var.needed_at_start.then(|| {
        Diagnostic::new(
            Code::ImageRefuses,
            format!(
                "`{}` is empty: the variable is left out, and the image then opens its default {default} ({})",
                var.key, var.env
            ),
        )
        .at(origin)
        .label("an empty path is not \"no file\"")
        .help(format!(
            "remove `{}` to use {default}, or name the file; either way give it a source under [deploy.files]",
            var.key
        ))
        .help(var.meaning.clone())
    })
}

/// The profile's edition and where it is written.
fn edition(table: &Table, source: SourceId, diags: &mut Diagnostics) -> Option<(Edition, Origin)> {
    let allowed =
        "edition = \"A\" (image tag 1.0.0_dev line) or edition = \"B\" (0.0.0-nightly line)";
    let Some(entry) = table.get("edition") else {
        diags.push(
            Diagnostic::new(Code::Edition, "the profile does not say its edition")
                .at(Origin::new(source, 0..0))
                .label("`edition` is required")
                .help(format!("add a top-level line {allowed}")),
        );
        return None;
    };
    let text = match &entry.node.value {
        Value::String(s) => s.as_str(),
        other => {
            diags.push(
                Diagnostic::new(
                    Code::Edition,
                    format!("`edition` must be a string, found {}", other.type_name()),
                )
                .at(entry.node.origin)
                .label("expected \"A\" or \"B\"")
                .help(allowed),
            );
            return None;
        }
    };
    if let Some(edition) = Edition::parse(text) {
        return Some((edition, entry.key_origin));
    }
    diags.push(
        Diagnostic::new(Code::Edition, format!("unknown edition \"{text}\""))
            .at(entry.node.origin)
            .label("expected \"A\" or \"B\"")
            .help(allowed)
            .suggest_value(entry.node.origin, did_you_mean(text, ["A", "B"])),
    );
    None
}

/// A setting of the profile whose group does not apply, with the selectors' values.
fn setting_not_applied(
    var: &Var,
    when: &[crate::model::Condition],
    origin: Origin,
    choices: &Choices<'_>,
) -> Diagnostic {
    let mut d = groups::not_applied(&var.key, when, origin);
    for condition in when {
        if let crate::model::Condition::KeyEquals { key, .. } = condition {
            let now = choices.value(key).unwrap_or_default();
            let how = if choices.origin(key).is_some() {
                "is set to"
            } else {
                "defaults to"
            };
            d = d.help(format!("{key} {how} \"{now}\""));
        }
    }
    d.help("remove the setting, or change the selector")
}

fn required(
    var: &Var,
    cause: Option<&crate::model::Condition>,
    set_at: Option<Origin>,
    choices: &Choices<'_>,
    source: SourceId,
) -> Diagnostic {
    let because = cause.map_or(String::new(), |c| format!(" when {c}"));
    let origin = set_at
        .or_else(|| cause.and_then(|c| choices.condition_origin(c)))
        .unwrap_or(Origin::new(source, 0..0));
    let d = Diagnostic::new(
        Code::Required,
        format!("`{}` is required{because}", var.key),
    )
    .at(origin)
    .label(format!("needs `{}`", var.key))
    .help(format!("set `{}`: {} ({})", var.key, var.meaning, var.env));
    match set_at {
        Some(_) => d,
        None => d.fix(crate::diag::Fix::AddKey {
            key: var.key.clone(),
        }),
    }
}

/// An empty name or namespace of a `kubernetes` adapter's object: the empty string leaves the
/// variable unset, and the image then uses its own default object, which is not the spec's
/// default (the image's config map default is not known, and it reads the secret's name from
/// another variable): svcgen could neither name it in the Role nor check it, so the pods would
/// be refused (403) by the API. Refused, with the two ways out.
fn empty_api_name(var: &Var, resource: &str, origin: Origin) -> Diagnostic {
    let default = var.default.value().unwrap_or_default();
    Diagnostic::new(
        Code::Required,
        format!(
            "`{}` is empty: that leaves {} unset, and the image then reads and writes its {resource} through the Kubernetes API at a default of its own, which the Role svcgen renders cannot name (the API refuses it, 403)",
            var.key, var.env
        ),
    )
    .at(origin)
    .label("empty name of a kubernetes adapter's object")
    .help(format!(
        "give `{}` a Kubernetes name, or remove the key to use the spec's default \"{default}\"",
        var.key
    ))
}

fn hidden_default(
    var: &Var,
    cause: Option<&crate::model::Condition>,
    choices: &Choices<'_>,
    source: SourceId,
) -> Diagnostic {
    let origin = cause
        .and_then(|c| choices.condition_origin(c))
        .unwrap_or(Origin::new(source, 0..0));
    Diagnostic::new(
        Code::DefaultPassphrase,
        format!(
            "`{}` is not set: the container uses its fixed default",
            var.key
        ),
    )
    .at(origin)
    .label(format!(
        "{} falls back to a default the spec does not show",
        var.env
    ))
    .help(format!(
        "{}; set `{}` = {{ env = \"NAME\" }} or {{ file = \"PATH\" }}",
        var.meaning, var.key
    ))
}

/// With the selector at its mixed value (`hybrid`), the mapping must be given.
fn hybrid_required(
    model: &Model,
    edition: Edition,
    selector: &Var,
    explicit: &Explicit,
    diags: &mut Diagnostics,
) {
    let rule = &model.backends;
    let mixed = match explicit.get(&selector.key) {
        Some((Some(value), origin)) if value.env_text().as_deref() == Some(rule.mixed.as_str()) => {
            *origin
        }
        _ => return,
    };
    if explicit.contains_key(&rule.mapping) {
        return;
    }
    let Some(mapping) = model.var_by_key(&rule.mapping, edition) else {
        return;
    };
    let example = mapping
        .mapping_keys
        .iter()
        .map(|k| format!("{k} = \"...\""))
        .collect::<Vec<_>>()
        .join(", ");
    diags.push(
        Diagnostic::new(
            Code::HybridMissing,
            format!(
                "`{}` = \"{}\" needs `{}`",
                selector.key, rule.mixed, rule.mapping
            ),
        )
        .at(mixed)
        .label(format!("no `{}` given", rule.mapping))
        .help(format!("add {} = {{ {example} }}", rule.mapping))
        .fix(crate::diag::Fix::AddKey {
            key: rule.mapping.clone(),
        })
        .help(format!(
            "backends: {}",
            mapping.allowed.as_deref().unwrap_or_default().join(", ")
        )),
    );
}
