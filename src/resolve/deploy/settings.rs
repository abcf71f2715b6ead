//! Reading one `[deploy]` setting: its value checked against its model type (and the Kubernetes
//! field it lands in), else its default.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Model, Setting, VarType};
use crate::profile::{Table, Value};
use crate::resolve::formats::{self, Problem};
use crate::source::Origin;

/// Every integer deployment setting lands in an `int32` field of a Kubernetes object.
pub const INT32_MAX: i64 = i32::MAX as i64;

/// The highest port number.
const PORT_MAX: i64 = 65535;

/// Reads settings from the `[deploy]` table.
pub struct SettingReader<'a> {
    pub model: &'a Model,
    pub table: &'a Table,
}

impl SettingReader<'_> {
    /// Where the profile set `key`, if it did.
    pub fn origin(&self, key: &str) -> Option<Origin> {
        let rest = key.strip_prefix("deploy.").unwrap_or(key);
        self.table.get_path(rest).map(|e| e.node.origin)
    }

    /// The text of a setting: its valid value, else its default (`None` when it has none).
    pub fn text(&self, key: &str, diags: &mut Diagnostics) -> Option<String> {
        let setting = self
            .model
            .setting(key)
            .expect("deploy settings read here are in the model");
        let rest = key.strip_prefix("deploy.").unwrap_or(key);
        let fallback = match &setting.default {
            DefaultValue::Value(v) => Some(v.clone()),
            _ => None,
        };
        let Some(entry) = self.table.get_path(rest) else {
            return fallback;
        };
        match check_setting(setting, &entry.node.value) {
            Ok(text) => Some(text),
            Err(problem) => {
                diags.push(problem_diagnostic(setting, problem, entry.node.origin));
                fallback
            }
        }
    }

    /// An integer (or port) setting; 0 only when the model has no default (a model error).
    pub fn int(&self, key: &str, diags: &mut Diagnostics) -> i64 {
        self.text(key, diags)
            .and_then(|t| t.parse().ok())
            .unwrap_or_default()
    }

    /// A boolean setting.
    pub fn bool(&self, key: &str, diags: &mut Diagnostics) -> bool {
        self.text(key, diags).is_some_and(|t| t == "true")
    }
}

fn problem_diagnostic(setting: &Setting, problem: Problem, origin: Origin) -> Diagnostic {
    let code = if problem.message.starts_with("expected") {
        Code::WrongType
    } else if matches!(setting.ty, VarType::Integer | VarType::Port) {
        Code::OutOfRange
    } else {
        Code::BadFormat
    };
    let mut d = Diagnostic::new(code, format!("`{}`: {}", setting.key, problem.message))
        .at(origin)
        .label(format!("expected {}", setting.ty.describe()))
        .help(setting.meaning.clone());
    if let Some(s) = problem.suggestion {
        d = d.help(format!("did you mean \"{s}\"?"));
    }
    d
}

fn check_setting(setting: &Setting, value: &Value) -> Result<String, Problem> {
    let expected = |what: &str| Problem {
        message: format!("expected {what}, found {}", value.type_name()),
        suggestion: None,
    };
    match setting.ty {
        VarType::Integer | VarType::Port => {
            let Value::Integer(n) = value else {
                return Err(expected("an integer"));
            };
            let (min, max) = match setting.ty {
                VarType::Port => (1, PORT_MAX),
                _ => (setting.min.unwrap_or(0), INT32_MAX),
            };
            return in_range(*n, min, max).map(|()| n.to_string());
        }
        VarType::Bool => {
            let Value::Bool(b) = value else {
                return Err(expected("a boolean"));
            };
            return Ok(b.to_string());
        }
        _ => {}
    }
    let Value::String(text) = value else {
        return Err(expected("a string"));
    };
    match setting.ty {
        VarType::K8sName => formats::k8s_label(text)?,
        VarType::Image => formats::image_repository(text)?,
        VarType::ImageTag => formats::image_tag(text)?,
        VarType::Quantity => formats::k8s_quantity(text).map(|_| ())?,
        _ => {}
    }
    Ok(text.clone())
}

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
    })
}
