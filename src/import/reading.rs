//! How the container reads a variable's text, one function per family of value types: the
//! profile value it stands for, with the origin of its text in the file read.
//!
//! Nothing here checks a value against its type's rules: text the container would refuse stays
//! text (a port `54x32` stays the string `"54x32"`), so that resolve reports it once, with the
//! same wording as in a profile. What is about the reading itself stays here: a boolean the
//! container reads leniently (W0313), a wait time it silently replaces (W0314), JSON it cannot
//! parse (E0221, in [`super::hybrid`]).

use super::EnvEntry;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, Var, VarType};
use crate::profile::{Node, Value};
use crate::source::{Origin, Sources};

/// The profile value of a variable's text, as the container reads it; `None` (with a
/// diagnostic) when the container reads no value from it.
pub fn node(
    var: &Var,
    entry: &EnvEntry,
    text: &str,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<Node> {
    let at = entry.origin;
    match var.ty {
        VarType::Bool => Some(boolean(&entry.name, text, at, diags)),
        VarType::Port => Some(number(text, at, false)),
        VarType::Integer if var.falls_back => falling_back(var, entry, text, diags),
        VarType::Integer => Some(number(text, at, true)),
        VarType::PluginList => Some(list(text, Positions::of(entry, text, sources))),
        VarType::HybridMapping => {
            super::hybrid::table(var, entry, text, Positions::of(entry, text, sources), diags)
        }
        _ => Some(string(text, at)),
    }
}

/// Text read as it is (enums, URLs, host names, paths, strings).
pub fn string(text: &str, at: Origin) -> Node {
    Node {
        value: Value::String(text.to_string()),
        origin: at,
    }
}

/// The container's reading of a boolean: its true words are true, anything else false, with a
/// warning for anything but `true` / `false`.
fn boolean(name: &str, text: &str, at: Origin, diags: &mut Diagnostics) -> Node {
    let words = &Model::get().container.true_words;
    let is_true = words.iter().any(|w| w == text);
    let node = Node {
        value: Value::Bool(is_true),
        origin: at,
    };
    if text == "true" || text == "false" {
        return node;
    }
    let list = words.join(", ");
    let d = if is_true {
        Diagnostic::new(
            Code::NonCanonicalBool,
            format!("`{name}` = `{text}` is read as true by the container; write `true`"),
        )
        .label("read as true")
        .help("the profile writes it as true")
    } else {
        Diagnostic::new(
            Code::NonCanonicalBool,
            format!("`{text}` is read as false by the container"),
        )
        .label("read as false")
        .help(format!(
            "the container reads only {list} as true; anything else is false"
        ))
        .help(format!("write `false`, or `true` if `{name}` should be on"))
    };
    diags.push(d.at(at));
    node
}

/// Decimal digits (after a `-` when `signed`) that fit an integer: the number they write.
fn whole_number(text: &str, signed: bool) -> Option<i64> {
    let digits = if signed {
        text.strip_prefix('-').unwrap_or(text)
    } else {
        text
    };
    let all_digits = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    all_digits.then(|| text.parse().ok()).flatten()
}

/// A number: an integer when the text writes one, else the text (which resolve refuses).
fn number(text: &str, at: Origin, signed: bool) -> Node {
    match whole_number(text, signed) {
        Some(n) => Node {
            value: Value::Integer(n),
            origin: at,
        },
        None => string(text, at),
    }
}

/// An integer the container replaces when it cannot use it: below the minimum it uses the
/// minimum, and text that is not an integer gives the default (the profile leaves it out).
fn falling_back(var: &Var, entry: &EnvEntry, text: &str, diags: &mut Diagnostics) -> Option<Node> {
    let (name, at) = (&entry.name, entry.origin);
    let min = var.min.unwrap_or(1);
    let unit = var.unit.map_or("", |u| u.words());
    match whole_number(text, true) {
        Some(n) if n >= min => Some(number(text, at, true)),
        Some(n) => {
            let d = Diagnostic::new(
                Code::FallsBack,
                format!("`{name}` = {n} is below {min}: the container uses {min}"),
            )
            .label(format!("read as {min}"))
            .help(format!("the profile writes {min}"));
            diags.push(d.at(at));
            Some(Node {
                value: Value::Integer(min),
                origin: at,
            })
        }
        None => {
            let default = var.default.describe();
            let d = Diagnostic::new(
                Code::FallsBack,
                format!("`{name}` = `{text}` is not an integer: the container silently falls back to {default}"),
            )
            .label("not an integer")
            .help(format!("write a whole number of {unit}; the profile leaves it out (the default)"));
            diags.push(d.at(at));
            None
        }
    }
}

/// A comma-separated list: each item a string, at its own place in the file when it can be.
fn list(text: &str, at: Positions) -> Node {
    let mut items = Vec::new();
    let mut offset = 0;
    for item in text.split(',') {
        items.push(string(item, at.at(offset, item.len())));
        offset += item.len() + 1;
    }
    Node {
        value: Value::Array(items),
        origin: at.origin,
    }
}

/// Where a part of a value is in the file: at its own place when the value is written there as
/// it is (no quotes undone, no escapes), else the whole value.
#[derive(Clone, Copy)]
pub struct Positions {
    pub origin: Origin,
    verbatim: bool,
}

impl Positions {
    pub fn of(entry: &EnvEntry, text: &str, sources: &Sources) -> Positions {
        let written = sources
            .get(entry.origin.source)
            .text
            .get(entry.origin.span());
        Positions {
            origin: entry.origin,
            verbatim: written == Some(text),
        }
    }

    /// The origin of `len` bytes at `offset` in the value.
    pub fn at(self, offset: usize, len: usize) -> Origin {
        let origin = self.origin;
        if self.verbatim {
            let start = (origin.start + offset).min(origin.end);
            Origin::new(origin.source, start..(start + len).min(origin.end))
        } else {
            origin
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::EnvValue;

    fn entry(sources: &Sources, value: std::ops::Range<usize>, text: &str) -> EnvEntry {
        let source = sources.ids().next().expect("one source");
        EnvEntry {
            name: "P".into(),
            value: EnvValue::Text(text.into()),
            name_origin: Origin::new(source, 0..1),
            origin: Origin::new(source, value),
        }
    }

    fn item_spans(node: &Node) -> Vec<std::ops::Range<usize>> {
        match &node.value {
            Value::Array(items) => items.iter().map(|i| i.origin.span()).collect(),
            other => panic!("not a list: {other:?}"),
        }
    }

    #[test]
    fn list_items_are_at_their_place_when_the_value_is_written_as_is() {
        let mut sources = Sources::new();
        sources.add("a.env", "P=a,bb\n");
        let as_is = entry(&sources, 2..6, "a,bb");
        let node = list("a,bb", Positions::of(&as_is, "a,bb", &sources));
        assert_eq!(item_spans(&node), [2..3, 4..6]);
        // Text that is not written as it is (unquoted, unescaped): the whole value.
        let other = entry(&sources, 2..6, "a,b");
        let node = list("a,b", Positions::of(&other, "a,b", &sources));
        assert_eq!(item_spans(&node), [2..6, 2..6]);
    }

    #[test]
    fn only_digits_that_fit_are_a_number() {
        assert_eq!(whole_number("8080", false), Some(8080));
        assert_eq!(whole_number("-5", false), None);
        assert_eq!(whole_number("-5", true), Some(-5));
        assert_eq!(whole_number("-", true), None);
        assert_eq!(whole_number("", false), None);
        assert_eq!(whole_number("+5", true), None);
        assert_eq!(whole_number("99999999999999999999", false), None);
        assert_eq!(whole_number("5m", true), None);
    }
}
