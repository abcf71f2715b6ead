//! YAML read with positions: every node keeps its byte span in the file, so that a diagnostic about
//! a compose service or a ConfigMap key points at its line and column.
//!
//! serde-saphyr types plain scalars by YAML 1.1 rules (`yes` is a boolean, `0755` a number). The
//! environment is text, so a plain scalar keeps the text written in the file, together with the
//! type a YAML reader would give it (for the warning that it should be quoted).

use crate::diag::source::{Origin, SourceId};
use crate::diag::{Code, Diagnostic, Diagnostics};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// One YAML node and where it is (a quoted scalar: its text inside the quotes).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Yaml,
    pub origin: Origin,
}

/// What a YAML reader makes of an unquoted scalar that is not a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typed {
    Null,
    Bool,
    Number,
}

impl Typed {
    pub fn describe(self) -> &'static str {
        match self {
            Typed::Null => "null",
            Typed::Bool => "a boolean",
            Typed::Number => "a number",
        }
    }
}

/// A YAML value; scalars as text.
#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    /// A scalar: its string value (for an unquoted non-string, the text as written) and, when it
    /// is not a string to YAML, what it is.
    Scalar {
        text: String,
        typed: Option<Typed>,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The entries of a mapping.
    pub fn entries(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Yaml::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items of a sequence.
    pub fn items(&self) -> Option<&[Node]> {
        match &self.value {
            Yaml::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The text of a scalar that YAML reads as a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Yaml::Scalar { text, typed: None } => Some(text),
            _ => None,
        }
    }

    /// The text of any scalar (a number or boolean as written).
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.value {
            Yaml::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// True for a null scalar (`~`, `null` or nothing).
    pub fn is_null(&self) -> bool {
        matches!(
            self.value,
            Yaml::Scalar {
                typed: Some(Typed::Null),
                ..
            }
        )
    }

    /// What kind of node it is, for messages.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            Yaml::Scalar { typed: None, .. } => "a string",
            Yaml::Scalar { typed: Some(t), .. } => t.describe(),
            Yaml::Seq(_) => "a list",
            Yaml::Map(_) => "a mapping",
        }
    }
}

/// Parses every document of a YAML text. A syntax error is one diagnostic at its position.
pub fn parse(text: &str, source: SourceId) -> Result<Vec<Node>, Diagnostics> {
    // `.inf` and `.nan` are numbers to YAML, not errors: the readers decide what they mean
    // (compose v2 prints `+Inf`; a ConfigMap holds only strings).
    let mut options = serde_saphyr::Options::default();
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
    match serde_saphyr::from_multiple_with_options::<Spanned<Raw>>(text, options) {
        Ok(docs) => Ok(docs.into_iter().map(|d| convert(d, text, source)).collect()),
        Err(err) => {
            let at = err
                .location()
                .and_then(|l| l.span().byte_offset())
                .map_or(0, |o| o as usize)
                .min(text.len());
            let mut diags = Diagnostics::default();
            if let serde_saphyr::Error::Budget { breach, .. } = innermost(&err) {
                diags.push(
                    Diagnostic::new(Code::InputSyntax, budget_message(breach))
                        .at(Origin::new(source, at..at))
                        .label("the limit is reached here"),
                );
                return Err(diags);
            }
            let message = err.to_string();
            let first = clean(message.lines().next().unwrap_or("invalid YAML"));
            diags.push(
                Diagnostic::new(Code::InputSyntax, format!("invalid YAML: {first}"))
                    .at(Origin::new(source, at..at))
                    .label("YAML syntax"),
            );
            Err(diags)
        }
    }
}

/// The parser's error itself, out of the wrappers that add a snippet or an alias's place.
fn innermost(mut err: &serde_saphyr::Error) -> &serde_saphyr::Error {
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = err
    {
        err = error;
    }
    err
}

/// A YAML text beyond the reader's budget (serde-saphyr's defaults, listed in SECURITY.md): not
/// a syntax error, so it says what ran out and the limit.
fn budget_message(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::{Budget, BudgetBreach as B};
    let limits = Budget::default();
    let (what, limit) = match breach {
        B::Events { .. } => ("parser events", limits.max_events),
        B::Aliases { .. } => ("aliases", limits.max_aliases),
        B::Anchors { .. } => ("anchors", limits.max_anchors),
        B::Depth { .. } => ("levels of nesting", limits.max_depth),
        B::Documents { .. } => ("documents", limits.max_documents),
        B::Nodes { .. } => ("nodes", limits.max_nodes),
        B::ScalarBytes { .. } => ("bytes of scalars", limits.max_total_scalar_bytes),
        B::MergeKeys { .. } => ("merge keys", limits.max_merge_keys),
        _ => {
            return "the YAML is larger or more nested than svcgen reads (SECURITY.md lists the \
                    limits)"
                .to_string();
        }
    };
    format!(
        "the YAML has more than {limit} {what}, the most svcgen reads (SECURITY.md lists the limits)"
    )
}

/// The parser's message without its own position (the diagnostic has it) and library advice.
fn clean(message: &str) -> &str {
    let mut m = message.trim();
    m = m.strip_prefix("error: ").unwrap_or(m);
    if m.starts_with("line ")
        && let Some(i) = m.find(": ")
    {
        m = &m[i + 2..];
    }
    if let Some(i) = m.find(", set DuplicateKeyPolicy") {
        m = &m[..i];
    }
    m
}

fn convert(raw: Spanned<Raw>, text: &str, source: SourceId) -> Node {
    let span = raw.referenced.span();
    let start = span.byte_offset().map_or(0, |o| o as usize).min(text.len());
    let len = span.byte_len().map_or(0, |l| l as usize);
    let end = (start + len).min(text.len());
    let origin = Origin::new(source, start..end);
    let written = || {
        text.get(start..end)
            .unwrap_or_default()
            .trim_end()
            .to_string()
    };
    let value = match raw.value {
        Raw::Str(s) => {
            let written = text.get(start..end).unwrap_or_default();
            let quoted = written.len() >= 2
                && ((written.starts_with('"') && written.ends_with('"'))
                    || (written.starts_with('\'') && written.ends_with('\'')));
            let origin = if quoted {
                Origin::new(source, start + 1..end - 1)
            } else {
                origin
            };
            return Node {
                value: Yaml::Scalar {
                    text: s,
                    typed: None,
                },
                origin,
            };
        }
        Raw::Null => Yaml::Scalar {
            text: written(),
            typed: Some(Typed::Null),
        },
        Raw::Bool => Yaml::Scalar {
            text: written(),
            typed: Some(Typed::Bool),
        },
        Raw::Number => Yaml::Scalar {
            text: written(),
            typed: Some(Typed::Number),
        },
        Raw::Seq(items) => Yaml::Seq(
            items
                .into_iter()
                .map(|i| convert(i, text, source))
                .collect(),
        ),
        Raw::Map(entries) => Yaml::Map(
            entries
                .into_iter()
                .map(|(k, v)| (convert(k, text, source), convert(v, text, source)))
                .collect(),
        ),
    };
    Node { value, origin }
}

/// The parser's view of a node, before positions become origins.
enum Raw {
    Null,
    Bool,
    Number,
    Str(String),
    Seq(Vec<Spanned<Raw>>),
    Map(Vec<(Spanned<Raw>, Spanned<Raw>)>),
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Raw, D::Error> {
        deserializer.deserialize_any(RawVisitor)
    }
}

/// The visitor methods of the number types, which all give [`Raw::Number`].
macro_rules! visit_numbers {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method<E>(self, _: $ty) -> Result<Raw, E> {
            Ok(Raw::Number)
        })*
    };
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_none<E>(self) -> Result<Raw, E> {
        Ok(Raw::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Raw, E> {
        Ok(Raw::Bool)
    }
    // Every kind of number is a number: the reader keeps only that the value was not a string.
    visit_numbers!(visit_i64: i64, visit_u64: u64, visit_i128: i128, visit_u128: u128, visit_f64: f64);
    fn visit_str<E>(self, s: &str) -> Result<Raw, E> {
        Ok(Raw::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Raw, E> {
        Ok(Raw::Str(s))
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Raw, E> {
        Ok(Raw::Str(String::from_utf8_lossy(b).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Raw, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Raw::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key()? {
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Raw::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::source::Sources;

    fn parse_one(text: &str) -> Node {
        let mut sources = Sources::new();
        let id = sources.add("t.yaml", text);
        parse(text, id).unwrap().remove(0)
    }

    #[test]
    fn scalars_keep_their_written_text_and_position() {
        let text = "env:\n  A: yes\n  B: \"0755\"\n  C: 0755\n  D:\n";
        let doc = parse_one(text);
        let env = doc.get("env").unwrap();
        let a = env.get("A").unwrap();
        assert_eq!(a.scalar_text(), Some("yes"));
        assert_eq!(a.as_str(), None);
        assert_eq!(&text[a.origin.span()], "yes");
        assert_eq!(env.get("B").unwrap().as_str(), Some("0755"));
        assert_eq!(env.get("C").unwrap().scalar_text(), Some("0755"));
        assert!(env.get("D").unwrap().is_null());
    }

    #[test]
    fn a_syntax_error_has_a_position() {
        let mut sources = Sources::new();
        let text = "a: [1, 2\nb: c\n";
        let id = sources.add("t.yaml", text);
        let diags = parse(text, id).unwrap_err();
        assert_eq!(diags.items[0].code, Code::InputSyntax);
    }
}
