//! A variable outside the spec (`[env]`, or a name a read file holds that the spec does not
//! know): what resolve passes through, and what the checks of the image's own variables read.

use crate::diag::source::Origin;

/// A variable outside the spec, passed through.
#[derive(Debug, Clone, PartialEq)]
pub struct Extra {
    pub name: String,
    /// The value (empty when it is filled in at deploy time).
    pub value: String,
    /// Filled in at deploy time (`NAME = { deploy_env = "X" }`), as a compose placeholder is.
    pub deploy_env: Option<super::deferred::Deferred>,
    pub origin: Origin,
}
