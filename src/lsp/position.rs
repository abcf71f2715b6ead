//! Byte offsets (what the pipeline's origins hold) to LSP positions and back.
//!
//! LSP positions count UTF-16 code units within a line (the protocol's default encoding), so a
//! character such as `é` counts 1 and `😀` counts 2, where the byte offset counts 2 and 4.
//! Lines end at `\n`, as in the pipeline's line numbers (`Sources::line_col`).

use crate::diag::source::floor_char_boundary;
use lsp_types::{Position, Range};

/// The line starts of one text, for converting positions both ways.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The position of a byte offset (clamped to the text and to a char boundary, as
    /// `Sources::line_col` does, so both name the same character).
    pub fn position(&self, offset: usize) -> Position {
        let offset = floor_char_boundary(self.text, offset);
        let line = self
            .starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1);
        let character = self.text[self.starts[line]..offset]
            .chars()
            .map(char::len_utf16)
            .sum::<usize>();
        Position::new(to_u32(line), to_u32(character))
    }

    pub fn range(&self, span: std::ops::Range<usize>) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of a position; a position past a line's end is that line's end, a line
    /// past the text's end is the text's end (clients may send either).
    pub fn offset(&self, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let line = &self.text[start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let mut units = 0usize;
        for (index, c) in line.char_indices() {
            if units >= position.character as usize {
                return start + index;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs_twice() {
        // "é" is 2 bytes, 1 unit; "😀" is 4 bytes, 2 units.
        let text = "a = 1\né😀 = \"x\"\n";
        let index = LineIndex::new(text);
        let quote = text.find('"').unwrap();
        assert_eq!(index.position(quote), Position::new(1, 6));
        assert_eq!(index.offset(Position::new(1, 6)), quote);
        assert_eq!(index.position(0), Position::new(0, 0));
    }

    #[test]
    fn out_of_range_positions_are_clamped() {
        let text = "ab\ncd";
        let index = LineIndex::new(text);
        assert_eq!(index.offset(Position::new(0, 99)), 2);
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
        assert_eq!(index.position(999), Position::new(1, 2));
        // Inside a multi-byte character: the character's start.
        let index = LineIndex::new("é");
        assert_eq!(index.position(1), Position::new(0, 0));
    }
}
