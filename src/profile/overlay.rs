//! The overlay convention: a profile used only as `--overlay` says which profile it lies over
//! with a comment line
//!
//! ```toml
//! #:svcgen overlay-of = "prod.toml"
//! ```
//!
//! (a TOML string, relative to the overlay's folder; a comment may follow). The command line
//! (`load_layers`) and the language server then both check `prod.toml` with this file over it
//! (`svcgen validate prod.toml --overlay this.toml`) instead of the overlay alone, which would
//! lack `edition`: one parser, so that the editor and the CLI never disagree on a directive.

/// The directive's prefix.
pub const DIRECTIVE: &str = "#:svcgen overlay-of";

/// The base a profile names as the one it overlays, and the byte span of the directive line.
pub fn overlay_of(text: &str) -> Option<(String, std::ops::Range<usize>)> {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let trimmed = content.trim_start();
        if let Some(rest) = trimmed.strip_prefix(DIRECTIVE) {
            let indent = content.len() - trimmed.len();
            let base = parse_value(rest)?;
            return Some((base, start + indent..start + content.len()));
        }
        start += line.len();
    }
    None
}

/// `= "base.toml"  # comment` to `base.toml`, read as TOML.
fn parse_value(rest: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(&format!("v {rest}")).ok()?;
    match table.get("v") {
        Some(toml::Value::String(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_directive_with_a_trailing_comment() {
        let text = "# EU\n#:svcgen overlay-of = \"prod.toml\"  # use with prod\n[config]\n";
        let (base, span) = overlay_of(text).unwrap();
        assert_eq!(base, "prod.toml");
        assert_eq!(
            &text[span],
            "#:svcgen overlay-of = \"prod.toml\"  # use with prod"
        );
    }

    #[test]
    fn a_malformed_directive_is_no_directive() {
        assert_eq!(overlay_of("#:svcgen overlay-of prod.toml\n"), None);
        assert_eq!(overlay_of("#:svcgen overlay-of = \"\"\n"), None);
        assert_eq!(overlay_of("edition = \"B\"\n"), None);
    }
}
