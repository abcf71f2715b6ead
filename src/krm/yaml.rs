//! A `ResourceList` read as YAML nodes that keep their source text: each node has its byte range
//! in the input, its scalars their style and tag. The function never turns an item it does not
//! own into values and back (that changes `0644`, `yes`, big integers and `!!binary`); it copies
//! the item's text, and reads only the few fields it needs (kind, names, annotations) from here.
//!
//! Aliases are not expanded (an alias is a node of its own), so no input makes the tree larger
//! than the text; nodes and depth are limited all the same.

use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

/// The most nodes (scalars, lists, mappings, aliases) a `ResourceList` may have.
pub const MAX_NODES: usize = 1_000_000;

/// The deepest nesting of lists and mappings a `ResourceList` may have (below the parser's own
/// limit, so that the error names this one).
pub const MAX_DEPTH: usize = 200;

/// One YAML node and where its text is in the input.
#[derive(Debug)]
pub struct Node {
    pub value: NodeValue,
    /// Byte range of the node's text, its anchor and tag included.
    pub start: usize,
    pub end: usize,
}

#[derive(Debug)]
pub enum NodeValue {
    Scalar {
        text: String,
        style: ScalarStyle,
        /// The resolved tag (`tag:yaml.org,2002:binary`), if one is written.
        tag: Option<String>,
    },
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
    Alias,
}

/// Why the text could not be read; never quotes the text (it may hold a passphrase).
#[derive(Debug, PartialEq)]
pub enum ReadError {
    Syntax { line: usize, column: usize },
    TooManyNodes,
    TooDeep,
    NotOneDocument,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Syntax { line, column } => {
                write!(
                    f,
                    "the input is not valid YAML at line {line}, column {column}"
                )
            }
            ReadError::TooManyNodes => write!(
                f,
                "the input has more than {MAX_NODES} YAML nodes, the limit of svcgen krm"
            ),
            ReadError::TooDeep => write!(
                f,
                "the input nests lists and mappings deeper than {MAX_DEPTH} levels, the limit of svcgen krm"
            ),
            ReadError::NotOneDocument => {
                write!(f, "the input must be one YAML document (a ResourceList)")
            }
        }
    }
}

impl Node {
    /// The value of `key` in a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            NodeValue::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The node at the path of mapping keys.
    pub fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |node, key| node.get(key))
    }

    /// A scalar's text (whatever its type: names, kinds and ConfigMap data are strings).
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            NodeValue::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        match &self.value {
            NodeValue::Scalar { text, style, tag } => {
                *style == ScalarStyle::Plain
                    && tag.is_none()
                    && matches!(text.as_str(), "" | "~" | "null" | "Null" | "NULL")
            }
            _ => false,
        }
    }

    /// Whether two nodes say the same: same structure, scalar texts, styles and tags (the
    /// positions may differ).
    pub fn same_meaning(&self, other: &Node) -> bool {
        match (&self.value, &other.value) {
            (
                NodeValue::Scalar { text, style, tag },
                NodeValue::Scalar {
                    text: t,
                    style: s,
                    tag: g,
                },
            ) => text == t && same_style(*style, *s) && tag == g,
            (NodeValue::Seq(a), NodeValue::Seq(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_meaning(y))
            }
            (NodeValue::Map(a), NodeValue::Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((k, v), (l, w))| k.same_meaning(l) && v.same_meaning(w))
            }
            (NodeValue::Alias, NodeValue::Alias) => true,
            _ => false,
        }
    }
}

/// Plain scalars are typed by their text; every other style is a string.
fn same_style(a: ScalarStyle, b: ScalarStyle) -> bool {
    (a == ScalarStyle::Plain) == (b == ScalarStyle::Plain)
}

/// A collection being read: its node so far and, for a mapping, a key waiting for its value.
struct Open {
    node: Node,
    key: Option<Node>,
    flow: bool,
}

/// Reads the one document of `text` into nodes.
pub fn read(text: &str) -> Result<Node, ReadError> {
    let mut options = granit_parser::Options::default();
    options.emit_anchor_events = true;
    let mut parser = Parser::new_from_str_with_options(text, options);
    let mut reader = Reader::new(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| ReadError::Syntax {
            line: e.marker().line(),
            column: e.marker().col() + 1,
        })?;
        reader.event(event, span)?;
    }
    reader.root.ok_or(ReadError::NotOneDocument)
}

struct Reader<'t> {
    text: &'t str,
    stack: Vec<Open>,
    root: Option<Node>,
    nodes: usize,
    documents: usize,
    /// Whether the last node event opened a collection (an anchor then belongs to it).
    last_opened: bool,
}

impl<'t> Reader<'t> {
    fn new(text: &'t str) -> Reader<'t> {
        Reader {
            text,
            stack: Vec::new(),
            root: None,
            nodes: 0,
            documents: 0,
            last_opened: false,
        }
    }

    /// The byte offset of a marker (the parser gives it for text input; else from characters).
    fn byte(&self, marker: granit_parser::Marker) -> usize {
        marker.byte_offset().unwrap_or_else(|| {
            self.text
                .char_indices()
                .nth(marker.index())
                .map_or(self.text.len(), |(i, _)| i)
        })
    }

    fn start_of(&self, span: &Span) -> usize {
        let start = self.byte(span.start);
        span.tag_start.map_or(start, |t| start.min(self.byte(t)))
    }

    fn count(&mut self) -> Result<(), ReadError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(ReadError::TooManyNodes);
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), ReadError> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 && self.root.is_some() {
                    return Err(ReadError::NotOneDocument);
                }
            }
            Event::Scalar(text, style, _, tag) => {
                self.count()?;
                let node = Node {
                    value: NodeValue::Scalar {
                        text: text.into_owned(),
                        style,
                        tag: tag.map(|t| format!("{}{}", t.handle(), t.suffix())),
                    },
                    start: self.start_of(&span),
                    end: self.byte(span.end),
                };
                self.last_opened = false;
                self.attach(node);
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                self.count()?;
                let node = Node {
                    value: NodeValue::Alias,
                    start: self.byte(span.start),
                    end: self.byte(span.end),
                };
                self.last_opened = false;
                self.attach(node);
            }
            Event::SequenceStart(style, _, _) => {
                self.open(NodeValue::Seq(Vec::new()), style, &span)?
            }
            Event::MappingStart(style, _, _) => {
                self.open(NodeValue::Map(Vec::new()), style, &span)?
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(&span),
            Event::Anchor(..) => {
                let start = self.byte(span.start);
                if let Some(node) = self.last_node() {
                    node.start = node.start.min(start);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn open(
        &mut self,
        value: NodeValue,
        style: StructureStyle,
        span: &Span,
    ) -> Result<(), ReadError> {
        self.count()?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(ReadError::TooDeep);
        }
        let start = self.start_of(span);
        self.stack.push(Open {
            node: Node {
                value,
                start,
                end: self.byte(span.end),
            },
            key: None,
            flow: style == StructureStyle::Flow,
        });
        self.last_opened = true;
        Ok(())
    }

    /// A collection ends: a flow one at its closing bracket, a block one with its last child.
    fn close(&mut self, span: &Span) {
        let Some(mut open) = self.stack.pop() else {
            return;
        };
        let last_child_end = match &open.node.value {
            NodeValue::Seq(items) => items.iter().map(|n| n.end).max(),
            NodeValue::Map(entries) => entries.iter().map(|(_, v)| v.end).max(),
            _ => None,
        };
        open.node.end = if open.flow {
            self.byte(span.end)
        } else {
            last_child_end.unwrap_or(open.node.end).max(open.node.start)
        };
        self.last_opened = false;
        self.attach(open.node);
    }

    /// The node an anchor event belongs to: the collection just opened, else the last node.
    fn last_node(&mut self) -> Option<&mut Node> {
        if self.last_opened {
            return self.stack.last_mut().map(|o| &mut o.node);
        }
        match self.stack.last_mut() {
            None => self.root.as_mut(),
            Some(open) => match (&mut open.node.value, &mut open.key) {
                (_, Some(key)) => Some(key),
                (NodeValue::Seq(items), None) => items.last_mut(),
                (NodeValue::Map(entries), None) => entries.last_mut().map(|(_, v)| v),
                _ => None,
            },
        }
    }

    fn attach(&mut self, node: Node) {
        let Some(open) = self.stack.last_mut() else {
            if self.root.is_none() {
                self.root = Some(node);
            }
            return;
        };
        match &mut open.node.value {
            NodeValue::Seq(items) => items.push(node),
            NodeValue::Map(entries) => match open.key.take() {
                None => open.key = Some(node),
                Some(key) => entries.push((key, node)),
            },
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item_texts(text: &str) -> Vec<&str> {
        let root = read(text).unwrap();
        let Some(NodeValue::Seq(items)) = root.get("items").map(|n| &n.value) else {
            panic!("no items");
        };
        items.iter().map(|n| &text[n.start..n.end]).collect()
    }

    #[test]
    fn items_keep_their_source_text() {
        let text = "items:\n- a: 1\n  b: &x !!binary aGVsbG8=\n  c: |\n    keep\n\n- {x: [1, 2]}\n-   &y\n    k: v\n";
        assert_eq!(
            item_texts(text),
            [
                "a: 1\n  b: &x !!binary aGVsbG8=\n  c: |\n    keep\n\n",
                "{x: [1, 2]}",
                "&y\n    k: v"
            ]
        );
    }

    #[test]
    fn errors_do_not_quote_the_text() {
        let err = read("a: 1\nb: \"secret-passphrase\n").unwrap_err();
        assert!(matches!(err, ReadError::Syntax { .. }), "{err:?}");
        assert!(!err.to_string().contains("secret"));
    }

    #[test]
    fn nesting_and_node_count_are_limited() {
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(read(&deep).unwrap_err(), ReadError::TooDeep);
        assert!(
            ReadError::TooManyNodes
                .to_string()
                .contains(&MAX_NODES.to_string())
        );
    }
}
