//! Where a diagnostic is, for CI dashboards: a path relative to the repository root, and a
//! fingerprint that stays the same from run to run.
//!
//! The root is the git top-level of the current folder (the nearest folder upwards holding
//! `.git`, found without running git, so the image without git finds it too), else the current
//! folder. Code scanning and GitLab place a finding by its path in the repository, so a file is
//! named relative to that root however it was given on the command line; a file outside the
//! root keeps its absolute path.

use super::json::Item;
use crate::diag::source::lexical;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The key of svcgen's fingerprint in SARIF `partialFingerprints` (versioned: a change of what
/// is hashed is a new key, not new values under the old one).
pub const FINGERPRINT_KEY: &str = "svcgenFingerprint/v1";

/// Where a finding is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Place {
    /// A file inside the root: its path relative to the root (bytes as named), `/` separators.
    InRoot(PathBuf),
    /// A file outside the root: its absolute path.
    Outside(PathBuf),
    /// Not a file (`<stdin>`, `--set`), or no place at all.
    Nowhere,
}

impl Place {
    /// The path as GitLab shows it (relative for a file in the root); `None` when nowhere.
    pub fn path(&self) -> Option<String> {
        match self {
            Place::InRoot(relative) => Some(relative.display().to_string()),
            Place::Outside(path) => Some(path.display().to_string()),
            Place::Nowhere => None,
        }
    }

    /// The URI of the file: relative (to `%SRCROOT%`) in the root, `file://` outside it.
    pub fn uri(&self) -> Option<String> {
        match self {
            Place::InRoot(relative) => {
                Some(percent_encode(relative.as_os_str().as_encoded_bytes()))
            }
            Place::Outside(path) => Some(format!(
                "file://{}",
                percent_encode(path.as_os_str().as_encoded_bytes())
            )),
            Place::Nowhere => None,
        }
    }
}

/// A diagnostic ready for a CI format: the item, where it is, and its fingerprint.
#[derive(Debug, Clone)]
pub struct Finding {
    pub item: Item,
    pub place: Place,
    pub fingerprint: String,
}

/// The repository root findings are placed against (see the module docs).
pub fn repository_root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(&cwd)
        .to_path_buf()
}

/// The items placed against `root` (a relative name is taken from `cwd`), each with a
/// fingerprint of its code, place and (scrubbed) message, and the count of the same before it:
/// no line number, absolute path or run-specific text enters it, so a finding keeps its
/// fingerprint when lines above it change or the repository is checked out elsewhere.
pub fn findings(items: Vec<Item>, root: &Path, cwd: &Path) -> Vec<Finding> {
    let mut seen: HashMap<(String, Place, String), usize> = HashMap::new();
    items
        .into_iter()
        .map(|item| {
            let place = match &item.path {
                Some(path) => place_of(path, root, cwd),
                None => place(item.file.as_deref(), root, cwd),
            };
            let count = seen
                .entry((item.code.clone(), place.clone(), item.message.clone()))
                .or_default();
            let fingerprint = fingerprint(&item, &place, *count);
            *count += 1;
            Finding {
                item,
                place,
                fingerprint,
            }
        })
        .collect()
}

/// Where a source name is: not a file for `<stdin>` and the command-line options (`--set`).
fn place(name: Option<&str>, root: &Path, cwd: &Path) -> Place {
    let Some(name) = name.filter(|n| *n != crate::diag::source::STDIN_NAME && !n.starts_with("--"))
    else {
        return Place::Nowhere;
    };
    place_of(Path::new(name), root, cwd)
}

/// Where the file at `path` (its bytes as named, not a lossy name) is.
fn place_of(path: &Path, root: &Path, cwd: &Path) -> Place {
    let absolute = lexical(&cwd.join(path));
    match absolute.strip_prefix(root) {
        Ok(relative) if relative.as_os_str().is_empty() => Place::Outside(absolute),
        Ok(relative) => Place::InRoot(relative.components().collect()),
        Err(_) => Place::Outside(absolute),
    }
}

fn fingerprint(item: &Item, place: &Place, count: usize) -> String {
    let place = match place {
        Place::InRoot(relative) => format!("in-root:{}", relative.display()),
        Place::Outside(path) => format!("outside:{}", path.display()),
        Place::Nowhere => "nowhere".to_string(),
    };
    let mut hasher = Sha256::new();
    for part in [
        item.code.as_str(),
        &place,
        &item.message,
        &count.to_string(),
    ] {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A path as a URI path: unreserved characters and `/` kept, every other byte `%XX` (a byte
/// of a name that is not UTF-8 too: it names that file, not one with U+FFFD in its name).
pub fn percent_encode(path: &[u8]) -> String {
    let mut out = String::with_capacity(path.len());
    for &byte in path {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(file: &str, message: &str) -> Item {
        Item {
            file: Some(file.to_string()),
            ..Item::io(message)
        }
    }

    #[test]
    fn names_are_placed_relative_to_the_root_however_given() {
        let (root, cwd) = (Path::new("/repo"), Path::new("/repo/deploy"));
        assert_eq!(
            place(Some("p.toml"), root, cwd),
            Place::InRoot("deploy/p.toml".into())
        );
        assert_eq!(
            place(Some("../a/./b.toml"), root, cwd),
            Place::InRoot("a/b.toml".into())
        );
        assert_eq!(
            place(Some("/repo/x y.toml"), root, cwd).uri().unwrap(),
            "x%20y.toml"
        );
        let outside = place(Some("../../etc/p.toml"), root, cwd);
        assert_eq!(outside.uri().unwrap(), "file:///etc/p.toml");
        assert_eq!(place(Some("<stdin>"), root, cwd), Place::Nowhere);
        assert_eq!(place(Some("--set"), root, cwd), Place::Nowhere);
        assert_eq!(place(None, root, cwd), Place::Nowhere);
    }

    #[test]
    fn fingerprints_ignore_where_the_repository_is_and_count_repeats() {
        let items = vec![
            item("p.toml", "m"),
            item("p.toml", "m"),
            item("p.toml", "n"),
        ];
        let here = findings(items.clone(), Path::new("/a"), Path::new("/a"));
        let there = findings(items, Path::new("/b/c"), Path::new("/b/c"));
        let prints: Vec<&str> = here.iter().map(|f| f.fingerprint.as_str()).collect();
        assert_eq!(
            prints,
            there
                .iter()
                .map(|f| f.fingerprint.as_str())
                .collect::<Vec<_>>()
        );
        assert_ne!(prints[0], prints[1]);
        assert_ne!(prints[0], prints[2]);
    }
}
