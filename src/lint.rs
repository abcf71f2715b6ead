//! `lint`: the spec model's checks on an environment as it is deployed today (a `.env` file, a
//! compose service, a ConfigMap or a workload), reported at the line and column of that file.
//!
//! The container reads its environment leniently and silently: a boolean other than `true`-like
//! words is false, a non-integer wait time falls back to its default, a misspelled name is
//! ignored. Lint says so for each, with the same readers `import` uses, then runs the profile's
//! cross-field rules (plain http, sleep above max time, required values) on what it read.

use crate::diag::{Code, Diagnostics};
use crate::import::{Read, analyze, cross_check};
use crate::model::Edition;
use crate::source::Sources;

/// Codes of the cross-field check that depend on values an error made unreadable.
const NEED_ALL_VALUES: [Code; 3] = [Code::Required, Code::HybridMissing, Code::DefaultPassphrase];

/// Every problem of what `read` found, for `edition` or the edition its variables decide.
pub fn lint(read: &Read, edition: Option<Edition>, sources: &Sources) -> Diagnostics {
    let analysis = analyze(&read.entries, edition, sources, true);
    let mut diags = read.diagnostics.clone();
    // An edition the variables leave open is not a problem of the file.
    diags.extend(Diagnostics {
        items: analysis
            .diagnostics
            .items
            .iter()
            .filter(|d| d.code != Code::Edition)
            .cloned()
            .collect(),
    });
    // Variables of both editions: no profile can hold them, so no cross-field check.
    let conflict = analysis.edition.is_none()
        && analysis
            .diagnostics
            .items
            .iter()
            .any(|d| d.code == Code::OtherEdition);
    if !conflict {
        let had_errors = diags.has_errors();
        let edition = analysis.edition.unwrap_or(Edition::B);
        let more = cross_check(read, &analysis, edition)
            .items
            .into_iter()
            .filter(|d| !(had_errors && NEED_ALL_VALUES.contains(&d.code)));
        diags.extend_new(more);
    }
    diags.sort();
    diags
}
