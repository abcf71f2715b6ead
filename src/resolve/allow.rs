//! `allow = ["W0306", "tls-unverified"]`: warnings the profile's authors know of and accept.
//!
//! A warning is there to be read once; a profile whose authors have read it (a pass-through
//! `[env]` variable they need, a test host without TLS verification) says so with its code or
//! name, and `validate`, `render` and `--deny-warnings` stop reporting it. Errors cannot be
//! acknowledged: the container would not start. Like clippy's `allow`, it is per profile (an
//! overlay or `--set` may replace the list), and a code that no warning of this run has is no
//! problem (the warning may come back after an edit and stays acknowledged).

use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::profile::{Table, Value};
use crate::support::suggest::did_you_mean;

/// The top-level key.
pub const ALLOW_KEY: &str = "allow";

/// Every code the list may hold: each warning's id and name.
pub fn warning_codes() -> impl Iterator<Item = Code> {
    Code::ALL
        .into_iter()
        .filter(|c| c.severity() == Severity::Warning)
}

/// The codes the profile acknowledges, each checked (an unknown code or an error's is an error).
/// A mistake in the list is one error, not that error and the warnings it meant to acknowledge
/// (which would go away once it is fixed): `allow = "W0306"` still acknowledges W0306, and a
/// misspelled code the one "did you mean" names; the error keeps the run failing.
pub fn read(table: &Table, diags: &mut Diagnostics) -> Vec<Code> {
    let Some(entry) = table.get(ALLOW_KEY) else {
        return Vec::new();
    };
    let Value::Array(items) = &entry.node.value else {
        let meant = match &entry.node.value {
            Value::String(text) => format!("write allow = [{text:?}] (a list, even of one)"),
            _ => "write allow = [\"W0306\"] (a warning's code or name)".to_string(),
        };
        diags.push(
            Diagnostic::wrong_type(
                ALLOW_KEY,
                "a list of warning codes",
                entry.node.value.type_name(),
            )
            .at(entry.node.origin)
            .help(meant),
        );
        let Value::String(text) = &entry.node.value else {
            return Vec::new();
        };
        return code_of(text, entry.node.origin, &mut Diagnostics::default())
            .into_iter()
            .collect();
    };
    items
        .iter()
        .filter_map(|node| match &node.value {
            Value::String(text) => code_of(text, node.origin, diags),
            other => {
                diags.push(
                    Diagnostic::wrong_type(ALLOW_KEY, "a warning code", other.type_name())
                        .at(node.origin),
                );
                None
            }
        })
        .collect()
}

/// The warning `text` names (its id or name), or a diagnostic saying why it names none.
fn code_of(
    text: &str,
    origin: crate::diag::source::Origin,
    diags: &mut Diagnostics,
) -> Option<Code> {
    match Code::find(text) {
        Some(code) if code.severity() == Severity::Warning => Some(code),
        Some(code) => {
            diags.push(
                Diagnostic::new(
                    Code::NotAllowed,
                    format!(
                        "`{ALLOW_KEY}` cannot hold {} ({}): an error cannot be acknowledged",
                        code.id(),
                        code.name()
                    ),
                )
                .at(origin)
                .label("an error's code")
                .help("fix the error instead; only warnings (W…) can be allowed"),
            );
            None
        }
        None => {
            let ids: Vec<&str> = warning_codes().flat_map(|c| [c.id(), c.name()]).collect();
            let near = did_you_mean(text, ids.iter().copied());
            diags.push(
                Diagnostic::new(
                    Code::NotAllowed,
                    format!("`{ALLOW_KEY}` names no warning: \"{text}\""),
                )
                .at(origin)
                .label("not a warning's code or name")
                .help("write a warning's code as printed (`warning[W0306]`) or its name")
                .suggest(near),
            );
            // The warning it was meant to name is not reported besides (see `read`).
            near.and_then(|near| warning_codes().find(|c| c.id() == near || c.name() == near))
        }
    }
}

/// Drops every warning whose code `allowed` holds.
pub fn acknowledge(diags: &mut Diagnostics, allowed: &[Code]) {
    if !allowed.is_empty() {
        diags
            .items
            .retain(|d| d.is_error() || !allowed.contains(&d.code));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_only_by_id_or_name() {
        let codes: Vec<Code> = warning_codes().collect();
        assert!(codes.contains(&Code::EnvPassthrough));
        assert!(!codes.contains(&Code::UnknownKey));
    }
}
