//! The record of an output folder, `.svcgen-record`: what the last render into it read and wrote,
//! so that the next render of the same inputs does nothing and `--check` passes without
//! rendering.
//!
//! It holds a key (a digest of svcgen's build, every option that changes outputs and where the
//! output folder is, and the current folder when a relative path could be read through it),
//! one line per file the profile read or named (by its name as given and the canonical path it
//! led to, which must still be the same; the SHA-256 of the content read and the file's type and
//! mode, or that it was absent) and one line per output (its SHA-256 and size, and whether it
//! must be private). A render is skipped only when the key is the same, every input's name still
//! leads to the recorded file with the recorded digest, type and mode, and every output is still a regular file (not a link) of the
//! recorded size whose content, read and hashed, has the recorded digest: outputs are always read
//! (no size-and-mtime shortcut, which a same-size edit within the clock's granularity fools).
//! A record that does not parse, is cut short, or names a path that is not plain is ignored,
//! never trusted: the profile is rendered as if there were none, and the render replaces it.
//!
//! The render is a function of the key and the contents of the files it reads, and the set of
//! files it reads is a function of their contents, so equal inputs give equal outputs. Secrets
//! read from the environment (`--include-secrets`) and layers read from standard input are not
//! files: such runs neither trust nor write a record, and no digest of a secret taken from the environment ever reaches the disk.

use crate::support::inputs::Logged;
use sha2::{Digest, Sha256};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// The record's file name in each output folder.
pub const FILE_NAME: &str = ".svcgen-record";
/// The first line of a record; the last is `end`.
const MAGIC: &str = "svcgen output record v2";
const END: &str = "end";

/// A digest as lowercase hex.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes`, as lowercase hex.
pub fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The digest of everything else a render depends on besides the files it reads: svcgen's
/// version and build, and the options given as text (each part length-prefixed, so no two
/// different lists of parts give the same text).
pub fn key(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in [MAGIC, build_identity().as_str()].iter().chain(parts) {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex(&hasher.finalize())
}

/// svcgen's version and the identity of the running binary (size and modification time): a
/// rebuilt binary of the same version (a development build, built-in templates changed) never
/// trusts a record of another build.
fn build_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| format!("{} {}.{}", m.len(), m.mtime(), m.mtime_nsec()))
        .unwrap_or_else(|_| "unknown".to_string());
    format!("{} {exe}", env!("CARGO_PKG_VERSION"))
}

/// What an input is now: the digest of its content and its file type and permission bits (a
/// file replaced by a folder of the same permissions is another input), or `absent`.
/// `read`: the digest taken as the run read it (`None`: named, not read; only its existence
/// and mode count, and its content is not read).
fn input_state(path: &Path, read: Option<[u8; 32]>) -> String {
    let Ok(meta) = std::fs::metadata(path) else {
        return "absent".to_string();
    };
    // `st_mode` whole: the file type bits with the permission bits.
    let mode = meta.mode();
    match read {
        Some(digest) => format!("{}-{mode:o}", hex(&digest)),
        None => format!("named-{mode:o}"),
    }
}

/// The state of an input as the record compares it: its content read again when it was read.
fn input_state_now(path: &Path, was_read: bool) -> String {
    if !was_read {
        return input_state(path, None);
    }
    match crate::profile::read_regular(path) {
        Ok(bytes) => input_state(path, Some(Sha256::digest(&bytes).into())),
        Err(_) => "absent".to_string(),
    }
}

/// One input as recorded: its name as given (the command line's, or a profile's resolved
/// against its folder) and the canonical path that name led to, whether it was read, and its
/// state ([`input_state`]). The record holds only while the name still leads to the same
/// canonical path: a link retargeted (the profile, a host file, a folder on the way) is another
/// input even when the old target is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Input {
    canonical: PathBuf,
    given: PathBuf,
    read: bool,
    state: String,
}

impl Input {
    /// Whether the input is still as recorded: its name leads to the same file, in the same state.
    fn holds(&self) -> bool {
        crate::support::inputs::canonical_path(&self.given).as_ref() == Some(&self.canonical)
            && input_state_now(&self.canonical, self.read) == self.state
    }
}

/// One output as recorded: its path below the folder, digest, size and whether it is private.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Output {
    relative: String,
    digest: String,
    size: u64,
    private: bool,
}

/// A record read from an output folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    key: String,
    /// True when the render reported nothing; false when it reported diagnostics that checking
    /// the profile again reproduces (then the profile is checked, not rendered, to report them).
    pub quiet: bool,
    inputs: Vec<Input>,
    outputs: Vec<Output>,
}

impl Record {
    /// The record of a render: its key, the files it read or named, and its outputs (absolute
    /// paths inside `folder`, with their contents and whether each is private). `None` when an
    /// output is not a plain UTF-8 path below `folder` (such a folder gets no record).
    pub fn new(
        key: String,
        quiet: bool,
        logged: &[Logged],
        folder: &Path,
        outputs: &[(PathBuf, &[u8], bool)],
    ) -> Option<Record> {
        let mut inputs: Vec<Input> = Vec::with_capacity(logged.len());
        for l in logged {
            let path = l.canonical.as_ref().filter(|_| l.fenced.is_none())?;
            let seen = inputs
                .iter_mut()
                .find(|i| &i.canonical == path && i.given == l.path);
            if let Some(seen) = seen {
                // Read after being named: the read counts.
                if l.digest.is_some() && !seen.read {
                    seen.read = true;
                    seen.state = input_state(path, l.digest);
                }
                continue;
            }
            inputs.push(Input {
                canonical: path.clone(),
                given: l.path.clone(),
                read: l.digest.is_some(),
                state: input_state(path, l.digest),
            });
        }
        let mut files = Vec::with_capacity(outputs.len());
        for (path, bytes, private) in outputs {
            let relative = path.strip_prefix(folder).ok()?.to_str()?.to_string();
            plain(&relative)?;
            files.push(Output {
                relative,
                digest: hex(&Sha256::digest(bytes)),
                size: bytes.len() as u64,
                private: *private,
            });
        }
        Some(Record {
            key,
            quiet,
            inputs,
            outputs: files,
        })
    }

    /// The record as the file holds it (JSON strings for paths, one entry a line).
    pub fn to_text(&self) -> Option<String> {
        let diagnostics = if self.quiet { "none" } else { "replay" };
        let mut text = format!("{MAGIC}\nkey {}\ndiagnostics {diagnostics}\n", self.key);
        for input in &self.inputs {
            let kind = if input.read { "read" } else { "named" };
            let paths = [input.canonical.to_str()?, input.given.to_str()?];
            let paths = serde_json::to_string(&paths).ok()?;
            let state = &input.state;
            text.push_str(&format!("input {kind} {state} {paths}\n"));
        }
        for o in &self.outputs {
            let private = if o.private { "private" } else { "shared" };
            let path = serde_json::to_string(&o.relative).ok()?;
            text.push_str(&format!(
                "output {} {} {private} {path}\n",
                o.digest, o.size
            ));
        }
        text.push_str(END);
        text.push('\n');
        Some(text)
    }

    /// Parses a record; `None` for anything that is not a whole, well-formed one.
    pub fn parse(text: &str) -> Option<Record> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let key = lines.next()?.strip_prefix("key ")?.to_string();
        let quiet = match lines.next()?.strip_prefix("diagnostics ")? {
            "none" => true,
            "replay" => false,
            _ => return None,
        };
        let mut record = Record {
            key,
            quiet,
            inputs: Vec::new(),
            outputs: Vec::new(),
        };
        for line in lines {
            if line == END {
                return Some(record);
            }
            let (kind, rest) = line.split_once(' ')?;
            match kind {
                "input" => {
                    let mut fields = rest.splitn(3, ' ');
                    let read = match fields.next()? {
                        "read" => true,
                        "named" => false,
                        _ => return None,
                    };
                    let state = fields.next()?.to_string();
                    let [canonical, given]: [String; 2] =
                        serde_json::from_str(fields.next()?).ok()?;
                    record.inputs.push(Input {
                        canonical: PathBuf::from(canonical),
                        given: PathBuf::from(given),
                        read,
                        state,
                    });
                }
                "output" => {
                    let mut fields = rest.splitn(4, ' ');
                    let digest = fields.next()?.to_string();
                    let size = fields.next()?.parse().ok()?;
                    let private = match fields.next()? {
                        "private" => true,
                        "shared" => false,
                        _ => return None,
                    };
                    let relative: String = serde_json::from_str(fields.next()?).ok()?;
                    plain(&relative)?;
                    record.outputs.push(Output {
                        relative,
                        digest,
                        size,
                        private,
                    });
                }
                _ => return None,
            }
        }
        None // cut short: no end line
    }

    /// The record in `folder`, if there is a well-formed one (read through the bounded reader).
    pub fn load(folder: &Path) -> Option<Record> {
        let path = folder.join(FILE_NAME);
        let meta = std::fs::symlink_metadata(&path).ok()?;
        if !meta.file_type().is_file() {
            return None;
        }
        let bytes = crate::profile::read_regular(&path).ok()?;
        Record::parse(std::str::from_utf8(&bytes).ok()?)
    }

    /// The inputs the record names (to be recorded as inputs of this run when it is trusted).
    pub fn input_paths(&self) -> impl Iterator<Item = &Path> {
        self.inputs.iter().map(|i| i.canonical.as_path())
    }

    /// The outputs the record names, as paths inside `folder`.
    pub fn output_paths(&self, folder: &Path) -> Vec<PathBuf> {
        self.outputs
            .iter()
            .map(|o| folder.join(&o.relative))
            .collect()
    }

    /// Whether a render with `key` would write exactly what `folder` holds: the same key, every
    /// input as recorded, every output as recorded (see the module documentation).
    pub fn holds(&self, key: &str, folder: &Path) -> bool {
        self.key == key
            && !self.outputs.is_empty()
            && self.inputs.iter().all(Input::holds)
            && self.outputs.iter().all(|o| output_holds(folder, o))
    }
}

/// Whether the output is there as recorded: a regular file (not a link), of the recorded size,
/// private when it must be, and with the recorded digest.
fn output_holds(folder: &Path, output: &Output) -> bool {
    let path = folder.join(&output.relative);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return false;
    };
    if !meta.file_type().is_file() || meta.len() != output.size {
        return false;
    }
    if output.private && meta.permissions().mode() & 0o077 != 0 {
        return false;
    }
    crate::profile::read_regular(&path)
        .is_ok_and(|bytes| hex(&Sha256::digest(&bytes)) == output.digest)
}

/// `Some(())` when `relative` is made of plain names only (no `..`, not absolute, not empty).
fn plain(relative: &str) -> Option<()> {
    let path = Path::new(relative);
    let ok = !relative.is_empty()
        && !relative.contains('\n')
        && path.components().all(|c| matches!(c, Component::Normal(_)));
    ok.then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(dir: &Path) -> Record {
        let input = dir.join("p toml");
        std::fs::write(&input, "a = 1\n").unwrap();
        std::fs::write(dir.join(".env"), "A=1\n").unwrap();
        let logged = [Logged {
            path: input.clone(),
            canonical: Some(input.canonicalize().unwrap()),
            digest: Some(Sha256::digest(b"a = 1\n").into()),
            fenced: None,
        }];
        let outputs = [(dir.join(".env"), &b"A=1\n"[..], false)];
        Record::new(key(&["x"]), true, &logged, dir, &outputs).unwrap()
    }

    #[test]
    fn record_round_trips_and_holds_until_an_input_or_output_changes() {
        let dir = tempfile::tempdir().unwrap();
        let record = sample(dir.path());
        let text = record.to_text().unwrap();
        assert_eq!(Record::parse(&text), Some(record.clone()));
        assert!(record.holds(&key(&["x"]), dir.path()));
        assert!(!record.holds(&key(&["y"]), dir.path()), "another key");
        std::fs::write(dir.path().join(".env"), "A=2\n").unwrap();
        assert!(!record.holds(&key(&["x"]), dir.path()), "an edited output");
        std::fs::write(dir.path().join(".env"), "A=1\n").unwrap();
        std::fs::write(dir.path().join("p toml"), "a = 2\n").unwrap();
        assert!(!record.holds(&key(&["x"]), dir.path()), "an edited input");
    }

    #[test]
    fn record_that_is_cut_short_or_names_a_path_out_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let text = sample(dir.path()).to_text().unwrap();
        let cut = text.trim_end().strip_suffix(END).unwrap();
        assert_eq!(Record::parse(cut), None);
        let out = text.replace("\".env\"", "\"../.env\"");
        assert_eq!(Record::parse(&out), None);
        assert_eq!(Record::parse("garbage"), None);
    }
}
