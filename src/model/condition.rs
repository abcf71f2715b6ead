//! When a group of variables applies.

use serde::Deserialize;
use std::fmt;

/// One condition of a group's `when` list; a group applies when any of its conditions holds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Condition {
    /// A selector key has this value (`config.adapter = "consul"`).
    KeyEquals { key: String, equals: String },
    /// The persistence type, or a value of the hybrid mapping, names this backend.
    Backend { backend: String },
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::KeyEquals { key, equals } => write!(f, "{key} = \"{equals}\""),
            Condition::Backend { backend } => {
                let rule = &super::Model::get().backends;
                write!(
                    f,
                    "{} or a value of {} is \"{backend}\"",
                    rule.selector, rule.mapping
                )
            }
        }
    }
}

/// The values a group's `when` conditions are evaluated over: a resolved profile, the choices
/// of `init`, the settings an import found. Each caller says how it looks a value up; the rules
/// of what holds live here, once.
pub trait Lookup {
    /// The effective text of a key: its set value, else its default (`None` when it has none or
    /// the set value is invalid).
    fn value(&self, key: &str) -> Option<String>;
    /// The backends in use: the selector's value, or every value of the mapping when mixed.
    fn backends(&self) -> Vec<String>;
    /// True when a value was given for the key but is invalid.
    fn invalid(&self, _key: &str) -> bool {
        false
    }
}

/// Whether a group applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies<'g> {
    /// It applies: always (`None`), or because of this condition.
    Yes(Option<&'g Condition>),
    No,
    /// A selector it depends on is invalid.
    Unknown,
}

impl Condition {
    /// True when the condition holds over these values.
    pub fn holds(&self, values: &impl Lookup) -> bool {
        match self {
            Condition::KeyEquals { key, equals } => {
                values.value(key).as_deref() == Some(equals.as_str())
            }
            Condition::Backend { backend } => values.backends().contains(backend),
        }
    }

    /// True when a value the condition depends on was given but is invalid: then whether it
    /// holds is unknown, and no "has no effect" warning should pile onto the real error.
    pub fn undecided(&self, values: &impl Lookup) -> bool {
        match self {
            Condition::KeyEquals { key, .. } => values.invalid(key),
            Condition::Backend { .. } => {
                let rule = &super::Model::get().backends;
                values.invalid(&rule.selector)
                    || (values.value(&rule.selector).as_deref() == Some(rule.mixed.as_str())
                        && values.invalid(&rule.mapping))
            }
        }
    }

    /// Whether a group with these conditions applies, and the first condition that makes it.
    pub fn applies<'g>(when: &'g [Condition], values: &impl Lookup) -> Applies<'g> {
        if when.is_empty() {
            return Applies::Yes(None);
        }
        if let Some(cause) = when.iter().find(|c| c.holds(values)) {
            return Applies::Yes(Some(cause));
        }
        if when.iter().any(|c| c.undecided(values)) {
            Applies::Unknown
        } else {
            Applies::No
        }
    }

    /// The conditions as a sentence: "a or b".
    pub fn any_text(when: &[Condition]) -> String {
        when.iter()
            .map(Condition::to_string)
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lookup over fixed values, for the evaluator alone.
    struct Fixed {
        values: Vec<(&'static str, &'static str)>,
        invalid: Vec<&'static str>,
    }

    impl Lookup for Fixed {
        fn value(&self, key: &str) -> Option<String> {
            let found = self.values.iter().find(|(k, _)| *k == key);
            found.map(|(_, v)| v.to_string())
        }
        fn backends(&self) -> Vec<String> {
            Vec::new()
        }
        fn invalid(&self, key: &str) -> bool {
            self.invalid.contains(&key)
        }
    }

    fn key_equals(key: &str, equals: &str) -> Condition {
        Condition::KeyEquals {
            key: key.to_string(),
            equals: equals.to_string(),
        }
    }

    #[test]
    fn a_group_applies_always_by_a_condition_or_not_or_unknown_when_its_selector_is_invalid() {
        let when = [key_equals("a", "x"), key_equals("b", "y")];
        let holds = Fixed {
            values: vec![("a", "z"), ("b", "y")],
            invalid: vec![],
        };
        assert_eq!(Condition::applies(&[], &holds), Applies::Yes(None));
        assert_eq!(
            Condition::applies(&when, &holds),
            Applies::Yes(Some(&when[1]))
        );
        let fails = Fixed {
            values: vec![("a", "z")],
            invalid: vec![],
        };
        assert_eq!(Condition::applies(&when, &fails), Applies::No);
        let invalid = Fixed {
            values: vec![("a", "z")],
            invalid: vec!["b"],
        };
        assert_eq!(Condition::applies(&when, &invalid), Applies::Unknown);
        assert_eq!(Condition::any_text(&when), "a = \"x\" or b = \"y\"");
    }
}
