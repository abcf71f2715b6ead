//! Secret values in the texts svcgen shows: which names the spec model knows a secret under, and
//! where a secret's value stands in a text, so that every printer masks it.
//!
//! Readers that understand a text mark the exact span of a secret's value in [`crate::diag::source`];
//! on top of that, every line that names a secret (under its profile key, its variable name, or
//! an old name) has its value part masked, so that a text nobody could parse (a syntax error on
//! the secret's own line) is covered too.

use crate::model::{Edition, Model, Var};
use std::ops::Range;
use std::sync::OnceLock;

/// What a masked value is shown as, everywhere, whatever its length: a mask as long as the value
/// would tell its length.
pub const MASK: &str = "****";

/// The characters that end a URL's user name and password: `@`, and its Unicode look-alikes
/// (FULLWIDTH COMMERCIAL AT, SMALL COMMERCIAL AT), which a reader that normalizes the text
/// (NFKC, IDNA) reads as `@`: a password before one is masked, and refused, as before `@`.
pub const AT_SIGNS: [char; 3] = ['@', '\u{FF20}', '\u{FE6B}'];

/// Every name of a secret variable the model knows, lower case: profile keys and their last
/// segment, variable names, legacy names and names with a legacy prefix.
fn needles() -> &'static [String] {
    static NEEDLES: OnceLock<Vec<String>> = OnceLock::new();
    NEEDLES.get_or_init(|| {
        let model = Model::get();
        let mut out: Vec<String> = Vec::new();
        for var in model.vars.iter().filter(|v| v.secret) {
            let leaf = var.key.rsplit('.').next().unwrap_or(&var.key);
            let mut names = vec![var.key.clone(), leaf.to_string(), var.env.clone()];
            names.extend(var.legacy.iter().cloned());
            names.extend(legacy_prefixed(model, &var.env));
            for name in names {
                let name = name.to_ascii_lowercase();
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    })
}

/// Where the first secret name of [`needles`] in `line` ends (ignoring ASCII case): the least end
/// of each name's first occurrence.
fn first_needle_end(line: &str) -> Option<usize> {
    // A short line (every line of a common file) is compared in place: preparing a substring
    // search for each of the names costs more than comparing them at each position, and nothing
    // is allocated. A long line keeps the linear-time search over its lowercase copy.
    const SHORT_LINE: usize = 256;
    let ends = |at: Option<usize>, name: &String| at.map(|at| at + name.len());
    if line.len() > SHORT_LINE {
        let lower = line.to_ascii_lowercase();
        return (needles().iter())
            .filter_map(|n| ends(lower.find(n.as_str()), n))
            .min();
    }
    // Each position is compared only with the names that start with its letter, and the scan
    // stops where no name starting later can end before the least end found.
    let bytes = line.as_bytes();
    let by_first = needles_by_first_byte();
    let mut least: Option<usize> = None;
    for (at, first) in bytes.iter().enumerate() {
        if least.is_some_and(|end| at >= end) {
            break;
        }
        for needle in &by_first[usize::from(first.to_ascii_lowercase())] {
            let end = at + needle.len();
            if bytes
                .get(at..end)
                .is_some_and(|w| w.eq_ignore_ascii_case(needle))
            {
                least = Some(least.map_or(end, |l| l.min(end)));
            }
        }
    }
    least
}

/// [`needles`] by their first byte, for [`first_needle_end`]'s scan of a short line.
fn needles_by_first_byte() -> &'static [Vec<&'static [u8]>] {
    static BY_FIRST: OnceLock<Vec<Vec<&'static [u8]>>> = OnceLock::new();
    BY_FIRST.get_or_init(|| {
        let mut out = vec![Vec::new(); 256];
        for needle in needles().iter().filter(|n| !n.is_empty()) {
            out[usize::from(needle.as_bytes()[0])].push(needle.as_bytes());
        }
        out
    })
}

/// `env` with each old prefix that the container's current prefix replaced (`GLUU_X` for `CN_X`).
fn legacy_prefixed(model: &Model, env: &str) -> Vec<String> {
    model
        .container
        .legacy_prefixes
        .iter()
        .filter_map(|(old, new)| {
            env.strip_prefix(new.as_str())
                .map(|rest| format!("{old}{rest}"))
        })
        .collect()
}

/// The secret variable an environment name stands for: its own name, a legacy name, or its name
/// with a legacy prefix (`GLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE`).
pub fn secret_var_of_env(name: &str) -> Option<&'static Var> {
    let model = Model::get();
    model.vars.iter().filter(|v| v.secret).find(|v| {
        v.env == name
            || v.legacy.iter().any(|l| l == name)
            || legacy_prefixed(model, &v.env).iter().any(|l| l == name)
    })
}

/// The words of a variable name that name a credential (`CN_SQL_PASSWORD`, `CN_VAULT_TOKEN`).
const CREDENTIAL_WORDS: [&str; 11] = [
    "PASSWORD",
    "PASSWD",
    "PASS",
    "PWD",
    "PASSPHRASE",
    "TOKEN",
    "SECRET",
    "CREDENTIAL",
    "CREDENTIALS",
    "APIKEY",
    "KEY",
];

/// True for an environment variable's name the model does not know (neither a variable of the
/// spec nor one the image reads) whose words name a credential (`CN_SQL_PASSWORD`,
/// `CN_SECRET_VAULT_ROLE_ID`, `CN_VAULT_TOKEN`): the image or a sidecar may read it as one, so
/// its value is never shown. A name the model knows is judged by the model alone
/// (`CN_SECRET_ADAPTER` names no secret). Only what is shown changes, never what is written.
pub fn names_a_credential(name: &str) -> bool {
    let model = Model::get();
    let known = model.entries_by_env(name).next().is_some()
        || [Edition::A, Edition::B]
            .iter()
            .any(|&edition| model.image_reads(name, edition).is_some())
        || model.image.sql_password_file.env == name;
    if known {
        return false;
    }
    let upper = name.to_ascii_uppercase();
    let words: Vec<&str> = upper.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    words.iter().any(|w| CREDENTIAL_WORDS.contains(w))
        || words.windows(2).any(|pair| pair == ["ROLE", "ID"])
}

/// True when the name the model knows closest to `name` (its "did you mean") names a secret:
/// a value under a misspelled secret name (`secret_manager_passphrse`,
/// `CN_GOOGLE_SECRET_MANAGER_PASSPRASE`) is as secret as under the right one. Both the whole
/// name and its last `.` segment are tried, against profile keys, their last segment and
/// variable names.
pub fn nearly_names_a_secret(name: &str) -> bool {
    let leaf = name.rsplit('.').next().unwrap_or(name);
    if Model::get().entries_by_key(name).next().is_some() {
        // A key of the model is its own nearest name, and its last segment is a known name too:
        // the answer is whether either is a secret's name, without any distance computed.
        return [name, leaf]
            .iter()
            .any(|n| needles().iter().any(|s| s.eq_ignore_ascii_case(n)));
    }
    [name, leaf].iter().any(|n| nearest_name_is_a_secret(n))
}

/// True when the name the model knows closest to `name` is a secret's name.
fn nearest_name_is_a_secret(name: &str) -> bool {
    // Only a name close to a secret's name can have a secret as its nearest name: the few
    // secret names are tried first, so that the many names near no secret (200,000 `[env]`
    // entries) cost a handful of comparisons each, and the matcher over every name the model
    // knows is built only when one is near a secret.
    static SECRET: OnceLock<crate::support::suggest::Suggester<'static>> = OnceLock::new();
    let secret = SECRET.get_or_init(|| {
        crate::support::suggest::Suggester::new(needles().iter().map(String::as_str))
    });
    secret.suggest(name).is_some()
        && known_names()
            .suggest(name)
            .is_some_and(|near| needles().contains(&near.to_ascii_lowercase()))
}

/// Every name the model knows (profile keys, their last segment, variable names), prepared for
/// "did you mean": built on first use, which only a name near a secret's name needs.
fn known_names() -> &'static crate::support::suggest::Suggester<'static> {
    static KNOWN: OnceLock<crate::support::suggest::Suggester<'static>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let model = Model::get();
        crate::support::suggest::Suggester::new(model.vars.iter().flat_map(|v| {
            let leaf = v.key.rsplit('.').next().unwrap_or(&v.key);
            [v.key.as_str(), leaf, v.env.as_str()]
        }))
    })
}

/// True when a profile key is a secret variable's key (any edition).
pub fn is_secret_key(key: &str) -> bool {
    Model::get().vars.iter().any(|v| v.secret && v.key == key)
}

/// The byte ranges of the passwords of URLs written with one (`scheme://user:PASSWORD@host`),
/// anywhere in a text: a credential in a URL is a secret whatever the key or variable holding it
/// (svcgen refuses such a URL, and its message must not show the password either). A URL runs
/// to the next white space or the next `scheme://`; see [`url_password`] for the password in it.
pub fn url_password_ranges(text: &str) -> Vec<Range<usize>> {
    let starts: Vec<usize> = text.match_indices("://").map(|(at, _)| at + 3).collect();
    let mut out = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let next = starts.get(i + 1).map_or(text.len(), |n| n - 3);
        let end = text[start..next]
            .find(char::is_whitespace)
            .map_or(next, |e| start + e);
        if let Some(password) = url_password(&text[start..end]) {
            out.push(start + password.start..start + password.end);
        }
    }
    out
}

/// The range of the password in `rest`, what follows a URL's `scheme://` (or a `user:pw@host`
/// value): between the first `:` and the `@` that ends the user name and password. That `@` is
/// the last one of the authority (up to the first `/`, `?`, `#`, quote or backslash). When the
/// authority has none and what follows its last `:` is no port number, a password holding one of
/// those characters cut it short (`admin:SEC/RET@host`, or `SEC\"RET` as TOML escapes `SEC"RET`):
/// the `@` is the last one of `rest`, and more is masked rather than a password shown. (After a
/// port, `host:8200/a@b`, the `@` is in the path, as every URL reader reads it.) One rule for
/// the texts of [`url_password_ranges`], the values of messages and the URL check.
pub fn url_password(rest: &str) -> Option<Range<usize>> {
    let authority_end = rest
        .find(['/', '?', '#', '"', '\'', '\\'])
        .unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let port_follows = (authority.rsplit_once(':'))
        .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()));
    let at = match authority.rfind(AT_SIGNS) {
        Some(at) => at,
        None if !port_follows => rest.rfind(AT_SIGNS)?,
        None => return None,
    };
    let colon = rest[..at].find(':')?;
    (colon + 1 < at).then_some(colon + 1..at)
}

/// The range of the password in one value (a URL, or `user:password@host`): the whole value
/// is the URL, blanks and all. What `formats::without_password` masks in messages.
pub fn value_password(value: &str) -> Option<Range<usize>> {
    let start = value.find("://").map_or(0, |at| at + 3);
    url_password(&value[start..]).map(|r| start + r.start..start + r.end)
}

/// True when the raw text of a value (as written in its file, escapes and all) shows no password
/// the decoded `value` holds: its password must be one marked in the raw text, else the raw
/// text's own marks would leave it in clear (a TOML escape or a blank inside it, `SEC\"RET`).
pub fn raw_text_hides_passwords(raw: &str, value: &str) -> bool {
    let Some(password) = value_password(value) else {
        return true;
    };
    (url_password_ranges(raw).into_iter()).any(|r| raw[r] == value[password.clone()])
}

/// The byte ranges of values on lines that name a secret: what follows the first `=` or `:` after
/// the name, to the end of the line; and for a `name: SECRET` line (a Kubernetes `env` item), the
/// value of a `value:` line right after it. A value that goes on over more lines (a quote or a
/// TOML `"""` that closes on a later line, or never; a YAML `|` / `>` block) is masked to its end.
pub fn named_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut value_next = false;
    let mut start = 0;
    while start < text.len() {
        let line_end = text[start..]
            .find('\n')
            .map_or(text.len(), |i| start + i + 1);
        let body = text[start..line_end].trim_end_matches(['\n', '\r']);
        let named = first_needle_end(body);
        let value_at = match named {
            Some(after) => separator_value(body, after),
            None if value_next => value_line(body),
            None => None,
        };
        value_next = named.is_some() && value_at.is_none();
        let mut next = line_end;
        if let Some(at) = value_at
            && at < body.len()
            && !is_reference(&body[at..])
        {
            let end = value_end(text, start, start + at).max(start + body.len());
            out.push(start + at..end);
            next = next.max(end);
        }
        start = next;
    }
    out
}

/// Where a value starting at `at` (on the line starting at `line`) ends when it goes on past its
/// line: its closing quote (or `"""`), the end of its YAML block, or the end of the text when it
/// never closes. Otherwise `at` (the caller masks to the end of the line).
fn value_end(text: &str, line: usize, at: usize) -> usize {
    let value = &text[at..];
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    for triple in ["\"\"\"", "\'\'\'"] {
        if value.starts_with(triple) {
            return text[at + 3..]
                .find(triple)
                .map_or(text.len(), |i| at + 3 + i + 3);
        }
    }
    if let Some(quote) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) {
        let close = closing_quote(&text[at + 1..], quote).map_or(text.len(), |i| at + 1 + i + 1);
        return if close > line_end { close } else { at };
    }
    if value.starts_with(['|', '>']) {
        let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
        let own = indent(&text[line..]);
        let mut end = line_end;
        for next in text[line_end..].split_inclusive('\n').skip(1) {
            if !next.trim().is_empty() && indent(next) <= own {
                break;
            }
            end += next.len();
        }
        return end.min(text.len());
    }
    at
}

/// The offset of the closing `quote` in `rest`; a backslash escapes the next character within
/// double quotes.
fn closing_quote(rest: &str, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in rest.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quote == '"' => escaped = true,
            c if c == quote => return Some(i),
            _ => {}
        }
    }
    None
}

/// True for a TOML `{ file = "PATH" }` or `{ env = "NAME" }` reference: a path or a name, not
/// the secret, so it is shown.
fn is_reference(value: &str) -> bool {
    let Some(inner) = value.strip_prefix('{') else {
        return false;
    };
    let inner = inner.trim_start();
    ["file", "env"].iter().any(|key| {
        inner.strip_prefix(key).is_some_and(|rest| {
            let rest = rest.trim_start();
            rest.strip_prefix('=')
                .is_some_and(|v| v.trim_start().starts_with('"'))
        })
    })
}

/// The offset of the value after the first `=` or `:` at or after `from` (blanks skipped).
fn separator_value(line: &str, from: usize) -> Option<usize> {
    let sep = line[from..].find(['=', ':'])? + from + 1;
    let blanks = line[sep..].len() - line[sep..].trim_start().len();
    Some(sep + blanks)
}

/// The offset of the value of a `value:` line (`- value: x` too).
fn value_line(line: &str) -> Option<usize> {
    let trimmed = line.trim_start().trim_start_matches('-').trim_start();
    let rest = trimmed
        .strip_prefix("value")?
        .trim_start()
        .strip_prefix(':')?;
    let at = line.len() - rest.len();
    separator_value(line, at - 1)
}

/// A text that quotes what the user typed (a usage error, a tip) with what follows each
/// secret's name masked: on every line, after the first name of a secret the model knows, or a
/// word that nearly names one (`secret_manager_passphrse`), whatever separates the name from
/// its value (`=`, `:`, blanks), the rest of the line is [`MASK`]. More is masked rather than
/// a value shown: the line's end is not known to be the value's.
pub fn mask_echo(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let named = first_needle_end(body)
            .into_iter()
            .chain(near_secret_word_end(body))
            .min();
        let value_at = named.map(|end| {
            let rest = &body[end..];
            end + rest.len() - rest.trim_start_matches([' ', '\t', '=', ':']).len()
        });
        match value_at.filter(|&at| at < body.len()) {
            Some(at) => {
                out.push_str(&body[..at]);
                out.push_str(MASK);
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Where the first word of `line` that nearly names a secret ends (a misspelled name: its
/// value is as secret). Words are runs of name characters (`a-z0-9_.-`).
fn near_secret_word_end(line: &str) -> Option<usize> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let mut at = 0;
    for word in line.split(|c: char| !is_name(c)) {
        let start = at;
        at += word.len() + 1;
        let name = word.trim_start_matches('-');
        if name.len() >= 6 && nearly_names_a_secret(name) {
            return Some(start + word.len());
        }
    }
    None
}

/// A text with its secret values shown as [`MASK`] whatever their length (a mask as long as
/// the value would tell its length), line by line so that line numbers stay; offsets into the
/// original text are mapped onto it, so that a caret still points at the value.
pub struct Masked {
    pub text: String,
    /// Each masked piece of the original text and where its mask starts in `text`.
    cuts: Vec<(Range<usize>, usize)>,
}

impl Masked {
    /// `text` with each range (clamped to char boundaries; newlines kept) shown as [`MASK`].
    pub fn new(text: &str, ranges: &[Range<usize>]) -> Masked {
        let mut pieces: Vec<Range<usize>> = Vec::new();
        for range in ranges {
            let start = floor_char_boundary(text, range.start);
            let end = floor_char_boundary(text, range.end.max(start));
            let mut at = start;
            for line in text[start..end].split_inclusive('\n') {
                let body = line.trim_end_matches(['\n', '\r']);
                if !body.is_empty() {
                    pieces.push(at..at + body.len());
                }
                at += line.len();
            }
        }
        pieces.sort_by_key(|r| r.start);
        let mut merged: Vec<Range<usize>> = Vec::new();
        for piece in pieces {
            match merged.last_mut() {
                Some(last) if piece.start <= last.end => last.end = last.end.max(piece.end),
                _ => merged.push(piece),
            }
        }
        let (mut out, mut cuts, mut at) = (String::with_capacity(text.len()), Vec::new(), 0);
        for piece in merged {
            out.push_str(&text[at..piece.start]);
            cuts.push((piece.clone(), out.len()));
            out.push_str(MASK);
            at = piece.end;
        }
        out.push_str(&text[at..]);
        Masked { text: out, cuts }
    }

    /// Where `offset` of the original text is in the masked one: an offset inside a masked
    /// piece goes to the start of its mask, or to its end when `is_end`.
    pub fn offset(&self, offset: usize, is_end: bool) -> usize {
        let before = self
            .cuts
            .partition_point(|(r, _)| r.start < offset + usize::from(!is_end));
        let Some((range, start)) = before.checked_sub(1).map(|i| &self.cuts[i]) else {
            return offset;
        };
        if offset >= range.end {
            start + MASK.len() + (offset - range.end)
        } else if is_end {
            start + MASK.len()
        } else {
            *start
        }
    }
}

/// `text` with the value part of every line naming a secret replaced by [`MASK`] (for diffs, where
/// the lengths of values are not needed).
pub fn mask_named_lines(text: &str) -> String {
    let ranges = named_ranges(text);
    if ranges.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for range in ranges {
        out.push_str(&text[at..range.start]);
        out.push_str(MASK);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Masks the secret texts of a run in messages: one automaton over every secret text, so that
/// scrubbing many messages stays linear in their length whatever the number of secrets.
pub struct Scrubber {
    automaton: Option<aho_corasick::AhoCorasick>,
}

impl Scrubber {
    /// Texts shorter than four characters are left alone (they would garble every message and
    /// identify nothing); quotes around a value are not part of it.
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Scrubber {
        // Each line of a multi-line secret on its own too: a reader may quote one line of it.
        let mut texts: Vec<&str> = secrets
            .into_iter()
            .flat_map(|s| std::iter::once(s).chain(s.lines()))
            .map(|s| s.trim().trim_matches(['"', '\'']))
            .filter(|s| s.chars().count() >= 4)
            .collect();
        texts.sort_unstable();
        texts.dedup();
        let automaton = (!texts.is_empty())
            .then(|| {
                aho_corasick::AhoCorasick::builder()
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(&texts)
                    .ok()
            })
            .flatten();
        Scrubber { automaton }
    }

    /// `message` with every secret text inside a quoted fragment (between backticks or double
    /// quotes, where messages put the values they quote) replaced by [`MASK`]. A fragment that is
    /// a name (a key path or variable name such as `google.bogus`) is left whole unless it is the
    /// secret itself: masking a passphrase that happens to be a spec word (`google`) inside a
    /// name would show the passphrase by its absence. Text outside quotes is never a value.
    pub fn scrub(&self, message: &str) -> String {
        let Some(automaton) = &self.automaton else {
            return message.to_string();
        };
        let mut out = String::with_capacity(message.len());
        let mut rest = message;
        while let Some(open) = rest.find(['`', '"']) {
            let quote = &rest[open..open + 1];
            out.push_str(&rest[..=open]);
            let inner = &rest[open + 1..];
            let close = inner.find(quote).unwrap_or(inner.len());
            out.push_str(&self.scrub_fragment(automaton, &inner[..close]));
            rest = &inner[close..];
            if let Some(after) = rest.strip_prefix(quote) {
                out.push_str(quote);
                rest = after;
            }
        }
        out.push_str(rest);
        out
    }

    /// The ranges of `text` (lines of a file shown in a snippet) where a secret text stands as a
    /// value: a whole word in the value part of its line (after the line's first `=` or `:`), or
    /// a whole quoted string. Another key holding the passphrase's text must not show it; a key
    /// or table name that happens to be the same word (`[google]`) is not a value and stays.
    pub fn value_ranges(&self, text: &str) -> Vec<Range<usize>> {
        let Some(automaton) = &self.automaton else {
            return Vec::new();
        };
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "_-.".contains(c));
        let mut out = Vec::new();
        let mut line_start = 0;
        for line in text.split_inclusive('\n') {
            let value_start = line.find(['=', ':']).map_or(line.len(), |i| i + 1);
            for m in automaton.find_iter(line) {
                let (before, after) = (
                    line[..m.start()].chars().next_back(),
                    line[m.end()..].chars().next(),
                );
                let quoted = before.is_some_and(|b| "\"'`".contains(b)) && before == after;
                if quoted || (m.start() >= value_start && !word(before) && !word(after)) {
                    out.push(line_start + m.start()..line_start + m.end());
                }
            }
            line_start += line.len();
        }
        out
    }

    fn scrub_fragment(&self, automaton: &aho_corasick::AhoCorasick, fragment: &str) -> String {
        let is_name = !fragment.is_empty()
            && fragment
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
        let whole_secret = automaton
            .find(fragment)
            .is_some_and(|m| m.start() == 0 && m.end() == fragment.len());
        if is_name && !whole_secret {
            return fragment.to_string();
        }
        automaton.replace_all(fragment, &vec![MASK; automaton.patterns_len()])
    }
}

/// The largest char boundary at or below `offset`, within the text (masks and spans are cut
/// there; `source` re-exports it).
pub fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A secret's text elsewhere in a shown line is masked where it is a value; a key or table
    /// of the same word is not a value and stays.
    #[test]
    fn a_secret_text_is_masked_where_it_stands_as_a_value() {
        let scrubber = Scrubber::new(["google", "Tr0ub4dor"]);
        let text = "[google]\ndialect = \"Tr0ub4dor\"\nX=google\nnote = \"googled\"\nkey: google\n";
        let shown: Vec<&str> = (scrubber.value_ranges(text).into_iter())
            .map(|r| &text[r])
            .collect();
        assert_eq!(shown, ["Tr0ub4dor", "google", "google"]);
    }

    #[test]
    fn less_cpu_per_render_short_and_long_lines_find_the_same_secret_name() {
        // A short line is searched in place, a long one by substring search: same answer.
        let padding = "x".repeat(300);
        for pad in ["", padding.as_str()] {
            let line = format!("# {pad} Secret_Manager_PASSPHRASE = \"hunter22\"");
            let text = format!("{line}\n");
            let shown: Vec<&str> = named_ranges(&text)
                .iter()
                .map(|r| &text[r.clone()])
                .collect();
            assert_eq!(shown, ["\"hunter22\""], "line of {} bytes", line.len());
            let end = line.find(" = ").unwrap();
            assert_eq!(first_needle_end(&line), Some(end));
        }
        assert_eq!(first_needle_end("no secret here"), None);
    }

    /// The scan of a short line by first letter finds the least end of any secret name, as
    /// comparing every name at every position does: names inside names, a longer name starting
    /// first but ending last, names at the line's end, cut short, and in mixed case.
    #[test]
    fn a_short_line_finds_the_least_end_of_any_secret_name_as_a_full_comparison_does() {
        let every_name = |line: &str| {
            (needles().iter())
                .filter_map(|n| {
                    let bytes = line.as_bytes();
                    let at = (bytes.windows(n.len()))
                        .position(|w| w.eq_ignore_ascii_case(n.as_bytes()))?;
                    Some(at + n.len())
                })
                .min()
        };
        let mut lines = vec![String::new(), "x".into(), "passphras".into()];
        for name in needles() {
            let upper = name.to_ascii_uppercase();
            lines.push(name.clone());
            lines.push(format!("ab {upper}"));
            lines.push(name[..name.len() - 1].to_string());
            lines.push(format!("{name}{name}"));
            for other in needles().iter().take(12) {
                lines.push(format!("{upper} = {other}"));
                lines.push(format!("x{other}.{name}=1"));
            }
        }
        for line in &lines {
            assert_eq!(first_needle_end(line), every_name(line), "{line:?}");
        }
    }

    #[test]
    fn lines_naming_a_secret_have_their_value_masked() {
        let text = "a = 1\nsecret_manager_passphrase = \"hunter22\" # x\nb = 2\r\nGLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE=abc\r\n";
        let ranges = named_ranges(text);
        let shown: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(shown, ["\"hunter22\" # x", "abc"]);
        let masked = Masked::new(text, &ranges).text;
        assert!(
            !masked.contains("hunter22") && !masked.contains("abc"),
            "{masked}"
        );
    }

    #[test]
    fn a_kubernetes_env_item_masks_the_value_line() {
        let text = "- name: CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\n  value: \"s3cret\"\n- name: X\n  value: y\n";
        let masked = mask_named_lines(text);
        assert!(!masked.contains("s3cret"), "{masked}");
        assert!(masked.contains("value: y"), "{masked}");
        assert!(
            masked.contains("name: CN_GOOGLE_SECRET_MANAGER_PASSPHRASE"),
            "{masked}"
        );
    }

    #[test]
    fn a_value_over_several_lines_is_masked_to_its_end() {
        let cases = [
            (
                "X=1\nCN_GOOGLE_SECRET_MANAGER_PASSPHRASE=\"Zq9a\nZq9b\nY=2\n",
                "Zq9b\nY=2\n",
            ),
            (
                "CN_GOOGLE_SECRET_MANAGER_PASSPHRASE='Zq9a\nZq9b'\nY=2\n",
                "Zq9b'",
            ),
            (
                "secret_manager_passphrase = \"\"\"\nZq9a\nZq9b\"\"\"\ny = 2\n",
                "Zq9b\"\"\"",
            ),
            (
                "e:\n  CN_GOOGLE_SECRET_MANAGER_PASSPHRASE: |\n    Zq9a\n\n    Zq9b\n  Y: 2\n",
                "Zq9b\n",
            ),
        ];
        for (text, masked_to) in cases {
            let masked = Masked::new(text, &named_ranges(text)).text;
            assert!(!masked.contains("Zq9"), "{masked}");
            let end = text.find(masked_to).unwrap() + masked_to.len();
            assert!(masked.ends_with(&text[end..]), "{text:?} -> {masked:?}");
        }
    }

    #[test]
    fn a_reference_is_not_masked() {
        let text = "secret_manager_passphrase = { file = \"nope/pass.txt\" }\n";
        assert!(named_ranges(text).is_empty());
        let literal = "CN_GOOGLE_SECRET_MANAGER_PASSPHRASE={abc}\n";
        assert_eq!(named_ranges(literal).len(), 1);
    }

    #[test]
    fn a_mask_has_a_fixed_length_and_offsets_follow() {
        let text = "k = \"longer-secret\" # c\nx = 1\n";
        let masked = Masked::new(text, std::slice::from_ref(&(4..19)));
        assert_eq!(masked.text, "k = **** # c\nx = 1\n");
        assert_eq!((masked.offset(4, false), masked.offset(19, true)), (4, 8));
        assert_eq!(masked.offset(10, true), 8);
        assert_eq!(masked.offset(22, false), 11);
        assert_eq!(masked.offset(2, false), 2);
        let lines = Masked::new("a=\"s1\ns2\"\nb\n", std::slice::from_ref(&(2..9)));
        assert_eq!(lines.text, "a=****\n****\nb\n");
    }

    #[test]
    fn misspelled_secret_names_are_secret_names() {
        assert!(nearly_names_a_secret("google.secret_manager_passphrse"));
        assert!(nearly_names_a_secret(
            "env.CN_GOOGLE_SECRET_MANAGER_PASSPRASE"
        ));
        assert!(nearly_names_a_secret("CN_GOOGLE_SECRET_MANAGER_PASSPRASE"));
        assert!(!nearly_names_a_secret("google.project_id"));
        assert!(!nearly_names_a_secret("google.bogus"));
    }

    #[test]
    fn start_work_proportional_model_keys_answer_as_the_matcher_does() {
        // The shortcut for the model's own keys gives the matcher's answer, for every key.
        let mut secret_keys = 0;
        for var in &Model::get().vars {
            let leaf = var.key.rsplit('.').next().unwrap_or(&var.key);
            let by_matcher = [var.key.as_str(), leaf]
                .iter()
                .any(|n| nearest_name_is_a_secret(n));
            assert_eq!(nearly_names_a_secret(&var.key), by_matcher, "{}", var.key);
            secret_keys += usize::from(by_matcher);
        }
        assert!(secret_keys > 0, "some keys name secrets");
    }

    #[test]
    fn legacy_names_are_secret_names() {
        assert!(secret_var_of_env("GLUU_GOOGLE_SECRET_MANAGER_PASSPHRASE").is_some());
        assert!(secret_var_of_env("CN_GOOGLE_SECRET_MANAGER_PASSPHRASE").is_some());
        assert!(secret_var_of_env("CN_GOOGLE_PROJECT_ID").is_none());
    }

    #[test]
    fn scrub_leaves_short_texts() {
        let scrubber = Scrubber::new(["\"abcd\"", "ab"]);
        assert_eq!(scrubber.scrub("value `abcd` here"), "value `****` here");
        assert_eq!(scrubber.scrub("value \"x abcd y"), "value \"x **** y");
        assert_eq!(scrubber.scrub("value `ab`"), "value `ab`");
    }

    #[test]
    fn scrub_never_touches_names_or_unquoted_text() {
        let scrubber = Scrubber::new(["google"]);
        let message = "unknown key `google.bogus` under google";
        assert_eq!(scrubber.scrub(message), message);
        assert_eq!(scrubber.scrub("got `google`"), "got `****`");
        assert_eq!(
            scrubber.scrub("needs KEY=VALUE, got \"k=google\""),
            "needs KEY=VALUE, got \"k=****\""
        );
    }

    /// The password of a URL is a secret of any text it stands in.
    #[test]
    fn a_url_password_is_a_secret_wherever_it_stands() {
        let text =
            "addr = \"https://u:hunter2@vault:8200/x@y\"\nCN_X=http://a:b@h\nu = \"https://v@h\"\n";
        let shown: Vec<&str> = url_password_ranges(text)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert_eq!(shown, ["hunter2", "b"]);
    }

    /// A password holding `/`, `?`, `#`, a quote or an escape is masked to
    /// the last `@` (more rather than less), in a text and in one value.
    #[test]
    fn a_password_holding_a_delimiter_is_masked_whole() {
        let text = "a = \"https://u:Zq/9@h\" b = \"https://u:Zq\\\"9@h\"\nX=http://u:Zq?#9@h/p\n";
        let shown: Vec<&str> = (url_password_ranges(text).into_iter())
            .map(|r| &text[r])
            .collect();
        assert_eq!(shown, ["Zq/9", "Zq\\\"9", "Zq?#9"]);
        let value = "https://u:Zq 9@h";
        assert_eq!(value_password(value).map(|r| &value[r]), Some("Zq 9"));
        assert!(!raw_text_hides_passwords("\"https://u:Zq 9@h\"", value));
        assert!(raw_text_hides_passwords(
            "\"https://u:Zq9@h\"",
            "https://u:Zq9@h"
        ));
        assert!(raw_text_hides_passwords(
            "\"https://h:8443/@me\"",
            "https://h:8443/"
        ));
    }
}
