//! Placeholders of the tools that start the container: docker compose expands `$VAR` and
//! `${VAR...}` (and reads `$$` as `$`), Kubernetes expands `$(VAR)` in `env[].value` (and reads
//! `$$` as `$`). svcgen never expands them: a value keeps its placeholder as literal text, and
//! the reader reports it.

use super::EnvValue;
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use std::ops::Range;

/// A value with compose's `$$` escapes removed, and the byte ranges (in the escaped text) of the
/// placeholders compose would expand.
pub struct Scanned {
    pub text: String,
    pub placeholders: Vec<Range<usize>>,
}

/// Scans a value for compose interpolation. With `dollar_escape`, `$$` stands for `$` (compose
/// files); without it (`.env` files), `$$` is left as written.
pub fn compose(value: &str, dollar_escape: bool) -> Scanned {
    let bytes = value.as_bytes();
    let mut text = String::with_capacity(value.len());
    let mut placeholders = Vec::new();
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        if dollar_escape && bytes.get(i + 1) == Some(&b'$') {
            text.push_str(&value[copied..=i]);
            i += 2;
            copied = i;
            continue;
        }
        let end = match bytes.get(i + 1) {
            Some(b'{') => value[i..].find('}').map(|e| i + e + 1),
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => Some(
                i + 1
                    + value[i + 1..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(value.len() - i - 1),
            ),
            _ => None,
        };
        match end {
            Some(end) => {
                placeholders.push(i..end);
                i = end;
            }
            None => i += 1,
        }
    }
    text.push_str(&value[copied..]);
    Scanned { text, placeholders }
}

/// The variable a compose placeholder names (`${NAME:?msg}` → `NAME`).
pub fn placeholder_var(placeholder: &str) -> Option<&str> {
    let inner = placeholder
        .strip_prefix("${")
        .and_then(|p| p.strip_suffix('}'))
        .or_else(|| placeholder.strip_prefix('$'))?;
    let end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let name = &inner[..end];
    crate::resolve::is_env_name(name).then_some(name)
}

/// A whole placeholder as a profile's deploy-time value: its variable and default. `${X}`,
/// `${X:?message}` and `${X?message}` have none; `${X:-d}` and `${X-d}` (read alike: svcgen
/// writes `:-`) have `d`. `None` for a form a profile cannot say (`${X:+alt}`, a nested `$`).
pub fn deploy_form(text: &str) -> Option<(&str, Option<&str>)> {
    let var = placeholder_var(text)?;
    let Some(inner) = text.strip_prefix("${").and_then(|t| t.strip_suffix('}')) else {
        return Some((var, None)); // `$X`
    };
    let rest = &inner[var.len()..];
    if rest.is_empty() || rest.starts_with(":?") || rest.starts_with('?') {
        return Some((var, None));
    }
    let default = rest.strip_prefix(":-").or_else(|| rest.strip_prefix('-'))?;
    (!default.contains('$')).then_some((var, Some(default)))
}

/// The value of a compose entry: one whole placeholder is a value taken from the deploying shell.
pub fn compose_value(value: &str, dollar_escape: bool) -> (EnvValue, Vec<Range<usize>>) {
    let scanned = compose(value, dollar_escape);
    if let [only] = scanned.placeholders.as_slice()
        && only.start == 0
        && only.end == value.len()
        && let Some(var) = placeholder_var(value)
    {
        let value = EnvValue::FromEnv {
            var: var.to_string(),
            text: value.to_string(),
        };
        return (value, scanned.placeholders);
    }
    (EnvValue::Text(scanned.text), scanned.placeholders)
}

/// A compose value ([`compose_value`]), with the warning of each placeholder it keeps as literal
/// text: at the placeholder when the file holds `raw` as it is at `origin` (`written`), else at
/// the whole value. A value that is one placeholder as a whole is the deploying shell's
/// ([`EnvValue::FromEnv`]): the analysis reports it once, with what import and lint do with it.
pub fn compose_value_warned(
    name: &str,
    raw: &str,
    dollar_escape: bool,
    (origin, written): (Origin, Option<&str>),
    diags: &mut Diagnostics,
) -> EnvValue {
    let (value, placeholders) = compose_value(raw, dollar_escape);
    if matches!(value, EnvValue::FromEnv { .. }) {
        return value;
    }
    let verbatim = written == Some(raw);
    for range in placeholders {
        let at = match verbatim {
            true => Origin::new(
                origin.source,
                origin.start + range.start..origin.start + range.end,
            ),
            false => origin,
        };
        diags.push(placeholder(name, at));
    }
    value
}

/// The warning for a placeholder kept as literal text.
fn placeholder(name: &str, at: Origin) -> Diagnostic {
    Diagnostic::new(
        Code::Placeholder,
        format!("`{name}` holds a placeholder that docker compose expands; svcgen keeps it as literal text"),
    )
    .at(at)
    .label("placeholder kept as written")
    .help("write the value itself, or for the passphrase a { env = \"NAME\" } reference in the profile")
}

/// Kubernetes' expansion of `env[].value`: `$$` is `$`, `$(NAME)` is the value of a variable
/// defined before it (looked up by `defined`), or stays as written when there is none. Returns
/// the value and, for each `$(NAME)`, its range in `value` and whether it was expanded.
pub fn kubernetes(
    value: &str,
    defined: impl Fn(&str) -> Option<String>,
) -> (String, Vec<(Range<usize>, bool)>) {
    let mut out = String::with_capacity(value.len());
    let mut refs = Vec::new();
    let mut rest = value;
    let mut offset = 0;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let used = if after.starts_with('$') {
            out.push('$');
            2
        } else if let Some(inner) = after.strip_prefix('(')
            && let Some(close) = inner.find(')')
        {
            let name = &inner[..close];
            let span = offset + i..offset + i + close + 3;
            match defined(name) {
                Some(v) => {
                    out.push_str(&v);
                    refs.push((span, true));
                }
                None => {
                    out.push_str(&rest[i..i + close + 3]);
                    refs.push((span, false));
                }
            }
            close + 3
        } else {
            out.push('$');
            1
        };
        rest = &rest[i + used..];
        offset += i + used;
    }
    out.push_str(rest);
    (out, refs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compose_escapes_and_placeholders() {
        let s = compose("a$$b ${X} $Y-z $ 1", true);
        assert_eq!(s.text, "a$b ${X} $Y-z $ 1");
        assert_eq!(s.placeholders, vec![5..9, 10..12]);
        let s = compose("$$", false);
        assert_eq!(s.text, "$$");
        assert!(s.placeholders.is_empty());
    }

    #[test]
    fn a_whole_placeholder_names_a_variable() {
        let (value, _) = compose_value("${PASS:?set PASS}", true);
        assert_eq!(
            value,
            EnvValue::FromEnv {
                var: "PASS".into(),
                text: "${PASS:?set PASS}".into()
            }
        );
        let (value, _) = compose_value("x${PASS}", true);
        assert_eq!(value, EnvValue::Text("x${PASS}".into()));
        assert_eq!(placeholder_var("$HOME"), Some("HOME"));
        assert_eq!(placeholder_var("${A:-b}"), Some("A"));
    }

    #[test]
    fn kubernetes_expansion() {
        let defined = |n: &str| (n == "A").then(|| "1".to_string());
        let (text, refs) = kubernetes("$$(A) $(A) $(B) $x é$$", defined);
        assert_eq!(text, "$(A) 1 $(B) $x é$");
        assert_eq!(refs, vec![(6..10, true), (11..15, false)]);
    }
}
