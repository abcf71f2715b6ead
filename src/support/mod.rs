//! Helpers every layer uses, with no dependency on the rest of the crate: one-line escaping of
//! user text in generated comments (`escape`), the files a command reads by identity
//! (`inputs`), the folder a profile may read from (`root`), paths resolved once per profile
//! (`resolved`), "did you mean" (`suggest`) and the one table pattern of enums whose variants
//! are rows (`table`).

pub mod escape;
pub mod inputs;
pub mod resolved;
pub mod root;
pub mod suggest;
pub mod table;
