//! What `validate` checks beyond resolution: the checks of rendering, for every deployable
//! target, so that a profile `validate` accepts is one `render` renders. Shared by the command
//! line and the browser playground, so both report the same.

use crate::render::{EnvOptions, HostReader, Rendered, Target, Templates, render_checked};
use crate::resolve::Resolved;

/// Renders every deployable target of `resolved` as `render --out-dir` would (host paths as
/// written, no host file copied) and keeps what it found: diagnostics and template errors. Host
/// files are read through `reader` (`None` in the browser, which has no file system).
pub fn render_checks(
    resolved: &Resolved,
    include_secrets: bool,
    templates: &Templates,
    reader: Option<HostReader<'_>>,
) -> Rendered {
    let options = EnvOptions {
        minimal: false,
        include_secrets,
        copy_host_files: false,
    };
    render_checked(resolved, options, &Target::ALL, templates, None, reader)
}
