//! Outputs made from the spec model alone, with no profile: the Markdown reference of every
//! variable (`docs`) and the JSON Schema of a profile (`schema`). `render` includes them as
//! targets; the command line writes them.

pub mod docs;
pub mod schema;
