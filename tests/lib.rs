//! The integration tests, one crate of modules (one binary to build and link, as just's
//! `tests/` is): each `tests/X.rs` is the module `X`, and `support` is shared by all of them.
//! Run one file's tests with `cargo test --test integration X::`.

mod support;

mod api_access;
mod batch;
mod bounded_work;
mod ci_config;
mod ci_formats;
mod ci_image;
mod ci_pre_commit;
mod cli;
mod code_shape;
mod consumers;
mod conventions;
mod deploy;
mod doc_paths;
mod docs;
mod dotenv;
mod echo_masking;
mod generated_text;
mod hostile_inputs;
mod image_files;
mod image_start;
mod import;
mod import_compose;
mod init;
mod invalid_profiles;
mod krm;
mod layer_depth;
mod layers;
mod lint;
mod lint_workload;
mod lsp;
mod migrate;
mod module_graph;
mod newcomer;
mod output_folder;
mod outputs;
mod plan;
mod profile_root;
mod preflight;
mod readers;
mod readme;
mod real_image;
mod roundtrip;
mod schema;
mod secrets;
mod self_contained;
mod site;
mod spec_model;
mod start;
mod targets;
mod test_command;
mod urls;
mod written_meaning;
