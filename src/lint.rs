//! `lint`: the spec model's checks on an environment as it is deployed today (a `.env` file, a
//! compose service, a ConfigMap or a workload), reported at the line and column of that file.
//!
//! The container reads its environment leniently and silently: a boolean other than `true`-like
//! words is false, a non-integer wait time falls back to its default, a misspelled name is
//! ignored. Lint says so for each, with the reading `import` uses, then checks the values read as
//! a profile's (wrong types, allowed values, plain http, sleep above max time, required values),
//! with resolve's one wording for each.

use crate::diag::{Code, Diagnostics};
use crate::import::{Read, analyze, profile_check};
use crate::model::Edition;
use crate::source::Sources;

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
    diags.extend(profile_check(read, &analysis, sources));
    diags.sort();
    diags
}
