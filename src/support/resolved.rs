//! Paths with their links resolved, each resolved once within a scope. Resolving a path asks
//! the file system once per folder on it; checking and rendering one profile resolves the same
//! few paths (its output folder, each host file) several times (the input log, the root's
//! check, each output that refers to a host file by a relative path). Inside [`scope`], the
//! first answer for a path is reused until the scope ends; outside any scope (the language
//! server, `validate`), every call asks the file system. Nothing outlives the scope.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

thread_local! {
    /// The paths resolved in the current scope of this thread (`None`: no scope), each with its
    /// answer: where it leads, or the kind of error resolving it gave.
    static RESOLVED: RefCell<Option<Answers>> = const { RefCell::new(None) };
}

type Answers = HashMap<PathBuf, Result<PathBuf, std::io::ErrorKind>>;

/// Runs `work` with each path it resolves through [`canonicalize`] resolved once. A scope
/// inside another shares the outer one. Nothing inside may create or replace the files it
/// resolves (a check and a render only read): a path that did not resolve stays unresolved.
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
pub fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    let known = RESOLVED.with(|r| r.borrow().as_ref().and_then(|m| m.get(path).cloned()));
    if let Some(answer) = known {
        return answer.map_err(std::io::Error::from);
    }
    let answer = std::fs::canonicalize(path);
    RESOLVED.with(|r| {
        if let Some(map) = r.borrow_mut().as_mut() {
            let kept = answer.as_ref().map(Clone::clone).map_err(|e| e.kind());
            map.insert(path.to_path_buf(), kept);
        }
    });
    answer
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
        // A path that does not resolve keeps its answer within the scope; a new scope starts
        // empty.
        let later = dir.path().join("later");
        scope(|| {
            assert!(canonicalize(&later).is_err());
            std::fs::create_dir(&later).unwrap();
            assert!(canonicalize(&later).is_err());
            assert!(canonicalize(&link).unwrap().ends_with("b"));
        });
        scope(|| assert!(canonicalize(&later).is_ok()));
    }
}
