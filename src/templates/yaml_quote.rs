//! Quoting for YAML outputs: every string becomes a double-quoted scalar that YAML 1.1 readers
//! (docker-compose v1, Kubernetes) and YAML 1.2 readers read back unchanged.
//!
//! The result is also a valid JSON string. Beyond JSON's escapes, characters YAML does not allow
//! raw (C1 controls, DEL, U+FFFE/U+FFFF) and the ones YAML 1.1 treats as line breaks inside a
//! scalar (U+0085, U+2028, U+2029) are written as `\uXXXX`, so no reader folds or rejects them.
//!
//! [`fold_lines`] then keeps every line of a rendered YAML file within [`WIDTH`] columns (the
//! limit of `yamllint -d default`) without changing a value: a long double-quoted scalar is
//! continued on the next lines after an escaped line break (`\` at the end of a line, which
//! YAML removes together with the next line's indentation), and a long comment is wrapped.

/// `value` as a double-quoted YAML (and JSON) scalar.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    // Writing to a String cannot fail.
    let _ = quote_into(&mut out, value);
    out
}

/// [`quote`] written to `out` (a String, or a template's output).
pub fn quote_into<W: std::fmt::Write>(out: &mut W, value: &str) -> std::fmt::Result {
    super::double_quoted_into(out, value, |c, out| match needs_escape(c) {
        true => write!(out, "\\u{:04x}", c as u32),
        false => out.write_char(c),
    })
}

fn needs_escape(c: char) -> bool {
    matches!(c as u32, 0..=0x1f | 0x7f..=0x9f | 0x2028 | 0x2029 | 0xfeff | 0xfffe | 0xffff)
}

/// The longest line `yamllint -d default` accepts.
pub const WIDTH: usize = 80;

/// [`fold_lines`] of a rendered file, taken and handed back as it is when no line is longer than
/// [`WIDTH`] bytes (most outputs): no line is then copied one by one into a new text.
pub fn fold_long_lines(text: String) -> String {
    match has_long_line(&text) {
        false => text,
        true => fold_lines(&text),
    }
}

/// Whether a line of `text` is longer than [`WIDTH`] bytes.
fn has_long_line(text: &str) -> bool {
    long_line_start(text).is_some()
}

/// Where the first line of `text` longer than [`WIDTH`] bytes starts. Looks at the next
/// `WIDTH + 1` bytes from each line's start for the last newline among them: none means the
/// line is too long; one means every line before it fits, and the search goes on after it.
/// Most bytes are skipped, not read one by one.
fn long_line_start(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(window) = bytes.get(start..=start + WIDTH) {
        match window.iter().rposition(|&b| b == b'\n') {
            Some(newline) => start += newline + 1,
            None => return Some(start),
        }
    }
    None
}

/// `text` (rendered YAML) with every line longer than [`WIDTH`] folded where that keeps its
/// meaning: a comment, or a line that ends with a double-quoted scalar. Others stay as they are.
pub fn fold_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // The text up to each long line is copied in one piece: most lines are short.
    while let Some(start) = long_line_start(rest) {
        let end = (rest[start..].find('\n')).map_or(rest.len(), |newline| start + newline);
        let body = &rest[start..end];
        out.push_str(&rest[..start]);
        // Bytes bound characters: only a line of more bytes than the width is counted.
        let folded = match body.chars().count() <= WIDTH {
            true => None,
            false => fold_comment(body).or_else(|| fold_scalar(body)),
        };
        out.push_str(folded.as_deref().unwrap_or(body));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A whole-line comment wrapped at spaces, each piece with the same indentation and `# `.
fn fold_comment(line: &str) -> Option<String> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let text = line[indent..].strip_prefix("# ")?;
    let lead = format!("{}# ", &line[..indent]);
    let mut lines: Vec<String> = Vec::new();
    let mut current = lead.clone();
    for word in text.split(' ') {
        let fits = current.chars().count() + 1 + word.chars().count() <= WIDTH;
        if current.len() > lead.len() && !fits {
            lines.push(std::mem::replace(&mut current, lead.clone()));
        } else if current.len() > lead.len() {
            current.push(' ');
        }
        current.push_str(word);
    }
    lines.push(current);
    Some(lines.join("\n"))
}

/// Where the double-quoted scalar that ends `line` begins (byte index of its opening quote),
/// if the line ends with one in a value position (after `: ` or `- `).
fn trailing_scalar(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let (mut i, mut start, mut last) = (0, None, None);
    while i < bytes.len() {
        match (bytes[i], start) {
            (b'"', None) => start = Some(i),
            (b'\\', Some(_)) => i += 1,
            (b'"', Some(s)) => {
                last = Some((s, i));
                start = None;
            }
            _ => {}
        }
        i += 1;
    }
    let (open, close) = last?;
    let value_position = line[..open].ends_with(": ") || line[..open].ends_with("- ");
    (start.is_none() && close + 1 == line.len() && value_position).then_some(open)
}

/// The pieces of a scalar's inside that may not be split: an escape sequence or one character.
/// An iterator, so that folding a long value holds one line of pieces at a time, not one per
/// character of the value.
fn tokens(inside: &str) -> impl Iterator<Item = &str> {
    let mut rest = inside;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        let len = match c {
            '\\' if rest[1..].starts_with('u') => 6,
            '\\' => 2,
            c => c.len_utf8(),
        };
        let (token, tail) = rest.split_at(len.min(rest.len()));
        rest = tail;
        Some(token)
    })
}

/// A line ending with a long double-quoted scalar, continued after escaped line breaks. A
/// piece breaks after a space where one is near the end, and a continuation never starts with
/// a space (YAML strips it with the indentation). Memory is the output plus one line's pieces.
fn fold_scalar(line: &str) -> Option<String> {
    let open = trailing_scalar(line)?;
    let line_indent = line.len() - line.trim_start_matches([' ', '-']).len();
    let indent = " ".repeat(line_indent + 2);
    // Room for the closing `\` or `"` at the end of each line.
    let first_room = WIDTH.checked_sub(line[..=open].chars().count() + 1)?;
    let room = WIDTH.checked_sub(indent.len() + 1).filter(|r| *r > 0)?;
    let mut out = String::with_capacity(line.len() + (line.len() / room + 1) * (indent.len() + 2));
    out.push_str(&line[..=open]);
    let mut current: Vec<&str> = Vec::new();
    let mut continuation = false;
    let mut width = 0;
    for token in tokens(&line[open + 1..line.len() - 1]) {
        let limit = if continuation { room } else { first_room };
        let size = token.chars().count();
        if width + size > limit && !current.is_empty() {
            let cut = current
                .iter()
                .rposition(|t| *t == " ")
                .filter(|&i| i + 1 < current.len() && i + 1 >= current.len().saturating_sub(16));
            let carried = match cut {
                Some(i) if token != " " => current.split_off(i + 1),
                _ => Vec::new(),
            };
            current.iter().for_each(|t| out.push_str(t));
            out.push_str("\\\n");
            out.push_str(&indent);
            width = carried.iter().map(|t| t.chars().count()).sum();
            current = carried;
            continuation = true;
        }
        // A space that starts a continuation is escaped, or YAML would strip it.
        let token = if token == " " && current.is_empty() && continuation {
            "\\ "
        } else {
            token
        };
        current.push(token);
        width += token.chars().count();
    }
    current.iter().for_each(|t| out.push_str(t));
    out.push('"');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{WIDTH, fold_lines, fold_long_lines, has_long_line, quote};

    #[test]
    fn long_scalars_and_comments_fold_within_the_width() {
        let value = format!(
            "{} \\\"x\" {}{}",
            "a".repeat(70),
            "é".repeat(90),
            " ".repeat(100)
        );
        let text = format!(
            "# {}\nkey:\n  - name: {}\n",
            "word ".repeat(30).trim_end(),
            quote(&value)
        );
        let folded = fold_lines(&text);
        assert!(
            folded.lines().all(|l| l.chars().count() <= WIDTH),
            "{folded}"
        );
        assert!(folded.lines().count() > 4, "{folded}");
        let doc: serde_json::Value = serde_saphyr::from_str(&folded).unwrap();
        assert_eq!(doc["key"][0]["name"], serde_json::Value::String(value));
        assert_eq!(fold_lines("short: \"x\"\n"), "short: \"x\"\n");
    }

    /// A file with no long line is handed back whole (the same text, not a copy); one with a
    /// long line is folded as `fold_lines` folds it, wherever the long line is.
    #[test]
    fn a_file_without_long_lines_is_handed_back_unfolded() {
        let short = format!("a: \"{}\"\nb: 1\r\n", "é".repeat(30));
        let text = short.clone();
        let at = text.as_ptr();
        let kept = fold_long_lines(text);
        assert_eq!((kept.as_ptr(), kept.as_str()), (at, short.as_str()));
        let long = format!("# {}\n", "word ".repeat(30));
        for text in [
            long.clone(),
            format!("a: 1\n{long}"),
            format!("a: 1\n{}", long.trim_end()),
        ] {
            assert_eq!(fold_long_lines(text.clone()), fold_lines(&text));
            assert_ne!(fold_lines(&text), text, "the long line is folded");
        }
    }

    /// Only the long lines are folded, each as it would be alone, wherever it is among short
    /// ones (a long comment, a long scalar, a line of many bytes but few characters, a line
    /// neither can fold, `\r\n` endings); the rest of the text is kept byte for byte.
    #[test]
    fn each_long_line_is_folded_as_it_would_be_alone() {
        let comment = format!("# {}", "word ".repeat(30).trim_end());
        let scalar = format!("  - name: {}", quote(&"v ".repeat(60)));
        let wide = format!("k: \"{}\"", "é".repeat(60));
        let unfoldable = format!("k: {}", "x".repeat(100));
        let lines = [
            "a: 1",
            &comment,
            "",
            &scalar,
            &wide,
            "b: 2",
            &unfoldable,
            &comment,
            "c: 3\r",
        ];
        for end in ["", "\n"] {
            let text = lines.join("\n") + end;
            let alone = |line: &str| match line.chars().count() > WIDTH {
                true => fold_lines(&format!("{line}\n"))
                    .trim_end_matches('\n')
                    .to_string(),
                false => line.to_string(),
            };
            let expected: Vec<String> = lines.iter().map(|line| alone(line)).collect();
            assert_eq!(fold_lines(&text), expected.join("\n") + end);
            assert_ne!(alone(&comment), comment, "a long comment is folded");
            assert_ne!(alone(&scalar), scalar, "a long scalar is folded");
            assert_eq!(alone(&unfoldable), unfoldable);
        }
    }

    /// The window search finds a line longer than the width wherever it is (first, last, between
    /// short ones, with or without its newline), and never one of exactly the width.
    #[test]
    fn a_long_line_is_found_wherever_it_is() {
        let lines = |lengths: &[usize]| -> String {
            let lines: Vec<String> = lengths.iter().map(|n| "x".repeat(*n)).collect();
            lines.join("\n")
        };
        for lengths in [
            vec![WIDTH],
            vec![WIDTH + 1],
            vec![0, WIDTH + 1],
            vec![WIDTH, WIDTH, 0, WIDTH],
            vec![3, 40, WIDTH, 79, WIDTH + 1, 2],
            vec![WIDTH + 1, 1],
            vec![1; 300],
            vec![],
        ] {
            for text in [lines(&lengths), lines(&lengths) + "\n"] {
                let long = text.split('\n').any(|line| line.len() > WIDTH);
                assert_eq!(has_long_line(&text), long, "{lengths:?}");
            }
        }
    }

    #[test]
    fn plain_and_special_strings() {
        assert_eq!(quote("no"), "\"no\"");
        assert_eq!(quote("0755"), "\"0755\"");
        assert_eq!(quote("a: b # c"), "\"a: b # c\"");
        assert_eq!(quote("say \"hi\" \\ now"), r#""say \"hi\" \\ now""#);
        assert_eq!(quote("a\nb\tc"), r#""a\nb\tc""#);
        assert_eq!(
            quote("\u{85}\u{2028}\u{7f}\u{0}"),
            r#""\u0085\u2028\u007f\u0000""#
        );
        assert_eq!(quote("é😀"), "\"é😀\"");
    }

    #[test]
    fn output_is_valid_json_with_the_same_value() {
        for s in ["x", "\u{1}\u{9f}", "\u{fffe}", "'\"\\", "${X}"] {
            let parsed: String = serde_json::from_str(&quote(s)).unwrap();
            assert_eq!(parsed, s);
        }
    }
}
