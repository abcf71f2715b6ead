//! The spec model as baked by `build.rs`: `schemas/spec.toml` written out as Rust code that
//! builds the model's raw types, so that a run reads its model without parsing text or walking
//! a tree of values. A child of `types`, whose raw types it builds.

use super::super::start::{Lasts, LockCheck, StartFacts, StartWait};
use super::*;
use std::borrow::Cow;

include!(concat!(env!("OUT_DIR"), "/spec_model.rs"));

#[cfg(test)]
mod tests {
    /// Every enum word and integer of the baked model is written beside its place in
    /// `schemas/spec.toml`: a wrong one fails to compile at a line that names the key to mend.
    #[test]
    fn each_enum_word_and_integer_of_the_baked_model_names_its_key() {
        let code = include_str!(concat!(env!("OUT_DIR"), "/spec_model.rs"));
        let words = ["Edition::", "Unit::"];
        let mut seen = 0;
        for line in code.lines() {
            for word in words {
                for (at, _) in line.match_indices(word) {
                    let rest = &line[at..];
                    let end = rest.find([',', ')', ']', '}']).unwrap_or(rest.len());
                    assert!(
                        rest[..end].contains("/* schemas/spec.toml: "),
                        "{}",
                        &rest[..end]
                    );
                    seen += 1;
                }
            }
        }
        assert!(seen > 100, "{seen}");
    }
}
