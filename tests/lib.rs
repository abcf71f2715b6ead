//! The integration tests, one crate of modules (one binary to build and link, as just's
//! `tests/` is): each `tests/X.rs` is the module `X`, and `support` is shared by all of them.
//! Run one file's tests with `cargo test --test integration X::`.

mod support;

mod batch;
mod bounded_work;
mod ci_config;
mod ci_formats;
mod ci_image;
mod ci_pre_commit;
mod class1_rbac;
mod class2_budget;
mod class4_files;
mod class5_consumers;
mod class6_urls;
mod cli;
mod conventions;
mod deploy;
mod doc_paths;
mod docs;
mod dotenv;
mod generated_text;
mod hostile_inputs;
mod image_beyond_spec;
mod import;
mod import_compose;
mod init;
mod invalid_profiles;
mod krm;
mod layers;
mod lint;
mod lsp;
mod migrate;
mod module_graph;
mod newcomer;
mod outputs;
mod plan;
mod readers;
mod real_image;
mod record;
mod roundtrip;
mod schema;
mod secrets;
mod self_contained;
mod site;
mod spec_model;
mod targets;
