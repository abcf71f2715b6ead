//! Layering: a later table over an earlier one, table by table and key by key.
//!
//! Tables merge recursively; every other value (a list too) is replaced whole, keeping the origin
//! of the layer that wrote it, so diagnostics name the file and line of the value in effect.
//! A table being built layer by layer keeps an index of its keys ([`Stacked`]), so that merging
//! a layer costs the size of that layer, not of everything merged before it.

use super::{Table, Value};
use crate::diag::source::Origin;
use std::collections::HashMap;

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
    let mut index = Index::of(base);
    merge_indexed(base, &mut index, over, prefix, overridden);
}

/// A table built by merging layers over each other, with the index of its keys kept between
/// merges: a chain of many wide layers costs the sum of their sizes, where finding each key
/// anew would cost the product.
#[derive(Default)]
pub struct Stacked {
    table: Table,
    index: Index,
}

impl Stacked {
    /// Merges `over` into the table, recording every replaced value (see [`merge_recording`]).
    pub fn merge(&mut self, over: Table, overridden: &mut Overridden) {
        merge_indexed(&mut self.table, &mut self.index, over, "", overridden);
    }

    pub fn into_table(self) -> Table {
        self.table
    }
}

/// Where each key of a table is (the first entry of that key), and the index of each nested
/// table merged into so far (built when a merge first reaches it).
#[derive(Default)]
struct Index {
    keys: HashMap<String, usize>,
    nested: HashMap<usize, Index>,
}

impl Index {
    fn of(table: &Table) -> Index {
        let mut keys = HashMap::with_capacity(table.entries.len());
        for (i, entry) in table.entries.iter().enumerate() {
            keys.entry(entry.key.clone()).or_insert(i);
        }
        Index {
            keys,
            nested: HashMap::new(),
        }
    }
}

/// The one merge rule, over a table whose keys `index` holds.
fn merge_indexed(
    base: &mut Table,
    index: &mut Index,
    over: Table,
    prefix: &str,
    overridden: &mut Overridden,
) {
    for entry in over.entries {
        let path = if prefix.is_empty() {
            entry.key.clone()
        } else {
            format!("{prefix}.{}", entry.key)
        };
        let Some(&at) = index.keys.get(&entry.key) else {
            index.keys.insert(entry.key.clone(), base.entries.len());
            base.entries.push(entry);
            continue;
        };
        let existing = &mut base.entries[at];
        match (&mut existing.node.value, entry.node.value) {
            (Value::Table(inner), Value::Table(over_inner)) if !is_single_value(&path) => {
                let nested = index.nested.entry(at).or_insert_with(|| Index::of(inner));
                merge_indexed(inner, nested, over_inner, &path, overridden)
            }
            (_, value) => {
                overridden.push((path, existing.node.origin));
                existing.node.value = value;
                existing.node.origin = entry.node.origin;
                existing.key_origin = entry.key_origin;
                // A nested table's index is of the value just replaced.
                index.nested.remove(&at);
            }
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
    fn a_table_merged_layer_by_layer_is_the_table_merged_pairwise() {
        let mut sources = Sources::new();
        let layers = [
            "a = 1\n[t]\nx = 1\n",
            "[t]\nz = 0\n",
            "t = 5\n[u]\nq = 1\n",
            "[t]\ny = 2\n[u]\nq = 2\nr = 3\n",
            "a = [1]\n[t]\nx = 3\n",
        ];
        let (mut stacked, mut pairwise) = (Stacked::default(), Table::default());
        let (mut recorded, mut recorded_pairwise) = (Vec::new(), Vec::new());
        for text in layers {
            let over = table(&mut sources, text);
            stacked.merge(over.clone(), &mut recorded);
            merge_recording(&mut pairwise, over, "", &mut recorded_pairwise);
        }
        let stacked = stacked.into_table();
        assert_eq!(stacked, pairwise);
        assert_eq!(recorded, recorded_pairwise);
        // `t` was merged into, replaced by a number, then by a table: the index of the first
        // table went with it.
        let Value::Table(t) = &stacked.get("t").unwrap().node.value else {
            panic!("a table")
        };
        let keys: Vec<&str> = t.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["y", "x"]);
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
