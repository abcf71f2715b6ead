//! Hostile string values for property tests: what YAML 1.1 readers, compose interpolation,
//! Kubernetes expansion or `.env` readers would change if a renderer quoted them naively.

use proptest::prelude::*;
use svcgen::render::{EnvOptions, EnvVar, environment};
use svcgen::resolve::Resolved;

/// Strings that YAML 1.1 readers, compose interpolation or Kubernetes expansion would change.
pub fn value() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        prop::sample::select(vec![
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "null",
            "~",
            "0123",
            "0755",
            "0o17",
            "0x1F",
            "1e3",
            ".inf",
            "-.5",
            "#x",
            " # c",
            "a: b",
            "- x",
            "*x",
            "&x",
            "!x",
            "!!str",
            "|",
            ">",
            "%TAG",
            "@x",
            "`x`",
            "{a: 1}",
            "[1]",
            "$HOME",
            "${X}",
            "$$",
            "$(X)",
            "$$(X)",
            "$",
            "'",
            "\"",
            "\\",
            "\\n",
            "\t",
            "\n",
            "\r\n",
            " ",
            "---",
            "...",
            "=",
            "é∑😀",
            "\u{85}",
            "\u{2028}",
            "\u{feff}",
            "\u{7f}",
            "\u{9f}",
        ])
        .prop_map(str::to_string),
        "[a-zA-Z0-9]{1,6}",
        any::<char>()
            .prop_filter("no NUL", |c| *c != '\0')
            .prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(fragment, 1..6).prop_map(|parts| parts.concat())
}

/// Long hostile strings (up to a few hundred characters): YAML outputs fold them over lines.
pub fn long_value() -> impl Strategy<Value = String> {
    prop::collection::vec(value(), 10..60).prop_map(|parts| parts.concat())
}

/// Mostly short hostile strings, one in four long.
pub fn any_length() -> BoxedStrategy<String> {
    prop_oneof![3 => value(), 1 => long_value()].boxed()
}

/// A valid edition B profile with hostile values in the two string variables that take any
/// string and every value in `[env]` (`values` needs at least three). Not the kubernetes adapters'
/// object names (Kubernetes names, in a Role) nor a variable the image puts into another text
/// as it is (the model's `consumers`: the client id in JSON and an LDAP DN, the SQL user and
/// database in a URL, the vault namespace in an HTTP header, the AppRole mount in hvac's login
/// path), which refuse what breaks that text.
pub fn profile(values: &[String]) -> String {
    let s = |v: &String| toml::Value::String(v.clone()).to_string();
    let mut text = format!(
        "edition = \"B\"\n\
         [secret]\nvault = {{ prefix = {}, kv_path = {} }}\n[env]\n",
        s(&values[0]),
        s(&values[1]),
    );
    for (i, v) in values.iter().enumerate() {
        text.push_str(&format!("HOSTILE_{i} = {}\n", s(v)));
    }
    text
}

/// The hostile profile of `values`, resolved, and its environment.
pub fn resolved(values: &[String]) -> (Resolved, Vec<EnvVar>) {
    let mut sources = svcgen::diag::source::Sources::new();
    let checked =
        svcgen::pipeline::check_text("hostile.toml", &profile(values), None, &mut sources);
    let resolved = checked.resolved.expect("any string is valid in these keys");
    let env = environment(&resolved, EnvOptions::default()).unwrap();
    (resolved, env)
}
