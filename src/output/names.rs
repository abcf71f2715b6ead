//! Output paths stay inside what the user named: a batch profile's name becomes one folder under
//! `--out-dir`, and no path, link or name can lead out of it.

use std::path::{Component, Path, PathBuf};

/// The folder name a batch profile renders into: its file stem, refused when it is not one plain
/// path component (`..` from `...toml`, a control character such as a newline, not UTF-8).
pub fn batch_folder_name(profile: &Path) -> Result<String, String> {
    // Shown escaped: a newline in a file name must not start a new line of the log.
    let shown = profile.display().to_string().escape_debug().to_string();
    let stem = profile
        .file_stem()
        .ok_or_else(|| format!("{shown}: has no file name to name its output folder"))?;
    let name = stem.to_str().ok_or_else(|| {
        format!("{shown}: the file name is not UTF-8; rename the profile to name its output folder")
    })?;
    if let Some(problem) = folder_name_problem(name) {
        return Err(format!(
            "{shown}: `{}` cannot name an output folder under --out-dir ({problem}); rename the profile (letters, digits, `.`, `_`, `-`)",
            name.escape_debug()
        ));
    }
    if name.starts_with(OWN_PREFIX) {
        return Err(format!(
            "{shown}: `{}` cannot name an output folder under --out-dir (names starting with `{OWN_PREFIX}` are svcgen's temporary files in an output folder); rename the profile so its name does not start with `{OWN_PREFIX}`",
            name.escape_debug(),
        ));
    }
    Ok(name.to_string())
}

/// How svcgen's temporary files in an output folder begin: no batch folder may take such a name.
const OWN_PREFIX: &str = ".svcgen";

/// The longest file name Linux file systems take (`NAME_MAX`).
const MAX_NAME_BYTES: usize = 255;

/// Why `name` is not a safe single folder name, if it is not.
pub fn folder_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("it is empty")
    } else if name == "." || name == ".." {
        Some("it names the folder itself or its parent")
    } else if name.contains(['/', '\\']) {
        Some("it contains a path separator")
    } else if name.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if name.len() > MAX_NAME_BYTES {
        Some("it is longer than a file name may be (255 bytes)")
    } else {
        None
    }
}

/// An error unless `path` (following any symbolic link, of the file or of its folders) lies
/// inside `root`, itself a canonical path.
pub fn ensure_inside(root: &Path, path: &Path) -> Result<(), String> {
    if plainly_inside(root, path) {
        return Ok(());
    }
    let resolved = match std::fs::canonicalize(path) {
        Ok(real) => real,
        // Not there yet: its folder must be inside, and its name a plain one.
        Err(_) => {
            let parent = super::folder_of(path);
            let parent = std::fs::canonicalize(parent).map_err(|e| {
                format!(
                    "{}: cannot resolve its folder {}: {e}",
                    path.display(),
                    parent.display()
                )
            })?;
            parent.join(path.file_name().unwrap_or_default())
        }
    };
    if resolved.starts_with(root) {
        Ok(())
    } else {
        Err(format!(
            "{}: leads to {}, outside {}; refusing to write there (remove the link)",
            path.display(),
            resolved.display(),
            root.display()
        ))
    }
}

/// The common case without resolving every folder of the path (one `lstat` a component below
/// `root` instead of one per component from `/`): `root/a/b` where no component is `..` and
/// none that exists is a link.
fn plainly_inside(root: &Path, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(root) else {
        return false;
    };
    if !rest.components().all(|c| matches!(c, Component::Normal(_))) {
        return false;
    }
    let mut at = root.to_path_buf();
    for name in rest.components() {
        at.push(name);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return false,
            Ok(_) => {}
            Err(_) => return true, // not there yet: nothing below it can be a link
        }
    }
    true
}

/// Creates `folder` and any missing folder above it below `root` (a host file copied into
/// `OUT/files/<object>/`): each part a plain folder name and, once there, a folder of its own,
/// not a link (nothing is written through a link in an output folder, even one leading inside).
/// `folder` is then its own canonical path.
pub fn create_inside(root: &Path, folder: &Path) -> Result<(), String> {
    if plainly_inside(root, folder) && folder.is_dir() {
        return Ok(());
    }
    let Ok(rest) = folder.strip_prefix(root) else {
        ensure_inside(root, folder)?;
        return Err(through_a_link(folder));
    };
    let mut at = root.to_path_buf();
    for part in rest.components() {
        let name = part.as_os_str().to_string_lossy();
        if !matches!(part, Component::Normal(_)) || folder_name_problem(&name).is_some() {
            return Err(format!(
                "{}: `{}` cannot name an output folder; refusing to write there",
                folder.display(),
                name.escape_debug()
            ));
        }
        at.push(part);
        match std::fs::create_dir(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("{}: cannot create the folder: {e}", at.display())),
        }
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            ensure_inside(root, &at)?;
            return Err(through_a_link(&at));
        }
    }
    Ok(())
}

fn through_a_link(folder: &Path) -> String {
    format!(
        "{}: is a link, or a folder on the way is; svcgen writes nothing through a link in its \
         output folder: remove the link",
        folder.display()
    )
}

/// The canonical form of a folder that exists.
pub fn canonical_folder(dir: &Path) -> Result<PathBuf, String> {
    std::fs::canonicalize(dir).map_err(|e| format!("{}: cannot resolve: {e}", dir.display()))
}
