//! The string-form checks, at the path the rest of the crate has always used: they live with the
//! value types (`crate::value_type::formats`), whose rules call them.

pub use crate::value_type::formats::*;
