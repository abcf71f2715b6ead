//! The profile's key tree: every variable's key split into tables, in model order.

use crate::model::{Edition, Model};

/// A key of the profile: a variable (no children) or a table of further keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyNode {
    /// The full dotted path (`config.consul`).
    pub path: String,
    /// The last segment (`consul`).
    pub name: String,
    pub children: Vec<KeyNode>,
}

impl KeyNode {
    pub fn is_table(&self) -> bool {
        !self.children.is_empty()
    }
}

/// The top-level keys of every variable, each with its subtree, in the model's order.
pub fn key_tree(model: &Model) -> Vec<KeyNode> {
    let mut roots: Vec<KeyNode> = Vec::new();
    for key in model.keys() {
        let mut level = &mut roots;
        let mut path = String::new();
        for segment in key.split('.') {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(segment);
            let index = match level.iter().position(|n| n.name == segment) {
                Some(i) => i,
                None => {
                    level.push(KeyNode {
                        path: path.clone(),
                        name: segment.to_string(),
                        children: Vec::new(),
                    });
                    level.len() - 1
                }
            };
            level = &mut level[index].children;
        }
    }
    roots
}

/// The editions that have a variable at `path` or below it, in the model's edition order.
pub fn editions_at(model: &Model, path: &str) -> Vec<Edition> {
    let below = format!("{path}.");
    Edition::ALL
        .into_iter()
        .filter(|e| {
            model
                .vars_of(*e)
                .any(|v| v.key == path || v.key.starts_with(&below))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_nest_into_tables_in_model_order() {
        let tree = key_tree(Model::get());
        let config = &tree[0];
        assert_eq!(config.path, "config");
        assert_eq!(config.children[0].name, "adapter");
        let consul = &config.children[1];
        assert_eq!(consul.path, "config.consul");
        assert!(consul.is_table());
        assert!(consul.children.iter().all(|c| !c.is_table()));
    }

    #[test]
    fn edition_only_tables() {
        let model = Model::get();
        assert_eq!(editions_at(model, "persistence.ldap"), [Edition::A]);
        assert_eq!(editions_at(model, "persistence"), Edition::ALL);
    }
}
