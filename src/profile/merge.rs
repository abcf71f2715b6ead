//! Layering: a later table over an earlier one, table by table and key by key.
//!
//! Tables merge recursively; every other value (a list too) is replaced whole, keeping the origin
//! of the layer that wrote it, so diagnostics name the file and line of the value in effect.

use super::{Table, Value};
use crate::diag::source::Origin;

/// Values replaced by a later layer: (dotted key, origin of the replaced value), oldest first.
pub type Overridden = Vec<(String, Origin)>;

/// Merges `over` into `base`: later keys win; nested tables merge; lists are replaced.
pub fn merge(base: &mut Table, over: Table) {
    merge_recording(base, over, "", &mut Vec::new());
}

/// [`merge`], recording every replaced value under its dotted key (below `prefix`).
///
/// A table that stands for one value (a secret reference `{ env = ... }`) is replaced whole, as
/// the spec model's type of its key says: `{ file = ... }` over `{ env = ... }` is one reference.
pub fn merge_recording(base: &mut Table, over: Table, prefix: &str, overridden: &mut Overridden) {
    for entry in over.entries {
        let path = if prefix.is_empty() {
            entry.key.clone()
        } else {
            format!("{prefix}.{}", entry.key)
        };
        match base.entries.iter_mut().find(|e| e.key == entry.key) {
            Some(existing) => match (&mut existing.node.value, entry.node.value) {
                (Value::Table(inner), Value::Table(over_inner)) if !is_single_value(&path) => {
                    merge_recording(inner, over_inner, &path, overridden)
                }
                (_, value) => {
                    overridden.push((path, existing.node.origin));
                    existing.node.value = value;
                    existing.node.origin = entry.node.origin;
                    existing.key_origin = entry.key_origin;
                }
            },
            None => base.entries.push(entry),
        }
    }
}

/// True for a key whose table is one value (the model's secret type), not a table of keys.
fn is_single_value(path: &str) -> bool {
    crate::model::Model::get()
        .entries_by_key(path)
        .any(|v| v.ty == crate::model::VarType::Secret)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::source::Sources;
    use crate::profile::parse_text;

    fn table(sources: &mut Sources, text: &str) -> Table {
        parse_text("t.toml".into(), text.into(), sources).1.unwrap()
    }

    #[test]
    fn scalars_override_tables_merge_lists_replace() {
        let mut sources = Sources::new();
        let mut base = table(&mut sources, "a = 1\n[t]\nx = 1\ny = [1, 2]\n");
        let over = table(&mut sources, "a = 2\n[t]\ny = [3]\nz = true\n");
        let mut overridden = Vec::new();
        merge_recording(&mut base, over, "", &mut overridden);
        assert_eq!(base.get("a").unwrap().node.value, Value::Integer(2));
        assert_eq!(base.get_path("t.x").unwrap().node.value, Value::Integer(1));
        let y = &base.get_path("t.y").unwrap().node.value;
        assert!(matches!(y, Value::Array(items) if items.len() == 1));
        assert_eq!(base.get_path("t.z").unwrap().node.value, Value::Bool(true));
        assert_eq!(
            base.get("a").unwrap().node.origin.source.index(),
            1,
            "origin of the later layer"
        );
        let keys: Vec<&str> = overridden.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["a", "t.y"]);
    }

    #[test]
    fn a_secret_reference_is_replaced_whole() {
        let mut sources = Sources::new();
        let mut base = table(
            &mut sources,
            "[google]\nsecret_manager_passphrase = { env = \"A\" }\n",
        );
        let over = table(
            &mut sources,
            "[google]\nsecret_manager_passphrase = { file = \"p\" }\n",
        );
        merge(&mut base, over);
        let Value::Table(reference) = &base
            .get_path("google.secret_manager_passphrase")
            .unwrap()
            .node
            .value
        else {
            panic!("a table")
        };
        assert_eq!(reference.entries.len(), 1);
        assert_eq!(reference.entries[0].key, "file");
    }
}
