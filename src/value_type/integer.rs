//! `integer` and `port`: whole numbers in a range. An integer has the model's minimum (and a
//! unit); a port is 1 to 65535. Both are written to the environment in decimal.

use super::Typed;
use super::{Context, EnvText, Problem, TypeRules, expected, object, wrong_type};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Setting, Unit, Var};
use crate::profile::{Node, Value};
use serde_json::{Map, Value as Json, json};

/// The highest port number.
pub const PORT_MAX: i64 = 65535;

/// Every integer deployment setting lands in an `int32` field of a Kubernetes object.
pub const INT32_MAX: i64 = i32::MAX as i64;

/// An integer type: a port (1 to 65535) or a count with the model's minimum.
pub(super) struct Integer {
    port: bool,
}

pub(super) const PORT: Integer = Integer { port: true };
pub(super) const INTEGER: Integer = Integer { port: false };

impl Integer {
    /// The range a variable's value must lie in.
    fn var_range(&self, var: &Var) -> (i64, i64) {
        match self.port {
            true => (1, PORT_MAX),
            false => (var.min.unwrap_or(1), i64::MAX),
        }
    }

    /// The range a deployment setting's value must lie in (its Kubernetes field is `int32`).
    fn setting_range(&self, setting: &Setting) -> (i64, i64) {
        match self.port {
            true => (1, PORT_MAX),
            false => (setting.min.unwrap_or(0), INT32_MAX),
        }
    }
}

impl TypeRules for Integer {
    fn name(&self) -> &'static str {
        match self.port {
            true => "port",
            false => "integer",
        }
    }

    fn describe(&self) -> &'static str {
        match self.port {
            true => "a port number (an integer from 1 to 65535, without quotes)",
            false => "a positive integer (without quotes)",
        }
    }

    fn read(&self, var: &Var, node: &Node, _: &Context, diags: &mut Diagnostics) -> Option<Typed> {
        let Value::Integer(n) = node.value else {
            return wrong_type(var, node, diags);
        };
        let (min, max) = self.var_range(var);
        if (min..=max).contains(&n) {
            return Some(Typed::Int(n));
        }
        diags.push(out_of_range(var, n, min, max, node.origin));
        None
    }

    /// Decimal digits are a number; anything else stays text, for [`TypeRules::read`] to refuse.
    /// A wait time the container replaces (`falls_back`) is read as the container uses it.
    fn read_env_text(&self, var: &Var, env: &EnvText, diags: &mut Diagnostics) -> Option<Node> {
        match self.port {
            true => Some(number(env, false)),
            false if var.falls_back => falling_back(var, env, diags),
            false => Some(number(env, true)),
        }
    }

    fn wrong_type_help(&self, var: &Var, found: &Value, mut d: Diagnostic) -> Diagnostic {
        match found {
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => d.help(format!(
                "write {} (an integer, without a decimal point)",
                *f as i64
            )),
            Value::String(s) => {
                if let Some(n) = as_count(s, var.unit) {
                    d = d.help(format!("write {n} without quotes"));
                }
                if let Some(unit) = var.unit {
                    d = d.help(format!("the value is a whole number of {}", unit.words()));
                }
                d
            }
            _ => d,
        }
    }

    fn set_value(&self, text: &str, _origin: Origin) -> Value {
        text.parse()
            .map(Value::Integer)
            .unwrap_or_else(|_| Value::String(text.to_string()))
    }

    fn schema(&self, var: &Var) -> Map<String, Json> {
        match self.port {
            true => object(json!({ "type": "integer", "minimum": 1, "maximum": PORT_MAX })),
            false => object(json!({ "type": "integer", "minimum": var.min.unwrap_or(1) })),
        }
    }

    fn json_default(&self, text: &str) -> Option<Json> {
        text.parse::<i64>().ok().map(Json::from)
    }

    fn toml_default(&self, text: &str) -> toml::Value {
        text.parse::<i64>()
            .map_or_else(|_| toml::Value::from(text), toml::Value::Integer)
    }

    fn editor_placeholder(&self, var: &Var) -> toml_edit::Value {
        toml_edit::Value::from(var.min.unwrap_or(1))
    }

    fn setting_text(&self, setting: &Setting, value: &Value) -> Result<String, Problem> {
        let Value::Integer(n) = value else {
            return Err(expected("an integer", value));
        };
        let (min, max) = self.setting_range(setting);
        in_range(*n, min, max).map(|()| n.to_string())
    }

    fn setting_schema(&self, setting: &Setting) -> Map<String, Json> {
        let (min, max) = self.setting_range(setting);
        object(json!({ "type": "integer", "minimum": min, "maximum": max }))
    }

    fn setting_code(&self) -> Code {
        Code::OutOfRange
    }
}

/// The "out of range" diagnostic of a variable's value, naming the range (and the unit).
fn out_of_range(var: &Var, n: i64, min: i64, max: i64, origin: Origin) -> Diagnostic {
    let range = if max == i64::MAX {
        match var.unit {
            Some(unit) => format!("a whole number of {} of at least {min}", unit.words()),
            None => format!("at least {min}"),
        }
    } else {
        format!("from {min} to {max}")
    };
    Diagnostic::new(
        Code::OutOfRange,
        format!("`{}` = {n} is out of range", var.key),
    )
    .at(origin)
    .label(format!("expected {range}"))
    .help(format!("{} must be {range}", var.key))
}

/// A setting's value against its range, saying when the limit is the Kubernetes field's.
fn in_range(n: i64, min: i64, max: i64) -> Result<(), Problem> {
    let message = if n < min {
        format!("{n} is below the minimum {min}")
    } else if n > max {
        let why = if max == INT32_MAX {
            " (the Kubernetes field is a 32-bit integer)"
        } else {
            ""
        };
        format!("{n} is above the maximum {max}{why}")
    } else {
        return Ok(());
    };
    Err(Problem {
        message,
        suggestion: None,
        wrong_type: None,
    })
}

/// A quoted number or duration (`"10s"`) read as a count in `unit`, for the help text.
fn as_count(text: &str, unit: Option<Unit>) -> Option<i64> {
    let text = text.trim();
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let n: i64 = digits.trim().parse().ok()?;
    let suffix = &text[digits.len()..];
    let millis = match suffix {
        "" => return Some(n),
        "ms" => n,
        "s" => n.checked_mul(1000)?,
        "m" | "min" => n.checked_mul(60_000)?,
        _ => return None,
    };
    match unit? {
        Unit::Milliseconds => Some(millis),
        Unit::Seconds if millis % 1000 == 0 => Some(millis / 1000),
        Unit::Seconds => None,
    }
}

/// Decimal digits (after a `-` when `signed`) that fit an integer: the number they write.
fn whole_number(text: &str, signed: bool) -> Option<i64> {
    let digits = if signed {
        text.strip_prefix('-').unwrap_or(text)
    } else {
        text
    };
    let all_digits = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    all_digits.then(|| text.parse().ok()).flatten()
}

/// The integer Python's `int()` makes of `text`, as the image reads its wait times (upstream
/// behaviour): white space around it, a `+` or `-` sign, and single `_` between digits are
/// taken (`" +3_000 "` is 3000); `None` where `int()` raises. Digits of other scripts, which
/// `int()` also takes, are not read here (they count as not an integer).
fn python_int(text: &str) -> Option<i64> {
    let text = text.trim_matches(is_python_space);
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let grouped = !digits.starts_with('_') && !digits.ends_with('_') && !digits.contains("__");
    let plain: String = digits.chars().filter(|&c| c != '_').collect();
    let n: i64 = whole_number(&plain, false).filter(|_| grouped)?;
    Some(if negative { -n } else { n })
}

/// White space as Python's `str.strip()` (and so `int()`) sees it: Unicode white space and the
/// separators U+001C to U+001F.
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// An environment text as a number: an integer when it writes one, else the text.
fn number(env: &EnvText, signed: bool) -> Node {
    match whole_number(env.text, signed) {
        Some(n) => Node {
            value: Value::Integer(n),
            origin: env.origin,
        },
        None => env.string(),
    }
}

/// An integer the container replaces when it cannot use it: below the minimum it uses the
/// minimum, and text that is not an integer gives the default (the profile leaves it out).
fn falling_back(var: &Var, env: &EnvText, diags: &mut Diagnostics) -> Option<Node> {
    let (name, text, at) = (env.name, env.text, env.origin);
    let min = var.min.unwrap_or(1);
    let unit = var.unit.map_or("", |u| u.words());
    match python_int(text) {
        Some(n) if n >= min => Some(Node {
            value: Value::Integer(n),
            origin: at,
        }),
        Some(n) => {
            let d = Diagnostic::new(
                Code::FallsBack,
                format!("`{name}` = {n} is below {min}: the container uses {min}"),
            )
            .label(format!("read as {min}"))
            .help(format!("the profile writes {min}"));
            diags.push(d.at(at));
            Some(Node {
                value: Value::Integer(min),
                origin: at,
            })
        }
        None => {
            let default = var.default.describe();
            let d = Diagnostic::new(
                Code::FallsBack,
                format!("`{name}` = `{text}` is not an integer: the container silently falls back to {default}"),
            )
            .label("not an integer")
            .help(format!("write a whole number of {unit}; the profile leaves it out (the default)"));
            diags.push(d.at(at));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_strings_become_counts_for_help() {
        assert_eq!(as_count("10s", Some(Unit::Milliseconds)), Some(10_000));
        assert_eq!(as_count("10s", Some(Unit::Seconds)), Some(10));
        assert_eq!(as_count("2m", Some(Unit::Seconds)), Some(120));
        assert_eq!(as_count("8500", None), Some(8500));
        assert_eq!(as_count("1500ms", Some(Unit::Seconds)), None);
        assert_eq!(as_count("abc", None), None);
    }

    #[test]
    fn wait_times_are_read_as_pythons_int_reads_them() {
        assert_eq!(python_int("3_000"), Some(3000));
        assert_eq!(python_int("+15"), Some(15));
        assert_eq!(python_int(" 42\t\n"), Some(42));
        assert_eq!(python_int("\u{1f}7\u{a0}"), Some(7));
        assert_eq!(python_int("-5"), Some(-5));
        assert_eq!(python_int("1__0"), None);
        assert_eq!(python_int("_10"), None);
        assert_eq!(python_int("10_"), None);
        assert_eq!(python_int("+-1"), None);
        assert_eq!(python_int("+"), None);
        assert_eq!(python_int("1 0"), None);
        assert_eq!(python_int("0x10"), None);
        assert_eq!(python_int("10s"), None);
        assert_eq!(python_int(""), None);
    }

    #[test]
    fn only_digits_that_fit_are_a_number() {
        assert_eq!(whole_number("8080", false), Some(8080));
        assert_eq!(whole_number("-5", false), None);
        assert_eq!(whole_number("-5", true), Some(-5));
        assert_eq!(whole_number("-", true), None);
        assert_eq!(whole_number("", false), None);
        assert_eq!(whole_number("+5", true), None);
        assert_eq!(whole_number("99999999999999999999", false), None);
        assert_eq!(whole_number("5m", true), None);
    }
}
