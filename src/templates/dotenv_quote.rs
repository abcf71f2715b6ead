//! Spelling a value for a `.env` file, for the three readers people use, each with its defaults:
//!
//! - docker compose v2's `env_file` reader: unquoted values are cut at ` #`, trimmed, and
//!   `$VAR`, `${VAR}` and `$$` are interpolated; single-quoted values are literal (a backslash
//!   only keeps the next quote from closing); double-quoted ones decode `\\ \" \n \r \t` and are
//!   interpolated.
//! - python-dotenv (interpolation on, its default): unquoted values are cut at whitespace + `#`
//!   and trimmed; `\\` and `\'` are decoded in single quotes, `\\ \" \n \r \t` (and a few more)
//!   in double quotes; `${VAR}` and `${VAR:-default}` are expanded in every form, single quotes
//!   included.
//! - `docker run --env-file`: no processing at all; the value is every character after the
//!   first `=` of the line (a line ends at `\n`; a `\r` before it is dropped).
//!
//! A plain value (see [`is_plain`]) is written unquoted and all three read it exactly. Any other
//! value needs quotes, which `docker run` keeps as part of the value; the spelling chosen is the
//! one compose v2 reads exactly, and python-dotenv too where it can. Every reader that would
//! read something else is named in [`Spelling::differs`], so the renderer can warn.

/// A program that reads `.env` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    ComposeV2,
    PythonDotenv,
    DockerRunEnvFile,
}

impl Reader {
    /// The reader as a user knows it.
    pub fn describe(self) -> &'static str {
        match self {
            Reader::ComposeV2 => "docker compose v2 (env_file)",
            Reader::PythonDotenv => "python-dotenv (with its default interpolation)",
            Reader::DockerRunEnvFile => "docker run --env-file",
        }
    }
}

/// How a value is written after `NAME=`, and which readers would not read it back exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelling {
    pub text: String,
    pub differs: Vec<Reader>,
}

/// `docker run --env-file` reads lines with Go's `bufio.Scanner`, whose longest line is 64 KiB.
const DOCKER_RUN_MAX_LINE: usize = 64 * 1024;

/// The line `name=value` as written, with every reader that would not read it exactly: the
/// spelling of [`quote`], plus the line length `docker run` can read.
pub fn quote_line(name: &str, value: &str) -> Result<Spelling, String> {
    let mut spelling = quote(value)?;
    let too_long = name.len() + 1 + spelling.text.len() >= DOCKER_RUN_MAX_LINE;
    if too_long && !spelling.differs.contains(&Reader::DockerRunEnvFile) {
        spelling.differs.push(Reader::DockerRunEnvFile);
    }
    Ok(spelling)
}

/// The value as it must appear after `NAME=`, or why no reader can carry it.
pub fn quote(value: &str) -> Result<Spelling, String> {
    let (text, python_differs) = spelled(value)?;
    let differs = match (&text, python_differs) {
        (std::borrow::Cow::Borrowed(_), _) => Vec::new(),
        (_, false) => vec![Reader::DockerRunEnvFile],
        (_, true) => vec![Reader::PythonDotenv, Reader::DockerRunEnvFile],
    };
    Ok(Spelling {
        text: text.into_owned(),
        differs,
    })
}

/// The text of [`quote`], borrowed from `value` when it is plain (the `.env` template's
/// formatter writes it as it is, with no copy), and whether python-dotenv would read a quoted
/// one differently.
pub fn spelled(value: &str) -> Result<(std::borrow::Cow<'_, str>, bool), String> {
    if value.contains('\0') {
        return Err("it contains a NUL character, which no environment can hold".to_string());
    }
    if is_plain(value) {
        return Ok((std::borrow::Cow::Borrowed(value), false));
    }
    let single_safe =
        !value.contains(['\'', '\r']) && !value.contains("\\\\") && !value.ends_with('\\');
    Ok(match single_safe {
        true => (format!("'{value}'").into(), python_expands(value)),
        false => (double_quoted(value).into(), value.contains('$')),
    })
}

/// True when the value, written unquoted, is read exactly by all three readers: no line break,
/// no whitespace at either end (trimmed), no whitespace before `#` (a comment), no `$`
/// (interpolated), no quote first (a quoted value). A `#` first is read as a value by the three,
/// but as a comment by other readers (svcgen's own import among them): it is quoted too.
pub fn is_plain(value: &str) -> bool {
    // Most values (names, hosts, numbers, paths) are printable ASCII without a blank, a quote,
    // `#` or `$`: plain by every rule below, told by one table load a byte.
    value.bytes().all(|b| PLAIN_BYTES[usize::from(b)]) || plain_by_rules(value)
}

/// [`is_plain`] by its rules, character by character.
fn plain_by_rules(value: &str) -> bool {
    let blank = |c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c);
    let ends_blank = value.starts_with(blank) || value.ends_with(blank);
    let comment = value
        .char_indices()
        .any(|(i, c)| c == '#' && value[..i].ends_with(blank));
    !ends_blank
        && !comment
        && !value.contains(['\n', '\r', '$'])
        && !value.starts_with(['\'', '"', '#'])
}

/// The bytes a value made only of is plain: printable ASCII but `"`, `#`, `$` and `'`.
const PLAIN_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x21;
    while b < 0x7f {
        table[b] = !matches!(b as u8, b'"' | b'#' | b'$' | b'\'');
        b += 1;
    }
    table
};

/// Double quotes with the escapes compose v2 and python-dotenv both decode, and every `$`
/// doubled for compose's interpolation.
fn double_quoted(value: &str) -> String {
    super::double_quoted(value, |c, out| match c {
        '$' => out.push_str("$$"),
        c => out.push(c),
    })
}

/// Whether python-dotenv's interpolation (`${NAME}` or `${NAME:-default}`, its only forms)
/// finds anything to expand in the value.
fn python_expands(value: &str) -> bool {
    value.match_indices("${").any(|(start, _)| {
        let rest = &value[start + 2..];
        match rest.find(['}', ':']) {
            Some(end) if rest[end..].starts_with('}') => true,
            Some(end) => rest[end..].starts_with(":-") && rest[end..].contains('}'),
            None => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{Reader, quote};

    fn spelled(value: &str) -> (String, Vec<Reader>) {
        let s = quote(value).unwrap();
        (s.text, s.differs)
    }

    #[test]
    fn plain_values_are_unquoted_and_read_alike_everywhere() {
        for value in [
            "stale",
            "",
            "a#b",
            r"a\b",
            r#"{"default":"sql"}"#,
            "a=b",
            "`x`",
        ] {
            assert_eq!(spelled(value), (value.to_string(), vec![]), "{value:?}");
        }
    }

    /// Every value made of the table's plain bytes is plain by the rules (the table may leave a
    /// plain byte to the rules, never let through one they quote).
    #[test]
    fn the_plain_bytes_agree_with_the_rules() {
        use super::{PLAIN_BYTES, plain_by_rules};
        let all: String = (0u8..=0x7f)
            .filter(|b| PLAIN_BYTES[usize::from(*b)])
            .map(char::from)
            .collect();
        assert_eq!(all.len(), 90, "{all}");
        assert!(plain_by_rules(&all) && plain_by_rules(&all.chars().rev().collect::<String>()));
        for c in all.chars() {
            assert!(plain_by_rules(&c.to_string()), "{c:?}");
        }
        // The bytes left out are left to the rules: some make a value quoted.
        for c in [' ', '#', '$', '\'', '"', '\n'] {
            assert!(!plain_by_rules(&format!("{c}a")) || !plain_by_rules(&format!("a {c}")));
        }
    }

    #[test]
    fn quoted_values_name_docker_run() {
        use Reader::*;
        assert_eq!(spelled("a b "), ("'a b '".into(), vec![DockerRunEnvFile]));
        assert_eq!(spelled("x #c"), ("'x #c'".into(), vec![DockerRunEnvFile]));
        assert_eq!(spelled("#x"), ("'#x'".into(), vec![DockerRunEnvFile]));
        assert_eq!(spelled("$HOME"), ("'$HOME'".into(), vec![DockerRunEnvFile]));
        assert_eq!(spelled("it's").0, "it's", "a quote inside is plain");
        assert_eq!(
            spelled("'tis"),
            (r#""'tis""#.into(), vec![DockerRunEnvFile])
        );
        assert_eq!(
            spelled("a\\").0,
            "a\\",
            "a trailing backslash alone is plain"
        );
        assert_eq!(
            spelled(" a\\"),
            (r#"" a\\""#.into(), vec![DockerRunEnvFile])
        );
        assert_eq!(
            spelled("a\r\nb'"),
            (r#""a\r\nb'""#.into(), vec![DockerRunEnvFile])
        );
    }

    #[test]
    fn python_dotenv_is_named_where_it_expands_or_keeps_a_doubled_dollar() {
        use Reader::*;
        let both = vec![PythonDotenv, DockerRunEnvFile];
        assert_eq!(spelled("${X}"), ("'${X}'".into(), both.clone()));
        assert_eq!(spelled("a${X:-d}b"), ("'a${X:-d}b'".into(), both.clone()));
        assert_eq!(spelled("it's $5"), (r#""it's $$5""#.into(), both));
        assert_eq!(spelled("${a:b}").1, vec![DockerRunEnvFile]);
        assert_eq!(spelled("${X").1, vec![DockerRunEnvFile]);
    }

    #[test]
    fn nul_is_refused() {
        assert!(quote("a\0b").is_err());
        let long = "x".repeat(70_000);
        assert_eq!(quote(&long).unwrap().differs, vec![]);
        assert_eq!(
            super::quote_line("N", &long).unwrap().differs,
            vec![Reader::DockerRunEnvFile]
        );
    }
}
