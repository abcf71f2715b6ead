//! The `results` of a KRM `ResourceList`: one per diagnostic, with the profile's position.

use super::{PROFILE_KEY, SET_KEY};
use crate::diag::source::Sources;
use crate::diag::{Diagnostics, Severity};
use serde_json::{Map, Value, json};

#[derive(Default)]
pub struct Results {
    items: Vec<Value>,
    errors: usize,
}

impl Results {
    pub fn has_errors(&self) -> bool {
        self.errors > 0
    }

    pub fn into_values(self) -> Vec<Value> {
        self.items
    }

    fn push(&mut self, severity: &str, message: String) -> &mut Map<String, Value> {
        if severity == "error" {
            self.errors += 1;
        }
        self.items
            .push(json!({ "message": message, "severity": severity }));
        self.items
            .last_mut()
            .and_then(Value::as_object_mut)
            .expect("just pushed an object")
    }

    pub fn error(&mut self, message: String) {
        self.push("error", message);
    }

    pub fn warning(&mut self, message: String) {
        self.push("warning", message);
    }

    pub fn info(&mut self, message: String) {
        self.push("info", message);
    }

    /// A result about one item: `resource_ref` names it, `field` the path in it (never a value).
    pub fn item_result(
        &mut self,
        severity: &str,
        message: String,
        resource_ref: Value,
        field: Option<String>,
    ) {
        let result = self.push(severity, message);
        result.insert("resourceRef".into(), resource_ref);
        if let Some(path) = field {
            result.insert("field".into(), json!({ "path": path }));
        }
    }

    /// An input that is not what the function reads: an error result, and no function input.
    pub fn input_error<T>(&mut self, message: &str) -> Option<T> {
        let code = crate::diag::Code::KrmInput;
        let result = self.push("error", format!("{}: {message}", code.id()));
        result.insert("tags".into(), json!({ "code": code.id() }));
        None
    }

    /// The profile's diagnostics: message with code and `line:col`, `field` the profile's data
    /// key, `file` the function config's file (`config_file`), `resourceRef` the function config
    /// (`config_ref`); `set_place` gives a `data.set` line's place (its line, blanks before it).
    pub fn diagnostics(
        &mut self,
        diagnostics: &Diagnostics,
        sources: &Sources,
        config_ref: &Value,
        config_file: Option<&str>,
        set_place: &dyn Fn(&str) -> Option<(usize, usize)>,
    ) {
        // The same masking as the human and JSON printers: a secret in a `data.set` line or
        // quoted by a message is never echoed.
        let scrubber = sources.scrubber();
        for d in &diagnostics.items {
            let severity = match d.severity() {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "info",
            };
            let mut position = d.origin.map(|o| sources.line_col(o.source, o.start));
            // A `data.set` line is a source of its own, named after the option it stands for:
            // its position is its line in `data.set`.
            let from_set = d
                .origin
                .is_some_and(|o| sources.get(o.source).name.starts_with("--set"));
            if let (true, Some(o), Some(p)) = (from_set, d.origin, position.as_mut())
                && let Some((line, indent)) = set_place(&sources.get(o.source).text)
            {
                p.line = line;
                p.column += indent;
            }
            let (field, place) = if from_set {
                let line = d.origin.map(|o| {
                    let source = sources.get(o.source);
                    crate::diag::redact::Masked::new(&source.text, source.secret_ranges()).text
                });
                (SET_KEY, format!("set `{}`: ", line.unwrap_or_default()))
            } else {
                let at = position.map_or(String::new(), |p| format!("{}:{}: ", p.line, p.column));
                (PROFILE_KEY, format!("profile:{at}"))
            };
            let mut message = format!("{place}{} {}", d.code.id(), scrubber.scrub(&d.message));
            for help in &d.help {
                message.push_str(&format!(" (help: {})", scrubber.scrub(help)));
            }
            let result = self.push(severity, message);
            result.insert("resourceRef".into(), config_ref.clone());
            result.insert("field".into(), json!({ "path": format!("data.{field}") }));
            if let Some(file) = config_file {
                result.insert("file".into(), json!({ "path": file }));
            }
            let mut tags = json!({ "code": d.code.id() });
            if let Some(p) = position {
                tags["line"] = Value::from(p.line.to_string());
                tags["column"] = Value::from(p.column.to_string());
            }
            result.insert("tags".into(), tags);
        }
    }
}
