//! Diagnostics for people, in rustc's format: `error[E0201]: …`, `--> file:line:col`, the line,
//! a caret under the key or value, and help lines.

use super::{Diagnostic, Diagnostics, Severity};
use crate::source::{Sources, floor_char_boundary};
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// Renders every diagnostic and a summary line; `color` adds ANSI styles.
pub fn render(diagnostics: &Diagnostics, sources: &Sources, color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for diagnostic in &diagnostics.items {
        out.push_str(&render_one(diagnostic, sources, &renderer));
        out.push_str("\n\n");
    }
    out
}

fn render_one(diagnostic: &Diagnostic, sources: &Sources, renderer: &Renderer) -> String {
    let level = match diagnostic.severity() {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let title = level
        .clone()
        .primary_title(diagnostic.message.as_str())
        .id(diagnostic.code.id());
    let mut group = match diagnostic.origin {
        Some(origin) => {
            let source = sources.get(origin.source);
            let excerpt = Excerpt::around(source, origin.span());
            let mut annotation = AnnotationKind::Primary.span(excerpt.span.clone());
            if let Some(label) = &diagnostic.label {
                annotation = annotation.label(label.as_str());
            }
            title.element(
                Snippet::source(excerpt.text)
                    .line_start(excerpt.first_line)
                    .path(source.name.as_str())
                    .annotation(annotation),
            )
        }
        None => Group::with_title(title),
    };
    for help in &diagnostic.help {
        group = group.element(Level::HELP.message(help.as_str()));
    }
    renderer.render(&[group])
}

/// The whole lines around a span, so that a huge file is never handed to the renderer whole.
struct Excerpt<'a> {
    text: &'a str,
    first_line: usize,
    span: std::ops::Range<usize>,
}

impl<'a> Excerpt<'a> {
    fn around(source: &'a crate::source::Source, span: std::ops::Range<usize>) -> Excerpt<'a> {
        let text = source.text.as_str();
        let start = floor_char_boundary(text, span.start);
        let end = floor_char_boundary(text, span.end.max(start));
        let (first_line, line_start) = source.line_of(start);
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        Excerpt {
            text: &text[line_start..line_end],
            first_line,
            span: (start - line_start)..(end - line_start),
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
    use crate::source::Origin;

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
