//! What a subcommand does beyond the stages of the pipeline (profile -> resolve -> render):
//! each module is the library side of one command, called by the command line (`cli`) and, for
//! the pure ones, by the language server and the browser playground. Nothing below this folder
//! uses it.

#[cfg(feature = "host")]
pub mod batch;
pub mod diff;
pub mod explain;
pub mod init;
pub mod lint;
mod lint_rbac;
mod lint_workload;
pub mod migrate;
pub mod playground;
#[cfg(feature = "host")]
pub mod render;
pub mod stale;
pub mod start;
pub mod validate;
