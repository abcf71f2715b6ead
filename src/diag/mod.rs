//! Errors and warnings about user input: data only. Printing lives in `human` and `json`, and
//! for CI in `sarif` (code scanning) and `gitlab` (code quality), placed by `location`.
//!
//! Every problem svcgen finds in a profile is a [`Diagnostic`] with a stable [`Code`], so scripts
//! and docs can refer to it; all of them are collected before anything is reported.

mod code;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod location;
pub mod redact;
pub mod rules;
pub mod sarif;
pub mod source;

pub use code::{CODES, Code, CodeDef};

use crate::diag::source::Origin;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Said, never a failure (not even with `--deny-warnings`).
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem: what, where, and what would be accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    /// The key or value at fault; `None` for problems of the whole input (no file yet).
    pub origin: Option<Origin>,
    /// Short text under the caret.
    pub label: Option<String>,
    /// What would be accepted, "did you mean", how to fix.
    pub help: Vec<String>,
    /// Edits that fix the problem, where the check knows one: editors offer them as quick fixes
    /// (the language server), so they never have to be read back out of the help text.
    pub fixes: Vec<Fix>,
}

/// An edit that fixes a diagnostic.
#[derive(Debug, Clone, PartialEq)]
pub enum Fix {
    /// Write `text` in place of what is at `origin` (a key, or a value as TOML).
    Replace { origin: Origin, text: String },
    /// Add the missing key (dotted, from the profile's root) to the profile.
    AddKey { key: String },
}

impl Diagnostic {
    pub fn new(code: Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            origin: None,
            label: None,
            help: Vec::new(),
            fixes: Vec::new(),
        }
    }

    /// A value of the wrong TOML type ([`Code::WrongType`]): "`key` must be {expected}, found
    /// {found}", labelled with what is expected, in one wording; the caller places it.
    pub fn wrong_type(key: &str, expected: &str, found: &str) -> Diagnostic {
        Diagnostic::new(
            Code::WrongType,
            format!("`{key}` must be {expected}, found {found}"),
        )
        .label(format!("expected {expected}"))
    }

    /// A value holding NUL ([`Code::ControlChar`]), which no environment variable can hold, in
    /// one wording; the caller places it.
    pub fn nul_char(key: &str) -> Diagnostic {
        Diagnostic::new(
            Code::ControlChar,
            format!("`{key}` contains a NUL character"),
        )
        .help("environment variables cannot hold NUL")
    }

    pub fn at(mut self, origin: Origin) -> Diagnostic {
        self.origin = Some(origin);
        self
    }

    pub fn at_opt(mut self, origin: Option<Origin>) -> Diagnostic {
        self.origin = origin;
        self
    }

    pub fn label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }

    /// Offers an edit that fixes the problem (see [`Fix`]).
    pub fn fix(mut self, fix: Fix) -> Diagnostic {
        self.fixes.push(fix);
        self
    }

    /// Offers writing `text` at `origin` instead of what is there.
    pub fn replace_with(self, origin: Origin, text: impl Into<String>) -> Diagnostic {
        self.fix(Fix::Replace {
            origin,
            text: text.into(),
        })
    }

    /// Offers writing `text` at `origin`, when there is a text.
    pub fn replace_with_opt(self, origin: Origin, text: Option<&str>) -> Diagnostic {
        match text {
            Some(t) => self.replace_with(origin, t),
            None => self,
        }
    }

    /// Adds "did you mean `x`?" and the edit writing `x` (a TOML string) in place of the value
    /// at `origin`, when there is a suggestion.
    pub fn suggest_value(self, origin: Origin, suggestion: Option<&str>) -> Diagnostic {
        match suggestion {
            Some(s) => self
                .replace_with(origin, toml_edit::Value::from(s).to_string())
                .suggest(Some(s)),
            None => self,
        }
    }

    /// Adds "did you mean `x`?" when there is a suggestion.
    pub fn suggest(self, suggestion: Option<&str>) -> Diagnostic {
        match suggestion {
            Some(s) => self.help(format!("did you mean `{s}`?")),
            None => self,
        }
    }

    pub fn severity(&self) -> Severity {
        self.code.severity()
    }

    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }
}

/// The diagnostics of one run, in the order they were found.
#[derive(Debug, Default, Clone)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.items.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        (self.items.iter())
            .filter(|d| d.severity() == Severity::Warning)
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Pushes each of `more` that is not already here (the same problem found twice, by two
    /// checks, is reported once). Linear: existing diagnostics are indexed once.
    pub fn extend_new(&mut self, more: impl IntoIterator<Item = Diagnostic>) {
        let mut seen: std::collections::HashSet<DiagnosticKey> =
            self.items.iter().map(DiagnosticKey::of).collect();
        for d in more {
            if seen.insert(DiagnosticKey::of(&d)) {
                self.items.push(d);
            }
        }
    }

    /// Sorts by source position, keeping diagnostics without a position last, so that output
    /// reads top to bottom whatever order the checks ran in.
    pub fn sort(&mut self) {
        self.items.sort_by_key(|d| {
            d.origin.map_or((1, usize::MAX, usize::MAX), |o| {
                (0, source_index(o), o.start)
            })
        });
    }
}

/// What makes two diagnostics the same, hashable.
#[derive(PartialEq, Eq, Hash)]
struct DiagnosticKey {
    code: Code,
    at: Option<(usize, usize, usize)>,
    message: String,
    label: Option<String>,
    help: Vec<String>,
}

impl DiagnosticKey {
    fn of(d: &Diagnostic) -> DiagnosticKey {
        DiagnosticKey {
            code: d.code,
            at: d.origin.map(|o| (o.source.index(), o.start, o.end)),
            message: d.message.clone(),
            label: d.label.clone(),
            help: d.help.clone(),
        }
    }
}

fn source_index(origin: Origin) -> usize {
    origin.source.index()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every `.rs` file under `dir`, with its text.
    fn rust_files(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }

    /// A value of the wrong TOML type has one wording: `Diagnostic::wrong_type` is the only
    /// place outside the code table that names its code (CONTRIBUTING, "A diagnostic code").
    #[test]
    fn the_wrong_type_diagnostic_has_one_constructor() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let code_table = src.join("diag").join("code.rs").display().to_string();
        let by_hand: Vec<String> = files
            .iter()
            .filter(|(path, _)| *path != code_table)
            .flat_map(|(path, text)| {
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                let count = code.matches("Code::WrongType").count();
                (count > 0).then(|| format!("{path}: {count}"))
            })
            .collect();
        let this = src.join("diag").join("mod.rs").display().to_string();
        assert_eq!(by_hand, [format!("{this}: 2")], "{by_hand:#?}");
    }
}
