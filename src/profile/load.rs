//! Reading a profile file into a [`Table`] with origins, reporting syntax errors as diagnostics.

use super::{Entry, Node, Table, Value};
use crate::diag::source::{Origin, SourceId, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::support::inputs::Inputs;
use crate::support::root::Root;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Largest profile read (64 MiB): far above any real profile, low enough to never exhaust memory.
pub const MAX_PROFILE_BYTES: u64 = 64 * 1024 * 1024;

/// Deepest nesting of arrays and tables accepted; a profile never needs more than four.
pub const MAX_DEPTH: usize = 32;

/// Why a profile could not be read at all (exit code 2), as opposed to being invalid (exit 1).
#[derive(Debug)]
pub struct ReadError(pub String);

/// Reads an input file whole (see [`read_regular`]) and records it in `inputs`, so that no
/// output of the command can replace it.
pub fn read_input(path: &Path, inputs: &Inputs) -> Result<Vec<u8>, ReadError> {
    read_input_with_meta(path, inputs).map(|(bytes, _)| bytes)
}

/// [`read_input`], with the metadata of the handle the bytes were read through.
fn read_input_with_meta(
    path: &Path,
    inputs: &Inputs,
) -> Result<(Vec<u8>, std::fs::Metadata), ReadError> {
    let (bytes, meta) = read_regular_with_meta(path)?;
    inputs.record_read(path, &meta);
    Ok((bytes, meta))
}

/// Reads a file whole: only a regular file (a FIFO would block, a device never end) of at most
/// [`MAX_PROFILE_BYTES`]. This is the one reader of every input svcgen takes (profiles,
/// overlays, bases, `--set-file`, secret files, imported files and their `env_file`s, templates,
/// the files `--check` compares with). The file is opened without blocking and checked through
/// its open handle, so a file swapped for a FIFO after a check cannot hang the run, and reading
/// stops one byte past the limit whatever the file claims its size is.
pub fn read_regular(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_regular_with_meta(path).map(|(bytes, _)| bytes)
}

/// [`read_regular`], with the metadata of the handle the bytes were read through (the file's
/// identity, without asking the file system again).
fn read_regular_with_meta(path: &Path) -> Result<(Vec<u8>, std::fs::Metadata), ReadError> {
    use std::io::Read;
    // Shown escaped, as output paths are: a newline in a name must not start a line of the log.
    // Made only for a message: most reads have none to give.
    let fail = |what: String| {
        let display = path.display().to_string().escape_debug().to_string();
        ReadError(format!("{display}: {what}"))
    };
    let file = open_nonblocking(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return Err(fail("is a directory, not a file".to_string()));
    }
    if !meta.is_file() {
        return Err(fail(
            "is not a regular file (a FIFO, socket or device?)".to_string(),
        ));
    }
    let too_big = |size: u64| {
        fail(format!(
            "is {size} bytes; an input may have at most {MAX_PROFILE_BYTES}"
        ))
    };
    if meta.len() > MAX_PROFILE_BYTES {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_PROFILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_PROFILE_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    Ok((bytes, meta))
}

/// Opens for reading without waiting for a writer (a FIFO would otherwise block in `open`).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// The reader the library's plan is given for host files (`render`, `validate`, the language
/// server): only a file inside the profile's `root` (none known: nothing is read), through the
/// one bounded reader, which also records each file in the command's `inputs` (no output may
/// replace it).
pub fn read_host_file(
    path: &Path,
    root: Option<&Root>,
    inputs: &Inputs,
) -> Result<HostBytes, String> {
    let Some(root) = root else {
        return Err(format!(
            "{}: not read: no folder is known that this profile may read from",
            crate::support::escape::one_line(&path.display().to_string())
        ));
    };
    root.admit(path, "the host file")?;
    let (bytes, meta) = read_input_with_meta(path, inputs).map_err(|e| e.0)?;
    let file = FileAsRead {
        others_read: others_read(&meta),
        identity: crate::support::inputs::identity(&meta),
    };
    Ok(HostBytes { bytes, file })
}

/// A host file as it was read: its bytes, and what the handle they were read through said of
/// the file.
#[derive(Debug, Clone)]
pub struct HostBytes {
    pub bytes: Vec<u8>,
    pub file: FileAsRead,
}

/// What the open handle of a file said when it was read (asking its path again could find
/// another file there).
#[derive(Debug, Clone, Copy)]
pub struct FileAsRead {
    /// Whether others may read the file (its mode): its copy is as private as the file.
    pub others_read: bool,
    /// Its device and inode: a copy that would land on the file itself is not written.
    pub identity: (u64, u64),
}

/// Whether a file's mode lets others read it.
#[cfg(unix)]
fn others_read(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o004 != 0
}

/// Elsewhere no mode says so: a copy is kept private.
#[cfg(not(unix))]
fn others_read(_meta: &std::fs::Metadata) -> bool {
    false
}

/// Reads an input file as UTF-8 text through [`read_input`].
pub fn read_input_text(path: &Path, inputs: &Inputs) -> Result<String, ReadError> {
    let text = read_text(path)?;
    inputs.record(path);
    Ok(text)
}

/// Reads a file as UTF-8 text through [`read_regular`] (the caller records it as an input).
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    let bytes = read_regular(path)?;
    String::from_utf8(bytes)
        .map_err(|_| ReadError(format!("{}: is not UTF-8 text", path.display())))
}

/// The name diagnostics give a profile read from standard input (`-`).
pub use crate::diag::source::STDIN_NAME;

/// Reads standard input whole, at most [`MAX_PROFILE_BYTES`], once per run (a second `-` would
/// silently read nothing).
fn read_stdin() -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    static TAKEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if TAKEN.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Err(ReadError(
            "-: standard input can be read only once (give the other profiles as files)".into(),
        ));
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_PROFILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError(format!("{STDIN_NAME}: cannot read: {e}")))?;
    check_stdin_size(bytes.len())?;
    Ok(bytes)
}

/// Standard input (or text given in memory as it, the playground's) has at most
/// [`MAX_PROFILE_BYTES`].
pub fn check_stdin_size(len: usize) -> Result<(), ReadError> {
    if len as u64 > MAX_PROFILE_BYTES {
        return Err(ReadError(format!(
            "{STDIN_NAME}: an input may have at most {MAX_PROFILE_BYTES} bytes"
        )));
    }
    Ok(())
}

/// True for `-`, which names standard input (a profile) or standard output (`-o -`).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Reads an input whole: `-` is standard input (once per run), anything else a file through
/// [`read_input`]. Returns the name diagnostics give it with the bytes.
pub fn read_input_or_stdin(path: &Path, inputs: &Inputs) -> Result<(String, Vec<u8>), ReadError> {
    if is_stdio(path) {
        return Ok((STDIN_NAME.to_string(), read_stdin()?));
    }
    Ok((path.display().to_string(), read_input(path, inputs)?))
}

/// Reads and parses a profile file (`-`: standard input, its relative paths taken from the
/// current folder). I/O problems are a [`ReadError`]; bad content is diagnostics.
pub fn load_file(
    path: &Path,
    sources: &mut Sources,
) -> Result<(SourceId, Result<Table, Diagnostics>), ReadError> {
    if is_stdio(path) {
        let (id, table) = parse_bytes(STDIN_NAME.to_string(), read_stdin()?, sources);
        sources.set_dir(id, Some(Path::new(".").to_path_buf()));
        return Ok((id, table));
    }
    let display = path.display().to_string();
    let bytes = match sources.unsaved(path) {
        Some(text) => text.as_bytes().to_vec(),
        None => read_input(path, sources.inputs())?,
    };
    let (id, table) = parse_bytes(display, bytes, sources);
    sources.set_path(id, path);
    let dir = path.parent().map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    sources.set_dir(id, dir.map(Path::to_path_buf));
    Ok((id, table))
}

/// Parses profile bytes that came from `name` (UTF-8 is checked here, with the position of the
/// first bad byte).
pub fn parse_bytes(
    name: String,
    bytes: Vec<u8>,
    sources: &mut Sources,
) -> (SourceId, Result<Table, Diagnostics>) {
    match String::from_utf8(bytes) {
        Ok(text) => parse_text(name, text, sources),
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            // The bad byte is shown as U+FFFD, three bytes long in the text.
            let replacement = char::REPLACEMENT_CHARACTER.len_utf8();
            let id = sources.add(name, text);
            let mut diagnostics = Diagnostics::default();
            diagnostics.push(
                Diagnostic::new(Code::TomlSyntax, "the profile is not valid UTF-8")
                    .at(Origin::new(id, at..at + replacement))
                    .label("invalid byte here")
                    .help("TOML files must be UTF-8 encoded"),
            );
            (id, Err(diagnostics))
        }
    }
}

/// Parses profile text, collecting every syntax error the parser can recover from.
pub fn parse_text(
    name: String,
    text: String,
    sources: &mut Sources,
) -> (SourceId, Result<Table, Diagnostics>) {
    let id = sources.add(name, text);
    let text = sources.get(id).text.as_str();
    let mut diagnostics = Diagnostics::default();
    if let Some(nul) = text.find('\0') {
        diagnostics.push(
            Diagnostic::new(Code::TomlSyntax, "the profile contains a NUL byte")
                .at(Origin::new(id, nul..nul + 1))
                .help("a TOML file cannot contain NUL; is this a binary file?"),
        );
        return (id, Err(diagnostics));
    }
    let (document, errors) = DeTable::parse_recoverable(text);
    for error in errors {
        let span = error.span().unwrap_or(0..0);
        let mut message = first_line(error.message());
        let mut d = Diagnostic::new(Code::TomlSyntax, "");
        if message.starts_with("duplicate key") {
            let key = text.get(span.clone()).unwrap_or_default();
            message = format!("duplicate key `{key}`");
            d = d.help("each key may be set once per table; a table header such as [config] may appear once");
        }
        d.message = message;
        diagnostics.push(d.at(Origin::new(id, span)).label("TOML syntax"));
    }
    if !diagnostics.is_empty() {
        return (id, Err(diagnostics));
    }
    let table = convert_table(document.into_inner(), id, 0, &mut diagnostics);
    mark_secrets(&table, "", sources);
    if diagnostics.has_errors() {
        (id, Err(diagnostics))
    } else {
        (id, Ok(table))
    }
}

/// Marks the value of every secret key (a literal, not a `{ env }` / `{ file }` reference) as a
/// secret of its source, wherever it is written (a multi-line string, a quoted key, ...); and of
/// every key whose "did you mean" is a secret key (a misspelled passphrase key, in `[env]` too).
fn mark_secrets(table: &Table, prefix: &str, sources: &mut Sources) {
    let in_secret = !prefix.is_empty() && secret_name(prefix).own;
    let mut path = String::with_capacity(prefix.len() + 40);
    for entry in &table.entries {
        path.clear();
        if !prefix.is_empty() {
            path.push_str(prefix);
            path.push('.');
        }
        path.push_str(&entry.key);
        match &entry.node.value {
            _ if in_secret && !says_where_the_secret_is(entry) => mark_all(&entry.node, sources),
            Value::Table(inner) => mark_secrets(inner, &path, sources),
            _ if secret_name(&path).named(in_secret)
                || (prefix == "env" && crate::diag::redact::names_a_credential(&entry.key)) =>
            {
                sources.mark_secret(entry.node.origin)
            }
            Value::String(text) => sources.mark_url_password(entry.node.origin, text),
            _ => {}
        }
    }
}

/// How a dotted profile key names a secret, as far as the model says.
#[derive(Clone, Copy)]
struct SecretName {
    /// It is a secret variable's own key.
    own: bool,
    /// Its "did you mean" is a secret's name (a misspelt passphrase key).
    near: bool,
}

impl SecretName {
    /// Whether a value under this key is a secret: its own key is a secret's, or (outside a
    /// secret's table, whose entries are decided by where they stand) its nearest name is.
    fn named(self, in_secret: bool) -> bool {
        self.own || (!in_secret && self.near)
    }
}

/// [`SecretName`] of `path`. Both answers depend on the baked model alone, and the nearest name
/// costs a "did you mean" over the model's names: each thread keeps the answers for the keys it
/// has seen (the profiles of a batch write the same keys), up to a bound that a file of many
/// distinct keys does not pass, and only keys of a key's usual length (a profile may hold one
/// key of megabytes; the thread outlives its profile).
fn secret_name(path: &str) -> SecretName {
    const KEPT: usize = 4096;
    const KEPT_KEY_BYTES: usize = 256;
    thread_local! {
        static SEEN: std::cell::RefCell<std::collections::HashMap<String, SecretName>> =
            std::cell::RefCell::default();
    }
    SEEN.with(|seen| {
        let known = seen.borrow().get(path).copied();
        if let Some(known) = known {
            return known;
        }
        let name = SecretName {
            own: crate::diag::redact::is_secret_key(path),
            near: crate::diag::redact::nearly_names_a_secret(path),
        };
        let mut seen = seen.borrow_mut();
        if seen.len() < KEPT && path.len() <= KEPT_KEY_BYTES {
            seen.insert(path.to_string(), name);
        }
        name
    })
}

/// True for an entry of a secret's reference table that says where the secret is, and is shown:
/// `env` naming a variable, `file` a path. Anything else there may be the secret itself
/// (`value = "..."`, `[google.secret_manager_passphrase]` then `x = "..."`, a passphrase written
/// as `env = "two words"`).
fn says_where_the_secret_is(entry: &Entry) -> bool {
    match &entry.node.value {
        Value::String(name) if entry.key == "env" => crate::model::is_env_name(name),
        Value::String(_) => entry.key == "file",
        _ => false,
    }
}

/// Marks a value and, in a table, every value under it, as a secret of its source.
fn mark_all(node: &Node, sources: &mut Sources) {
    match &node.value {
        Value::Table(inner) => inner
            .entries
            .iter()
            .for_each(|e| mark_all(&e.node, sources)),
        _ => sources.mark_secret(node.origin),
    }
}

fn first_line(message: &str) -> String {
    message
        .lines()
        .next()
        .unwrap_or("invalid TOML")
        .trim()
        .to_string()
}

fn convert_table(table: DeTable<'_>, id: SourceId, depth: usize, diags: &mut Diagnostics) -> Table {
    let mut entries = Vec::with_capacity(table.len());
    for (key, value) in table {
        let key_origin = Origin::new(id, key.span());
        let node = convert_value(value, id, depth + 1, diags);
        entries.push(Entry {
            key: key.into_inner().into_owned(),
            key_origin,
            node,
        });
    }
    Table { entries }
}

fn convert_value(
    value: Spanned<DeValue<'_>>,
    id: SourceId,
    depth: usize,
    diags: &mut Diagnostics,
) -> Node {
    let origin = Origin::new(id, value.span());
    if depth > MAX_DEPTH {
        diags.push(
            Diagnostic::new(
                Code::TomlSyntax,
                format!("values are nested more than {MAX_DEPTH} levels deep"),
            )
            .at(origin)
            .help("a profile needs at most a few levels of tables"),
        );
        return Node {
            value: Value::Bool(false),
            origin,
        };
    }
    let value = match value.into_inner() {
        DeValue::String(s) => Value::String(s.into_owned()),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Value::Integer(n),
            Err(_) => {
                diags.push(
                    Diagnostic::new(Code::TomlSyntax, "integer does not fit in 64 bits")
                        .at(origin)
                        .label("too large"),
                );
                Value::Integer(0)
            }
        },
        DeValue::Float(f) => Value::Float(f.as_str().replace('_', "").parse().unwrap_or(f64::NAN)),
        DeValue::Boolean(b) => Value::Bool(b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| convert_value(item, id, depth + 1, diags))
                .collect(),
        ),
        DeValue::Table(table) => Value::Table(convert_table(table, id, depth, diags)),
    };
    Node { value, origin }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Table, Diagnostics> {
        let mut sources = Sources::new();
        parse_text("p.toml".into(), text.into(), &mut sources).1
    }

    #[test]
    fn keeps_keys_in_order_with_origins() {
        let table = parse("b = 1\na = \"x\"\n[t]\nk = true\n").unwrap();
        let keys: Vec<_> = table.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["b", "a", "t"]);
        let a = table.get("a").unwrap();
        assert_eq!(a.key_origin.span(), 6..7);
        assert_eq!(a.node.origin.span(), 10..13);
        assert_eq!(table.get_path("t.k").unwrap().node.value, Value::Bool(true));
    }

    #[test]
    fn duplicate_keys_are_syntax_errors() {
        let diags = parse("a = 1\na = 2\n").unwrap_err();
        assert_eq!(diags.items[0].code, Code::TomlSyntax);
        assert!(
            diags.items[0].message.contains("duplicate"),
            "{:?}",
            diags.items
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = format!("a = {}{}\n", "[".repeat(200), "]".repeat(200));
        let diags = parse(&text).unwrap_err();
        assert!(diags.has_errors());
    }

    /// The texts marked secret after parsing `text`.
    fn secret_texts(text: &str) -> Vec<String> {
        let mut sources = Sources::new();
        let (id, _) = parse_text("p.toml".into(), text.into(), &mut sources);
        let source = sources.get(id);
        let texts = source.secret_ranges().iter();
        texts.map(|r| source.text[r.clone()].to_string()).collect()
    }

    #[test]
    fn anything_but_a_reference_in_a_secrets_table_is_secret() {
        let header = "[google.secret_manager_passphrase]\nvalue = \"hunter2\"\n";
        assert!(secret_texts(header).contains(&"\"hunter2\"".to_string()));
        let deeper = "[google.secret_manager_passphrase.x]\ny = \"hunter2\"\n";
        assert!(secret_texts(deeper).contains(&"\"hunter2\"".to_string()));
        let not_a_name = "[google]\nsecret_manager_passphrase = { env = \"hunter 2\" }\n";
        assert!(secret_texts(not_a_name).contains(&"\"hunter 2\"".to_string()));
        let reference = "[google]\nsecret_manager_passphrase = { env = \"PASS\", file = \"p\" }\n";
        assert_eq!(secret_texts(reference), Vec::<String>::new());
    }

    /// The answers kept per thread change nothing: a misspelt secret key is masked in every
    /// profile a batch's worker reads, not only the first, and a plain key stays shown.
    #[test]
    fn a_key_is_judged_the_same_in_every_profile_a_thread_reads() {
        let text = "[google]\nsecret_manager_passphrse = \"hunter2\"\nproject_id = \"demo\"\n";
        for _ in 0..3 {
            assert_eq!(secret_texts(text), ["\"hunter2\""]);
        }
    }

    #[test]
    fn a_newline_in_an_unreadable_path_is_shown_escaped() {
        let ReadError(why) = read_regular(Path::new("no such\nfile.toml")).unwrap_err();
        assert!(why.starts_with("no such\\nfile.toml: cannot read"), "{why}");
        assert!(!why.contains('\n'), "{why}");
    }

    #[test]
    fn invalid_utf8_is_reported_at_the_bad_byte() {
        let mut sources = Sources::new();
        let (_, result) = parse_bytes("p.toml".into(), b"a = \"\xff\"\n".to_vec(), &mut sources);
        let diags = result.unwrap_err();
        assert_eq!(diags.items[0].origin.unwrap().start, 5);
    }
}

#[cfg(test)]
mod host_file_tests {
    use super::read_host_file;
    use crate::support::inputs::Inputs;
    use crate::support::root::Root;
    use std::os::unix::fs::PermissionsExt;

    /// A host file read says, from its handle, whether others may read it and which file it
    /// is: a `0600` key read stays private even when its mode is opened after the read.
    #[test]
    fn a_host_file_read_keeps_the_mode_and_identity_its_handle_gave() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::of(dir.path(), Some(dir.path()));
        for (mode, others_read) in [(0o600, false), (0o644, true)] {
            let file = dir.path().join(format!("key-{mode:o}"));
            std::fs::write(&file, "key").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
            let read = read_host_file(&file, Some(&root), &Inputs::default()).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(read.bytes, b"key");
            assert_eq!(read.file.others_read, others_read, "{mode:o}");
            let meta = std::fs::metadata(&file).unwrap();
            assert_eq!(read.file.identity, crate::support::inputs::identity(&meta));
        }
    }
}
