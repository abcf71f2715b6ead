//! Reading the `ResourceList` a KRM function gets on stdin.

use super::results::Results;
use super::yaml::{self, Node, NodeValue};
use super::{PROFILE_KEY, SET_KEY};
use serde_json::Value;

pub const API_VERSION: &str = "config.kubernetes.io/v1";
pub const KIND: &str = "ResourceList";

/// What the function reads from its input.
pub struct FunctionInput {
    pub profile: String,
    /// `--set` values (`data.set`, one per line), applied over the profile in order.
    pub sets: Vec<String>,
    /// Where each of `sets` is written in `data.set`: its 1-based line, and the blanks before it.
    pub set_places: Vec<(usize, usize)>,
    /// How diagnostics name the profile: the function config's file, else its field.
    pub profile_name: String,
    /// The function config's file (its `config.kubernetes.io/path` annotation), if known.
    pub config_file: Option<String>,
    /// `apiVersion`, `kind` and `name` of the function config, for the results' `resourceRef`.
    pub config_ref: Value,
    /// The function config's identity (`namespace/name`), which marks the objects it generates
    /// ([`super::OWNER_ANNOTATION`]).
    pub owner: String,
}

/// What was read: the items (kept whatever else is wrong) and the function's input, if usable.
pub struct Read {
    /// The items as nodes of the input's text (an item is copied as written, never re-encoded).
    pub items: Vec<Node>,
    pub function: Option<FunctionInput>,
}

impl FunctionInput {
    /// Where the `data.set` line `set` (as trimmed) is written: (its line, blanks before it).
    pub fn set_place(&self, set: &str) -> Option<(usize, usize)> {
        let index = self.sets.iter().position(|s| s == set)?;
        self.set_places.get(index).copied()
    }

    /// Reads the list; no function input (with an error result) when it is not a `ResourceList`
    /// whose function config is a ConfigMap holding a profile. Messages never quote the input.
    pub fn read(input: &str, results: &mut Results) -> Read {
        let none = |items| Read {
            items,
            function: None,
        };
        let list = match yaml::read(input) {
            Ok(list) if matches!(list.value, NodeValue::Map(_)) => list,
            Ok(_) => {
                results.input_error::<()>("the input is not a YAML mapping");
                return none(Vec::new());
            }
            Err(e) => {
                results.input_error::<()>(&e.to_string());
                return none(Vec::new());
            }
        };
        let text = |node: Option<&Node>| node.and_then(Node::as_str).map(str::to_string);
        if text(list.get("kind")).as_deref() != Some(KIND)
            || text(list.get("apiVersion")).as_deref() != Some(API_VERSION)
        {
            results.input_error::<()>(&format!(
                "the input is not a ResourceList: expected apiVersion {API_VERSION}, kind {KIND}"
            ));
            return none(Vec::new());
        }
        let NodeValue::Map(entries) = list.value else {
            unreachable!("checked above")
        };
        let mut items = Vec::new();
        let mut config = None;
        for (key, value) in entries {
            match key.as_str() {
                Some("items") => match value.value {
                    NodeValue::Seq(list) => items = list,
                    _ if value.is_null() => {}
                    _ => {
                        results.input_error::<()>("`items` of the ResourceList is not a list");
                        return none(Vec::new());
                    }
                },
                Some("functionConfig") => config = Some(value),
                _ => {}
            }
        }
        let function = match config {
            Some(config) => Self::from_config(&config, results),
            None => results.input_error(
                "functionConfig is missing: a ConfigMap whose data.profile holds the profile (TOML)",
            ),
        };
        Read { items, function }
    }

    /// The function config: a ConfigMap with the profile in `data.profile`.
    fn from_config(config: &Node, results: &mut Results) -> Option<FunctionInput> {
        let text = |path: &[&str]| config.at(path).and_then(Node::as_str).map(str::to_string);
        if text(&["kind"]).as_deref() != Some("ConfigMap") {
            return results.input_error(
                "functionConfig must be a ConfigMap whose data.profile holds the profile (TOML)",
            );
        }
        let Some(profile) = text(&["data", PROFILE_KEY]) else {
            return results.input_error(
                "functionConfig.data.profile is missing: put the profile's TOML text there",
            );
        };
        if let Some(NodeValue::Map(data)) = config.get("data").map(|d| &d.value) {
            for key in data.iter().filter_map(|(k, _)| k.as_str()) {
                if key != PROFILE_KEY && key != SET_KEY {
                    results.warning(format!(
                        "functionConfig.data.{key} is ignored: svcgen krm reads data.profile and data.set"
                    ));
                }
            }
        }
        let config_file =
            text(&["metadata", "annotations", "config.kubernetes.io/path"]).or_else(|| {
                text(&[
                    "metadata",
                    "annotations",
                    "internal.config.kubernetes.io/path",
                ])
            });
        let set_text = text(&["data", SET_KEY]).unwrap_or_default();
        let (sets, set_places) = (set_text.lines().enumerate())
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                let indent = l.len() - l.trim_start().len();
                (l.trim().to_string(), (i + 1, indent))
            })
            .unzip();
        Some(FunctionInput {
            profile,
            sets,
            set_places,
            profile_name: config_file.clone().map_or_else(
                || "functionConfig.data.profile".to_string(),
                |f| format!("{f} (data.profile)"),
            ),
            config_file,
            owner: format!(
                "{}/{}",
                text(&["metadata", "namespace"]).unwrap_or_default(),
                text(&["metadata", "name"]).unwrap_or_default()
            ),
            config_ref: serde_json::json!({
                "apiVersion": text(&["apiVersion"]).unwrap_or_else(|| "v1".to_string()),
                "kind": "ConfigMap",
                "name": text(&["metadata", "name"]),
            }),
        })
    }
}
