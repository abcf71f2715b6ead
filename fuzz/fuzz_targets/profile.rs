//! Arbitrary bytes as a profile: load, resolve and validate, print the diagnostics both ways, and
//! render every `--out-dir` target (plain and `--minimal`) when the profile is valid. Any panic,
//! hang or huge allocation here is a bug of svcgen's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::OnceLock;
use svcgen::pipeline::check_text;
use svcgen::render::{EnvOptions, RenderError, Target, Templates, environment, render};
use svcgen::diag::source::Sources;

/// The built-in templates, compiled once as the CLI does once per run.
fn templates() -> &'static Templates {
    static TEMPLATES: OnceLock<Templates> = OnceLock::new();
    TEMPLATES.get_or_init(|| Templates::load(None).expect("the built-in templates compile"))
}

fuzz_target!(|data: &[u8]| {
    // Invalid UTF-8 is refused before parsing by the CLI; the lossy text still exercises the parser.
    let text = String::from_utf8_lossy(data);
    // The examples' folder, so that the seeds' relative host paths resolve as in `examples/`.
    let base = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"));
    let mut sources = Sources::new();
    let checked = check_text("fuzz.toml", &text, Some(base), &mut sources);
    let _ = svcgen::diag::human::render(&checked.diagnostics, &sources, false);
    let _ = svcgen::diag::json::to_json(&checked.diagnostics, &sources);
    let Some(resolved) = checked.resolved else {
        return;
    };
    for (minimal, copy_host_files) in [(false, false), (true, false), (false, true)] {
        let options = EnvOptions {
            minimal,
            include_secrets: false,
            copy_host_files,
        };
        let Ok(env) = environment(&resolved, options) else {
            continue;
        };
        for target in Target::ALL {
            // A built-in template failing on a valid profile is our bug, as the CLI says.
            if let Err(RenderError::Template(e)) = render(target, &resolved, &env, templates()) {
                panic!("built-in template failed on a valid profile: {e}");
            }
        }
    }
});
