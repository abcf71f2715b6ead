//! Host paths as an output refers to them: relative to the folder the output is written to, so
//! that compose (and the operator following DEPLOY.md) find the file wherever `--out-dir` is.

use std::path::{Component, Path, PathBuf};

/// How `host` (absolute `host_path`) is written in an output that lives in `folder`; as written
/// in the profile when the output's folder is unknown (stdout).
pub fn host_reference(host: &str, host_path: Option<&Path>, folder: Option<&Path>) -> String {
    let (Some(host_path), Some(folder)) = (host_path, folder) else {
        return host.to_string();
    };
    let from = real_path(folder);
    let to = real_path(host_path);
    let relative = pathdiff::diff_paths(&to, &from).unwrap_or(to);
    let text = relative.to_string_lossy().into_owned();
    if text.starts_with("../") || text == ".." {
        text
    } else {
        format!("./{text}")
    }
}

/// The absolute path without `.`/`..` parts, symbolic links resolved in the part that exists
/// (an output folder may not exist yet).
fn real_path(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut normal = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    // Resolved at once when it exists (a host file, an output folder rendered before), through
    // the profile's scope (see `support::resolved`); else from the part that exists.
    if let Ok(real) = crate::support::resolved::canonicalize(&normal) {
        return real;
    }
    let mut existing = normal.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return normal,
        }
    }
    let mut real =
        crate::support::resolved::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    real.extend(rest.iter().rev());
    real
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_to_the_output_folder() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("profiles");
        std::fs::create_dir_all(profile.join("files")).unwrap();
        std::fs::write(profile.join("files/a.crt"), "x").unwrap();
        let host = profile.join("files/a.crt");
        let out = dir.path().join("out/deep");
        assert_eq!(
            host_reference("files/a.crt", Some(&host), Some(&out)),
            "../../profiles/files/a.crt"
        );
        assert_eq!(
            host_reference("files/a.crt", Some(&host), Some(&profile)),
            "./files/a.crt"
        );
        assert_eq!(
            host_reference("files/a.crt", Some(&host), None),
            "files/a.crt"
        );
    }
}
