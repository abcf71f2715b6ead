//! A path with every link resolved, as [`std::fs::canonicalize`] gives it, in fewer system calls.

use std::path::{Path, PathBuf};

/// `path` with every link resolved ([`std::fs::canonicalize`]'s answer). On Linux the path is
/// opened once without being read (`O_PATH`: a FIFO or a device is not opened for I/O) and the
/// kernel names what it opened (`/proc/self/fd/N`): realpath(3) asks `readlink` of each name
/// on the way, so a path of n names costs n look-ups from the root (79 `readlink`s a profile of
/// a batch). A path that cannot be opened so fails with the error of the same walk realpath
/// makes (a missing name, a file used as a folder, a loop of links). Without `/proc`, and for a
/// name the kernel cannot give from this process's root, the answer is realpath's.
pub fn real_path(path: &Path) -> std::io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    if let Some(real) = named_by_the_kernel(path)? {
        return Ok(real);
    }
    std::fs::canonicalize(path)
}

/// The kernel's name of the file `path` opens, when it gives a usable one; `Err` when the path
/// cannot be opened.
#[cfg(target_os = "linux")]
fn named_by_the_kernel(path: &Path) -> std::io::Result<Option<PathBuf>> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let file = (std::fs::OpenOptions::new().read(true))
        .custom_flags(libc::O_PATH | libc::O_CLOEXEC)
        .open(path)?;
    let Ok(real) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) else {
        return Ok(None);
    };
    // Outside this process's root the name starts "(unreachable)"; a file removed since it
    // was opened has " (deleted)" after its name: realpath answers those.
    let deleted = real.as_os_str().as_encoded_bytes().ends_with(b" (deleted)");
    Ok((real.is_absolute() && !deleted).then_some(real))
}

#[cfg(test)]
mod tests {
    use super::real_path;

    /// The same answers as realpath: links (to files and folders, relative and absolute, in
    /// chains), `.` and `..` after a link, a FIFO (not opened for I/O: nothing blocks), and
    /// the same error for a missing path or a file used as a folder.
    #[test]
    fn real_path_answers_as_realpath_does() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::fs::write(base.join("a/b/file"), "x").unwrap();
        symlink("a/b", base.join("to_b")).unwrap();
        symlink(base.join("to_b/file"), base.join("abs_link")).unwrap();
        symlink("abs_link", base.join("chain")).unwrap();
        symlink("../..", base.join("a/b/up")).unwrap();
        let fifo = base.join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        for path in [
            base.to_path_buf(),
            base.join("a/b/file"),
            base.join("to_b"),
            base.join("to_b/file"),
            base.join("abs_link"),
            base.join("chain"),
            base.join("to_b/../b/./file"),
            base.join("a/b/up/a/b/file"),
            base.join("a/b/up"),
            fifo,
            std::path::PathBuf::from("."),
        ] {
            let ours = real_path(&path).unwrap();
            assert_eq!(ours, std::fs::canonicalize(&path).unwrap(), "{path:?}");
        }
        symlink("loop", base.join("loop")).unwrap();
        for path in [
            base.join("missing"),
            base.join("a/b/file/inside"),
            base.join("loop"),
            base.join("to_b/missing/x"),
            std::path::PathBuf::from(""),
        ] {
            let ours = real_path(&path).unwrap_err().kind();
            let theirs = std::fs::canonicalize(&path).unwrap_err().kind();
            assert_eq!(ours, theirs, "{path:?}");
        }
    }
}
