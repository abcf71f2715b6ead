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
