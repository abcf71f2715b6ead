//! What each diagnostic code means, for the rule tables of CI formats and for people: the page
//! that documents every code (made from the code table, `code.rs`) and each code's place on it.

use super::Code;

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

/// `docs/diagnostics.md`: every code's heading (its [`help_uri`] anchor), summary and severity,
/// in the table's order, as SARIF lists its rules. `UPDATE_DOCS=1 cargo test --test integration ci_formats::`
/// writes it; that test fails when the checked-in page differs.
pub fn page() -> String {
    let mut page = String::from(
        "# Diagnostic codes\n\n<!-- Written by `UPDATE_DOCS=1 cargo test --test integration ci_formats::` from the code table\n     \
         (src/diag/code.rs), the rules of `svcgen validate --format sarif`; do not edit. -->\n\n\
         Every problem svcgen reports has a stable code. `E…` codes are errors (exit 1), `W…` codes\n\
         warnings (exit 0 unless `--deny-warnings`). Code scanning links each result here.\n",
    );
    for code in Code::ALL {
        page.push_str(&format!(
            "\n## {}\n\n{} ({}).\n",
            heading(code),
            code.summary().trim_end_matches('.'),
            code.severity().as_str(),
        ));
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_a_description_and_an_anchor() {
        for code in Code::ALL {
            let text = code.summary();
            assert!(
                text.len() > 10 && !text.contains("///"),
                "{code:?}: {text:?}"
            );
        }
        assert_eq!(
            Code::TomlSyntax.summary(),
            "The profile is not valid TOML (including duplicate keys) or not UTF-8."
        );
        assert!(help_uri(Code::UnknownKey).ends_with("/docs/diagnostics.md#e0201-unknown-key"));
    }
}
