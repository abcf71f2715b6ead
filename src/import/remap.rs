//! Diagnostics of a generated profile moved back to the file it was generated from: each key and
//! value of the profile came from one name and value of the input, so a cross-field rule found on
//! the profile (plain http, sleep above max time, ...) is shown at the line of the input.

use crate::diag::Diagnostic;
use crate::profile::{Table, Value, parse_text};
use crate::source::{Origin, Sources};
use std::collections::HashMap;
use std::ops::Range;

/// Where each profile span came from in the input.
pub struct SpanMap {
    spans: Vec<(Range<usize>, Option<Origin>)>,
}

impl SpanMap {
    /// Maps the keys and values of `profile` (dotted key path → input name and value origins).
    /// A key path missing from `origins` takes its parent's value origin (a hybrid category).
    pub fn new(profile: &str, origins: &HashMap<String, (Origin, Origin)>) -> SpanMap {
        let mut sources = Sources::new();
        let (_, table) = parse_text("profile".into(), profile.to_string(), &mut sources);
        let mut spans = Vec::new();
        if let Ok(table) = table {
            collect(&table, "", None, origins, &mut spans);
        }
        spans.retain(|(r, _)| r.start < r.end);
        // By start, the larger first: walking back from a position meets the innermost span
        // that holds it first (spans of a TOML document nest or are disjoint).
        spans.sort_by_key(|(r, _)| (r.start, std::cmp::Reverse(r.end)));
        SpanMap { spans }
    }

    /// The diagnostic at the input position its profile position came from (none: the file).
    pub fn map(&self, mut diagnostic: Diagnostic) -> Diagnostic {
        let Some(origin) = diagnostic.origin else {
            return diagnostic;
        };
        let after = self.spans.partition_point(|(r, _)| r.start <= origin.start);
        let found = self.spans[..after]
            .iter()
            .rev()
            .find(|(r, _)| origin.end <= r.end);
        diagnostic.origin = found.and_then(|(_, o)| *o);
        diagnostic
    }
}

fn collect(
    table: &Table,
    prefix: &str,
    parent: Option<Origin>,
    origins: &HashMap<String, (Origin, Origin)>,
    out: &mut Vec<(Range<usize>, Option<Origin>)>,
) {
    for entry in &table.entries {
        let path = if prefix.is_empty() {
            entry.key.clone()
        } else {
            format!("{prefix}.{}", entry.key)
        };
        let (name, value) = match origins.get(&path) {
            Some((n, v)) => (Some(*n), Some(*v)),
            None => (parent, parent),
        };
        out.push((entry.key_origin.span(), name));
        out.push((entry.node.origin.span(), value));
        if let Value::Table(inner) = &entry.node.value {
            collect(inner, &path, value, origins, out);
        }
    }
}
