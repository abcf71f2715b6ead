//! What of the input's text form the written list keeps, and what it says it changed: a
//! `%YAML` directive is written back (it decides how readers type the copied items' scalars);
//! items are copied with LF line ends, and comments between items (outside every item's own
//! text) are not copied: each is an `info` result, so nothing changes without a word.

use super::results::Results;
use super::yaml::Node;

/// The `%YAML` directive line the input's document has (before its `---`), if any.
pub fn yaml_directive(input: &str) -> Option<&str> {
    for line in input.lines() {
        let line = line.trim_end_matches('\r');
        if line.starts_with("---") {
            return None;
        }
        if line.starts_with("%YAML") {
            return Some(line);
        }
    }
    None
}

/// One result per kind of change of the text form: CRLF line ends written as LF, and the
/// comments between items (by line) left out.
pub fn report_changes(input: &str, items: &[Node], results: &mut Results) {
    if input.contains("\r\n") {
        results.info(
            "the input's CRLF line ends are written as LF (the items' values are unchanged)"
                .to_string(),
        );
    }
    let lines: Vec<String> = items
        .windows(2)
        .flat_map(|pair| comment_lines(input, pair[0].end, pair[1].start))
        .map(|line| line.to_string())
        .collect();
    if !lines.is_empty() {
        results.info(format!(
            "comments between items are not copied (line {}): svcgen krm copies each item's own text",
            lines.join(", ")
        ));
    }
}

/// The 1-based lines between `start` and `end` of `input` that hold only a comment.
fn comment_lines(input: &str, start: usize, end: usize) -> Vec<usize> {
    let Some(between) = input.get(start..end) else {
        return Vec::new();
    };
    let first = input[..start].matches('\n').count() + 1;
    between
        .split('\n')
        .enumerate()
        .filter(|(_, line)| line.trim_start().starts_with('#'))
        .map(|(i, _)| first + i)
        .collect()
}
