//! Quoting for `.env` files, so that docker compose's env_file reader and python-dotenv both read
//! back exactly the value.
//!
//! Single quotes are taken literally by compose, and python-dotenv only unescapes `\\` and `\'`
//! inside them; so a value without `'`, without `\\` and not ending in `\` is safe there. Other
//! values go in double quotes with `\\`, `\"`, `\n`, `\r`, `\t` escapes, which both readers decode
//! alike, but compose expands `$` in double quotes and python-dotenv does not: a value that needs
//! double quotes and holds `$` cannot be written safely and is refused. So is a value ending in a
//! backslash: compose's reader (and python-dotenv before 1.2.4) takes a quote after a backslash
//! as escaped, in both quoting styles, and would run on past the closing quote.

/// The value as it must appear after `NAME=`, or why it cannot be written.
pub fn quote(value: &str) -> Result<String, String> {
    if value.contains('\0') {
        return Err("it contains a NUL character".to_string());
    }
    if value.ends_with('\\') {
        return Err(
            "it ends with a backslash, which compose's .env reader takes as escaping the closing quote"
                .to_string(),
        );
    }
    let single_safe = !value.contains('\'')
        && !value.contains("\\\\")
        && !value.ends_with('\\')
        && !value.contains('\r');
    if single_safe {
        return Ok(format!("'{value}'"));
    }
    if value.contains('$') {
        return Err(
            "it holds `$` together with a single quote, a double backslash, a carriage return or a \
             trailing backslash: compose and python-dotenv would read it differently"
                .to_string(),
        );
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn plain_values_are_single_quoted() {
        assert_eq!(quote("stale").unwrap(), "'stale'");
        assert_eq!(quote("").unwrap(), "''");
        assert_eq!(quote("$HOME ${X} #x a: b").unwrap(), "'$HOME ${X} #x a: b'");
        assert_eq!(
            quote(r#"{"default":"sql"}"#).unwrap(),
            r#"'{"default":"sql"}'"#
        );
        assert_eq!(quote(r"a\b").unwrap(), r"'a\b'");
    }

    #[test]
    fn quotes_and_backslashes_use_double_quotes() {
        assert_eq!(quote("it's").unwrap(), r#""it's""#);
        assert_eq!(quote(r"a\\b").unwrap(), r#""a\\\\b""#);
        assert!(
            quote("a\\").is_err(),
            "a trailing backslash would escape the closing quote"
        );

        assert_eq!(quote("say \"hi\" it's").unwrap(), r#""say \"hi\" it's""#);
        assert_eq!(quote("a\r\nb'").unwrap(), r#""a\r\nb'""#);
    }

    #[test]
    fn dollar_with_a_single_quote_is_refused() {
        assert!(quote("it's $5").is_err());
        assert!(quote("a\0b").is_err());
    }
}
