//! `lint`: the spec model's checks on an environment as it is deployed today (a `.env` file, a
//! compose service, a ConfigMap or a workload), reported at the line and column of that file.
//!
//! The container reads its environment leniently and silently: a boolean other than `true`-like
//! words is false, a non-integer wait time falls back to its default, a misspelled name is
//! ignored. Lint says so for each, with the reading `import` uses, then checks the values read as
//! a profile's (wrong types, allowed values, plain http, sleep above max time, required values),
//! with resolve's one wording for each.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::import::{Analysis, Read, analyze, profile_check};
use crate::model::{Edition, Lookup, Model};
use crate::profile::Value;
use crate::source::Sources;

/// Codes of the profile check that depend on every value: when a value could not be read (an
/// error of the file), they would report what is not so.
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
    let had_errors = diags.has_errors();
    let more = profile_check(read, &analysis, analysis.read_as, sources)
        .items
        .into_iter()
        .filter(|d| !(had_errors && NEED_ALL_VALUES.contains(&d.code)))
        .filter(|d| !depends_on_unread(d, read, &analysis));
    diags.items.extend(more);
    diags.sort();
    diags
}

/// True for "has no effect" about a setting whose group depends on a value that was given but
/// not read: whether the group applies is not known, and the value's own problem is reported.
fn depends_on_unread(d: &Diagnostic, read: &Read, analysis: &Analysis) -> bool {
    if d.code != Code::NotApplied || analysis.unread.is_empty() {
        return false;
    }
    let model = Model::get();
    let setting = analysis
        .settings
        .iter()
        .find(|s| Some(read.entries[s.entry].name_origin) == d.origin);
    setting.is_some_and(|s| {
        let values = Values { analysis };
        (model.group(&s.var.group).when.iter()).any(|c| c.undecided(&values))
    })
}

/// The values an analysis read, as `when` conditions see them.
struct Values<'a> {
    analysis: &'a Analysis,
}

impl Lookup for Values<'_> {
    fn value(&self, key: &str) -> Option<String> {
        let set = self.analysis.settings.iter().find(|s| s.var.key == key);
        match set.map(|s| &s.node.value) {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Integer(n)) => Some(n.to_string()),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(_) => None,
            None => {
                let var = Model::get().var_by_key(key, self.analysis.read_as)?;
                var.default.value().map(str::to_string)
            }
        }
    }

    fn backends(&self) -> Vec<String> {
        Vec::new() // `undecided` asks only for the selector's value
    }

    fn invalid(&self, key: &str) -> bool {
        self.analysis.unread.contains(&key)
    }
}
