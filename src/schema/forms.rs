//! The regular expressions of the string forms, at the path the schema generator has always used:
//! they live with the value types (`crate::value_type::patterns`), next to their checks.

pub use crate::value_type::patterns::*;
