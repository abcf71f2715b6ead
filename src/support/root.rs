//! The folder a profile may read from: its root. A profile is repository content, and a
//! repository's content must not publish the files of the machine that renders it (a GitOps
//! repo-server renders every tenant's profile). So a host file copied or read into an output
//! and an `extends` base are read only from inside the root, as kustomize's load restrictor
//! does for its generators: the nearest folder above the profile that holds `.git`, else the
//! profile's own folder, unless the command line names another ([`ROOT_OPTION`]). Paths are
//! compared with every link resolved, so a link that leads outside is outside.

use std::path::{Path, PathBuf};

/// The option that names the root on the command line.
pub const ROOT_OPTION: &str = "--root";

/// A profile's root: its canonical folder, and how it was found (for the message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    dir: PathBuf,
    given: bool,
}

impl Root {
    /// The root of the profile whose folder is `folder` (`.` for standard input or text with
    /// no folder): `given` when the command line names one, else the nearest folder at or
    /// above `folder` holding `.git`, else `folder` itself.
    pub fn of(folder: &Path, given: Option<&Path>) -> Root {
        if let Some(given) = given {
            return Root {
                dir: canonical(given),
                given: true,
            };
        }
        let dir = canonical(folder);
        let repo = dir.ancestors().find(|d| d.join(".git").exists());
        Root {
            dir: repo.map_or(dir.clone(), Path::to_path_buf),
            given: false,
        }
    }

    /// [`Root::of`], found once per command for each folder (a batch's profiles share a few):
    /// `inputs` keeps what was found.
    pub fn of_within(folder: &Path, given: Option<&Path>, inputs: &super::inputs::Inputs) -> Root {
        let dir = inputs.root_of(folder, given, || Root::of(folder, given).dir);
        Root {
            dir,
            given: given.is_some(),
        }
    }

    /// The root's folder (canonical).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `Ok` when `path` (links resolved) lies inside the root; else an error naming the path,
    /// where it leads, the root and the option that widens it. `what` names the file's role
    /// ("the host file of `token_server.cert_file`", "the base").
    pub fn admit(&self, path: &Path, what: &str) -> Result<(), String> {
        // Resolved here, right before the caller opens the file, never taken from an earlier
        // answer: a path resolved earlier in the run may lead elsewhere now.
        match super::inputs::canonical_path(path) {
            Some(real) if real.starts_with(&self.dir) => Ok(()),
            _ => Err(self.outside(path, what)),
        }
    }

    /// The refusal. It names the path as written, not where it leads or the root's absolute
    /// folder: a message (and the fingerprint CI formats make of it) must not depend on where
    /// the repository is checked out.
    fn outside(&self, path: &Path, what: &str) -> String {
        let found = if self.given {
            format!("the folder given with {ROOT_OPTION}")
        } else {
            "the nearest folder above the profile holding .git, else the profile's folder"
                .to_string()
        };
        format!(
            "{}: {what} lies outside the profile's root ({found}; links resolved); a profile \
             reads host files and bases only from inside its root: move the file into it, or \
             widen the root with {ROOT_OPTION} DIR",
            super::escape::one_line(&path.display().to_string()),
        )
    }
}

/// `path` with its links resolved (as far as it exists), or as given.
fn canonical(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    super::inputs::canonical_path(path).unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::Root;

    #[test]
    fn a_link_leading_out_of_the_root_is_outside_and_the_repository_is_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("tenant")).unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        std::fs::write(repo.join("common.pem"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), repo.join("tenant/link")).unwrap();
        let root = Root::of(&repo.join("tenant"), None);
        assert!(root.admit(&repo.join("tenant/../common.pem"), "f").is_ok());
        let err = root.admit(&repo.join("tenant/link"), "f").unwrap_err();
        assert!(
            err.contains("--root DIR") && err.contains("tenant/link"),
            "{err}"
        );
        assert!(root.admit(&dir.path().join("secret"), "f").is_err());
        let wide = Root::of(&repo.join("tenant"), Some(dir.path()));
        assert!(wide.admit(&repo.join("tenant/link"), "f").is_ok());
    }
}
