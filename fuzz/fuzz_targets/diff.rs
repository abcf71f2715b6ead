//! Arbitrary bytes as two profiles (split at the first NUL byte, else in half): both checked,
//! their environments compared as `svcgen diff` does (text and JSON), and the two texts compared
//! as `render --check` does (linear diff, secret lines masked). Any panic, hang or huge
//! allocation here is a bug of svcgen's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use svcgen::pipeline::check_text;
use svcgen::render::{EnvOptions, environment};
use svcgen::diag::source::Sources;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len() / 2);
    let old = String::from_utf8_lossy(&data[..split]);
    let new = String::from_utf8_lossy(data.get(split + 1..).unwrap_or_default());
    for include_secrets in [false, true] {
        let _ = svcgen::commands::stale::report("fuzz.env", Some(&old), &new, include_secrets);
        let _ = svcgen::commands::stale::report("fuzz.env", None, &new, include_secrets);
    }
    let mut sources = Sources::new();
    let old_checked = check_text("old.toml", &old, None, &mut sources);
    let new_checked = check_text("new.toml", &new, None, &mut sources);
    let _ = svcgen::diag::human::render(&old_checked.diagnostics, &sources, false);
    let _ = svcgen::diag::json::to_json(&new_checked.diagnostics, &sources);
    let (Some(old_resolved), Some(new_resolved)) = (old_checked.resolved, new_checked.resolved)
    else {
        return;
    };
    let options = EnvOptions::default();
    let (Ok(old_env), Ok(new_env)) = (
        environment(&old_resolved, options),
        environment(&new_resolved, options),
    ) else {
        return;
    };
    let result = svcgen::commands::diff::diff(&old_resolved, &old_env, &new_resolved, &new_env);
    let _ = result.to_text();
    let _ = serde_json::to_string(&result);
    let same = svcgen::commands::diff::diff(&old_resolved, &old_env, &old_resolved, &old_env);
    assert!(
        same.changes.is_empty(),
        "a profile differs from itself: {same:?}"
    );
});
