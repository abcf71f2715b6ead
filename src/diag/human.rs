//! Diagnostics for people, in rustc's format: `error[E0201]: …`, `--> file:line:col`, the line,
//! a caret under the key or value, and help lines.

use super::{Diagnostic, Diagnostics, Severity};
use crate::diag::redact::Scrubber;
use crate::diag::source::{Sources, floor_char_boundary};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// Renders every diagnostic and a summary line; `color` adds ANSI styles.
pub fn render(diagnostics: &Diagnostics, sources: &Sources, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    let scrubber = sources.scrubber();
    for diagnostic in &diagnostics.items {
        out.push_str(&render_one(diagnostic, sources, &renderer, &scrubber));
        out.push_str("\n\n");
    }
    out
}

fn render_one(
    diagnostic: &Diagnostic,
    sources: &Sources,
    renderer: &Renderer,
    scrubber: &Scrubber,
) -> String {
    let level = match diagnostic.severity() {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    };
    let message = scrubber.scrub(&diagnostic.message);
    let label = diagnostic.label.as_deref().map(|l| scrubber.scrub(l));
    let title = level
        .clone()
        .primary_title(message.as_str())
        .id(diagnostic.code.id());
    let excerpt = diagnostic.origin.map(|origin| {
        let source = sources.get(origin.source);
        (source, Excerpt::around(source, origin.span(), scrubber))
    });
    let mut group = match &excerpt {
        Some((source, excerpt)) => {
            let mut annotation = AnnotationKind::Primary.span(excerpt.span.clone());
            if let Some(label) = &label {
                annotation = annotation.label(label.as_str());
            }
            title.element(
                Snippet::source(excerpt.text.as_str())
                    .line_start(excerpt.first_line)
                    .path(source.name.as_str())
                    .annotation(annotation),
            )
        }
        None => Group::with_title(title),
    };
    let help: Vec<String> = diagnostic.help.iter().map(|h| scrubber.scrub(h)).collect();
    for help in &help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    renderer.render(&[group])
}

/// The whole lines around a span, so that a huge file is never handed to the renderer whole;
/// secret values in them shown as a mask of fixed length (the caret still points at them).
struct Excerpt {
    text: String,
    first_line: usize,
    span: std::ops::Range<usize>,
}

impl Excerpt {
    /// `scrubber` masks, besides the source's own secret values, any other value in these lines
    /// that is a secret's text (another key set to the passphrase).
    fn around(
        source: &crate::diag::source::Source,
        span: std::ops::Range<usize>,
        scrubber: &Scrubber,
    ) -> Excerpt {
        let text = source.text.as_str();
        let start = floor_char_boundary(text, span.start);
        let end = floor_char_boundary(text, span.end.max(start));
        let (first_line, line_start) = source.line_of(start);
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        let mut secrets: Vec<std::ops::Range<usize>> = source
            .secret_ranges()
            .iter()
            .filter(|s| s.start < line_end && line_start < s.end)
            .map(|s| s.start.max(line_start) - line_start..s.end.min(line_end) - line_start)
            .collect();
        secrets.extend(scrubber.value_ranges(&text[line_start..line_end]));
        let masked = crate::diag::redact::Masked::new(&text[line_start..line_end], &secrets);
        let span = masked.offset(start - line_start, false)..masked.offset(end - line_start, true);
        Excerpt {
            text: masked.text,
            first_line,
            span,
        }
    }
}

/// "2 errors, 1 warning" style summary, or `None` when there is nothing to say.
pub fn summary(diagnostics: &Diagnostics) -> Option<String> {
    let (errors, warnings) = (diagnostics.error_count(), diagnostics.warning_count());
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, warnings) {
        (0, 0) => None,
        (0, w) => Some(plural(w, "warning")),
        (e, 0) => Some(plural(e, "error")),
        (e, w) => Some(format!("{}, {}", plural(e, "error"), plural(w, "warning"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;
    use crate::diag::source::Origin;

    /// Another key set to the passphrase's text shows a mask in the snippet too, not only in
    /// the message.
    #[test]
    fn a_secret_text_under_another_key_is_masked_in_the_snippet() {
        let mut sources = Sources::new();
        let text = "a = \"Tr0ub4dor-zz\"\ndialect = \"Tr0ub4dor-zz\"\n";
        let id = sources.add("p.toml", text);
        sources.mark_secret(Origin::new(id, 4..18));
        let start = text.rfind("\"Tr0ub").unwrap();
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(
            Diagnostic::new(Code::NotAllowed, "`dialect` cannot be \"Tr0ub4dor-zz\"")
                .at(Origin::new(id, start..start + 14)),
        );
        let out = render(&diagnostics, &sources, false);
        assert!(!out.contains("Tr0ub4dor"), "{out}");
        assert!(out.contains("dialect = \"****\""), "{out}");
    }

    #[test]
    fn shows_file_line_column_caret_and_help() {
        let mut sources = Sources::new();
        let text = "edition = \"B\"\n[config]\nadapter = \"consull\"\n";
        let id = sources.add("p.toml", text);
        let start = text.find("\"consull\"").unwrap();
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(
            Diagnostic::new(Code::NotAllowed, "bad adapter")
                .at(Origin::new(id, start..start + 9))
                .label("not allowed")
                .help("did you mean `consul`?"),
        );
        let out = render(&diagnostics, &sources, false);
        assert!(out.contains("error[E0204]: bad adapter"), "{out}");
        assert!(out.contains("--> p.toml:3:11"), "{out}");
        assert!(out.contains("^^^^^^^^^ not allowed"), "{out}");
        assert!(out.contains("help: did you mean `consul`?"), "{out}");
    }
}
