//! What is wrong with a string value, and a likely fix: what every check of a string form
//! returns (`formats`, `address`, `ipv6`).

/// What is wrong with a string, and a likely fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub message: String,
    pub suggestion: Option<String>,
    /// A value of the wrong TOML type: what was expected and what was found (the message says
    /// the same), for [`crate::diag::Diagnostic::wrong_type`].
    pub wrong_type: Option<(String, &'static str)>,
}

pub(super) fn problem(message: impl Into<String>) -> Problem {
    Problem {
        message: message.into(),
        suggestion: None,
        wrong_type: None,
    }
}

pub(super) fn problem_with(message: impl Into<String>, suggestion: impl Into<String>) -> Problem {
    Problem {
        message: message.into(),
        suggestion: Some(suggestion.into()),
        wrong_type: None,
    }
}
