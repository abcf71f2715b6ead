//! `--set KEY=VALUE`: one value on the command line, typed by the spec model.
//!
//! The key is a TOML dotted key (quotes allowed for segments with dots). The value's type comes
//! from the model: `--set config.consul.port=8501` is an integer, `--set admin_ui.plugins=a,b` a
//! list, `--set token_server.client_id=1001` stays a string. Keys the model does not know keep
//! their text, so validation reports them like a file's keys (with "did you mean").

use super::{Entry, Node, Table, Value};
use crate::diag::source::{Origin, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Model, VarType};

/// Whether the value of a `--set` is given inline or read from a file (`--set-file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetKind {
    Value,
    File,
}

/// `--set KEY VALUE` (a blank typed for the `=`): when KEY names a secret, or nearly does,
/// what follows it is marked secret, so that neither the message quoting the argument nor its
/// snippet shows it.
fn mark_value_without_equals(arg: &str, id: crate::diag::source::SourceId, sources: &mut Sources) {
    let key_start = arg.len() - arg.trim_start().len();
    let Some(key_len) = arg[key_start..].find(char::is_whitespace) else {
        return;
    };
    let key = &arg[key_start..key_start + key_len];
    if !crate::diag::redact::is_secret_key(key) && !crate::diag::redact::nearly_names_a_secret(key)
    {
        return;
    }
    let value_start = key_start + key_len;
    let blanks = arg[value_start..].len() - arg[value_start..].trim_start().len();
    sources.mark_secret(Origin::new(id, value_start + blanks..arg.len()));
}

/// Parses one `--set KEY=VALUE` (or `--set-file KEY=PATH`) into a table holding just that key,
/// with origins into a source named after the option. A secret given with `--set-file` becomes
/// a `{ file = PATH }` reference: its value is never copied into the profile.
pub fn parse_set(arg: &str, kind: SetKind, sources: &mut Sources) -> Result<Table, Diagnostics> {
    let name = match kind {
        SetKind::Value => "--set",
        SetKind::File => "--set-file",
    };
    // A `--set-file` value is a path, never a secret: it is shown.
    let id = match kind {
        SetKind::Value => sources.add(name, arg),
        SetKind::File => sources.add_without_secrets(name, arg),
    };
    let mut diags = Diagnostics::default();
    let Some((key_text, value_text)) = arg.split_once('=') else {
        if kind == SetKind::Value {
            mark_value_without_equals(arg, id, sources);
        }
        diags.push(
            Diagnostic::new(
                Code::TomlSyntax,
                format!("{name} needs KEY=VALUE, got \"{arg}\""),
            )
            .at(Origin::new(id, 0..arg.len()))
            .label("no `=`")
            .help("e.g. --set config.consul.port=8501"),
        );
        return Err(diags);
    };
    let key_origin = Origin::new(id, 0..key_text.len());
    let value_start = key_text.len() + 1;
    let value_origin = Origin::new(id, value_start..arg.len());
    let path = match dotted_key(key_text.trim()) {
        Some(path) if !path.is_empty() => path,
        _ => {
            diags.push(
                Diagnostic::new(Code::TomlSyntax, format!("`{key_text}` is not a key"))
                    .at(key_origin)
                    .label("expected a dotted key such as config.consul.port"),
            );
            return Err(diags);
        }
    };
    let key = path.join(".");
    if kind == SetKind::Value && crate::diag::redact::nearly_names_a_secret(&key) {
        // A misspelled secret key: its value is a secret all the same (never shown).
        sources.mark_secret(value_origin);
    }
    if let Some(problem) = shape_problem(&key, &key_origin) {
        diags.push(problem);
        return Err(diags);
    }
    let inputs = sources.inputs();
    let Some(value) = set_value(
        kind,
        type_of(&key),
        value_text,
        value_origin,
        inputs,
        &mut diags,
    ) else {
        return Err(diags);
    };
    if let (SetKind::Value, Value::String(text)) = (kind, &value) {
        sources.mark_url_password(value_origin, text);
    }
    let node = Node {
        value,
        origin: value_origin,
    };
    Ok(nested(&path, key_origin, node))
}

/// The value of the option: the text as the key's type, the text of a file for `--set-file`,
/// or a `{ file = PATH }` reference for a secret; `None` (reported) when the file is unreadable.
fn set_value(
    kind: SetKind,
    ty: Option<VarType>,
    value_text: &str,
    value_origin: Origin,
    inputs: &crate::support::inputs::Inputs,
    diags: &mut Diagnostics,
) -> Option<Value> {
    if kind == SetKind::Value {
        return Some(typed(ty, value_text, value_origin));
    }
    // A type whose `--set-file` value is the path itself (a secret's reference).
    if let Some(reference) = ty.and_then(|t| t.rules().set_file_value(value_text, value_origin)) {
        return Some(reference);
    }
    match super::read_input_text(std::path::Path::new(value_text), inputs) {
        Ok(text) => Some(typed(ty, text.trim_end_matches(['\n', '\r']), value_origin)),
        Err(super::ReadError(why)) => {
            diags.push(
                Diagnostic::new(Code::SecretUnavailable, format!("--set-file: {why}"))
                    .at(value_origin)
                    .label("unreadable"),
            );
            None
        }
    }
}

/// A table holding `node` under the dotted `path` (not empty), one table per segment.
fn nested(path: &[String], key_origin: Origin, node: Node) -> Table {
    let origin = node.origin;
    let mut node = node;
    for (i, segment) in path.iter().enumerate().rev() {
        let entry = Entry {
            key: segment.clone(),
            key_origin,
            node,
        };
        if i == 0 {
            return Table {
                entries: vec![entry],
            };
        }
        node = Node {
            value: Value::Table(Table {
                entries: vec![entry],
            }),
            origin,
        };
    }
    unreachable!("a non-empty path returns from its first segment")
}

/// The segments of a TOML dotted key (`a."b.c".d`).
fn dotted_key(key: &str) -> Option<Vec<String>> {
    let document = format!("{key} = 0");
    let table: toml::Table = toml::from_str(&document).ok()?;
    let mut path = Vec::new();
    let mut current = &table;
    loop {
        let (name, value) = current.iter().next()?;
        path.push(name.clone());
        match value {
            toml::Value::Table(inner) => current = inner,
            _ => return Some(path),
        }
    }
}

/// The model's type of a profile key or deployment setting.
/// A key `--set` cannot give one value to: `extends` (a file's own list of bases: the command
/// line has `--overlay`), or a table of the model (`google`, `persistence.sql`), which one value
/// would replace whole.
fn shape_problem(key: &str, origin: &Origin) -> Option<Diagnostic> {
    if key == super::EXTENDS {
        return Some(
            Diagnostic::new(Code::Extends, "`extends` cannot be set on the command line")
                .at(*origin)
                .label("a profile file's own list of bases")
                .help("give the base as a layer instead: --overlay FILE (-f), or extends in the profile"),
        );
    }
    let model = Model::get();
    let inside = format!("{key}.");
    let example = model
        .vars
        .iter()
        .map(|v| v.key.as_str())
        .chain(model.settings.iter().map(|s| s.key.as_str()))
        .find(|k| k.starts_with(&inside))?;
    if type_of(key).is_some() {
        return None;
    }
    Some(
        Diagnostic::wrong_type(
            key,
            "a table",
            "one value (--set would replace the table whole)",
        )
        .at(*origin)
        .label("a table, not a value")
        .help(format!("set one of its keys, e.g. --set {example}=...")),
    )
}

fn type_of(key: &str) -> Option<VarType> {
    let model = Model::get();
    model
        .entries_by_key(key)
        .next()
        .map(|v| v.ty)
        .or_else(|| model.setting(key).map(|s| s.ty))
}

/// The value of `text` as the model's type (numbers and booleans typed when they parse, else left
/// as text for validation to report; plugin lists split at commas); a key the model does not know
/// keeps its text.
fn typed(ty: Option<VarType>, text: &str, origin: Origin) -> Value {
    match ty {
        Some(ty) => ty.rules().set_value(text, origin),
        None => Value::String(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(arg: &str) -> Table {
        parse_set(arg, SetKind::Value, &mut Sources::new()).unwrap()
    }

    #[test]
    fn a_secret_set_with_a_blank_for_the_equals_sign_is_never_shown() {
        let secret = |arg: &str| {
            let mut sources = Sources::new();
            assert!(parse_set(arg, SetKind::Value, &mut sources).is_err());
            let source = sources.get(sources.ids().next().unwrap());
            let texts = source.secret_ranges().iter();
            texts
                .map(|r| source.text[r.clone()].to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            secret("google.secret_manager_passphrase  hunter 2"),
            ["hunter 2"]
        );
        assert_eq!(
            secret(" google.secret_manager_passphras hunter2"),
            ["hunter2"]
        );
        assert!(secret("config.adapter google").is_empty());
        assert!(secret("google.secret_manager_passphrase").is_empty());
    }

    #[test]
    fn values_are_typed_by_the_model() {
        assert_eq!(
            set("config.consul.port=8501")
                .get_path("config.consul.port")
                .unwrap()
                .node
                .value,
            Value::Integer(8501)
        );
        assert_eq!(
            set("config.consul.verify=true")
                .get_path("config.consul.verify")
                .unwrap()
                .node
                .value,
            Value::Bool(true)
        );
        let id = set("token_server.client_id=1001");
        assert_eq!(
            id.get_path("token_server.client_id").unwrap().node.value,
            Value::String("1001".into())
        );
        let plugins = set("admin_ui.plugins=a,b");
        let Value::Array(items) = &plugins.get_path("admin_ui.plugins").unwrap().node.value else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[1].origin.span(),
            19..20,
            "each item points at its text"
        );
    }

    #[test]
    fn quoted_segments_and_unknown_keys_are_kept() {
        let t = set("deploy.files.\"token_server.cert_file\".host=certs/a.crt");
        assert!(t.get("deploy").is_some());
        let unknown = set("config.consul.hots=x");
        assert_eq!(
            unknown.get_path("config.consul.hots").unwrap().node.value,
            Value::String("x".into())
        );
    }

    #[test]
    fn a_missing_equals_sign_is_an_error_at_the_argument() {
        let diags =
            parse_set("config.consul.port", SetKind::Value, &mut Sources::new()).unwrap_err();
        assert!(diags.items[0].message.contains("KEY=VALUE"));
    }
}
