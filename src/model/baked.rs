//! The spec model as baked by `build.rs`: `schemas/spec.toml` already parsed into a static tree,
//! read into the model's types through serde (the same definitions and checks as the TOML text),
//! without parsing text at run time.

use serde::de::value::{Error, MapDeserializer, SeqDeserializer};
use serde::de::{Deserializer, IntoDeserializer, Visitor};

/// A TOML value known at build time.
#[derive(Debug)]
pub enum Baked {
    Str(&'static str),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(&'static [Baked]),
    Table(&'static [(&'static str, Baked)]),
}

include!(concat!(env!("OUT_DIR"), "/spec_model.rs"));

impl<'de> IntoDeserializer<'de, Error> for &'static Baked {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for &'static Baked {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Baked::Str(s) => visitor.visit_borrowed_str(s),
            Baked::Int(i) => visitor.visit_i64(*i),
            Baked::Float(f) => visitor.visit_f64(*f),
            Baked::Bool(b) => visitor.visit_bool(*b),
            Baked::Array(items) => {
                let mut seq = SeqDeserializer::new(items.iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Baked::Table(entries) => {
                let mut map = MapDeserializer::new(entries.iter().map(|(k, v)| (*k, v)));
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    /// A value that is there is `Some`; a missing key is `None` (serde's derive does that).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    /// Enums of the model are unit variants written as strings.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Baked::Str(s) => s
                .into_deserializer()
                .deserialize_enum(name, variants, visitor),
            other => Err(serde::de::Error::custom(format!(
                "{name}: expected a string, found {other:?}"
            ))),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}
