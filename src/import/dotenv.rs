//! The `.env` reader, with the rules docker compose's env_file reader and python-dotenv share:
//! `#` comment lines, an optional `export `, `NAME=value` with spaces allowed around `=`;
//! single-quoted values taken literally, double-quoted values with `\\`, `\"`, `\'`, `\n`, `\r`,
//! `\t` escapes (both may span lines), unquoted values trimmed and cut at ` #`.
//!
//! Compose expands `$VAR` / `${VAR}` in unquoted and double-quoted values: such placeholders are
//! kept as written and reported.

use super::interpolate;
use super::{EnvEntry, EnvValue};
use crate::diag::source::{Origin, SourceId};
use crate::diag::{Code, Diagnostic, Diagnostics};

/// Reads every `NAME=value` of a `.env` text, in order (duplicates included).
pub fn read(text: &str, source: SourceId) -> (Vec<EnvEntry>, Diagnostics) {
    let mut parser = Parser {
        text,
        pos: 0,
        source,
        entries: Vec::new(),
        diags: Diagnostics::default(),
    };
    if text.starts_with('\u{feff}') {
        parser.pos = '\u{feff}'.len_utf8();
    }
    while parser.pos < text.len() {
        parser.line();
    }
    (parser.entries, parser.diags)
}

/// A line's first word as a message names it: quoted when it is a variable name, else not at
/// all (an env_file may name any file, a private key or a password file: its text is not shown).
fn shown_name(name: &str) -> String {
    if crate::model::is_env_name(name) {
        format!("`{name}`")
    } else {
        "a line that is not a variable".to_string()
    }
}

/// Reads an env_file of `format: raw` as docker compose v2 does: one `NAME=value` a line, the
/// value every character after the first `=` (no quotes, escapes, comments or `$` expansion); a
/// line is left-trimmed of blanks, and skipped when empty or starting with `#`. A name holding a
/// blank, or no name at all, is an error (compose refuses the file); a line with no `=` takes the
/// variable from the shell (not imported).
pub fn read_raw(text: &str, source: SourceId) -> (Vec<EnvEntry>, Diagnostics) {
    let mut entries = Vec::new();
    let mut diags = Diagnostics::default();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        let trimmed = body.trim_start_matches([' ', '\t']);
        let at = start + body.len() - trimmed.len();
        start += line.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (name, value) = trimmed.split_once('=').unwrap_or((trimmed, ""));
        let name_origin = Origin::new(source, at..at + name.len());
        if name.is_empty() || name.contains(char::is_whitespace) {
            diags.push(
                Diagnostic::new(
                    Code::InputSyntax,
                    format!(
                        "{} is not a variable name: docker compose refuses this raw env_file",
                        shown_name(name)
                    ),
                )
                .at(if name.is_empty() {
                    Origin::new(source, at..at + 1)
                } else {
                    name_origin
                })
                .label("not a NAME=value line")
                .help("a raw env_file line is NAME=value, the name without blanks"),
            );
            continue;
        }
        if !trimmed.contains('=') {
            diags.push(
                Diagnostic::new(
                    Code::NotImported,
                    format!("{} has no `=value`: it is not imported", shown_name(name)),
                )
                .at(name_origin)
                .label("no value")
                .help("docker compose takes such a variable from the shell at `up` time; write NAME=value"),
            );
            continue;
        }
        let value_start = at + name.len() + 1;
        entries.push(EnvEntry {
            name: name.to_string(),
            value: EnvValue::Text(value.to_string()),
            name_origin,
            origin: Origin::new(source, value_start..value_start + value.len()),
        });
    }
    (entries, diags)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    source: SourceId,
    entries: Vec<EnvEntry>,
    diags: Diagnostics,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn origin(&self, start: usize, end: usize) -> Origin {
        Origin::new(self.source, start..end)
    }

    fn skip_blanks(&mut self) {
        let n = self.rest().len() - self.rest().trim_start_matches([' ', '\t']).len();
        self.pos += n;
    }

    /// Moves past the end of the current line.
    fn skip_line(&mut self) {
        match self.rest().find('\n') {
            Some(i) => self.pos += i + 1,
            None => self.pos = self.text.len(),
        }
    }

    fn line(&mut self) {
        self.skip_blanks();
        let rest = self.rest();
        if rest.is_empty() || rest.starts_with(['\n', '#']) || rest.starts_with("\r\n") {
            self.skip_line();
            return;
        }
        if let Some(after) = rest.strip_prefix("export")
            && after.starts_with([' ', '\t'])
        {
            self.pos += "export".len();
            self.skip_blanks();
        }
        let name_start = self.pos;
        let name_len = self
            .rest()
            .find(|c: char| c == '=' || c.is_whitespace() || c == '#')
            .unwrap_or(self.rest().len());
        let name = self.text[name_start..name_start + name_len].to_string();
        self.pos += name_len;
        let name_origin = self.origin(name_start, self.pos);
        self.skip_blanks();
        if !self.rest().starts_with('=') {
            let at_end = self.rest().is_empty() || self.rest().starts_with(['\n', '\r', '#']);
            let d = if name.is_empty() || !at_end {
                Diagnostic::new(Code::InputSyntax, "expected NAME=value")
                    .at(self.origin(name_start, self.pos.max(name_start + 1)))
                    .label("not a NAME=value line")
            } else {
                Diagnostic::new(
                    Code::NotImported,
                    format!("{} has no `=value`: it is not imported", shown_name(&name)),
                )
                .at(name_origin)
                .label("no value")
                .help("docker compose takes such a variable from the shell at `up` time; write NAME=value")
            };
            self.diags.push(d);
            self.skip_line();
            return;
        }
        self.pos += 1;
        self.skip_blanks();
        let Some((value, start, end, expands)) = self.value(&name) else {
            return;
        };
        let origin = self.origin(start, end);
        let value = if expands {
            let written = (origin, self.text.get(start..end));
            interpolate::compose_value_warned(&name, &value, false, written, &mut self.diags)
        } else {
            EnvValue::Text(value)
        };
        self.entries.push(EnvEntry {
            name,
            value,
            name_origin,
            origin,
        });
    }

    /// Reads the value after `=`: (value, start, end of its text, whether compose expands `$`).
    fn value(&mut self, name: &str) -> Option<(String, usize, usize, bool)> {
        let rest = self.rest();
        let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"');
        let Some(quote) = quote else {
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let line = &rest[..line_end];
            let cut = comment_start(line).unwrap_or(line.len());
            let value = line[..cut].trim_end();
            let start = self.pos;
            let out = (value.to_string(), start, start + value.len(), true);
            self.skip_line();
            return Some(out);
        };
        let open = self.pos;
        let body = &rest[1..];
        let (value, close) = if quote == '\'' {
            match body.find('\'') {
                Some(i) => (body[..i].to_string(), i),
                None => return self.unterminated(name, open),
            }
        } else {
            match double_quoted(body) {
                Some(found) => found,
                None => return self.unterminated(name, open),
            }
        };
        let start = open + 1;
        let end = start + close;
        if let Some(cr) = self.text[start..end].find('\r') {
            return self.carriage_return(name, start + cr, end);
        }
        self.pos = end + 1;
        self.skip_blanks();
        let tail = self.rest();
        if !(tail.is_empty() || tail.starts_with(['\n', '#']) || tail.starts_with("\r\n")) {
            let tail_end = tail.find('\n').unwrap_or(tail.len());
            self.diags.push(
                Diagnostic::new(
                    Code::InputSyntax,
                    format!("text after the closing quote of `{name}`"),
                )
                .at(self.origin(self.pos, self.pos + tail_end))
                .label("unexpected text")
                .help("put the whole value inside the quotes, or start a comment with ` #`"),
            );
        }
        self.skip_line();
        Some((value, start, end, quote == '"'))
    }

    /// A raw carriage return inside quotes (a CRLF file's multi-line value): compose keeps it,
    /// python-dotenv drops it. Refused: no reading of it matches both.
    fn carriage_return(
        &mut self,
        name: &str,
        at: usize,
        end: usize,
    ) -> Option<(String, usize, usize, bool)> {
        self.diags.push(
            Diagnostic::new(
                Code::CarriageReturnInQuotes,
                format!("the quoted value of `{name}` holds a carriage return (a CRLF line end inside the quotes)"),
            )
            .at(self.origin(at, at + 1))
            .label("carriage return")
            .help("docker compose keeps it in the value and python-dotenv drops it; write the value on one line, with \\n for a line break"),
        );
        self.pos = end + 1;
        self.skip_line();
        None
    }

    fn unterminated(&mut self, name: &str, open: usize) -> Option<(String, usize, usize, bool)> {
        self.diags.push(
            Diagnostic::new(
                Code::InputSyntax,
                format!("the quote of `{name}` is never closed"),
            )
            .at(self.origin(open, open + 1))
            .label("opening quote")
            .help("close the quote, or escape a quote inside the value"),
        );
        self.skip_line();
        None
    }
}

/// Where an inline comment starts in an unquoted value: a `#` after white space.
fn comment_start(line: &str) -> Option<usize> {
    if line.starts_with('#') {
        return Some(0);
    }
    line.char_indices()
        .find(|(i, c)| *c == '#' && line[..*i].ends_with([' ', '\t']))
        .map(|(i, _)| i)
}

/// The decoded body of a double-quoted value and the offset of its closing quote.
fn double_quoted(body: &str) -> Option<(String, usize)> {
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, i)),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, 't')) => out.push('\t'),
                Some((_, e @ ('\\' | '"' | '\''))) => out.push(e),
                Some((_, other)) => {
                    out.push('\\');
                    out.push(other);
                }
                None => return None,
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::source::Sources;

    fn parse(text: &str) -> (Vec<(String, EnvValue)>, Diagnostics, Vec<String>) {
        let mut sources = Sources::new();
        let id = sources.add(".env", text);
        let (entries, diags) = read(text, id);
        let spans = entries
            .iter()
            .map(|e| text[e.origin.span()].to_string())
            .collect();
        (
            entries.into_iter().map(|e| (e.name, e.value)).collect(),
            diags,
            spans,
        )
    }

    fn text(s: &str) -> EnvValue {
        EnvValue::Text(s.to_string())
    }

    #[test]
    fn quotes_escapes_comments_and_export() {
        let input = "# c\n\nexport A=1\nB = 'x # y' # note\nC=\"a\\nb \\\"q\\\" \\\\\"\nD=plain value # comment\nE=\nF=a#b\n";
        let (entries, diags, spans) = parse(input);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            entries,
            vec![
                ("A".into(), text("1")),
                ("B".into(), text("x # y")),
                ("C".into(), text("a\nb \"q\" \\")),
                ("D".into(), text("plain value")),
                ("E".into(), text("")),
                ("F".into(), text("a#b")),
            ]
        );
        assert_eq!(spans[1], "x # y");
        assert_eq!(spans[3], "plain value");
    }

    #[test]
    fn quoted_values_span_lines_and_crlf_is_a_line_end() {
        let (entries, diags, _) = parse("A='one\ntwo'\r\nB=x\r\n");
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(entries[0].1, text("one\ntwo"));
        assert_eq!(entries[1].1, text("x"));
    }

    #[test]
    fn placeholders_are_kept_and_reported() {
        let (entries, diags, _) = parse("A=${PASS}\nB=\"x$Y\"\nC='$Z'\n");
        assert_eq!(
            entries[0].1,
            EnvValue::FromEnv {
                var: "PASS".into(),
                text: "${PASS}".into()
            }
        );
        assert_eq!(entries[1].1, text("x$Y"));
        assert_eq!(entries[2].1, text("$Z"));
        // A's placeholder is the whole value, the shell's: the analysis reports it, once.
        assert_eq!(diags.items.len(), 1, "{diags:?}");
        let d = &diags.items[0];
        assert_eq!(d.code, Code::Placeholder);
        let b_placeholder = "A=${PASS}\nB=\"x".len();
        assert_eq!(
            d.origin.map(|o| o.span()),
            Some(b_placeholder..b_placeholder + 2)
        );
    }

    #[test]
    fn broken_lines_are_reported_and_skipped() {
        let (entries, diags, _) = parse("A='open\nnot a line\nC=ok\n");
        assert_eq!(entries, vec![("C".into(), text("ok"))]);
        assert_eq!(diags.items[0].code, Code::InputSyntax);
        assert_eq!(diags.items[1].code, Code::InputSyntax);
        let (entries, diags, _) = parse("B\nC=ok\nD='x' y\n");
        assert_eq!(entries[0], ("C".into(), text("ok")));
        assert_eq!(diags.items[0].code, Code::NotImported);
        assert_eq!(diags.items[1].code, Code::InputSyntax);
    }
}
