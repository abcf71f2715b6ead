//! What each diagnostic code means, for the rule tables of CI formats: a short description and
//! the page that documents it. The description is the code's doc comment in `code.rs` (the one
//! place it is written), read from that file's text, which is compiled in.

use super::Code;

/// `code.rs` itself: its doc comments describe the codes.
const CODE_SOURCE: &str = include_str!("code.rs");

/// The documentation of every code, one heading each (`docs/diagnostics.md`), as published
/// with the repository Cargo.toml names; `example.invalid` (a name that never resolves) until
/// it names one.
pub fn diagnostics_page() -> String {
    let repository = env!("CARGO_PKG_REPOSITORY").trim_end_matches('/');
    let repository = if repository.is_empty() {
        "https://example.invalid/svcgen"
    } else {
        repository
    };
    format!("{repository}/blob/main/docs/diagnostics.md")
}

/// The heading of a code on the diagnostics page (`E0201 unknown-key`).
pub fn heading(code: Code) -> String {
    format!("{} {}", code.id(), code.name())
}

/// The help URI of a code: its heading's anchor on the diagnostics page.
pub fn help_uri(code: Code) -> String {
    format!("{}#{}", diagnostics_page(), anchor(&heading(code)))
}

/// The anchor a Markdown renderer (GitHub, GitLab) gives a heading: lower case, spaces as `-`,
/// other punctuation dropped.
pub fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The code's doc comment, its lines joined with spaces.
pub fn description(code: Code) -> String {
    let variant = format!("{code:?}");
    let body = CODE_SOURCE
        .split_once("pub enum Code {")
        .map_or("", |(_, rest)| {
            rest.split_once("\n}").map_or(rest, |(b, _)| b)
        });
    let mut doc: Vec<&str> = Vec::new();
    for line in body.lines().map(str::trim) {
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.trim());
        } else if line.trim_end_matches(',') == variant {
            return doc.join(" ");
        } else if !line.is_empty() {
            doc.clear();
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_description_and_an_anchor() {
        for code in Code::ALL {
            let text = description(code);
            assert!(
                text.len() > 10 && !text.contains("///"),
                "{code:?}: {text:?}"
            );
        }
        assert_eq!(
            description(Code::TomlSyntax),
            "The profile is not valid TOML (including duplicate keys) or not UTF-8."
        );
        assert!(help_uri(Code::UnknownKey).ends_with("/docs/diagnostics.md#e0201-unknown-key"));
    }
}
