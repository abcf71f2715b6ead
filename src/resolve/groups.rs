//! Which groups of variables apply, given the selectors' values (set or default).

use super::typed::Typed;
use crate::model::{Condition, Edition, Group, Model};
use crate::source::Origin;
use std::collections::HashMap;

/// The values that decide applicability, with where each was set (`None` = the default).
pub struct Choices<'a> {
    model: &'static Model,
    edition: Edition,
    explicit: &'a HashMap<String, (Option<Typed>, Origin)>,
}

impl<'a> Choices<'a> {
    pub fn new(
        model: &'static Model,
        edition: Edition,
        explicit: &'a HashMap<String, (Option<Typed>, Origin)>,
    ) -> Choices<'a> {
        Choices { model, edition, explicit }
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
            Some((Some(Typed::Mapping(pairs)), _)) => pairs.iter().map(|(_, b)| b.clone()).collect(),
            _ => Vec::new(),
        }
    }

    /// True when the condition holds.
    pub fn holds(&self, condition: &Condition) -> bool {
        match condition {
            Condition::KeyEquals { key, equals } => self.value(key).as_deref() == Some(equals.as_str()),
            Condition::Backend { backend } => self.backends().contains(backend),
        }
    }

    /// The first condition of the group that holds; `Ok(None)` when the group always applies,
    /// `Err(())` when it does not apply.
    pub fn why_applies<'g>(&self, group: &'g Group) -> Result<Option<&'g Condition>, ()> {
        if group.when.is_empty() {
            return Ok(None);
        }
        group.when.iter().find(|c| self.holds(c)).map(Some).ok_or(())
    }

    /// Where the setting that makes a condition hold was written, if it was written.
    pub fn condition_origin(&self, condition: &Condition) -> Option<Origin> {
        match condition {
            Condition::KeyEquals { key, .. } => self.origin(key),
            Condition::Backend { .. } => {
                let rule = &self.model.backends;
                self.origin(&rule.selector).or_else(|| self.origin(&rule.mapping))
            }
        }
    }
}
