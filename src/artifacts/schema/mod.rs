//! The editor JSON Schema of a profile, generated from the spec model.
//!
//! Editors (taplo / Even Better TOML, VS Code) check a profile against this schema as it is typed,
//! and show its descriptions on hover and its values on completion. Everything in it comes from
//! `schemas/spec.toml`: the key tree, the types, allowed values, defaults and descriptions, and the
//! rules that differ per edition (written as `if`/`then` on `edition`). Nothing is hand-written.
//!
//! Draft-07, because taplo validates with a jsonschema library that knows draft-07 and silently
//! reads a newer schema as draft-07, VS Code's JSON language service supports it fully, and it is the
//! first draft with `if`/`then`, which the edition rules need.
//!
//! A schema checks each value against its type and form, and the edition's rules; what needs the
//! resolved profile (cross-field warnings, files on disk, "has no effect" warnings) is left to
//! `svcgen validate`. The schema is built to reject nothing that `svcgen validate` accepts
//! (`tests/schema.rs` checks both directions on fixtures).

mod conditions;
mod deferred;
mod deploy;
mod describe;
mod editions;
mod enum_docs;
mod leaf;
mod nest;
mod root;
mod tree;
mod widen;

use crate::model::Model;
pub use describe::table_description;
pub use enum_docs::value_doc;
use schemars::Schema;

/// The JSON Schema dialect of the generated schema.
pub const DRAFT: &str = "http://json-schema.org/draft-07/schema#";

/// The profile's JSON Schema, generated from the embedded spec model.
pub fn profile_schema() -> Schema {
    root::schema(Model::get())
}

/// The schema as it is checked in at `schemas/profile.schema.json`: pretty JSON and a final newline.
pub fn profile_schema_text() -> String {
    let mut text =
        serde_json::to_string_pretty(&profile_schema()).expect("a JSON value serializes");
    text.push('\n');
    text
}
