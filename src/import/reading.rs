//! The first step of `import` and `lint`: a variable's text, as the container reads it, becomes
//! the profile value it stands for, with the origin of its text in the file read. How each
//! type is read is that type's rule ([`crate::value_type::TypeRules::read_env_text`]).
//!
//! Nothing here checks a value against its type's rules: text the container would refuse stays
//! text (a port `54x32` stays the string `"54x32"`), so that resolve reports it once, with the
//! same wording as in a profile.

use super::EnvEntry;
use crate::diag::Diagnostics;
use crate::model::Var;
use crate::profile::Node;
use crate::source::Sources;
use crate::value_type::EnvText;

pub use crate::value_type::env_text::string;

/// The profile value of a variable's text, as the container reads it; `None` (with a
/// diagnostic) when the container reads no value from it.
pub fn node(
    var: &Var,
    entry: &EnvEntry,
    text: &str,
    sources: &Sources,
    diags: &mut Diagnostics,
) -> Option<Node> {
    let written = sources
        .get(entry.origin.source)
        .text
        .get(entry.origin.span());
    let env = EnvText::new(&entry.name, text, entry.origin, written);
    var.ty.rules().read_env_text(var, &env, diags)
}
