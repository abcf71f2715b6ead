//! User-controlled text (a file name, a path) written into a comment or header of a generated
//! file: one line, always. A newline in a file name would otherwise end the comment and inject
//! TOML, YAML or `.env` lines of its own.

/// `text` with every control character (newline, carriage return, tab, escape, ...) written as
/// its Rust escape (`\n`, `\u{1b}`); other characters, including non-ASCII letters, as they are.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(one_line("a\nb\r\tc"), "a\\nb\\r\\tc");
        assert_eq!(one_line("héllo"), "héllo");
    }
}
