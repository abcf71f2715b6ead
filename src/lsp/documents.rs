//! The documents the editor has open: their latest text and version, edited as the client says
//! (a whole text, or a range replaced: incremental sync), and the files each one's last check
//! read, so that a change re-checks only the documents built on it.

use super::position::LineIndex;
use crate::diag::source::{Unsaved, lexical};
use crate::profile::MAX_PROFILE_BYTES;
use lsp_types::{TextDocumentContentChangeEvent, Uri};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One open document.
pub struct Document {
    pub text: String,
    pub version: i32,
    /// The file it stands for, when its URI is a local `file:` URI.
    pub path: Option<PathBuf>,
    /// The files (lexical paths) its last check read besides itself: its `extends` chain or the
    /// base it overlays. A change to one of them changes this document's diagnostics.
    pub reads: BTreeSet<PathBuf>,
    /// The size its text reached when that passed [`MAX_PROFILE_BYTES`]: the text is then not
    /// kept (ranged edits, each under the message limit, could otherwise grow it without bound)
    /// and ranged edits are ignored until the client sends a whole text again.
    pub(super) oversized: Option<u64>,
}

impl Document {
    /// The size of its text in bytes, or the size it reached when that was too large to keep.
    pub fn size(&self) -> u64 {
        self.oversized.unwrap_or(self.text.len() as u64)
    }

    /// Whether its text is larger than a profile may be (it is then not checked or parsed).
    pub fn too_large(&self) -> bool {
        self.size() > MAX_PROFILE_BYTES
    }

    /// Takes `text` as the whole text, keeping it only when a profile may be that large.
    fn set_text(&mut self, text: String) {
        self.oversized = None;
        self.text = text;
        if self.text.len() as u64 > MAX_PROFILE_BYTES {
            self.oversized = Some(self.text.len() as u64);
            self.text = String::new();
        }
    }

    /// Replaces the UTF-16 `range` of the text with `new`, unless the result would be too large
    /// to keep (then the text is dropped, see [`Document::oversized`]).
    fn replace(&mut self, range: lsp_types::Range, new: &str) {
        if self.oversized.is_some() {
            return;
        }
        let index = LineIndex::new(&self.text);
        let (start, end) = (index.offset(range.start), index.offset(range.end));
        let (start, end) = (start.min(end), start.max(end));
        let size = (self.text.len() - (end - start) + new.len()) as u64;
        if size > MAX_PROFILE_BYTES {
            self.oversized = Some(size);
            self.text = String::new();
            return;
        }
        self.text.replace_range(start..end, new);
    }
}

/// Every open document, by URI (ordered, so work over several of them is deterministic).
#[derive(Default)]
pub struct Documents {
    open: BTreeMap<Uri, Document>,
    /// The texts of the open documents that stand for files, shared with every check.
    unsaved: Arc<Unsaved>,
}

impl Documents {
    pub fn open(&mut self, uri: Uri, text: String, version: i32) {
        let path = super::uri::to_path(&uri);
        let mut doc = Document {
            text: String::new(),
            version,
            path,
            reads: BTreeSet::new(),
            oversized: None,
        };
        doc.set_text(text);
        self.share(&doc);
        self.open.insert(uri, doc);
    }

    /// Shares the text of `doc` with every check, in place of its file (a text too large to keep
    /// is not shared: checks read the file).
    fn share(&mut self, doc: &Document) {
        let Some(path) = &doc.path else {
            return;
        };
        let unsaved = Arc::make_mut(&mut self.unsaved);
        if doc.oversized.is_some() {
            unsaved.remove(&lexical(path));
        } else {
            unsaved.insert(lexical(path), doc.text.as_str().into());
        }
    }

    /// Applies the client's changes in order: one without a range is the whole new text, one
    /// with a range (UTF-16 positions) replaces that range of the text as it stands.
    pub fn change(
        &mut self,
        uri: &Uri,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
    ) {
        let Some(mut doc) = self.open.remove(uri) else {
            return;
        };
        for change in changes {
            match change.range {
                None => doc.set_text(change.text),
                Some(range) => doc.replace(range, &change.text),
            }
        }
        doc.version = version;
        self.share(&doc);
        self.open.insert(uri.clone(), doc);
    }

    pub fn close(&mut self, uri: &Uri) {
        if let Some(path) = self.open.remove(uri).and_then(|doc| doc.path) {
            Arc::make_mut(&mut self.unsaved).remove(&lexical(&path));
        }
    }

    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.open.get(uri)
    }

    /// Records the files a document's check read (see [`Document::reads`]).
    pub fn set_reads(&mut self, uri: &Uri, reads: BTreeSet<PathBuf>) {
        if let Some(doc) = self.open.get_mut(uri) {
            doc.reads = reads;
        }
    }

    /// The open documents whose last check read the file at `path` (directly or through a chain
    /// of `extends`: a check reads the whole chain).
    pub fn readers_of(&self, path: &Path) -> Vec<Uri> {
        let path = lexical(path);
        self.open
            .iter()
            .filter(|(_, doc)| doc.reads.contains(&path))
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    /// The texts of the open documents that stand for files: checked instead of the files.
    pub fn unsaved(&self) -> Arc<Unsaved> {
        Arc::clone(&self.unsaved)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};

    fn ranged(start: (u32, u32), end: (u32, u32), text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(
                Position::new(start.0, start.1),
                Position::new(end.0, end.1),
            )),
            range_length: None,
            text: text.to_string(),
        }
    }

    /// Ranges count UTF-16 units: after "😀" (2 units) the third unit is the next character.
    #[test]
    fn ranged_changes_are_applied_in_order_at_utf16_positions() {
        let uri: Uri = "untitled:a".parse().unwrap();
        let mut docs = Documents::default();
        docs.open(uri.clone(), "a = \"😀x\"\nb = 1\n".to_string(), 1);
        let changes = vec![ranged((0, 7), (0, 8), "y"), ranged((1, 4), (1, 5), "22")];
        docs.change(&uri, changes, 2);
        assert_eq!(docs.get(&uri).unwrap().text, "a = \"😀y\"\nb = 22\n");
        assert_eq!(docs.get(&uri).unwrap().version, 2);
    }

    /// Ranged edits, each well under the message limit, cannot grow a document past the largest
    /// profile: its text is dropped once it would, its size is still told, ranged edits are
    /// ignored (there is no text to apply them to) until a whole text comes, which is kept.
    #[test]
    fn ranged_edits_cannot_grow_a_document_without_bound() {
        let uri: Uri = "file:///tmp/svcgen-grow.toml".parse().unwrap();
        let mut docs = Documents::default();
        let near = MAX_PROFILE_BYTES as usize - 10;
        docs.open(uri.clone(), "a".repeat(near), 1);
        assert!(!docs.get(&uri).unwrap().too_large());
        docs.change(&uri, vec![ranged((0, 0), (0, 0), &"b".repeat(20))], 2);
        let doc = docs.get(&uri).unwrap();
        assert!(doc.too_large());
        assert_eq!(doc.size(), MAX_PROFILE_BYTES + 10);
        assert!(doc.text.is_empty(), "the text is not kept");
        assert!(docs.unsaved().is_empty(), "nor shared with checks");
        docs.change(&uri, vec![ranged((0, 0), (0, 0), "c")], 3);
        assert_eq!(docs.get(&uri).unwrap().size(), MAX_PROFILE_BYTES + 10);
        let whole = TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: "edition = \"B\"\n".to_string(),
        };
        docs.change(&uri, vec![whole], 4);
        let doc = docs.get(&uri).unwrap();
        assert!(!doc.too_large());
        assert_eq!(doc.text, "edition = \"B\"\n");
        assert_eq!(docs.unsaved().len(), 1);
    }
}
