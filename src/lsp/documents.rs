//! The documents the editor has open: their latest text and version, edited as the client says
//! (a whole text, or a range replaced: incremental sync), and the files each one's last check
//! read, so that a change re-checks only the documents built on it.

use super::position::LineIndex;
use crate::diag::source::{Unsaved, lexical};
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
        if let Some(path) = &path {
            Arc::make_mut(&mut self.unsaved).insert(lexical(path), text.as_str().into());
        }
        self.open.insert(
            uri,
            Document {
                text,
                version,
                path,
                reads: BTreeSet::new(),
            },
        );
    }

    /// Applies the client's changes in order: one without a range is the whole new text, one
    /// with a range (UTF-16 positions) replaces that range of the text as it stands.
    pub fn change(
        &mut self,
        uri: &Uri,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
    ) {
        let Some(doc) = self.open.get_mut(uri) else {
            return;
        };
        for change in changes {
            match change.range {
                None => doc.text = change.text,
                Some(range) => {
                    let index = LineIndex::new(&doc.text);
                    let (start, end) = (index.offset(range.start), index.offset(range.end));
                    let (start, end) = (start.min(end), start.max(end));
                    doc.text.replace_range(start..end, &change.text);
                }
            }
        }
        doc.version = version;
        if let Some(path) = &doc.path {
            Arc::make_mut(&mut self.unsaved).insert(lexical(path), doc.text.as_str().into());
        }
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
}
