//! The difference between two resolved environments, per variable, with the consequences the
//! spec names (a change that needs another service restarted; an edition switch).

use crate::render::EnvVar;
use crate::resolve::{Resolved, SecretSource, Typed};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// How one variable differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
    /// Same value, but set explicitly on one side and the spec's default on the other.
    Explicitness,
}

/// One variable's difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub name: String,
    pub kind: ChangeKind,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Whether each side sets the value explicitly (false: the spec's default fills it in;
    /// None: the side lacks the variable).
    pub old_explicit: Option<bool>,
    pub new_explicit: Option<bool>,
}

/// What a difference means for the deployment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Consequence {
    /// Changing this variable needs a restart of another service.
    Restart { variable: String, service: String },
    /// The edition changes: these variables appear and disappear.
    EditionSwitch {
        old: String,
        new: String,
        appear: Vec<String>,
        disappear: Vec<String>,
    },
}

/// The whole difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diff {
    pub old_edition: String,
    pub new_edition: String,
    pub changes: Vec<Change>,
    pub consequences: Vec<Consequence>,
}

/// What a side's value is compared by: the value, or for a withheld secret where it comes from.
fn compared(var: &EnvVar) -> String {
    match (&var.value, &var.secret_from) {
        (Some(v), _) => v.clone(),
        (None, Some(from)) => format!("<secret from {from}>"),
        (None, None) => String::new(),
    }
}

/// The value a side shows for a variable: [`compared`], but masked for an `[env]` entry whose
/// name nearly names a secret (a misspelled passphrase), as `validate` masks it.
fn shown(var: &EnvVar) -> String {
    if var.key.is_none() && crate::diag::redact::nearly_names_a_secret(&var.name) {
        return crate::diag::redact::MASK.to_string();
    }
    compared(var)
}

/// Where a withheld secret comes from, as shown.
fn secret_from(var: &EnvVar) -> &str {
    var.secret_from.as_deref().unwrap_or("the profile")
}

/// A secret's source on one side (a literal compares by value, never shown), if it is a secret.
fn secret_of<'a>(resolved: &'a Resolved, name: &str) -> Option<&'a SecretSource> {
    resolved
        .vars
        .iter()
        .find(|rv| rv.var.secret && rv.var.env == name)
        .and_then(|rv| match &rv.value {
            Typed::Secret(source) => Some(source),
            _ => None,
        })
}

/// Compares two profiles' environments (in the new side's order, removed ones after). Each
/// side is indexed by name once, so the work grows with the number of variables, not its square.
pub fn diff(old: &Resolved, old_env: &[EnvVar], new: &Resolved, new_env: &[EnvVar]) -> Diff {
    let changes = changes(old, old_env, new, new_env);
    let mut consequences = restarts(old, new, &changes);
    if old.edition != new.edition {
        let names = |kind: ChangeKind| -> Vec<String> {
            changes
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| c.name.clone())
                .collect()
        };
        consequences.push(Consequence::EditionSwitch {
            old: old.edition.to_string(),
            new: new.edition.to_string(),
            appear: names(ChangeKind::Added),
            disappear: names(ChangeKind::Removed),
        });
    }
    Diff {
        old_edition: old.edition.to_string(),
        new_edition: new.edition.to_string(),
        changes,
        consequences,
    }
}

/// Each variable's difference, in the new side's order, removed ones after.
fn changes(old: &Resolved, old_env: &[EnvVar], new: &Resolved, new_env: &[EnvVar]) -> Vec<Change> {
    let before_by_name: HashMap<&str, &EnvVar> =
        old_env.iter().map(|v| (v.name.as_str(), v)).collect();
    let new_names: HashSet<&str> = new_env.iter().map(|v| v.name.as_str()).collect();
    let mut changes = Vec::new();
    for var in new_env {
        match before_by_name.get(var.name.as_str()) {
            None => changes.push(Change {
                name: var.name.clone(),
                kind: ChangeKind::Added,
                old: None,
                new: Some(shown(var)),
                old_explicit: None,
                new_explicit: Some(var.origin.is_some()),
            }),
            Some(before) => {
                let secret_changed =
                    var.secret && secret_of(old, &var.name) != secret_of(new, &var.name);
                let kind = if compared(before) != compared(var) || secret_changed {
                    ChangeKind::Changed
                } else if before.origin.is_some() != var.origin.is_some() {
                    ChangeKind::Explicitness
                } else {
                    continue;
                };
                let mut new_shown = shown(var);
                if kind == ChangeKind::Changed && shown(before) == new_shown {
                    new_shown = format!("<changed secret from {}>", secret_from(var));
                }
                changes.push(Change {
                    name: var.name.clone(),
                    kind,
                    old: Some(shown(before)),
                    new: Some(new_shown),
                    old_explicit: Some(before.origin.is_some()),
                    new_explicit: Some(var.origin.is_some()),
                });
            }
        }
    }
    for before in old_env
        .iter()
        .filter(|o| !new_names.contains(o.name.as_str()))
    {
        changes.push(Change {
            name: before.name.clone(),
            kind: ChangeKind::Removed,
            old: Some(shown(before)),
            new: None,
            old_explicit: Some(before.origin.is_some()),
            new_explicit: None,
        });
    }
    changes
}

/// The restarts the spec names for the changed variables.
fn restarts(old: &Resolved, new: &Resolved, changes: &[Change]) -> Vec<Consequence> {
    let restarts: HashMap<&str, &String> = old
        .vars
        .iter()
        .chain(new.vars.iter())
        .rev()
        .filter_map(|rv| rv.var.restart.as_ref().map(|r| (rv.var.env.as_str(), r)))
        .collect();
    let mut consequences = Vec::new();
    for change in changes
        .iter()
        .filter(|c| c.kind != ChangeKind::Explicitness)
    {
        if let Some(service) = restarts.get(change.name.as_str()) {
            consequences.push(Consequence::Restart {
                variable: change.name.clone(),
                service: (*service).clone(),
            });
        }
    }
    consequences
}

impl Diff {
    /// The difference for people, one line per variable, then the consequences.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.changes.is_empty() {
            out.push_str("no difference in the environment\n");
        }
        let how = |explicit: Option<bool>| {
            if explicit == Some(true) {
                "set"
            } else {
                "default"
            }
        };
        for c in &self.changes {
            let line = match c.kind {
                ChangeKind::Added => format!(
                    "+ {} = {:?}\n",
                    c.name,
                    c.new.as_deref().unwrap_or_default()
                ),
                ChangeKind::Removed => format!(
                    "- {} = {:?}\n",
                    c.name,
                    c.old.as_deref().unwrap_or_default()
                ),
                ChangeKind::Changed => format!(
                    "~ {}: {:?} -> {:?}\n",
                    c.name,
                    c.old.as_deref().unwrap_or_default(),
                    c.new.as_deref().unwrap_or_default()
                ),
                ChangeKind::Explicitness => format!(
                    "= {}: {:?} ({} -> {})\n",
                    c.name,
                    c.new.as_deref().unwrap_or_default(),
                    how(c.old_explicit),
                    how(c.new_explicit)
                ),
            };
            out.push_str(&line);
        }
        if !self.consequences.is_empty() {
            out.push_str("\nconsequences:\n");
        }
        for consequence in &self.consequences {
            match consequence {
                Consequence::Restart { variable, service } => out.push_str(&format!(
                    "  - {variable} changes: restart the {service} after deploying\n"
                )),
                Consequence::EditionSwitch {
                    old,
                    new,
                    appear,
                    disappear,
                } => out.push_str(&format!(
                    "  - edition {old} -> {new}: {} variable(s) appear ({}), {} disappear ({})\n",
                    appear.len(),
                    appear.join(", "),
                    disappear.len(),
                    disappear.join(", ")
                )),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{EnvOptions, environment};

    /// The difference of two profile texts.
    fn diff_of(old: &str, new: &str) -> Diff {
        let resolve = |text: &str| {
            let mut sources = crate::diag::source::Sources::new();
            let checked = crate::pipeline::check_text("p.toml", text, None, &mut sources);
            let resolved = checked.resolved.expect("a valid profile");
            let env = environment(&resolved, EnvOptions::default()).expect("an environment");
            (resolved, env)
        };
        let ((old, old_env), (new, new_env)) = (resolve(old), resolve(new));
        diff(&old, &old_env, &new, &new_env)
    }

    #[test]
    fn an_env_entry_under_a_misspelled_secret_name_is_masked_and_its_change_still_seen() {
        let with = |value: &str| {
            format!("edition = \"B\"\n[env]\nCN_GOOGLE_SECRET_MANAGER_PASSPRASE = \"{value}\"\n")
        };
        let added = diff_of("edition = \"B\"\n", &with("hunter2SECRET"));
        let changed = diff_of(&with("hunter2SECRET"), &with("hunter9SECRET"));
        for d in [&added, &changed] {
            let shown = format!("{}{}", d.to_text(), serde_json::to_string(d).unwrap());
            assert!(!shown.contains("hunter"), "{shown}");
            assert!(
                shown.contains("CN_GOOGLE_SECRET_MANAGER_PASSPRASE"),
                "{shown}"
            );
        }
        assert_eq!(
            added.changes[0].new.as_deref(),
            Some(crate::diag::redact::MASK)
        );
        assert_eq!(changed.changes.len(), 1, "{changed:?}");
        assert_eq!(changed.changes[0].kind, ChangeKind::Changed);
    }
}
