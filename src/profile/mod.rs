//! The profile as written: a tree of TOML values, each with the origin it came from.
//!
//! Nothing here knows the spec model (except `--set`, which asks it a key's type to read the
//! text). `load` reads one file, through the one bounded reader, into this tree; `layers` merges
//! a profile with its `extends` bases, the `--overlay` files and the `--set` values into one tree,
//! recording what a later layer replaced; `resolve` then gives the tree meaning. Keeping the
//! origins lets every later diagnostic point at a file, line and column.

mod layers;
mod load;
mod merge;
mod overlay;
mod set;

pub use layers::{
    EXTENDS, Extends, Layer, Layers, Loaded, MAX_EXTENDS_DEPTH, Stack, extends_entries,
    load_layers, load_stack,
};
pub use load::{
    FileAsRead, HostBytes, MAX_DEPTH, MAX_PROFILE_BYTES, ReadError, STDIN_NAME, check_stdin_size,
    is_stdio, load_file, parse_bytes, parse_text, read_host_file, read_input, read_input_or_stdin,
    read_input_text, read_regular, read_text,
};
pub use merge::{Overridden, merge, merge_recording};
pub use overlay::overlay_of;
pub use set::{SetKind, parse_set};

use crate::diag::source::Origin;

/// A value and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub origin: Origin,
}

/// A TOML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
    Datetime(String),
    Array(Vec<Node>),
    Table(Table),
}

impl Value {
    /// The TOML type name, for messages ("found a float").
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Datetime(_) => "a date-time",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

/// A TOML table, keys in the order written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub entries: Vec<Entry>,
}

/// One `key = value` of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_origin: Origin,
    pub node: Node,
}

impl Table {
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// The entry at a dotted path (`config.consul.port`), through nested tables.
    pub fn get_path(&self, path: &str) -> Option<&Entry> {
        let mut table = self;
        let mut parts = path.split('.').peekable();
        while let Some(part) = parts.next() {
            let entry = table.get(part)?;
            if parts.peek().is_none() {
                return Some(entry);
            }
            match &entry.node.value {
                Value::Table(t) => table = t,
                _ => return None,
            }
        }
        None
    }

    /// The string at a dotted path, if it is a string.
    pub fn str_at(&self, path: &str) -> Option<&str> {
        match &self.get_path(path)?.node.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}
