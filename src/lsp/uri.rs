//! `file:` URIs (what editors name documents by) to paths and back.

use lsp_types::Uri;
use std::path::{Path, PathBuf};

/// The local path of a `file:` URI (percent-decoded); `None` for other schemes (`untitled:`)
/// or a remote host.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    if !uri
        .scheme()
        .is_some_and(|s| s.as_str().eq_ignore_ascii_case("file"))
    {
        return None;
    }
    let host = uri.authority().map(|a| a.host().as_str()).unwrap_or("");
    if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
        return None;
    }
    let path = uri.path().as_estr().decode().into_string().ok()?;
    let path = PathBuf::from(path.as_ref());
    path.is_absolute().then_some(path)
}

/// The `file:` URI of an absolute path.
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let mut uri = String::from("file://");
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_spaces_and_non_ascii_round_trip() {
        let path = Path::new("/tmp/a b/é#.toml");
        let uri = from_path(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%A9%23.toml");
        assert_eq!(to_path(&uri).unwrap(), path);
    }

    #[test]
    fn other_schemes_have_no_path() {
        let uri: Uri = "untitled:Untitled-1".parse().unwrap();
        assert_eq!(to_path(&uri), None);
    }
}
