//! Paths with their links resolved, each resolved once within a scope, for how the outputs
//! name a host file: checking and rendering one profile writes the same few paths (its output
//! folder, each host file) into several outputs, and resolving a path asks the file system once
//! per folder on it. Inside [`scope`], the first answer for a path is reused until the scope
//! ends; outside any scope, every call asks the file system. Nothing outlives the scope.
//!
//! Never used for a check: whether a path is inside the profile's root is decided by
//! `Root::admit`, which resolves the path afresh right before it is opened.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

thread_local! {
    /// The paths resolved in the current scope of this thread (`None`: no scope), each with its
    /// answer: where it leads, or the kind of error resolving it gave.
    static RESOLVED: RefCell<Option<Answers>> = const { RefCell::new(None) };
}

/// Keyed by the path's exact bytes: `Path` equality ignores a trailing `/` or `/.`, which
/// resolve differently (a link to a file followed by `/` does not resolve at all).
type Answers = HashMap<OsString, PathBuf>;

/// Runs `work` with each path it resolves through [`canonicalize`] resolved once. A scope
/// inside another shares the outer one.
pub fn scope<T>(work: impl FnOnce() -> T) -> T {
    let outer = RESOLVED.with(|r| r.borrow().is_some());
    if outer {
        return work();
    }
    RESOLVED.with(|r| *r.borrow_mut() = Some(HashMap::new()));
    // Ended on every way out, a panic included: a worker thread goes on to the next profile.
    struct End;
    impl Drop for End {
        fn drop(&mut self) {
            RESOLVED.with(|r| *r.borrow_mut() = None);
        }
    }
    let _end = End;
    work()
}

/// [`std::fs::canonicalize`], answered from the current scope when it resolved `path` before.
/// A path that did not resolve is asked again each time (it may exist later).
pub fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    let known =
        RESOLVED.with(|r| (r.borrow().as_ref()).and_then(|m| m.get(path.as_os_str()).cloned()));
    if let Some(real) = known {
        return Ok(real);
    }
    let real = std::fs::canonicalize(path)?;
    RESOLVED.with(|r| {
        if let Some(map) = r.borrow_mut().as_mut() {
            map.insert(path.as_os_str().to_owned(), real.clone());
        }
    });
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_resolved_once_inside_a_scope_and_every_time_outside() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let relink = || {
            std::fs::remove_file(&link).unwrap();
            std::os::unix::fs::symlink(&b, &link).unwrap();
        };
        scope(|| {
            let first = canonicalize(&link).unwrap();
            relink();
            assert_eq!(
                canonicalize(&link).unwrap(),
                first,
                "reused within the scope"
            );
        });
        // Outside a scope, the file system is asked: the link now leads to `b`.
        assert!(canonicalize(&link).unwrap().ends_with("b"));
        // A path that does not resolve is asked again: it resolves once it exists.
        let later = dir.path().join("later");
        scope(|| {
            assert!(canonicalize(&later).is_err());
            std::fs::create_dir(&later).unwrap();
            assert!(canonicalize(&later).is_ok());
        });
    }

    #[test]
    fn a_path_written_with_a_trailing_slash_is_not_taken_for_the_path_without() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let slashed = PathBuf::from(format!("{}/", link.display()));
        scope(|| {
            assert!(
                canonicalize(&slashed).is_err(),
                "a file's link followed by /"
            );
            assert_eq!(
                canonicalize(&link).unwrap(),
                std::fs::canonicalize(&file).unwrap()
            );
            assert!(canonicalize(&slashed).is_err(), "still its own answer");
        });
    }
}
