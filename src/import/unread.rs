//! Values given but not read (an error of the reading, an empty value, a placeholder `lint`
//! cannot know): the groups that depend on them may or may not apply.

use super::Read;
use super::analyze::Analysis;
use crate::diag::{Code, Diagnostic};
use crate::model::{Lookup, Model};
use crate::profile::Value;

/// True for "has no effect" about a setting whose group depends on a value that was given but
/// not read: whether the group applies is not known, and the value's own problem is reported.
pub fn depends_on_unread(d: &Diagnostic, read: &Read, analysis: &Analysis) -> bool {
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
