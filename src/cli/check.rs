//! `render --check`: compare each file on disk with its rendering and report the stale ones.

use std::io::Write;
use std::path::PathBuf;

/// Compares each file with its rendering; prints what differs of each stale one (see
/// [`crate::drift`]); returns how many are stale. The file on disk is read through the one
/// bounded reader: a FIFO or `/dev/zero` named as the output is stale, never read forever.
pub fn check_files(files: &[(PathBuf, String)]) -> usize {
    let mut stale = 0;
    for (path, text) in files {
        let on_disk = match crate::profile::read_input(path) {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(crate::profile::ReadError(why)) if path.exists() => {
                stale += 1;
                let _ = writeln!(std::io::stdout(), "{why}: it is not what would be written");
                continue;
            }
            Err(_) => None,
        };
        if let Some(report) =
            crate::drift::report(&path.display().to_string(), on_disk.as_deref(), text)
        {
            stale += 1;
            let _ = std::io::stdout().write_all(report.as_bytes());
        }
    }
    stale
}
