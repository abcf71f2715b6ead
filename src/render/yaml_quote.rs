//! Quoting for YAML outputs: every string becomes a double-quoted scalar that YAML 1.1 readers
//! (docker-compose v1, Kubernetes) and YAML 1.2 readers read back unchanged.
//!
//! The result is also a valid JSON string. Beyond JSON's escapes, characters YAML does not allow
//! raw (C1 controls, DEL, U+FFFE/U+FFFF) and the ones YAML 1.1 treats as line breaks inside a
//! scalar (U+0085, U+2028, U+2029) are written as `\uXXXX`, so no reader folds or rejects them.

/// `value` as a double-quoted YAML (and JSON) scalar.
pub fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn needs_escape(c: char) -> bool {
    matches!(c as u32, 0..=0x1f | 0x7f..=0x9f | 0x2028 | 0x2029 | 0xfeff | 0xfffe | 0xffff)
}

#[cfg(test)]
mod tests {
    use super::quote;

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
