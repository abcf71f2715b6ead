//! The profile arguments several commands share: the profiles, and the layers put over each.

use super::choice;
use super::report;
use clap::Args;
use std::path::PathBuf;

// The profile arguments, with the layers put over each. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug, Clone)]
pub struct ProfileArg {
    /// The profile (TOML); several profiles, or a folder of them, are a batch
    #[arg(required = true, value_name = "PROFILE")]
    pub profiles: Vec<PathBuf>,
    #[command(flatten)]
    pub layers: LayerArgs,
}

// Layers over a profile: overlay files, then single values. (not a doc comment: under
// `defer`, clap would make it the about text of every subcommand that flattens it).
#[derive(Args, Debug, Clone, Default)]
pub struct LayerArgs {
    /// Merge this profile over it (repeatable; later files win key by key, lists are replaced)
    #[arg(short = 'f', long = "overlay", value_name = "FILE", value_parser = choice::PathParser(choice::PathRole::ReadFile))]
    pub overlays: Vec<PathBuf>,
    /// Set one key, typed by the spec model: --set config.consul.port=8501 (repeatable; applied last)
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = choice::AssignmentParser { flag: "--set", form: "KEY=VALUE" })]
    pub sets: Vec<String>,
    /// Set one key from a file's content (a secret becomes a { file = PATH } reference; applied before --set)
    #[arg(long = "set-file", value_name = "KEY=PATH", value_parser = choice::AssignmentParser { flag: "--set-file", form: "KEY=PATH" })]
    pub set_files: Vec<String>,
    /// Let the profile read bases and host files from inside DIR (default: the nearest folder above the profile holding .git, else the profile's folder)
    #[arg(long = "root", value_name = "DIR", value_parser = choice::PathParser(choice::PathRole::ReadFolder))]
    pub root: Option<PathBuf>,
}

impl LayerArgs {
    /// The layers over `profile`, in the order they apply.
    pub fn layers(&self, profile: &std::path::Path) -> crate::profile::Layers {
        use crate::profile::SetKind;
        let sets = self
            .set_files
            .iter()
            .map(|s| (SetKind::File, s.clone()))
            .chain(self.sets.iter().map(|s| (SetKind::Value, s.clone())))
            .collect();
        crate::profile::Layers {
            profile: profile.to_path_buf(),
            overlays: self.overlays.clone(),
            sets,
            root: self.root.clone(),
        }
    }
}

/// A profile's file extension, in any case (`UPPER.TOML` is a profile too, never skipped).
fn is_toml(extension: &std::ffi::OsStr) -> bool {
    extension.eq_ignore_ascii_case("toml")
}

impl ProfileArg {
    /// [`expand`](Self::expand) for a command: its error printed, `Err` is the exit code.
    pub fn expand_or_exit(&self) -> Result<Vec<PathBuf>, u8> {
        self.expand().map_err(|e| {
            report::io_error(&e);
            super::EXIT_IO
        })
    }

    /// The profile files: folders are replaced by the `*.toml` files in them, sorted.
    pub fn expand(&self) -> Result<Vec<PathBuf>, String> {
        let mut out = Vec::new();
        for path in &self.profiles {
            if !path.is_dir() {
                out.push(path.clone());
                continue;
            }
            let entries = std::fs::read_dir(path)
                .map_err(|e| format!("{}: cannot read the folder: {e}", path.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                // Every `*.toml` entry but a folder: a FIFO, a device or a dangling link is
                // kept, so the bounded reader refuses it and the batch counts it as failed
                // instead of skipping it silently.
                .filter(|p| !p.is_dir() && p.extension().is_some_and(is_toml))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(format!(
                    "{}: is a folder with no *.toml profile in it",
                    path.display()
                ));
            }
            out.extend(found);
        }
        Ok(out)
    }
}
