//! svcgen: validate a profile of the Admin UI container against its spec model and render it.
//!
//! The pipeline is `profile` (load with spans) -> `resolve` (typed, per edition, defaults) ->
//! `rules` (cross-field checks) -> `render` (per target) -> `output` (atomic writes). Each stage is
//! a module with one job; data flows one way.

pub mod model;
pub mod diag;
pub mod explain;
pub mod profile;
pub mod source;
pub mod suggest;
pub mod resolve;
pub mod render;
pub mod output;
pub mod pipeline;
pub mod cli;
pub mod schema;
