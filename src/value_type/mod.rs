//! The value types of the spec model (`type = "port"`, `"url"`, ...), each with all its rules in
//! one place: its name and description, how a profile's TOML value is read and checked, how a
//! `--set` text becomes a value, its JSON Schema, its default and placeholder in `svcgen init`, the
//! values an editor offers, and how a `[deploy]` setting of the type is read.
//!
//! Every caller asks the type ([`VarType::rules`]) instead of matching on [`VarType`], so that a
//! new type is one file here (or one row of the string forms' table in `text.rs`) and one arm of
//! the dispatch below. The spec model only names the type (`model/types.rs`); the string-form
//! checks ([`formats`]) and their regular expressions ([`patterns`]) live here too.
//!
//! How the container reads a variable's environment text (`import`, `lint`) is a rule here too,
//! [`TypeRules::read_env_text`]: the text becomes the profile value it stands for, which
//! [`TypeRules::read`] then checks like any profile's.

/// A type's two fixed texts, [`TypeRules::name`] and [`TypeRules::describe`], for an impl of a
/// type with one of each (`words!("port", "a port number ...")`).
macro_rules! words {
    ($name:expr, $describe:expr) => {
        fn name(&self) -> &'static str {
            $name
        }

        fn describe(&self) -> &'static str {
            $describe
        }
    };
}

mod address;
mod boolean;
pub mod consumer;
mod enumeration;
pub mod env_text;
pub mod formats;
mod hybrid;
mod hybrid_env;
mod integer;
mod ipv6;
pub mod patterns;
mod plugin_list;
mod problem;
mod secret;
mod text;
mod typed;

pub use env_text::EnvText;
pub use formats::Problem;
pub use hybrid_env::backend_not_a_string;
pub use integer::{INT32_MAX, PORT_MAX};
pub use secret::is_env_name;
pub use typed::{Deferred, SecretSource, Typed};

use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Setting, Var, VarType};
use crate::profile::{Node, Value};
use serde_json::{Map, Value as Json, json};

/// What reading a value needs besides the value.
pub struct Context<'a> {
    /// The texts of the profile, for the folder of relative `{ file = "..." }` secrets.
    pub sources: &'a Sources,
}

/// A value an editor offers for a key: the text to insert, and its documentation.
pub type Offer = (String, Option<String>);

/// The documentation of one allowed value of a key, when it has any (what it selects).
pub type ValueDoc<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Everything svcgen knows about one value type. The defaults are those of a plain string.
pub trait TypeRules: Sync {
    /// The short type name shown in docs and `explain` ("port").
    fn name(&self) -> &'static str;

    /// The words used in messages and docs for what a value of this type must be.
    fn describe(&self) -> &'static str;

    /// The profile value `node` read as `var`'s type, with every per-value check; `None` (with
    /// diagnostics) when it is not acceptable.
    fn read(&self, var: &Var, node: &Node, cx: &Context, diags: &mut Diagnostics) -> Option<Typed>;

    /// The profile value the container reads from a variable's environment text, at its place
    /// in the file; `None` (with a diagnostic) when the container reads no value from it. Only
    /// the container's own reading belongs here (lenient booleans, numbers it replaces, JSON it
    /// cannot parse): text it would refuse stays text, for [`TypeRules::read`] to report.
    fn read_env_text(&self, _var: &Var, env: &EnvText, _diags: &mut Diagnostics) -> Option<Node> {
        Some(env.string())
    }

    /// True when the container treats an empty environment text of the type otherwise than an
    /// unset variable, whatever the default (an empty URL): `import` and `lint` warn of it.
    fn empty_env_text_differs(&self) -> bool {
        false
    }

    /// True when the allowed values of a variable of the type admit its environment text (the
    /// edition of an environment is inferred from the values only one edition allows). Types
    /// without allowed values admit any text.
    fn env_text_allowed(&self, _text: &str, _allowed: &[String]) -> bool {
        true
    }

    /// Help added to the "must be ..., found ..." diagnostic of a value of another TOML type.
    fn wrong_type_help(&self, _var: &Var, _found: &Value, d: Diagnostic) -> Diagnostic {
        d
    }

    /// The form check of a string value (not empty); `Ok` for a type without one.
    fn check_form(&self, _text: &str) -> Result<(), Problem> {
        Ok(())
    }

    /// `--set KEY=TEXT`: the text as a profile value of the type. Text that does not parse stays
    /// a string, for validation to report with the file's wording.
    fn set_value(&self, text: &str, _origin: Origin) -> Value {
        Value::String(text.to_string())
    }

    /// `--set-file KEY=PATH`: the value when the path itself is the value (a reference), or
    /// `None` when the file's text is read as the value.
    fn set_file_value(&self, _path: &str, _origin: Origin) -> Option<Value> {
        None
    }

    /// The JSON Schema of a variable's value, without its default and description.
    fn schema(&self, var: &Var) -> Map<String, Json>;

    /// The spec's default text (not empty) as a JSON Schema `default`; `None` when the default is
    /// no valid value of the key's JSON type.
    fn json_default(&self, text: &str) -> Option<Json> {
        Some(Json::from(text))
    }

    /// The spec's default text as the TOML value `svcgen init` writes (commented out).
    fn toml_default(&self, text: &str) -> toml::Value {
        toml::Value::from(text)
    }

    /// A value `svcgen init` writes for a required key, built from `word` (`my-<leaf>`), obviously
    /// to be replaced; `None` when the type has none.
    fn init_placeholder(&self, _var: &Var, _word: &str) -> Option<toml::Value> {
        None
    }

    /// `svcgen init`'s comment line on the values a key takes, in place of its allowed list.
    fn init_values_hint(&self, _var: &Var) -> Option<String> {
        None
    }

    /// `svcgen init`'s comment line on how a value of the type is written.
    fn init_form_hint(&self, _var: &Var) -> Option<String> {
        None
    }

    /// The value an editor's "add the missing key" inserts: it marks the place, and strings stay
    /// empty so that the check still reports them as missing.
    fn editor_placeholder(&self, _var: &Var) -> toml_edit::Value {
        toml_edit::Value::from("")
    }

    /// The values an editor offers for the key.
    fn editor_values(&self, _var: &Var, _doc: ValueDoc<'_>) -> Vec<Offer> {
        Vec::new()
    }

    /// For a type whose value is a table of named entries (the hybrid mapping's data categories):
    /// the names an editor offers as its keys. `None` for other types.
    fn entry_keys<'v>(&self, _var: &'v Var) -> Option<&'v [String]> {
        None
    }

    /// For a type whose value is a table of named entries (the hybrid mapping): what an editor
    /// inserts for a missing entry and offers as its values. `None` for other types.
    fn editor_entry(
        &self,
        _var: &Var,
        _doc: ValueDoc<'_>,
    ) -> Option<(toml_edit::Value, Vec<Offer>)> {
        None
    }

    /// A `[deploy]` setting of the type: its value as text, or what is wrong with it (a message
    /// starting "expected" when the TOML type is wrong).
    fn setting_text(&self, _setting: &Setting, value: &Value) -> Result<String, Problem> {
        let Value::String(text) = value else {
            return Err(expected("a string", value));
        };
        self.check_form(text)?;
        Ok(text.clone())
    }

    /// The JSON Schema of a `[deploy]` setting of the type (the limits of the Kubernetes field it
    /// lands in), without its description and default.
    fn setting_schema(&self, _setting: &Setting) -> Map<String, Json> {
        object(json!({ "type": "string" }))
    }

    /// The code of a setting's value that has the right TOML type but is not acceptable.
    fn setting_code(&self) -> Code {
        Code::BadFormat
    }
}

impl VarType {
    /// The rules of this type: the one place that matches on the type to pick them.
    pub fn rules(self) -> &'static dyn TypeRules {
        match self {
            VarType::String => &text::STRING,
            VarType::Url => &text::URL,
            VarType::BaseUrl => &text::BASE_URL,
            VarType::Hostname => &text::HOSTNAME,
            VarType::HostPort => &text::HOST_PORT,
            VarType::Authority => &text::AUTHORITY,
            VarType::UrlPath => &text::URL_PATH,
            VarType::File => &text::FILE,
            VarType::K8sName => &text::K8S_NAME,
            VarType::Image => &text::IMAGE,
            VarType::ImageTag => &text::IMAGE_TAG,
            VarType::Quantity => &text::QUANTITY,
            VarType::Enum => &enumeration::Enum,
            VarType::Bool => &boolean::Bool,
            VarType::Port => &integer::PORT,
            VarType::Integer => &integer::INTEGER,
            VarType::PluginList => &plugin_list::PluginList,
            VarType::HybridMapping => &hybrid::HybridMapping,
            VarType::Secret => &secret::Secret,
        }
    }

    /// The words used in messages and docs for what a value of this type must be.
    pub fn describe(self) -> &'static str {
        self.rules().describe()
    }

    /// The short type name shown in docs and `explain`.
    pub fn name(self) -> &'static str {
        self.rules().name()
    }
}

/// The "must be ..., found ..." diagnostic of a value of the wrong TOML type, with the type's help.
fn wrong_type<T>(var: &Var, node: &Node, diags: &mut Diagnostics) -> Option<T> {
    let rules = var.ty.rules();
    let found = &node.value;
    // The label names the type only: its description is in the message.
    let d = Diagnostic::wrong_type(&var.key, rules.describe(), found.type_name())
        .at(node.origin)
        .label(format!("expected {}", rules.name()));
    diags.push(rules.wrong_type_help(var, found, d));
    None
}

/// A setting's value of the wrong TOML type: "expected `what`, found ...".
fn expected(what: &str, value: &Value) -> Problem {
    Problem {
        message: format!("expected {what}, found {}", value.type_name()),
        suggestion: None,
        wrong_type: Some((what.to_string(), value.type_name())),
    }
}

/// A JSON object literal as a map (the schema fragments are written with `json!`).
fn object(value: Json) -> Map<String, Json> {
    match value {
        Json::Object(map) => map,
        _ => unreachable!("called with JSON objects only"),
    }
}

/// Allowed values as an editor offers them: quoted, each with its documentation.
fn quoted(values: &[String], doc: ValueDoc<'_>) -> Vec<Offer> {
    values
        .iter()
        .map(|v| (toml_edit::Value::from(v.as_str()).to_string(), doc(v)))
        .collect()
}

/// A value that must be a string, without NUL (environment variables cannot hold it); `None`
/// (with a diagnostic) otherwise.
fn read_text<'n>(var: &Var, node: &'n Node, diags: &mut Diagnostics) -> Option<&'n String> {
    let Value::String(text) = &node.value else {
        return wrong_type(var, node, diags);
    };
    if text.contains('\0') {
        diags.push(Diagnostic::nul_char(&var.key).at(node.origin));
        return None;
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DefaultValue, Model};

    /// `--set KEY=<the spec's default>` reads back, through the type, as the default's own text:
    /// the `--set` reading, the TOML reading and the environment text of each type agree.
    #[test]
    fn a_default_given_with_set_reads_back_as_itself() {
        let mut sources = Sources::new();
        let model = Model::get();
        let mut checked = 0;
        for var in &model.vars {
            let DefaultValue::Value(text) = &var.default else {
                continue;
            };
            // A hybrid mapping is a table and a secret a reference: no `--set` text of either
            // is their environment text.
            if text.is_empty() || matches!(var.ty, VarType::HybridMapping | VarType::Secret) {
                continue;
            }
            let id = sources.add(var.key.clone(), text.clone());
            let origin = Origin::new(id, 0..text.len());
            let rules = var.ty.rules();
            let node = Node {
                value: rules.set_value(text, origin),
                origin,
            };
            let mut diags = Diagnostics::default();
            let cx = Context { sources: &sources };
            let typed = rules.read(var, &node, &cx, &mut diags);
            assert!(diags.is_empty(), "{}: {:?}", var.env, diags.items);
            let env = typed.and_then(|t| t.env_text());
            assert_eq!(env.as_deref(), Some(text.as_str()), "{}", var.env);
            checked += 1;
        }
        assert!(checked > 20, "only {checked} defaults checked");
    }

    /// Every deployment setting's default is a valid value of its own type (the schema offers it
    /// as `default`, and the renderers fall back to it).
    #[test]
    fn every_setting_default_passes_its_type() {
        for setting in &Model::get().settings {
            let DefaultValue::Value(text) = &setting.default else {
                continue;
            };
            let rules = setting.ty.rules();
            let value = rules.set_value(text, Origin::new(Sources::new().add("x", ""), 0..0));
            assert_eq!(
                rules.setting_text(setting, &value).as_deref(),
                Ok(text.as_str()),
                "{}",
                setting.key
            );
        }
    }
}
