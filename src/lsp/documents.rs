//! The documents the editor has open: their latest text and version (full-text sync).

use lsp_types::Uri;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One open document.
pub struct Document {
    pub text: String,
    pub version: i32,
    /// The file it stands for, when its URI is a local `file:` URI.
    pub path: Option<PathBuf>,
}

/// Every open document, by URI (ordered, so work over all of them is deterministic).
#[derive(Default)]
pub struct Documents {
    open: BTreeMap<Uri, Document>,
}

impl Documents {
    pub fn open(&mut self, uri: Uri, text: String, version: i32) {
        let path = super::uri::to_path(&uri);
        self.open.insert(
            uri,
            Document {
                text,
                version,
                path,
            },
        );
    }

    /// Replaces the text of an open document (the client sends the whole text).
    pub fn change(&mut self, uri: &Uri, text: String, version: i32) {
        if let Some(doc) = self.open.get_mut(uri) {
            doc.text = text;
            doc.version = version;
        }
    }

    pub fn close(&mut self, uri: &Uri) {
        self.open.remove(uri);
    }

    pub fn get(&self, uri: &Uri) -> Option<&Document> {
        self.open.get(uri)
    }

    pub fn uris(&self) -> Vec<Uri> {
        self.open.keys().cloned().collect()
    }

    /// The open documents that stand for files, with their texts: checked instead of the files.
    pub fn unsaved(&self) -> impl Iterator<Item = (&PathBuf, &str)> {
        self.open
            .values()
            .filter_map(|d| d.path.as_ref().map(|p| (p, d.text.as_str())))
    }
}
