//! A variable's text in an environment (a `.env` line, a compose value, a ConfigMap entry), as
//! [`super::TypeRules::read_env_text`] receives it: the text, the name it was given under, and
//! where it is in the file read, so that a part of it (a list item, a JSON member) can be shown
//! at its own place.
//!
//! Reading the text is `import`'s and `lint`'s first step; nothing here checks a value against
//! its type's rules: text the container would refuse stays text, for resolve to report once.

use crate::diag::source::Origin;
use crate::profile::{Node, Value};

/// One variable's text as read from a file.
#[derive(Debug, Clone, Copy)]
pub struct EnvText<'a> {
    /// The variable's name as written (`CN_SQL_DB_PORT`).
    pub name: &'a str,
    /// The value as the container gets it (quotes undone, escapes read).
    pub text: &'a str,
    /// Where the value is written in the file.
    pub origin: Origin,
    /// True when the file holds `text` at `origin` as it is (no quotes undone, no escapes), so
    /// that an offset into `text` is an offset into the file.
    verbatim: bool,
}

impl<'a> EnvText<'a> {
    /// `written`: the file's text at `origin`, when known.
    pub fn new(name: &'a str, text: &'a str, origin: Origin, written: Option<&str>) -> Self {
        EnvText {
            name,
            text,
            origin,
            verbatim: written == Some(text),
        }
    }

    /// The origin of `len` bytes at `offset` in the value: at their own place when the value is
    /// written as it is, else the whole value.
    pub fn at(&self, offset: usize, len: usize) -> Origin {
        let origin = self.origin;
        if self.verbatim {
            let start = (origin.start + offset).min(origin.end);
            Origin::new(origin.source, start..(start + len).min(origin.end))
        } else {
            origin
        }
    }

    /// The whole text read as it is (enums, URLs, host names, paths, strings).
    pub fn string(&self) -> Node {
        string(self.text, self.origin)
    }
}

/// Text as a profile string at `at`.
pub fn string(text: &str, at: Origin) -> Node {
    Node {
        value: Value::String(text.to_string()),
        origin: at,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::diag::source::Sources;

    /// The value `text` written at bytes `value` of a one-line file `file`.
    pub fn env_text<'a>(file: &str, text: &'a str, value: std::ops::Range<usize>) -> EnvText<'a> {
        let mut sources = Sources::new();
        let source = sources.add("a.env", file.to_string());
        EnvText::new(
            "P",
            text,
            Origin::new(source, value.clone()),
            file.get(value),
        )
    }

    #[test]
    fn parts_are_at_their_place_only_when_the_value_is_written_as_is() {
        let as_is = env_text("P=a,bb\n", "a,bb", 2..6);
        assert_eq!(as_is.at(2, 2).span(), 4..6);
        let unescaped = env_text("P=\"a,b\"\n", "a,b", 3..6);
        assert_eq!(unescaped.at(2, 1).span(), 5..6);
        let other = env_text("P=a\\,b\n", "a,b", 2..6);
        assert_eq!(other.at(2, 1).span(), 2..6);
    }
}
