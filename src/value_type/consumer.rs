//! The texts the image puts values into as they are (the model's `[[consumer]]` rows, upstream
//! behaviour): the one check of a value against each text its variable names, what each text
//! accepts in words (for errors, docs, hover and `explain`), and the same rule as JSON Schema
//! patterns for the editor schema. No consumer is named here: each is a row of data.

use super::Problem;
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Consumer, Var};
use serde_json::{Map, Value as Json, json};

/// Checks a non-empty `text` of `var` against every text the image puts it into; false, with one
/// diagnostic per broken text (naming it and what it accepts), when one breaks.
pub(super) fn accepts(var: &Var, text: &str, origin: Origin, diags: &mut Diagnostics) -> bool {
    let mut ok = true;
    for consumer in &var.consumers {
        let Err(problem) = check(consumer, text) else {
            continue;
        };
        ok = false;
        let mut d = Diagnostic::new(
            Code::BadFormat,
            format!(
                "`{}` = \"{}\": {}",
                var.key,
                super::formats::without_password(text),
                problem.message
            ),
        )
        .at(origin)
        .label(format!("breaks {}", consumer.what))
        .help(format!(
            "the image puts {} into {} as it is, without escaping it",
            var.env, consumer.what
        ));
        if !consumer.reserved.is_empty() {
            d = d.help(format!(
                "`svcgen explain {}` lists the reserved words",
                var.key
            ));
        }
        diags.push(d);
    }
    ok
}

/// What in `value` breaks `consumer`'s text, if anything: the first character it does not take,
/// white space at an end it loses, or a word it reads as a keyword.
pub fn check(consumer: &Consumer, value: &str) -> Result<(), Problem> {
    let bad = |message: String| Problem {
        message: format!("{message}: use {}", allowed(consumer)),
        suggestion: None,
        wrong_type: None,
    };
    if consumer.trimmed
        && (value.starts_with(char::is_whitespace) || value.ends_with(char::is_whitespace))
    {
        return Err(bad(format!(
            "white space at the start or end breaks {}",
            consumer.what
        )));
    }
    if let Some(prefix) = (consumer.not_prefix.iter()).find(|p| value.starts_with(p.as_str())) {
        return Err(bad(format!(
            "a value starting with `{prefix}` breaks {}",
            consumer.what
        )));
    }
    let count = value.chars().count();
    if let Some(min) = consumer.min_len.filter(|min| count < *min) {
        return Err(bad(format!(
            "{count} characters are fewer than the {min} {} takes",
            consumer.what
        )));
    }
    if let Some(max) = consumer.max_len.filter(|max| count > *max) {
        return Err(bad(format!(
            "{count} characters are more than the {max} {} takes",
            consumer.what
        )));
    }
    let only = Consumer::ranges(&consumer.only).unwrap_or_default();
    let first = Consumer::ranges(&consumer.first).unwrap_or_default();
    let last = Consumer::ranges(&consumer.last).unwrap_or_default();
    for (i, c) in value.chars().enumerate() {
        let outside = |ranges: &[(char, char)]| {
            !ranges.is_empty() && !ranges.iter().any(|(low, high)| (*low..=*high).contains(&c))
        };
        let breaks = consumer.forbid.contains(&c)
            || (consumer.control && c.is_control())
            || (consumer.white_space && c.is_whitespace())
            || (consumer.latin1 && u32::from(c) > 0xFF)
            || outside(&only)
            || (i == 0 && outside(&first))
            || (i + 1 == count && outside(&last));
        if breaks {
            return Err(bad(format!("{c:?} breaks {}", consumer.what)));
        }
    }
    if let Some(word) = consumer
        .reserved
        .iter()
        .find(|w| w.eq_ignore_ascii_case(value))
    {
        return Err(bad(format!(
            "\"{value}\" is the reserved word {word} (in any case) and breaks {}",
            consumer.what
        )));
    }
    Ok(())
}

/// What `consumer`'s text accepts, in words, from the same fields [`check`] reads.
pub fn allowed(consumer: &Consumer) -> String {
    let mut parts = Vec::new();
    if consumer.only.is_empty() {
        let mut but: Vec<String> = consumer.forbid.iter().map(|c| shown(*c)).collect();
        if consumer.white_space {
            but.push("white space".into());
        }
        if consumer.control {
            but.push("control characters".into());
        }
        if consumer.latin1 {
            but.push("characters above U+00FF (Latin-1 only)".into());
        }
        if !but.is_empty() {
            parts.push(format!("any character but {}", and_list(&but)));
        }
    } else {
        let mut only = format!("only {}", ranges_shown(&consumer.only));
        if !consumer.first.is_empty() {
            only.push_str(&format!(
                ", the first one of {}",
                ranges_shown(&consumer.first)
            ));
        }
        if !consumer.last.is_empty() {
            only.push_str(&format!(
                ", the last one of {}",
                ranges_shown(&consumer.last)
            ));
        }
        parts.push(only);
    }
    match (consumer.min_len, consumer.max_len) {
        (Some(min), Some(max)) => parts.push(format!("{min} to {max} characters")),
        (None, Some(max)) => parts.push(format!("at most {max} characters")),
        (Some(min), None) => parts.push(format!("at least {min} characters")),
        (None, None) => {}
    }
    if !consumer.not_prefix.is_empty() {
        let starts: Vec<String> = consumer
            .not_prefix
            .iter()
            .map(|p| format!("`{p}`"))
            .collect();
        parts.push(format!("not starting with {}", starts.join(" or ")));
    }
    if consumer.trimmed {
        parts.push("no white space at either end".into());
    }
    if !consumer.reserved.is_empty() {
        parts.push(format!(
            "not one of its {} reserved words, in any case",
            consumer.reserved.len()
        ));
    }
    parts.join("; ")
}

/// Each text the image puts `var`'s value into, with what it accepts ("{what}: {allowed}"), as
/// docs, hover and `explain` show them.
pub fn described(var: &Var) -> Vec<String> {
    (var.consumers.iter())
        .map(|c| format!("{}: {}", c.what, allowed(c)))
        .collect()
}

/// `var`'s consumers as JSON Schema: one `allOf` item per consumer, each holding the patterns a
/// regular expression can tell (they never reject a value [`check`] accepts).
pub(super) fn add_to_schema(var: &Var, schema: &mut Map<String, Json>) {
    if var.consumers.is_empty() {
        return;
    }
    let items: Vec<Json> = var.consumers.iter().map(|c| schema_of(c)).collect();
    match schema.get_mut("allOf") {
        Some(Json::Array(before)) => before.extend(items),
        _ => {
            schema.insert("allOf".into(), Json::Array(items));
        }
    }
}

/// One consumer's rule as a JSON Schema, with what it is as its description.
fn schema_of(consumer: &Consumer) -> Json {
    let mut rules = patterns(consumer);
    let description = format!(
        "the image puts the value into {} as it is: {}",
        consumer.what,
        allowed(consumer)
    );
    let mut schema = if rules.len() == 1 {
        rules.remove(0)
    } else {
        json!({ "allOf": rules })
    };
    if let Json::Object(map) = &mut schema {
        map.insert("description".into(), json!(description));
    }
    schema
}

/// The consumer's rules as JSON Schema patterns, each accepting the empty string. They use no
/// look-around and only `\xHH`/`\uHHHH` escapes, so that every engine reads them alike; white
/// space is ASCII's there (looser than [`check`], never stricter).
fn patterns(consumer: &Consumer) -> Vec<Json> {
    const CONTROL: &str = r"\x00-\x1f\x7f-\x9f";
    const SPACE: &str = r"\x09-\x0d\x20";
    let mut out = Vec::new();
    let mut class: String = consumer.forbid.iter().map(|c| escaped(*c)).collect();
    if consumer.control {
        class.push_str(CONTROL);
    }
    if consumer.white_space {
        class.push_str(SPACE);
    }
    if !class.is_empty() {
        out.push(json!({ "pattern": format!("^[^{class}]*$") }));
    }
    if consumer.latin1 {
        out.push(json!({ "pattern": r"^[\x00-\xff]*$" }));
    }
    if !consumer.only.is_empty() {
        let only = class_of(&consumer.only);
        let pattern = if consumer.first.is_empty() {
            format!("^[{only}]*$")
        } else {
            format!("^([{}][{only}]*)?$", class_of(&consumer.first))
        };
        out.push(json!({ "pattern": pattern }));
    }
    if !consumer.last.is_empty() {
        let last = class_of(&consumer.last);
        out.push(json!({ "pattern": format!(r"^([\s\S]*[{last}])?$") }));
    }
    if let Some(min) = consumer.min_len {
        out.push(json!({ "pattern": format!(r"^([\s\S]{{{min},}})?$") }));
    }
    if let Some(max) = consumer.max_len {
        out.push(json!({ "maxLength": max }));
    }
    for prefix in &consumer.not_prefix {
        let escaped: String = prefix.chars().map(escaped).collect();
        out.push(json!({ "not": { "pattern": format!("^{escaped}") } }));
    }
    if consumer.trimmed {
        out.push(json!({ "pattern": format!(r"^([^{SPACE}]([\s\S]*[^{SPACE}])?)?$") }));
    }
    if !consumer.reserved.is_empty() {
        let words: Vec<String> = consumer.reserved.iter().map(|w| any_case(w)).collect();
        out.push(json!({ "not": { "pattern": format!("^(?:{})$", words.join("|")) } }));
    }
    out
}

/// A word as a pattern matching it in any case (`[Uu][Ss][Ee][Rr]`).
fn any_case(word: &str) -> String {
    word.chars()
        .map(|c| {
            let (upper, lower) = (c.to_ascii_uppercase(), c.to_ascii_lowercase());
            if upper == lower {
                escaped(c)
            } else {
                format!("[{upper}{lower}]")
            }
        })
        .collect()
}

/// The ranges of `only`/`first` as the inside of a character class.
fn class_of(items: &[String]) -> String {
    Consumer::ranges(items)
        .unwrap_or_default()
        .iter()
        .map(|(low, high)| match low == high {
            true => escaped(*low),
            false => format!("{}-{}", escaped(*low), escaped(*high)),
        })
        .collect()
}

/// One character inside a pattern: letters and digits as they are, any other as `\xHH` or
/// `\uHHHH` (the model refuses characters beyond U+FFFF).
fn escaped(c: char) -> String {
    match u32::from(c) {
        _ if c.is_ascii_alphanumeric() => c.to_string(),
        code @ 0..=0xFF => format!(r"\x{code:02x}"),
        code => format!(r"\u{code:04x}"),
    }
}

/// A character as messages show it: printable ASCII in backticks, any other by its code point.
fn shown(c: char) -> String {
    if c.is_ascii_graphic() {
        format!("`{c}`")
    } else {
        format!("U+{:04X}", u32::from(c))
    }
}

/// The items of `only`/`first` as messages show them.
fn ranges_shown(items: &[String]) -> String {
    items
        .iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;
    use proptest::prelude::*;
    use regex::Regex;

    fn consumer(id: &str) -> &'static Consumer {
        (Model::get().vars.iter())
            .flat_map(|v| &v.consumers)
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("a variable names the consumer {id}"))
    }

    /// Every consumer a variable names, once.
    fn all() -> Vec<&'static Consumer> {
        let mut out: Vec<&Consumer> = Vec::new();
        for c in Model::get().vars.iter().flat_map(|v| &v.consumers) {
            if !out.iter().any(|o| o.id == c.id) {
                out.push(c);
            }
        }
        out
    }

    /// A value as the consumer's schema item reads it (Rust's `regex`, like taplo's engine).
    fn schema_accepts(consumer: &Consumer, value: &str) -> bool {
        fn holds(schema: &Json, value: &str) -> bool {
            let map = schema.as_object().unwrap();
            map.get("pattern")
                .is_none_or(|p| Regex::new(p.as_str().unwrap()).unwrap().is_match(value))
                && map.get("not").is_none_or(|n| !holds(n, value))
                && map
                    .get("allOf")
                    .is_none_or(|all| all.as_array().unwrap().iter().all(|s| holds(s, value)))
        }
        holds(&schema_of(consumer), value)
    }

    /// The characters each text accepts, as the research on the image found.
    #[test]
    fn each_consumer_refuses_what_breaks_its_text() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "json-string",
                &["1001.abc-def", "é"],
                &["a\"b", "a\\b", "a\nb"],
            ),
            (
                "javascript-string",
                &["https://c.example.org"],
                &["a\u{2028}b", "a\u{2029}", "a\"b"],
            ),
            (
                "ldap-dn",
                &["1001.k8s", "a b"],
                &["a,b", "a=b", "a+b", "a;b", "a<b", "a>b", "a#b", " a", "a "],
            ),
            (
                "n1ql-identifier",
                &["jans_prod", "_x", "a$1", "svc_users"],
                &[
                    "svc-prod", "1svc", "$a", "sv`c", "user", "SELECT", "Default",
                ],
            ),
            (
                "shlex-word",
                &["audit"],
                &["audit'log", "a\"b", "a b", "a\\b"],
            ),
            (
                "http-basic-user",
                &["admin", "adminé"],
                &["a:b", "a\u{100}", "a\u{1F600}"],
            ),
            (
                "sql-url-user",
                &["jans"],
                &["a:b", "a/b", "a@b", "a?b", "a#b", "a%41"],
            ),
            ("sql-url-database", &["jans", "a:b"], &["a/b", "a?b", "a#b"]),
            (
                "cloud-resource-id",
                &["svc", "latest", "my-project"],
                &["a/b", "a b", "a\tb"],
            ),
            (
                "http-header-value",
                &["ns1/child", "a b"],
                &[" ns", "ns ", "a\rb", "a\nb"],
            ),
        ];
        for (id, good, bad) in cases {
            let c = consumer(id);
            for value in *good {
                assert!(check(c, value).is_ok(), "{id}: {value:?} refused");
                assert!(schema_accepts(c, value), "{id}: schema refuses {value:?}");
            }
            for value in *bad {
                let problem = check(c, value).expect_err(&format!("{id}: {value:?} accepted"));
                assert!(problem.message.contains(&c.what), "{problem:?}");
                assert!(problem.message.contains(&allowed(c)), "{problem:?}");
            }
        }
        // The schema tells a reserved word in any case, and a character the text refuses.
        assert!(!schema_accepts(consumer("n1ql-identifier"), "sElEcT"));
        assert!(!schema_accepts(consumer("json-string"), "a\"b"));
        assert!(!schema_accepts(consumer("ldap-dn"), " a"));
    }

    /// Every text's allowed set says what it refuses, from the row's own data.
    #[test]
    fn allowed_sets_are_derived_from_the_row() {
        assert_eq!(
            allowed(consumer("json-string")),
            "any character but `\"`, `\\` and control characters"
        );
        let n1ql = allowed(consumer("n1ql-identifier"));
        assert!(
            n1ql.starts_with("only `A-Z` `a-z` `0-9` `_` `$`, the first one of `A-Z` `a-z` `_`"),
            "{n1ql}"
        );
        assert!(allowed(consumer("javascript-string")).contains("U+2028"));
    }

    proptest! {
        /// The schema never refuses what the check accepts (the editor must not flag a valid
        /// value), for every consumer and any text.
        #[test]
        fn the_schema_accepts_every_value_the_check_accepts(value in "\\PC{0,12}|[ -~]{0,12}|[\\x00-\\u{3000}]{0,6}") {
            for c in all() {
                if check(c, &value).is_ok() {
                    prop_assert!(schema_accepts(c, &value), "{}: {:?}", c.id, value);
                }
            }
        }
    }
}
