//! svcgen diagnostics as LSP diagnostics of one document.
//!
//! A problem in the document is reported at its own range; a problem in another layer (an
//! `extends` base, or the base an overlay lies over) is reported on the line that brings that
//! layer in, with the problem's real place as related information.

use super::analysis::{Analysis, Layering, find_source};
use super::position::LineIndex;
use crate::diag::redact::Scrubber;
use crate::diag::source::{Origin, SourceId, Sources};
use crate::diag::{Diagnostic, Severity};
use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Range,
};
use serde_json::json;
use std::path::Path;

/// Name of the diagnostics' source, shown by editors.
pub const SOURCE: &str = "svcgen";

/// One diagnostic of the document, with the svcgen diagnostic it came from (`None` for an
/// unreadable layer).
pub struct Published<'a> {
    pub lsp: lsp_types::Diagnostic,
    pub origin: Option<&'a Diagnostic>,
}

/// Every diagnostic `svcgen validate` gives for the document, in the same order.
pub fn convert<'a>(analysis: &'a Analysis, text: &str) -> Vec<Published<'a>> {
    let checked = match &analysis.checked {
        Ok(c) => c,
        Err(message) => return vec![read_error(message)],
    };
    let index = LineIndex::new(text);
    let anchors = Anchors::new(analysis, text);
    // As every other printer: a message that quotes a value never shows a secret.
    let scrubber = analysis.sources.scrubber();
    let templates = analysis.template_errors.iter().map(|m| read_error(m));
    templates
        .chain(checked.diagnostics.items.iter().map(|d| {
            let mut lsp = base_diagnostic(d, &scrubber);
            match d.origin {
                Some(o) if Some(o.source) == analysis.doc => lsp.range = index.range(o.span()),
                Some(o) => {
                    lsp.range = index.range(anchors.anchor(o.source));
                    lsp.message = format!("{}: {}", at(&analysis.sources, o), lsp.message);
                    let message = scrubber.scrub(&d.message);
                    lsp.related_information = related(&analysis.sources, o, message);
                }
                None => {}
            }
            Published {
                lsp,
                origin: Some(d),
            }
        }))
        .collect()
}

/// The LSP diagnostic of `d` (its texts scrubbed of secrets), at the start of the document
/// until placed.
fn base_diagnostic(d: &Diagnostic, scrubber: &Scrubber) -> lsp_types::Diagnostic {
    let help: Vec<String> = d.help.iter().map(|h| scrubber.scrub(h)).collect();
    let mut message = scrubber.scrub(&d.message);
    for help in &help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    lsp_types::Diagnostic {
        range: Range::default(),
        severity: Some(severity(d.severity())),
        code: Some(NumberOrString::String(d.code.id().to_string())),
        source: Some(SOURCE.to_string()),
        message,
        data: Some(json!({
            "name": d.code.name(),
            "label": d.label.as_deref().map(|l| scrubber.scrub(l)),
            "help": help,
        })),
        ..lsp_types::Diagnostic::default()
    }
}

fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

/// A layer that could not be read, at the start of the document.
fn read_error(message: &str) -> Published<'static> {
    Published {
        lsp: lsp_types::Diagnostic {
            severity: Some(DiagnosticSeverity::ERROR),
            code: Some(NumberOrString::String("io".to_string())),
            source: Some(SOURCE.to_string()),
            message: message.to_string(),
            ..lsp_types::Diagnostic::default()
        },
        origin: None,
    }
}

/// `file:line:column` of an origin, as `svcgen validate` names places.
pub fn at(sources: &Sources, origin: Origin) -> String {
    let pos = sources.line_col(origin.source, origin.start);
    let name = &sources.get(origin.source).name;
    format!("{name}:{}:{}", pos.line, pos.column)
}

/// The real place of a problem in another layer.
fn related(
    sources: &Sources,
    origin: Origin,
    message: String,
) -> Option<Vec<DiagnosticRelatedInformation>> {
    let source = sources.get(origin.source);
    let uri = super::uri::from_path(&crate::diag::source::lexical(Path::new(&source.name)))?;
    let range = LineIndex::new(&source.text).range(origin.span());
    Some(vec![DiagnosticRelatedInformation {
        location: Location::new(uri, range),
        message,
    }])
}

/// Where in the document each other layer is brought in.
struct Anchors {
    /// (first source of the layer's subtree, span of the `extends` entry naming it), in load order.
    extends: Vec<(SourceId, std::ops::Range<usize>)>,
    /// The overlay directive, for the base an overlay lies over.
    directive: Option<std::ops::Range<usize>>,
}

impl Anchors {
    fn new(analysis: &Analysis, text: &str) -> Anchors {
        let directive = match &analysis.layering {
            Layering::Overlay { directive, .. } => Some(directive.clone()),
            Layering::Alone => None,
        };
        let doc_dir = analysis
            .doc
            .and_then(|id| analysis.sources.get(id).dir.clone());
        let mut extends = Vec::new();
        if let (Some(doc), Some(dir)) = (analysis.doc, doc_dir) {
            for (base, span) in extends_entries(text) {
                let name = dir.join(&base).display().to_string();
                if let Some(id) = find_source(&analysis.sources, &name, Some(doc)) {
                    extends.push((id, span));
                }
            }
        }
        Anchors { extends, directive }
    }

    /// The span in the document that brings in the layer `source`.
    fn anchor(&self, source: SourceId) -> std::ops::Range<usize> {
        let by_extends = self
            .extends
            .iter()
            .filter(|(first, _)| first.index() <= source.index())
            .max_by_key(|(first, _)| first.index())
            .map(|(_, span)| span.clone());
        by_extends
            .or_else(|| self.directive.clone())
            .or_else(|| self.extends.first().map(|(_, span)| span.clone()))
            .unwrap_or(0..0)
    }
}

pub use crate::profile::extends_entries;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::documents::Document;

    #[test]
    fn a_message_quoting_a_secret_value_is_scrubbed_as_validate_scrubs_it() {
        // The passphrase's text is also the (invalid) adapter: validate says
        // "`config.adapter` cannot be \"****\"", and so must the editor.
        let text = "edition = \"B\"\n[google]\nsecret_manager_passphrase = \"hunter2SECRET\"\n\
                    [config]\nadapter = \"hunter2SECRET\"\n";
        let doc = Document {
            text: text.to_string(),
            version: 1,
            path: None,
            reads: Default::default(),
            oversized: None,
        };
        let analysis = super::super::analysis::analyze(
            &doc,
            "p.toml",
            &Default::default(),
            &crate::render::Templates::load(None).unwrap(),
        );
        let published = convert(&analysis, text);
        let shown =
            serde_json::to_string(&published.iter().map(|p| &p.lsp).collect::<Vec<_>>()).unwrap();
        assert!(shown.contains("config.adapter"), "{shown}");
        assert!(shown.contains("****"), "{shown}");
        assert!(!shown.contains("hunter2SECRET"), "{shown}");
    }
}
