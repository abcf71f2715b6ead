//! The string forms: a plain string, URLs, host names, `host:port`, URL paths, file paths and the
//! deployment's Kubernetes names, images, tags and quantities. They share one rule (a string whose
//! form is checked, the empty string meaning "leave unset"), so each is one row of this table: its
//! names, its check ([`super::formats`]), its regular expression ([`super::patterns`]) and its
//! placeholder in `svcgen init`.

use super::Typed;
use super::{Context, Problem, TypeRules, formats, object, patterns, read_text};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, Setting, Var};
use crate::profile::Node;
use serde_json::{Map, Value as Json, json};

/// One string form.
pub(super) struct Form {
    name: &'static str,
    describe: &'static str,
    /// The form check of a non-empty value.
    check: fn(&str) -> Result<(), Problem>,
    /// The JSON Schema pattern, when a regular expression can tell the form.
    pattern: Option<&'static str>,
    /// `svcgen init`'s placeholder for a required key, from `my-<leaf>`.
    placeholder: Option<fn(&str) -> String>,
    /// A port written into the value is better given to the table's own `port` key.
    port_has_own_key: bool,
    /// A value without a port is likely meant with the port of the variable's default.
    port_from_default: bool,
    /// The container treats the empty environment text otherwise than unset.
    empty_differs: bool,
    /// For a `[deploy]` setting: the JSON Schema pattern and the longest value its Kubernetes
    /// field takes.
    setting_limits: Option<(&'static str, usize)>,
}

/// A form without a check, pattern or placeholder: the fields the rows below do not set.
const PLAIN: Form = Form {
    name: "",
    describe: "",
    check: |_| Ok(()),
    pattern: None,
    placeholder: None,
    port_has_own_key: false,
    port_from_default: false,
    empty_differs: false,
    setting_limits: None,
};

pub(super) const STRING: Form = Form {
    name: "string",
    describe: "a string",
    placeholder: Some(|word| word.to_string()),
    ..PLAIN
};

pub(super) const URL: Form = Form {
    name: "URL",
    describe: "an absolute http:// or https:// URL",
    check: |text| formats::url(text, false),
    pattern: Some(patterns::URL),
    placeholder: Some(|word| format!("https://{word}.example.org")),
    empty_differs: true,
    ..PLAIN
};

pub(super) const BASE_URL: Form = Form {
    name: "base URL",
    describe: "an absolute http:// or https:// URL without a trailing slash, query or fragment",
    check: |text| formats::url(text, true),
    pattern: Some(patterns::BASE_URL),
    ..URL
};

pub(super) const HOSTNAME: Form = Form {
    name: "host name",
    describe: "a bare host name or IP address (no scheme, no port, no path)",
    check: formats::hostname,
    pattern: Some(patterns::HOSTNAME),
    placeholder: Some(|word| format!("{word}.example.org")),
    port_has_own_key: true,
    ..PLAIN
};

pub(super) const HOST_PORT: Form = Form {
    name: "host:port",
    describe: "host:port",
    check: formats::host_port,
    pattern: Some(patterns::HOST_PORT),
    placeholder: Some(|word| format!("{word}.example.org")),
    port_from_default: true,
    ..PLAIN
};

/// A host with an optional port, as a URL's authority: the image builds `https://<value>/…`.
pub(super) const AUTHORITY: Form = Form {
    name: "host[:port]",
    describe: "a host name or IP address, optionally with :port (no scheme, no path; an IPv6 address in brackets)",
    check: formats::authority,
    pattern: Some(patterns::AUTHORITY),
    placeholder: Some(|word| format!("{word}.example.org")),
    ..PLAIN
};

pub(super) const URL_PATH: Form = Form {
    name: "URL path",
    describe: "a URL path starting with /",
    check: formats::url_path,
    pattern: Some(patterns::URL_PATH),
    placeholder: Some(|word| format!("/{word}")),
    ..PLAIN
};

pub(super) const FILE: Form = Form {
    name: "file path",
    describe: "an absolute file path inside the container",
    check: formats::file_path,
    pattern: Some(patterns::FILE),
    ..PLAIN
};

pub(super) const K8S_NAME: Form = Form {
    name: "Kubernetes name",
    describe: "a Kubernetes name (lower-case letters, digits and `-`, at most 63)",
    check: formats::k8s_label,
    setting_limits: Some((patterns::K8S_LABEL, 63)),
    ..PLAIN
};

pub(super) const IMAGE: Form = Form {
    name: "image repository",
    describe: "an image repository such as registry.example.org/team/admin-ui",
    check: formats::image_repository,
    setting_limits: Some((patterns::IMAGE, 255)),
    ..PLAIN
};

pub(super) const IMAGE_TAG: Form = Form {
    name: "image tag",
    describe: "an image tag (letters, digits, `_`, `.`, `-`; at most 128)",
    check: formats::image_tag,
    setting_limits: Some((patterns::IMAGE_TAG, 128)),
    ..PLAIN
};

pub(super) const QUANTITY: Form = Form {
    name: "quantity",
    describe: "a Kubernetes quantity such as \"500m\", \"2\" or \"512Mi\"",
    check: |text| formats::k8s_quantity(text).map(|_| ()),
    setting_limits: Some((patterns::QUANTITY, 64)),
    ..PLAIN
};

impl TypeRules for Form {
    fn name(&self) -> &'static str {
        self.name
    }

    fn describe(&self) -> &'static str {
        self.describe
    }

    fn read(&self, var: &Var, node: &Node, _: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        let text = read_text(var, node, diags)?;
        self.accepts(var, text, node.origin, diags)
            .then(|| Typed::Text(text.clone()))
    }

    fn check_form(&self, text: &str) -> Result<(), Problem> {
        (self.check)(text)
    }

    fn empty_env_text_differs(&self) -> bool {
        self.empty_differs
    }

    fn schema(&self, var: &Var) -> Map<String, Json> {
        let mut schema = object(json!({ "type": "string" }));
        if var.allowed_not_shown {
            // The spec does not show the allowed values: any value but the empty string.
            schema.insert("minLength".into(), json!(1));
        } else if let Some(pattern) = var.address.and_then(patterns::for_address).or(self.pattern) {
            schema.insert("pattern".into(), json!(pattern));
        }
        super::consumer::add_to_schema(var, &mut schema);
        schema
    }

    fn setting_schema(&self, _setting: &Setting) -> Map<String, Json> {
        let mut schema = object(json!({ "type": "string" }));
        if let Some((pattern, longest)) = self.setting_limits {
            schema.insert("pattern".into(), json!(pattern));
            schema.insert("maxLength".into(), json!(longest));
        }
        schema
    }

    /// The form's placeholder; a host whose port is taken from the default gets that port (the
    /// port the image expects, e.g. the LDAP port its SSL setting implies).
    fn init_placeholder(&self, var: &Var, word: &str) -> Option<toml::Value> {
        let text = self.placeholder.map(|make| make(word))?;
        let with_port = var
            .default
            .value()
            .filter(|_| self.port_from_default)
            .and_then(|default| formats::with_port_of(&text, default));
        Some(toml::Value::from(with_port.unwrap_or(text)))
    }
}

impl Form {
    /// Checks a string value against the form; false (with a diagnostic) when it fails.
    fn accepts(&self, var: &Var, text: &str, origin: Origin, diags: &mut Diagnostics) -> bool {
        let key = &var.key;
        if text.trim().is_empty() {
            if var.allowed_not_shown {
                diags.push(
                    Diagnostic::new(Code::NotAllowed, format!("`{key}` cannot be empty"))
                        .at(origin)
                        .label("empty")
                        .help("the spec does not show the allowed values: any non-empty string is accepted")
                        .help(format!("remove the key to use the default, {}", var.default.describe())),
                );
                return false;
            }
            // The empty string means "leave unset"; its form does not matter.
            if text.is_empty() {
                return true;
            }
        }
        // A character that breaks a text the image writes the value into raw is the first
        // reason: the container fails on it, whatever else the form says.
        if !super::consumer::accepts(var, text, origin, diags) {
            return false;
        }
        // An IPv6 address is judged first by how the variable's client reads it (brackets, a
        // zone id, none at all): that is the reason to give, not what the form makes of it.
        let checked = match var.address {
            Some(rule) if super::address::holds_ipv6(text) => {
                super::address::address(rule, text).and_then(|()| (self.check)(text))
            }
            _ => (self.check)(text),
        };
        let Err(Problem {
            message,
            suggestion,
            ..
        }) = checked
        else {
            return read_by_client(var, text, origin, diags);
        };
        let shown = formats::without_password(text);
        let mut d = Diagnostic::new(Code::BadFormat, format!("`{key}` = \"{shown}\": {message}"))
            .at(origin)
            .label(format!("expected {}", self.describe));
        let suggestion = suggestion.or_else(|| {
            let default = var.default.value().filter(|_| self.port_from_default)?;
            formats::with_port_of(text, default)
        });
        if let Some(s) = suggestion {
            d = d.help(format!("did you mean \"{s}\"?"));
        }
        if self.port_has_own_key && message.contains("port") {
            d = with_port_key_help(var, d);
        }
        if self.port_from_default && message.contains("port") {
            d = with_ignored_port_help(var, d);
        }
        diags.push(d);
        false
    }
}

/// An address as the image's client reads it (the model's `address`): what the client would
/// make of a valid-looking value.
fn read_by_client(var: &Var, text: &str, origin: Origin, diags: &mut Diagnostics) -> bool {
    let Some(rule) = var.address else { return true };
    let Err(problem) = super::address::address(rule, text) else {
        return true;
    };
    let mut d = Diagnostic::new(
        Code::BadFormat,
        format!(
            "`{}` = \"{}\": {}",
            var.key,
            formats::without_password(text),
            problem.message
        ),
    )
    .at(origin)
    .label("the image's client cannot use it");
    if let Some(s) = problem.suggestion {
        d = d.help(format!("did you mean \"{s}\"?"));
    }
    diags.push(d);
    false
}

/// The port of an address whose client ignores it (the model's `ignored_port`): which port the
/// image connects to instead, so that the port the spec's form asks for is written to match.
fn with_ignored_port_help(var: &Var, d: Diagnostic) -> Diagnostic {
    let rule = &Model::get().container.ignored_port;
    if rule.address != var.key {
        return d;
    }
    d.help(format!(
        "the image ignores this port and connects to {} when `{}` is true, {} when it is false: write that port",
        rule.when_true, rule.switch, rule.when_false
    ))
}

/// Points a host name that carries a port at the port's own key, when its table has one.
fn with_port_key_help(var: &Var, d: Diagnostic) -> Diagnostic {
    let model = Model::get();
    let port_key = var
        .key
        .rsplit_once('.')
        .map(|(table, _)| format!("{table}.port"));
    match port_key.filter(|k| model.entries_by_key(k).next().is_some()) {
        Some(port_key) => d.help(format!("the port has its own key, `{port_key}`")),
        None => d,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::source::Sources;
    use crate::model::VarType;

    /// A host written without its port is offered the port of the variable's default (the
    /// spec's, not one written here).
    #[test]
    fn a_host_without_its_port_is_offered_the_port_of_the_default() {
        let var = (Model::get().vars.iter())
            .find(|v| v.ty == VarType::HostPort)
            .expect("the model has a host:port variable");
        let default = var.default.value().expect("a default");
        let (_, port) = default.rsplit_once(':').expect("the default has a port");
        let origin = Origin::new(Sources::new().add("p.toml", "x"), 0..1);
        let mut diags = Diagnostics::default();
        assert!(!HOST_PORT.accepts(var, "ldap.internal", origin, &mut diags));
        assert_eq!(diags.items.len(), 1, "{:?}", diags.items);
        let wanted = format!("did you mean \"ldap.internal:{port}\"?");
        assert!(
            diags.items[0].help.contains(&wanted),
            "{:?}",
            diags.items[0]
        );
        let mut diags = Diagnostics::default();
        assert!(!HOST_PORT.accepts(var, "a b:1", origin, &mut diags));
        assert!(
            diags.items[0].help.iter().all(|h| !h.contains(port)),
            "{:?}",
            diags.items[0]
        );
    }
}
