//! An environment as it is, read the way the container reads it, shared by `import` and `lint`:
//! each variable's name is looked up in the spec model (unknown, legacy and other-edition names
//! are reported here) and its text turned into the value a profile holds, at its place in the
//! file. The values' own checks are resolve's: [`super::profile`] runs the profile made of them.

use super::edition::{Inferred, infer_edition};
use super::values::{secret_ref_elsewhere, value};
use super::{EnvEntry, EnvValue};
use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model, Var};
use crate::profile::Node;
use crate::resolve::is_env_name;

/// A spec variable of the edition with its profile value (its origin the value's in the file).
#[derive(Debug, Clone)]
pub struct Setting {
    pub var: &'static Var,
    pub node: Node,
    /// The entry it came from (index into the entries analysed).
    pub entry: usize,
}

/// The result of checking an environment against the model.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The edition given or decided by the variables; `None` when undecided.
    pub edition: Option<Edition>,
    /// The edition the values were read for: the decided one, else the one most variables are
    /// for (edition B when they do not say).
    pub read_as: Edition,
    /// Spec variables of the edition with a value, in the model's order.
    pub settings: Vec<Setting>,
    /// Keys of variables given a value that was not read: one the container cannot take (an
    /// error here), or (`lint`) one the shell fills in. What depends on them is not known.
    pub unread: Vec<&'static str>,
    /// Entries (indexes) that are not spec variables, for `[env]`, in order.
    pub extras: Vec<usize>,
    pub diagnostics: Diagnostics,
}

/// Reads every entry for `edition` (or the edition the variables decide). Without a decided
/// edition, values are read as edition B's where both editions have the variable, and the
/// diagnostics say that the edition must be given.
///
/// For `lint`, a value the deploying shell fills in (`${NAME}`) is unknown and left out; for an
/// import it is kept as literal text, which its variable's checks must accept.
pub fn analyze(
    entries: &[EnvEntry],
    edition: Option<Edition>,
    sources: &Sources,
    for_lint: bool,
) -> Analysis {
    let model = Model::get();
    let mut diags = Diagnostics::default();
    let (decided, check_as) = decide(entries, edition, sources, &mut diags);
    let mut settings = Vec::new();
    let mut extras = Vec::new();
    let mut unread = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        if let Some(var) = legacy_secret(entry, entries, check_as) {
            // A secret under an old name: never copied into `[env]` in clear text, but read as
            // the variable it was meant to be, from the environment.
            unknown_name(model, entry, decided, &mut diags);
            let node = value(var, entry, sources, &mut diags);
            settings.extend(node.map(|node| Setting {
                var,
                node,
                entry: i,
            }));
            continue;
        }
        if model.entries_by_env(&entry.name).next().is_none() {
            if not_in_the_spec(model, entry, decided, for_lint, &mut diags) {
                extras.push(i);
            }
            continue;
        }
        let var = match model
            .vars
            .iter()
            .find(|v| v.env == entry.name && v.editions.contains(&check_as))
        {
            Some(var) => var,
            // Of the other edition: reported by `decide`.
            None => continue,
        };
        if from_the_shell(var, entry, for_lint, &mut diags) && for_lint {
            unread.push(var.key.as_str());
            continue;
        }
        if unused_default_mapping(model, var, entry, entries, check_as) {
            continue; // the spec's own default, unread unless the type is the mixed one
        }
        match value(var, entry, sources, &mut diags) {
            Some(node) => settings.push(Setting {
                var,
                node,
                entry: i,
            }),
            // An empty value is known: the container reads the empty string (W0315 says so),
            // which no `when` condition names, so the groups that depend on it do not apply.
            None if entry.value.text() == Some("") => {}
            None => unread.push(var.key.as_str()),
        }
    }
    settings.sort_by_key(|s| model.vars.iter().position(|v| std::ptr::eq(v, s.var)));
    Analysis {
        edition: decided,
        read_as: check_as,
        settings,
        unread,
        extras,
        diagnostics: diags,
    }
}

/// An entry the model does not name, reported with its nearest names: true when it goes to
/// `[env]` (with a note when the deploying shell gives its value).
fn not_in_the_spec(
    model: &Model,
    entry: &EnvEntry,
    decided: Option<Edition>,
    for_lint: bool,
    diags: &mut Diagnostics,
) -> bool {
    unknown_name(model, entry, decided, diags);
    if !outside_spec(entry, diags) {
        return false;
    }
    if let EnvValue::FromEnv { var: shell, text } = &entry.value {
        let deferred = !for_lint && super::interpolate::deploy_form(text).is_some();
        diags.push(match deferred {
            true => deploy_time(entry, shell),
            false => from_shell(entry, shell, text, for_lint),
        });
    }
    true
}

/// A spec variable's value that the deploying shell gives (`${NAME}`), reported as a deploy-time
/// value or as not known here: true when it is one (a secret's reference is read as such).
fn from_the_shell(var: &Var, entry: &EnvEntry, for_lint: bool, diags: &mut Diagnostics) -> bool {
    let EnvValue::FromEnv { var: shell, text } = &entry.value else {
        return false;
    };
    if var.secret {
        return false;
    }
    let deferred = !for_lint
        && super::values::can_defer(var)
        && super::interpolate::deploy_form(text).is_some();
    diags.push(match deferred {
        true => deploy_time(entry, shell),
        false => from_shell(entry, shell, text, for_lint),
    });
    true
}

/// An entry the model does not name: true when it goes to `[env]`; an invalid name or a value
/// from a Secret is reported instead.
fn outside_spec(entry: &EnvEntry, diags: &mut Diagnostics) -> bool {
    match &entry.value {
        _ if !is_env_name(&entry.name) => diags.push(
            Diagnostic::new(
                Code::NotImported,
                format!(
                    "`{}` is not a valid environment variable name: it is not imported",
                    entry.name
                ),
            )
            .at(entry.name_origin)
            .label("invalid name"),
        ),
        EnvValue::SecretRef { secret, key, .. } => {
            diags.push(secret_ref_elsewhere(entry, secret, key))
        }
        _ => return true,
    }
    false
}

/// The edition decided (given, or by the variables) and the edition to check against,
/// reporting variables of another edition and an undecided edition. With variables of both
/// editions, the values are checked against the edition most of them are for.
fn decide(
    entries: &[EnvEntry],
    given: Option<Edition>,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> (Option<Edition>, Edition) {
    let model = Model::get();
    if let Some(edition) = given {
        for entry in entries {
            let vars: Vec<&Var> = model.entries_by_env(&entry.name).collect();
            if !vars.is_empty() && !has_name(entry, edition) {
                diags.push(other_edition(entry, vars[0], edition, None));
            }
        }
        return (Some(edition), edition);
    }
    match infer_edition(entries) {
        Inferred::One(edition, _) => (Some(edition), edition),
        Inferred::Both => {
            let first = entries
                .first()
                .map(|e| Origin::new(e.name_origin.source, 0..0));
            diags.push(
                Diagnostic::new(
                    Code::Edition,
                    "the variables do not decide the edition: every one of them exists in both",
                )
                .at_opt(first)
                .help("pass --edition A or --edition B"),
            );
            (None, Edition::B)
        }
        Inferred::Conflict(groups) => (None, majority(entries, &groups, sources, diags)),
    }
}

/// True when the entry's name is a variable of the edition.
fn has_name(entry: &EnvEntry, edition: Edition) -> bool {
    Model::get()
        .entries_by_env(&entry.name)
        .any(|v| v.editions.contains(&edition))
}

/// With variables of both editions (grouped by edition, as indexes into `entries`): the
/// edition most of them are for; reports the names of the other edition.
fn majority(
    entries: &[EnvEntry],
    groups: &[(Edition, Vec<usize>)],
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Edition {
    // A variable's name weighs more than a value only one edition allows.
    let weight = |(edition, indexes): &(Edition, Vec<usize>)| -> usize {
        indexes
            .iter()
            .map(|&i| {
                if has_name(&entries[i], edition.other()) {
                    1
                } else {
                    2
                }
            })
            .sum()
    };
    let major = groups
        .iter()
        .max_by_key(|g| (weight(g), g.0 == Edition::B))
        .map_or(Edition::B, |g| g.0);
    let witness = groups
        .iter()
        .find(|(e, _)| *e == major)
        .and_then(|(_, v)| v.iter().find(|&&i| !has_name(&entries[i], major.other())))
        .map(|&i| &entries[i]);
    for (edition, indexes) in groups {
        if *edition == major {
            continue;
        }
        for &i in indexes {
            let entry = &entries[i];
            // A value of the other edition is reported by the value check.
            if has_name(entry, major) {
                continue;
            }
            if let Some(var) = Model::get().entries_by_env(&entry.name).next() {
                diags.push(
                    other_edition(entry, var, major, witness.map(|w| (w, sources)))
                        .help("pass --edition to say which edition the file is for"),
                );
            }
        }
    }
    major
}

fn other_edition(
    entry: &EnvEntry,
    var: &Var,
    edition: Edition,
    witness: Option<(&EnvEntry, &Sources)>,
) -> Diagnostic {
    let because = match witness {
        Some((w, sources)) => {
            let at = sources.line_col(w.name_origin.source, w.name_origin.start);
            format!(
                ", but `{}` (line {}) is of edition {edition}",
                w.name, at.line
            )
        }
        None => format!("; this is edition {edition}"),
    };
    Diagnostic::new(
        Code::OtherEdition,
        format!(
            "`{}` exists only in edition {}{because}",
            entry.name,
            var.editions_text()
        ),
    )
    .at(entry.name_origin)
    .label(format!("edition {} only", var.editions_text()))
    .help(format!(
        "the edition {edition} container does not read it: remove it"
    ))
}

/// True for the mapping variable holding exactly the spec's own default (`{}`) while the
/// selector does not choose the mixed value: the container does not read it then (the spec says
/// it takes effect only for `hybrid`), so it is the default, not an incomplete mapping.
fn unused_default_mapping(
    model: &Model,
    var: &Var,
    entry: &EnvEntry,
    entries: &[EnvEntry],
    edition: Edition,
) -> bool {
    let rule = &model.backends;
    if var.key != rule.mapping || entry.value.text().map(str::trim) != var.default.value() {
        return false;
    }
    let Some(selector) = model.var_by_key(&rule.selector, edition) else {
        return false;
    };
    let selected = entries
        .iter()
        .rev()
        .find(|e| e.name == selector.env)
        .and_then(|e| e.value.text())
        .or(selector.default.value());
    selected != Some(rule.mixed.as_str())
}

/// The secret variable of the edition that an entry names under an old name, unless the file
/// also sets the variable under its own name (which the container reads, and which wins).
fn legacy_secret(entry: &EnvEntry, entries: &[EnvEntry], edition: Edition) -> Option<&'static Var> {
    let var = crate::diag::redact::secret_var_of_env(&entry.name)?;
    let legacy = var.env != entry.name;
    (legacy && var.editions.contains(&edition) && !entries.iter().any(|e| e.name == var.env))
        .then_some(var)
}

/// What the image reads `name` as, and which image says so: the edition's image when the
/// edition is known; otherwise the image of each edition, or of the one edition that reads it
/// (a variable an image of some edition reads is never "not read by the container" while the
/// edition is not known).
fn image_that_reads(
    model: &Model,
    name: &str,
    edition: Option<Edition>,
) -> Option<(String, String)> {
    if let Some(edition) = edition {
        return Some((model.image_reads(name, edition)?, "the image".to_string()));
    }
    let reads: Vec<(Edition, String)> = (Edition::ALL.iter())
        .filter_map(|&e| model.image_reads(name, e).map(|what| (e, what)))
        .collect();
    let (edition, what) = reads.first()?.clone();
    Some(match reads.len() == Edition::ALL.len() {
        true => (what, "the image".to_string()),
        false => (what, format!("edition {}'s image", edition.as_str())),
    })
}

/// Reports a name that is no spec variable of the edition: one an image reads (W0317), or an
/// old name or prefix the container does not read.
fn unknown_name(
    model: &Model,
    entry: &EnvEntry,
    edition: Option<Edition>,
    diags: &mut Diagnostics,
) {
    let name = &entry.name;
    if let Some((what, image)) = image_that_reads(model, name, edition) {
        diags.push(
            Diagnostic::new(
                Code::UnknownVariable,
                format!("`{name}` is not in the spec, but {image} reads it: {what}"),
            )
            .at(entry.name_origin)
            .label(format!("not in the spec, read by {image}")),
        );
        return;
    }
    if let Some(var) = model.vars.iter().find(|v| v.legacy.contains(name)) {
        diags.push(
            Diagnostic::new(
                Code::LegacyName,
                format!("`{name}` is an old name: the container does not read it"),
            )
            .at(entry.name_origin)
            .label("not read by the container")
            .help(format!(
                "use `{}` (profile key `{}`): {}",
                var.env, var.key, var.meaning
            )),
        );
        return;
    }
    let suggester = Model::env_suggester();
    for (old, new) in &model.container.legacy_prefixes {
        let Some(rest) = name.strip_prefix(old.as_str()) else {
            continue;
        };
        let renamed = format!("{new}{rest}");
        let known = model
            .entries_by_env(&renamed)
            .next()
            .map(|v| v.env.as_str());
        let near = known.or_else(|| suggester.suggest(&renamed));
        diags.push(
            Diagnostic::new(
                Code::LegacyName,
                format!("`{name}` has the old prefix `{old}`: the container does not read it"),
            )
            .at(entry.name_origin)
            .label("not read by the container")
            .suggest(near),
        );
        return;
    }
    let near = suggester.suggest(name);
    diags.push(
        Diagnostic::new(
            Code::UnknownVariable,
            format!("`{name}` is not in the spec: svcgen does not check it (the image may still read it)"),
        )
        .at(entry.name_origin)
        .label("not in the spec")
        .suggest(near),
    );
}

/// A value the deploying shell fills in, which the profile keeps as a deploy-time value.
fn deploy_time(entry: &EnvEntry, shell: &str) -> Diagnostic {
    Diagnostic::new(
        Code::Placeholder,
        format!(
            "`{}` takes its value from the shell variable `{shell}` when compose starts: the profile keeps it as {{ deploy_env = \"{shell}\" }}",
            entry.name
        ),
    )
    .at(entry.origin)
    .label("placeholder")
    .help("compose and .env renderings write it back as a placeholder; the Kubernetes targets need the value (render with --set KEY=VALUE)")
}

/// A value the deploying shell fills in when compose starts.
fn from_shell(entry: &EnvEntry, shell: &str, text: &str, for_lint: bool) -> Diagnostic {
    let what = if for_lint {
        "its value is not known here and not checked".to_string()
    } else {
        format!("the profile keeps `{text}` as literal text")
    };
    Diagnostic::new(
        Code::Placeholder,
        format!(
            "`{}` takes its value from the shell variable `{shell}` when compose starts: {what}",
            entry.name
        ),
    )
    .at(entry.origin)
    .label("placeholder")
    .help("write the value itself; only the passphrase can be read from the environment (`{ env = \"NAME\" }`)")
}
