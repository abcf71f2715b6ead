//! `svcgen lsp`: a Language Server Protocol server on stdio, so any editor shows what
//! `svcgen validate` says while the profile is typed, layers included.
//!
//! Nothing here checks a profile: the document goes through the same pipeline entry point as
//! `svcgen validate` (`pipeline::check_layers`), with the editor's unsaved texts standing for
//! their files, and this module only translates: positions (UTF-16), diagnostics, the fixes the
//! checks attach, `explain`'s text for hover, the model's keys and values for completion.

mod actions;
mod analysis;
mod completion;
mod cursor;
mod definition;
mod diagnostics;
mod documents;
mod hover;
mod position;
mod server;
mod transport;
mod uri;

pub use server::run;
