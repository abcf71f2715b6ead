//! Which groups of variables apply, given the selectors' values (set or default).

use super::typed::Typed;
use crate::model::{Condition, Edition, Group, Model};
use crate::source::Origin;
use std::collections::HashMap;

/// Whether a group applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies<'g> {
    /// It applies: always (`None`), or because of this condition.
    Yes(Option<&'g Condition>),
    No,
    /// A selector it depends on is invalid.
    Unknown,
}

/// The values that decide applicability, with where each was set (`None` = the default).
pub struct Choices<'a> {
    model: &'static Model,
    edition: Edition,
    explicit: &'a HashMap<String, (Option<Typed>, Origin)>,
    /// Where each value of the backend mapping was written: (backend, origin).
    mapping_origins: Vec<(String, Origin)>,
}

impl<'a> Choices<'a> {
    pub fn new(
        model: &'static Model,
        edition: Edition,
        explicit: &'a HashMap<String, (Option<Typed>, Origin)>,
        mapping_origins: Vec<(String, Origin)>,
    ) -> Choices<'a> {
        Choices {
            model,
            edition,
            explicit,
            mapping_origins,
        }
    }

    /// The effective text of a key: its valid set value, else its default.
    pub fn value(&self, key: &str) -> Option<String> {
        match self.explicit.get(key) {
            Some((Some(typed), _)) => typed.env_text(),
            Some((None, _)) => None,
            None => {
                let var = self.model.var_by_key(key, self.edition)?;
                var.default.value().map(str::to_string)
            }
        }
    }

    /// Where a key was set, if it was.
    pub fn origin(&self, key: &str) -> Option<Origin> {
        self.explicit.get(key).map(|(_, origin)| *origin)
    }

    /// The backends in use: the selector's value, or every value of the mapping when mixed.
    pub fn backends(&self) -> Vec<String> {
        let rule = &self.model.backends;
        let Some(selected) = self.value(&rule.selector) else {
            return Vec::new();
        };
        if selected != rule.mixed {
            return vec![selected];
        }
        match self.explicit.get(&rule.mapping) {
            Some((Some(Typed::Mapping(pairs)), _)) => {
                pairs.iter().map(|(_, b)| b.clone()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// True when the condition holds.
    pub fn holds(&self, condition: &Condition) -> bool {
        match condition {
            Condition::KeyEquals { key, equals } => {
                self.value(key).as_deref() == Some(equals.as_str())
            }
            Condition::Backend { backend } => self.backends().contains(backend),
        }
    }

    /// True when a value the condition depends on was given but is invalid: then whether it
    /// holds is unknown, and no "has no effect" warning should pile onto the real error.
    fn undecided(&self, condition: &Condition) -> bool {
        let invalid = |key: &str| matches!(self.explicit.get(key), Some((None, _)));
        match condition {
            Condition::KeyEquals { key, .. } => invalid(key),
            Condition::Backend { .. } => {
                let rule = &self.model.backends;
                invalid(&rule.selector)
                    || (self.value(&rule.selector).as_deref() == Some(rule.mixed.as_str())
                        && invalid(&rule.mapping))
            }
        }
    }

    /// Whether a group applies, and the first condition that makes it.
    pub fn applies<'g>(&self, group: &'g Group) -> Applies<'g> {
        if group.when.is_empty() {
            return Applies::Yes(None);
        }
        if let Some(cause) = group.when.iter().find(|c| self.holds(c)) {
            return Applies::Yes(Some(cause));
        }
        if group.when.iter().any(|c| self.undecided(c)) {
            Applies::Unknown
        } else {
            Applies::No
        }
    }

    /// Where the setting that makes a condition hold was written, if it was written.
    pub fn condition_origin(&self, condition: &Condition) -> Option<Origin> {
        match condition {
            Condition::KeyEquals { key, .. } => self.origin(key),
            Condition::Backend { backend } => {
                let rule = &self.model.backends;
                if self.value(&rule.selector).as_deref() == Some(backend.as_str()) {
                    return self.origin(&rule.selector);
                }
                self.mapping_origins
                    .iter()
                    .find(|(b, _)| b == backend)
                    .map(|(_, o)| *o)
                    .or_else(|| self.origin(&rule.selector))
            }
        }
    }
}
