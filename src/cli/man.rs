//! `svcgen man`: the man pages, made by clap_mangen from the command line's own definition (no
//! library side: the pages are the command line's), printed or written into a folder.

use super::{EXIT_IO, EXIT_OK};
use crate::support::inputs::Inputs;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Write one page per command into this folder (svcgen.1, svcgen-render.1, ...) instead of
    /// printing the top page
    #[arg(long, value_name = "DIR", value_parser = super::choice::PathParser(super::choice::PathRole::WriteFolder))]
    pub out_dir: Option<PathBuf>,
}

/// The top page and one page per subcommand (`svcgen-render.1`, ...): (file name, roff text).
fn man_pages(command: clap::Command) -> Result<Vec<(String, Vec<u8>)>, std::io::Error> {
    let mut command = command.disable_help_subcommand(true);
    // Building names each subcommand `svcgen-<name>`, the page's title and file name.
    command.build();
    let subcommands = command.get_subcommands().filter(|s| !s.is_hide_set());
    let mut pages = Vec::new();
    for cmd in std::iter::once(&command).chain(subcommands) {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut roff = Vec::new();
        man.render(&mut roff)?;
        let roff = with_usage_synopsis(&String::from_utf8_lossy(&roff), cmd);
        pages.push((man.get_filename(), roff.into_bytes()));
    }
    Ok(pages)
}

/// The page with its SYNOPSIS replaced by the usage line `-h` prints (clap_mangen writes its
/// own, which lists options `-h` folds into `[OPTIONS]` and names the subcommands otherwise).
fn with_usage_synopsis(roff: &str, cmd: &clap::Command) -> String {
    let usage = cmd.clone().render_usage().to_string();
    let usage = usage.trim().strip_prefix("Usage: ").unwrap_or(usage.trim());
    let escaped = usage.replace('\\', "\\e").replace('-', "\\-");
    let Some(start) = roff.find(".SH SYNOPSIS\n") else {
        return roff.to_string();
    };
    let body = start + ".SH SYNOPSIS\n".len();
    let end = roff[body..]
        .find("\n.SH ")
        .map_or(roff.len(), |i| body + i + 1);
    format!("{}{escaped}\n{}", &roff[..body], &roff[end..])
}

/// Prints the top page of `command` (the whole command line), or writes every page into
/// `--out-dir`.
pub fn man(args: &ManArgs, command: clap::Command) -> u8 {
    if let Some(Err(problem)) = args.out_dir.as_deref().map(super::refuse_stdio_folder) {
        super::report::io_error(&problem);
        return EXIT_IO;
    }
    let pages = match man_pages(command) {
        Ok(pages) => pages,
        Err(e) => {
            super::report::io_error(&format!("cannot render the man pages: {e}"));
            return EXIT_IO;
        }
    };
    let Some(dir) = &args.out_dir else {
        let _ = std::io::stdout().write_all(&pages[0].1);
        return EXIT_OK;
    };
    // An output folder like render's: locked, and no page written through a link leading out.
    let out = match crate::output::OutDir::open(dir, &Inputs::default()) {
        Ok(out) => out,
        Err(e) => {
            super::report::io_error(&e);
            return EXIT_IO;
        }
    };
    let files: Vec<(PathBuf, String)> = pages
        .into_iter()
        .map(|(name, roff)| {
            (
                out.root.join(name),
                String::from_utf8_lossy(&roff).into_owned(),
            )
        })
        .collect();
    let options = crate::output::WriteOptions {
        durability: crate::output::Durability::Fsync,
        ..crate::output::WriteOptions::default()
    };
    match crate::output::write_files(&files, Some(&out.root), options) {
        Ok(_) => EXIT_OK,
        Err(e) => {
            super::report::io_error(&e);
            EXIT_IO
        }
    }
}
