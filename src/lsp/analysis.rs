//! One document checked as `svcgen validate` checks it: the same pipeline entry points, with
//! the texts of open documents standing for their files, and the layers the document names
//! (`extends`, or the overlay directive) read from disk; then validate's own [`report`] (the
//! render checks of every deployable target, host files read by the bounded reader).

use super::documents::{Document, Documents};
use crate::commands::validate::report;
use crate::diag::source::{SourceId, Sources};
use crate::model::Edition;
use crate::pipeline::{Checked, check_layers, check_text};
use crate::profile::overlay_of;
use crate::profile::{Layers, MAX_PROFILE_BYTES, load_layers};
use crate::render::Templates;
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How the document takes part in a layer stack.
pub enum Layering {
    /// Checked on its own (its `extends` bases, if any, are part of it).
    Alone,
    /// An overlay checked over `base`; the directive naming it is at `directive`.
    Overlay {
        base: PathBuf,
        directive: Range<usize>,
    },
}

/// The result of checking one document.
pub struct Analysis {
    pub sources: Sources,
    /// `Err` when a layer could not be read at all (exit code 2 for `svcgen validate`). Its
    /// diagnostics are validate's: resolve's, then the render checks'.
    pub checked: Result<Checked, String>,
    /// Templates that failed, as `validate` prints them (none but for a bug of a built-in one).
    pub template_errors: Vec<String>,
    /// The document's own text among `sources`, once loaded.
    pub doc: Option<SourceId>,
    pub layering: Layering,
    /// The edition of the profile (of its whole stack), when it says a valid one.
    pub edition: Option<Edition>,
}

/// Checks the document `doc`, with every open document standing for its file, rendering with
/// `templates` as `validate` does.
pub fn analyze(doc: &Document, name: &str, open: &Documents, templates: &Templates) -> Analysis {
    let mut analysis = check(doc, name, open);
    if let Ok(checked) = &mut analysis.checked {
        let inputs = crate::support::inputs::Inputs::default();
        let root = checked.root.clone();
        let reader = |path: &Path| crate::profile::read_host_file(path, root.as_ref(), &inputs);
        let report = report(checked, false, templates, Some(&reader));
        checked.diagnostics = report.diagnostics;
        analysis.template_errors = report.template_errors;
    }
    analysis
}

/// The document's layers through the pipeline: resolve's diagnostics.
fn check(doc: &Document, name: &str, open: &Documents) -> Analysis {
    let mut sources = Sources::new();
    sources.share_unsaved(open.unsaved());
    if doc.too_large() {
        return Analysis {
            sources,
            checked: Err(format!(
                "{name}: is {} bytes; a profile may have at most {MAX_PROFILE_BYTES}",
                doc.size()
            )),
            doc: None,
            layering: Layering::Alone,
            edition: None,
            template_errors: Vec::new(),
        };
    }
    let Some(path) = &doc.path else {
        let checked = check_text(name, &doc.text, None, &mut sources);
        let edition = checked.resolved.as_ref().map(|r| r.edition);
        let edition = edition.or_else(|| text_edition(&doc.text));
        return Analysis {
            doc: find_source(&sources, name, None),
            sources,
            checked: Ok(checked),
            layering: Layering::Alone,
            edition,
            template_errors: Vec::new(),
        };
    };
    let layering = match overlay_of(&doc.text) {
        Some((base, directive)) => Layering::Overlay {
            base: folder(path).join(base),
            directive,
        },
        None => Layering::Alone,
    };
    let layers = match &layering {
        Layering::Alone => Layers::single(path),
        Layering::Overlay { base, .. } => Layers {
            profile: base.clone(),
            overlays: vec![path.clone()],
            sets: Vec::new(),
            root: None,
        },
    };
    let checked = check_layers(&layers, &mut sources);
    let doc_name = path.display().to_string();
    let doc_id = find_source(&sources, &doc_name, None);
    let edition = match &checked {
        Ok(Checked {
            resolved: Some(r), ..
        }) => Some(r.edition),
        _ => stack_edition(&layers, &sources).or_else(|| text_edition(&doc.text)),
    };
    Analysis {
        sources,
        checked,
        doc: doc_id,
        layering,
        edition,
        template_errors: Vec::new(),
    }
}

impl Analysis {
    /// The files (lexical paths) this check read besides `own`: what a change must re-check it for.
    /// An overlay's base counts even when it could not be read (opening it then re-checks).
    pub fn reads(&self, own: Option<&Path>) -> BTreeSet<PathBuf> {
        let own = own.map(crate::diag::source::lexical);
        let base = match &self.layering {
            Layering::Overlay { base, .. } => Some(base.as_path()),
            Layering::Alone => None,
        };
        self.sources
            .ids()
            .map(|id| Path::new(&self.sources.get(id).name))
            .chain(base)
            .filter(|path| path.is_absolute())
            .map(crate::diag::source::lexical)
            .filter(|path| Some(path) != own.as_ref())
            .collect()
    }
}

/// The folder a file's relative paths are relative to.
pub fn folder(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("/"))
}

/// The edition the merged layers say, when they merge (for completion while there are errors).
fn stack_edition(layers: &Layers, sources: &Sources) -> Option<Edition> {
    let mut scratch = sources.clone();
    let loaded = load_layers(layers, &mut scratch).ok()?;
    loaded
        .table
        .ok()?
        .str_at("edition")
        .and_then(Edition::parse)
}

/// The edition a text says, when it parses.
fn text_edition(text: &str) -> Option<Edition> {
    let mut scratch = Sources::new();
    let (_, table) = crate::profile::parse_text(String::new(), text.to_string(), &mut scratch);
    table.ok()?.str_at("edition").and_then(Edition::parse)
}

/// The first text loaded under `name` (a path as it was given), after `after` if given.
pub fn find_source(sources: &Sources, name: &str, after: Option<SourceId>) -> Option<SourceId> {
    sources
        .ids()
        .filter(|id| after.is_none_or(|a| id.index() > a.index()))
        .find(|id| sources.get(*id).name == name)
}
