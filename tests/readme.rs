//! The front page and the licence: README stays a short front page (set-up near the top, the
//! table of commands, a link to every manual page), every relative link of the project's pages
//! leads to a file and heading that exist, and LICENSE is the Apache-2.0 text the crate and the
//! image declare.

use crate::support::repo;

use sha2::Digest;
use std::path::Path;

/// The pages that together are the manual: README links each of them.
const PAGES: [&str; 5] = [
    "docs/guide.md",
    "docs/guarantees.md",
    "benches/RESULTS.md",
    "docs/diagnostics.md",
    "SECURITY.md",
];

/// The most lines README may have: a front page, the manual lives in `docs/`.
const README_MAX_LINES: usize = 250;

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn readme_is_a_short_front_page_linking_every_manual_page() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README has {lines} lines; at most {README_MAX_LINES} (move the manual to docs/)"
    );
    let setup = readme
        .find("## Set-up: two commands")
        .expect("README has its set-up");
    assert!(
        readme[..setup].lines().count() < 20,
        "the set-up is near the top"
    );
    assert!(
        readme.contains("## Commands\n"),
        "README has the table of commands"
    );
    for page in PAGES {
        assert!(
            links(&readme)
                .iter()
                .any(|l| l.split('#').next() == Some(page)),
            "README links {page}"
        );
    }
}

/// Every relative link of README, CONTRIBUTING, SECURITY and the manual pages names a file that
/// exists and, for a Markdown page, a heading it has.
#[test]
fn every_relative_link_of_the_pages_resolves() {
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in ["README.md", "CONTRIBUTING.md"].iter().chain(PAGES.iter()) {
        let dir = Path::new(page).parent().unwrap_or(Path::new(""));
        for link in links(&read(page)) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.to_string()
            } else {
                dir.join(file).to_string_lossy().into_owned()
            };
            checked += 1;
            let path = repo().join(&target);
            if !path.exists() {
                broken.push(format!("{page}: {link} (no {target})"));
            } else if !anchor.is_empty() && target.ends_with(".md") {
                let headings = slugs(&read(&target));
                if !headings.iter().any(|h| h == anchor) {
                    broken.push(format!("{page}: {link} (no heading #{anchor} in {target})"));
                }
            }
        }
    }
    assert!(checked > 20, "the pages' links were read ({checked})");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn links_and_heading_anchors_are_read_as_github_does() {
    let text = "See [a](docs/guide.md#use-in-ci) and [b](#x), `[not](code)`.\n\
                ## Language server: `svcgen lsp`\n### Set-up and the test command\n";
    assert_eq!(links(text), ["docs/guide.md#use-in-ci", "#x"]);
    assert_eq!(
        slugs(text),
        ["language-server-svcgen-lsp", "set-up-and-the-test-command"]
    );
}

/// LICENSE is the Apache License 2.0 as apache.org publishes it (byte for byte: its SHA-256),
/// and the crate and the image say Apache-2.0.
#[test]
fn license_is_the_apache_2_text_the_crate_and_the_image_declare() {
    let license = std::fs::read(repo().join("LICENSE")).expect("a LICENSE file");
    let digest: String = sha2::Sha256::digest(&license)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest, "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
        "LICENSE is https://www.apache.org/licenses/LICENSE-2.0.txt"
    );
    assert!(read("Cargo.toml").contains("\nlicense = \"Apache-2.0\"\n"));
    assert!(read("Containerfile").contains("org.opencontainers.image.licenses=\"Apache-2.0\""));
}

/// The targets of the Markdown links `[text](target)` outside code spans and code blocks.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if in_block {
            continue;
        }
        // Code spans are the odd-numbered pieces between backticks.
        for (i, piece) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            let mut rest = piece;
            while let Some(at) = rest.find("](") {
                let after = &rest[at + 2..];
                match after.find(')') {
                    Some(end) => {
                        found.push(after[..end].to_string());
                        rest = &after[end..];
                    }
                    None => break,
                }
            }
        }
    }
    found
}

/// The anchors GitHub gives a page's headings: lower case, punctuation but `-` and `_` dropped,
/// spaces as `-`.
fn slugs(text: &str) -> Vec<String> {
    let mut in_block = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                in_block = !in_block;
            }
            !in_block && line.starts_with('#') && line.contains("# ")
        })
        .map(|line| {
            line.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}
