//! The spec model as baked by `build.rs`: `schemas/spec.toml` written out as Rust code that
//! builds the model's raw types, so that a run reads its model without parsing text or walking
//! a tree of values. A child of `types`, whose raw types it builds.

use super::super::start::{Lasts, LockCheck, StartFacts, StartWait};
use super::*;
use std::borrow::Cow;

include!(concat!(env!("OUT_DIR"), "/spec_model.rs"));
