//! Which items go out: the input's items in their order, svcgen's objects of an earlier run
//! replaced in place by this run's (or removed when it no longer generates them), the other new
//! objects at the end. An object is known by API group, kind, namespace and name; svcgen's own
//! objects by its annotation only, never by their name.

use super::emit::Item;
use super::results::Results;
use super::yaml::{Node, NodeValue};
use super::{GENERATED_ANNOTATION, GENERATED_BY, OWNER_ANNOTATION};
use serde_json::{Value, json};
use std::collections::HashMap;

/// What names one Kubernetes object: API group (not version), kind, namespace and name.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Identity {
    group: String,
    kind: String,
    namespace: String,
    name: String,
}

impl Identity {
    fn new(api_version: &str, kind: &str, namespace: &str, name: &str) -> Identity {
        let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
        Identity {
            group: group.to_string(),
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }

    fn of_node(item: &Node) -> Identity {
        let text = |path: &[&str]| item.at(path).and_then(Node::as_str).unwrap_or_default();
        Identity::new(
            text(&["apiVersion"]),
            text(&["kind"]),
            text(&["metadata", "namespace"]),
            text(&["metadata", "name"]),
        )
    }

    fn of_value(object: &Value) -> Identity {
        let text = |pointer: &str| {
            object
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default()
        };
        Identity::new(
            text("/apiVersion"),
            text("/kind"),
            text("/metadata/namespace"),
            text("/metadata/name"),
        )
    }

    /// How a result names the object (no value of its content).
    fn reference(&self, api_version: &str) -> Value {
        let mut reference =
            json!({ "apiVersion": api_version, "kind": self.kind, "name": self.name });
        if !self.namespace.is_empty() {
            reference["namespace"] = Value::from(self.namespace.as_str());
        }
        reference
    }
}

/// Who generated an item, as its annotations say.
#[derive(Debug, PartialEq, Eq)]
enum Maker {
    /// Not svcgen (no [`GENERATED_ANNOTATION`] with svcgen's value).
    Other,
    /// This function config ([`OWNER_ANNOTATION`] names it).
    This,
    /// Another svcgen function config, named (or `None`: an earlier svcgen that named none).
    Svcgen(Option<String>),
}

fn maker(item: &Node, owner: &str) -> Maker {
    let annotation = |key: &str| {
        item.at(&["metadata", "annotations", key])
            .and_then(Node::as_str)
    };
    if annotation(GENERATED_ANNOTATION) != Some(GENERATED_BY) {
        return Maker::Other;
    }
    match annotation(OWNER_ANNOTATION) {
        Some(config) if config == owner => Maker::This,
        config => Maker::Svcgen(config.map(str::to_string)),
    }
}

/// The items written. With `added` (this run rendered), the objects of this function config
/// (`owner`) of an earlier run are replaced or removed, and those of another svcgen function
/// config kept and reported; without (the profile failed), every item is kept as it came.
pub fn merge<'a>(
    items: &'a [Node],
    added: Option<Vec<Value>>,
    owner: &str,
    results: &mut Results,
) -> Vec<Item<'a>> {
    let Some(added) = added else {
        return items.iter().map(Item::Kept).collect();
    };
    let mut new: HashMap<Identity, usize> = HashMap::with_capacity(added.len());
    for (i, object) in added.iter().enumerate() {
        new.insert(Identity::of_value(object), i);
    }
    let mut placed: Vec<Option<Value>> = added.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(items.len() + placed.len());
    for item in items {
        let identity = Identity::of_node(item);
        let index = new.get(&identity).copied();
        match (maker(item, owner), index) {
            // An earlier svcgen that named no function config made the object this run makes.
            (Maker::This | Maker::Svcgen(None), Some(i)) => {
                out.extend(placed[i].take().map(Item::Generated));
            }
            // This config's object of an earlier run that this run does not generate any more.
            (Maker::This, None) => {}
            (Maker::Svcgen(config), None) => {
                other_config(item, &identity, config.as_deref(), results);
                out.push(Item::Kept(item));
            }
            (_, Some(i)) => {
                if placed[i].take().is_some() {
                    let api_version = item
                        .at(&["apiVersion"])
                        .and_then(Node::as_str)
                        .unwrap_or_default();
                    results.item_result(
                        "error",
                        format!(
                            "the item {} {} has the identity of an object svcgen generates but not svcgen's annotation {GENERATED_ANNOTATION} naming this function config ({OWNER_ANNOTATION}): it is kept and svcgen's object is not added (rename one of them)",
                            identity.kind, identity.name
                        ),
                        identity.reference(api_version),
                        None,
                    );
                }
                out.push(Item::Kept(item));
            }
            (Maker::Other, None) => out.push(Item::Kept(item)),
        }
    }
    out.extend(placed.into_iter().flatten().map(Item::Generated));
    out
}

/// The result on an object svcgen generated for another function config (or for one an
/// earlier svcgen did not name): kept, never removed.
fn other_config(item: &Node, identity: &Identity, config: Option<&str>, results: &mut Results) {
    let api_version = item
        .at(&["apiVersion"])
        .and_then(Node::as_str)
        .unwrap_or_default();
    let by = match config {
        Some(config) => format!("the svcgen function config {config}"),
        None => format!(
            "an svcgen function config this version cannot tell (no {OWNER_ANNOTATION}): remove it yourself if no function config generates it any more"
        ),
    };
    results.item_result(
        "info",
        format!(
            "the item {} {} was generated by {by}; it is kept (this function config prunes only its own objects)",
            identity.kind, identity.name
        ),
        identity.reference(api_version),
        None,
    );
}

/// A NaN or infinite number in an item (which JSON and Kubernetes cannot carry) is a warning on
/// that item and field; the item is copied as written all the same.
pub fn report_non_finite(items: &[Node], results: &mut Results) {
    for item in items {
        let mut paths = Vec::new();
        non_finite_paths(item, String::new(), &mut paths);
        if paths.is_empty() {
            continue;
        }
        let identity = Identity::of_node(item);
        let api_version = item
            .at(&["apiVersion"])
            .and_then(Node::as_str)
            .unwrap_or_default();
        for path in paths {
            results.item_result(
                "warning",
                format!(
                    "{path} of the item {} {} is a NaN or infinite number, which JSON and Kubernetes cannot carry (the item is kept as written)",
                    identity.kind, identity.name
                ),
                identity.reference(api_version),
                Some(path),
            );
        }
    }
}

/// The field paths (`spec.x`, `list[2]`) of the non-finite numbers under `node`.
fn non_finite_paths(node: &Node, path: String, out: &mut Vec<String>) {
    match &node.value {
        NodeValue::Scalar { text, style, tag } => {
            let float = match tag.as_deref() {
                None => *style == granit_parser::ScalarStyle::Plain,
                Some(tag) => tag == "tag:yaml.org,2002:float",
            };
            let special = matches!(
                text.trim_start_matches(['+', '-']),
                ".inf" | ".Inf" | ".INF"
            ) || matches!(text.as_str(), ".nan" | ".NaN" | ".NAN");
            if float && special {
                out.push(path);
            }
        }
        NodeValue::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                non_finite_paths(item, format!("{path}[{i}]"), out);
            }
        }
        NodeValue::Map(entries) => {
            for (key, value) in entries {
                let key = key.as_str().unwrap_or("?");
                let next = if path.is_empty() {
                    key.to_string()
                } else {
                    format!("{path}.{key}")
                };
                non_finite_paths(value, next, out);
            }
        }
        NodeValue::Alias => {}
    }
}
