//! Reading one `[deploy]` setting: its value checked against its model type (and the Kubernetes
//! field it lands in), else its default.

use crate::diag::source::Origin;
use crate::diag::{Diagnostic, Diagnostics};
use crate::model::{DefaultValue, Model, Setting};
use crate::profile::Table;
use crate::value_type::Problem;

pub use crate::value_type::INT32_MAX;

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
        match setting.ty.rules().setting_text(setting, &entry.node.value) {
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
    let d = match &problem.wrong_type {
        Some((expected, found)) => Diagnostic::wrong_type(&setting.key, expected, found),
        None => Diagnostic::new(
            setting.ty.rules().setting_code(),
            format!("`{}`: {}", setting.key, problem.message),
        ),
    };
    let mut d = d
        .at(origin)
        .label(format!("expected {}", setting.ty.describe()))
        .help(setting.meaning.clone());
    if let Some(s) = problem.suggestion {
        d = d.help(format!("did you mean \"{s}\"?"));
    }
    d
}
