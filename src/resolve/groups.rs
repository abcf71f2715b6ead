//! Which groups of variables apply, given the selectors' values (set or default).

use super::Typed;
use crate::diag::source::Origin;
use crate::model::{Condition, Edition, Group, Lookup, Model};
use std::cell::RefCell;
use std::collections::HashMap;

pub use crate::model::Applies;

/// The values that decide applicability, with where each was set (`None` = the default).
pub struct Choices<'a> {
    model: &'static Model,
    edition: Edition,
    explicit: &'a HashMap<String, (Option<Typed>, Origin)>,
    /// Where each value of the backend mapping was written: (backend, origin).
    mapping_origins: Vec<(String, Origin)>,
    /// What [`Choices::applies`] found for each group asked so far: the values it depends on do
    /// not change while they are borrowed, and every variable of a group asks.
    decided: RefCell<Vec<(&'static Group, Applies<'static>)>>,
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
            decided: RefCell::default(),
        }
    }

    /// Where a key was set, if it was.
    pub fn origin(&self, key: &str) -> Option<Origin> {
        self.explicit.get(key).map(|(_, origin)| *origin)
    }

    /// Whether a group applies, and the first condition that makes it.
    pub fn applies(&self, group: &'static Group) -> Applies<'static> {
        let known = (self.decided.borrow().iter())
            .find(|(g, _)| std::ptr::eq(*g, group))
            .map(|(_, applies)| *applies);
        if let Some(applies) = known {
            return applies;
        }
        let applies = Condition::applies(&group.when, self);
        self.decided.borrow_mut().push((group, applies));
        applies
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

impl Lookup for Choices<'_> {
    /// The effective text of a key: its valid set value, else its default.
    fn value(&self, key: &str) -> Option<String> {
        match self.explicit.get(key) {
            Some((Some(typed), _)) => typed.env_text(),
            Some((None, _)) => None,
            None => {
                let var = self.model.var_by_key(key, self.edition)?;
                var.default.value().map(str::to_string)
            }
        }
    }

    /// The backends in use: the selector's value, or every value of the mapping when mixed.
    fn backends(&self) -> Vec<String> {
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

    fn invalid(&self, key: &str) -> bool {
        matches!(self.explicit.get(key), Some((None, _)))
    }
}

/// A setting whose group does not apply: the one wording of the "has no effect" warning, for a
/// profile key or an imported variable (`name`); callers add what the user can do.
pub fn not_applied(name: &str, when: &[Condition], at: Origin) -> crate::diag::Diagnostic {
    crate::diag::Diagnostic::new(
        crate::diag::Code::NotApplied,
        format!(
            "`{name}` has no effect: it applies only when {}",
            Condition::any_text(when)
        ),
    )
    .at(at)
    .label("not applied")
}
