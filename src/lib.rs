//! svcgen: validate a profile of the Admin UI container against its spec model and render it.
//!
//! The pipeline is `profile` (load with spans) -> `resolve` (typed, per edition, defaults) ->
//! `rules` (cross-field checks) -> `render` (per target) -> `output` (atomic writes). Each stage is
//! a module with one job; data flows one way.

#[cfg(feature = "host")]
pub mod batch;
#[cfg(feature = "host")]
pub mod cli;
pub mod diag;
pub mod diff;
pub mod docs;
pub mod drift;
pub mod escape;
pub mod explain;
pub mod import;
pub mod init;
pub mod inputs;
pub mod krm;
pub mod lint;
#[cfg(feature = "host")]
pub mod lsp;
pub mod migrate;
pub mod model;
#[cfg(feature = "host")]
pub mod output;
pub mod pipeline;
pub mod playground;
pub mod profile;
pub mod redact;
pub mod render;
pub mod resolve;
pub mod schema;
pub mod source;
pub mod suggest;
pub mod templates;
pub mod validate;
pub mod value_type;
