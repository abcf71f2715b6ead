//! Values given but not read (an error of the reading, an empty value, a placeholder `lint`
//! cannot know): the groups that depend on them may or may not apply.

use super::analyze::Analysis;
use super::{EnvValue, Read};
use crate::diag::source::Origin;
use crate::model::{Lookup, Model};
use crate::profile::Value;

/// Where the names are (as the profile table has them) of which resolve cannot say "has no
/// effect": a setting whose group depends on a value given but not read (whether the group
/// applies is not known, and the value's own problem is reported), and a variable only a whole
/// Secret (`envFrom: secretRef`) may hand over (the Secret may not hold it at all).
pub fn effect_unknown(read: &Read, analysis: &Analysis) -> Vec<Origin> {
    let model = Model::get();
    let values = Values { analysis };
    let undecided = analysis.settings.iter().filter(|s| {
        !analysis.unread.is_empty()
            && (model.group(&s.var.group).when.iter()).any(|c| c.undecided(&values))
    });
    let whole_secret = read
        .entries
        .iter()
        .filter(|e| matches!(e.value, EnvValue::SecretRef { whole: true, .. }));
    undecided
        .map(|s| read.entries[s.entry].name_origin)
        .chain(whole_secret.map(|e| e.name_origin))
        .collect()
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
