//! The texts diagnostics point into: profile files, and command-line values such as `--set`.

/// The name standard input is shown by.
pub const STDIN_NAME: &str = "<stdin>";

use std::ops::Range;

/// Index of a text in [`Sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceId(usize);

impl SourceId {
    pub fn index(self) -> usize {
        self.0
    }
}

/// Where a key or value came from: a text and a byte range in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub source: SourceId,
    pub start: usize,
    pub end: usize,
}

impl Origin {
    pub fn new(source: SourceId, span: Range<usize>) -> Origin {
        Origin {
            source,
            start: span.start,
            end: span.end,
        }
    }

    pub fn span(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// One text with the name shown for it (a path as the user gave it, or `--set`).
#[derive(Debug, Clone)]
pub struct Source {
    pub name: String,
    /// The file it was read from, as named (bytes kept: `name` is lossy for a name that is not
    /// UTF-8); `None` for text that is no file.
    pub path: Option<std::path::PathBuf>,
    pub text: String,
    /// The folder relative paths written in this text are relative to (a profile's folder).
    pub dir: Option<std::path::PathBuf>,
    /// Byte offsets where lines start, built on first use: positions of many diagnostics in a
    /// large file are found by binary search instead of a scan from the start each time.
    line_starts: std::sync::OnceLock<Vec<usize>>,
    /// Byte ranges holding secret values: never shown (see [`crate::diag::redact`]).
    secrets: Vec<Range<usize>>,
}

impl Source {
    /// The 1-based line of a byte offset (a char boundary) and the offset where that line starts.
    pub fn line_of(&self, offset: usize) -> (usize, usize) {
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let index = starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1);
        (index + 1, starts[index])
    }

    /// The byte ranges of this text that hold secret values.
    pub fn secret_ranges(&self) -> &[Range<usize>] {
        &self.secrets
    }

    /// A part of the text as it may be shown: each secret value shown as
    /// [`MASK`](crate::diag::redact::MASK), whatever its length.
    pub fn shown(&self, range: Range<usize>) -> String {
        let overlapping: Vec<Range<usize>> = self
            .secrets
            .iter()
            .filter(|s| s.start < range.end && range.start < s.end)
            .map(|s| s.start.max(range.start) - range.start..s.end.min(range.end) - range.start)
            .collect();
        crate::diag::redact::Masked::new(&self.text[range], &overlapping).text
    }
}

/// Every text of one run. Diagnostics hold [`Origin`]s into it.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    files: Vec<Source>,
    /// Texts that stand for files on disk: what an editor shows but has not saved. The language
    /// server checks these, so a profile is checked as the user sees it, bases included.
    /// Shared, not copied: the language server hands every check the same texts.
    unsaved: std::sync::Arc<Unsaved>,
    /// The files of the command read into these texts are recorded here (a clone of the
    /// command's [`Inputs`](crate::support::inputs::Inputs), so that no output replaces them).
    inputs: crate::support::inputs::Inputs,
}

/// Texts standing for files, by their lexical path (see [`Sources::share_unsaved`]).
pub type Unsaved = std::collections::HashMap<std::path::PathBuf, std::sync::Arc<str>>;

/// A 1-based line and character column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Sources whose files are recorded as inputs of the command in `inputs`.
    pub fn with_inputs(inputs: crate::support::inputs::Inputs) -> Sources {
        Sources {
            inputs,
            ..Sources::default()
        }
    }

    /// Where the files read into these texts are recorded.
    pub fn inputs(&self) -> &crate::support::inputs::Inputs {
        &self.inputs
    }

    /// Adds a text; the value part of every line that names a secret, and the password of every
    /// URL written with one, are marked secret at once, whether or not the text can be parsed.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> SourceId {
        let text = text.into();
        let mut secrets = crate::diag::redact::named_ranges(&text);
        secrets.extend(crate::diag::redact::url_password_ranges(&text));
        self.files.push(Source {
            name: name.into(),
            path: None,
            text,
            dir: None,
            line_starts: std::sync::OnceLock::new(),
            secrets,
        });
        SourceId(self.files.len() - 1)
    }

    /// Makes loading `path` give `text` instead of the file's content (see `unsaved`).
    pub fn set_unsaved(&mut self, path: &std::path::Path, text: String) {
        std::sync::Arc::make_mut(&mut self.unsaved).insert(lexical(path), text.into());
    }

    /// Makes loading use `texts` (keyed by [`lexical`] paths) for the files they stand for,
    /// shared with the caller: no text is copied, however many there are.
    pub fn share_unsaved(&mut self, texts: std::sync::Arc<Unsaved>) {
        self.unsaved = texts;
    }

    /// The text standing for the file at `path`, if one was set.
    pub fn unsaved(&self, path: &std::path::Path) -> Option<&str> {
        if self.unsaved.is_empty() {
            return None;
        }
        self.unsaved.get(&lexical(path)).map(|text| &**text)
    }

    /// Marks the value at `origin` as a secret: no printer shows it.
    pub fn mark_secret(&mut self, origin: Origin) {
        let file = &mut self.files[origin.source.0];
        if origin.start < origin.end && !file.secrets.contains(&origin.span()) {
            file.secrets.push(origin.span());
        }
    }

    /// Marks the value at `origin` as a secret when its decoded text holds a URL password that
    /// the marks of its raw text (escapes and all, see [`Sources::add`]) leave in clear: a TOML
    /// or dotenv escape, or a blank, inside the password (`"https://u:SEC RET@host"`).
    pub fn mark_url_password(&mut self, origin: Origin, value: &str) {
        if !value.contains('@') {
            return;
        }
        let raw = self.files[origin.source.0].text.get(origin.span());
        if !crate::diag::redact::raw_text_hides_passwords(raw.unwrap_or(""), value) {
            self.mark_secret(origin);
        }
    }

    /// Adds a text that holds no secret value (the paths of `--set-file`): a line naming a
    /// secret is shown as it is.
    pub fn add_without_secrets(
        &mut self,
        name: impl Into<String>,
        text: impl Into<String>,
    ) -> SourceId {
        let id = self.add(name, text);
        self.files[id.0].secrets.clear();
        id
    }

    /// The number of texts read in this run (each file once, each `--set` once).
    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Masks the text of every secret value of these sources in messages (a message or label
    /// that quotes a value never shows a secret).
    pub fn scrubber(&self) -> crate::diag::redact::Scrubber {
        crate::diag::redact::Scrubber::new(
            self.files
                .iter()
                .flat_map(|f| f.secrets.iter().filter_map(|r| f.text.get(r.clone()))),
        )
    }

    /// Sets the folder that relative paths in a text are relative to.
    pub fn set_dir(&mut self, id: SourceId, dir: Option<std::path::PathBuf>) {
        self.files[id.0].dir = dir;
    }

    /// Records the file a text was read from (see [`Source::path`]).
    pub fn set_path(&mut self, id: SourceId, path: &std::path::Path) {
        self.files[id.0].path = Some(path.to_path_buf());
    }

    /// The folder relative paths written at `origin` are relative to.
    pub fn dir_of(&self, origin: Origin) -> Option<&std::path::Path> {
        self.get(origin.source).dir.as_deref()
    }

    /// Every text, in the order added (a profile, then its bases depth first).
    pub fn ids(&self) -> impl Iterator<Item = SourceId> + use<> {
        (0..self.files.len()).map(SourceId)
    }

    pub fn get(&self, id: SourceId) -> &Source {
        &self.files[id.0]
    }

    /// The line and column of a byte offset (clamped to the text, and to a char boundary).
    pub fn line_col(&self, id: SourceId, offset: usize) -> LineCol {
        let source = self.get(id);
        let offset = floor_char_boundary(&source.text, offset);
        let (line, line_start) = source.line_of(offset);
        let column = source.text[line_start..offset].chars().count() + 1;
        LineCol { line, column }
    }
}

/// A path with `.` and `dir/..` removed without asking the file system, so that `a/../b.toml`
/// and `b.toml` name the same unsaved text.
pub fn lexical(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Spans are cut at char boundaries the way masks are (one helper, below both modules).
pub use crate::diag::redact::floor_char_boundary;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters_from_one() {
        let mut sources = Sources::new();
        let id = sources.add("p.toml", "a = 1\nbé = \"x\"\n");
        assert_eq!(sources.line_col(id, 0), LineCol { line: 1, column: 1 });
        // "bé = " is 6 bytes but 5 characters; the quote is at column 6.
        assert_eq!(sources.line_col(id, 12), LineCol { line: 2, column: 6 });
        assert_eq!(sources.line_col(id, 999).line, 3);
    }
}
