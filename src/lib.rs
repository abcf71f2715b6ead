//! svcgen: validate a profile of the Admin UI container against its spec model and render it.
//!
//! The pipeline is `profile` (load with spans) -> `resolve` (typed, per edition, defaults, every
//! check of the profile) -> `deployment` (the environment, the Kubernetes plan, the host files
//! read and the deployment's checks, decided once) -> `render` (formats it per target) ->
//! `output` (atomic writes). `pipeline::check` is the one entry to the first two. Each stage is a module with one job; data flows one way.
//!
//! Around the stages, three folders group modules by role: `support` (text and file helpers
//! every layer uses, with no dependency on the rest of the crate), `artifacts` (made from the
//! spec model alone: the Markdown reference and the JSON Schema) and `commands` (what a
//! subcommand does beyond the stages: init, lint, migrate, explain, diff, ...). `diag` holds the
//! texts diagnostics point into (`source`) and the masking of secrets in them (`redact`).
//! `tests/module_graph.rs` checks that the modules, and these folders, form a DAG.

pub mod artifacts;
#[cfg(feature = "host")]
pub mod cli;
pub mod commands;
pub mod deployment;
pub mod diag;
pub mod import;
pub mod krm;
#[cfg(feature = "host")]
pub mod lsp;
pub mod model;
#[cfg(feature = "host")]
pub mod output;
pub mod pipeline;
#[cfg(feature = "live")]
pub mod preflight;
pub mod profile;
pub mod render;
pub mod resolve;
pub mod support;
pub mod templates;
pub mod value_type;
