//! Reading the `ResourceList` a KRM function gets on stdin.

use super::results::Results;
use serde_json::Value;

pub const API_VERSION: &str = "config.kubernetes.io/v1";
pub const KIND: &str = "ResourceList";

/// The data key of the function config that holds the profile's TOML text.
pub const PROFILE_KEY: &str = "profile";

/// The data key of `--set` values over the profile, one `KEY=VALUE` per line.
pub const SET_KEY: &str = "set";

/// What the function reads from its input.
pub struct FunctionInput {
    pub items: Vec<Value>,
    pub profile: String,
    /// `--set` values (`data.set`, one per line), applied over the profile in order.
    pub sets: Vec<String>,
    /// How diagnostics name the profile: the function config's file, else its field.
    pub profile_name: String,
    /// The function config's file (its `config.kubernetes.io/path` annotation), if known.
    pub config_file: Option<String>,
    /// `apiVersion`, `kind` and `name` of the function config, for the results' `resourceRef`.
    pub config_ref: Value,
}

impl FunctionInput {
    /// Reads the list; `None` (with an error result) when it is not a `ResourceList` whose
    /// function config is a ConfigMap holding a profile.
    pub fn read(input: &str, results: &mut Results) -> Option<FunctionInput> {
        let list = match parse(input) {
            Ok(Value::Object(list)) => list,
            Ok(_) => return results.input_error("the input is not a YAML mapping"),
            Err(e) => return results.input_error(&format!("the input is not YAML: {e}")),
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        if text(list.get("kind")).as_deref() != Some(KIND)
            || text(list.get("apiVersion")).as_deref() != Some(API_VERSION)
        {
            return results.input_error(&format!(
                "the input is not a ResourceList: expected apiVersion {API_VERSION}, kind {KIND}"
            ));
        }
        let items = match list.get("items") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(_) => return results.input_error("`items` of the ResourceList is not a list"),
        };
        let config = list.get("functionConfig").cloned().unwrap_or(Value::Null);
        if text(config.get("kind")).as_deref() != Some("ConfigMap") {
            return results.input_error(
                "functionConfig must be a ConfigMap whose data.profile holds the profile (TOML)",
            );
        }
        let Some(profile) = text(config.pointer(&format!("/data/{PROFILE_KEY}"))) else {
            return results.input_error(
                "functionConfig.data.profile is missing: put the profile's TOML text there",
            );
        };
        for key in config
            .get("data")
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|d| d.keys())
            .filter(|k| k.as_str() != PROFILE_KEY && k.as_str() != SET_KEY)
        {
            results.warning(format!(
                "functionConfig.data.{key} is ignored: svcgen krm reads data.profile and data.set"
            ));
        }
        let annotation = |name: &str| {
            text(config.pointer(&format!(
                "/metadata/annotations/{}",
                name.replace('~', "~0").replace('/', "~1")
            )))
        };
        let config_file = annotation("config.kubernetes.io/path")
            .or_else(|| annotation("internal.config.kubernetes.io/path"));
        let sets = text(config.pointer(&format!("/data/{SET_KEY}")))
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        Some(FunctionInput {
            items,
            profile,
            sets,
            profile_name: config_file.clone().map_or_else(
                || "functionConfig.data.profile".to_string(),
                |f| format!("{f} (data.profile)"),
            ),
            config_file,
            config_ref: serde_json::json!({
                "apiVersion": config.get("apiVersion").cloned().unwrap_or(Value::from("v1")),
                "kind": "ConfigMap",
                "name": config.pointer("/metadata/name").cloned().unwrap_or(Value::Null),
            }),
        })
    }
}

/// YAML (or JSON) read as YAML 1.2 readers such as kustomize and kpt read it: `no`, `on` and
/// `0755` stay strings, so that items go out as they came in.
fn parse(input: &str) -> Result<Value, serde_saphyr::Error> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options.underscored_numbers_as_strings = true;
    serde_saphyr::from_str_with_options(input, options)
}
