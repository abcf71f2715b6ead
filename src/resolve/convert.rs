//! Turning one profile value into the typed value of its variable: the variable's type reads it,
//! with every per-value check (the rules of each type live in `crate::value_type`).

use super::Typed;
use crate::diag::Diagnostics;
use crate::model::Var;
use crate::profile::Entry;

pub use crate::value_type::{Context, backend_not_a_string, is_env_name};

/// Converts `entry` for `var`; `None` (with diagnostics) when the value is not acceptable.
pub fn convert(
    var: &Var,
    entry: &Entry,
    cx: &Context<'_>,
    diags: &mut Diagnostics,
) -> Option<Typed> {
    if let Some(deferred) = super::deferred::read(var, &entry.node, cx, diags) {
        return deferred;
    }
    var.ty.rules().read(var, &entry.node, cx, diags)
}
