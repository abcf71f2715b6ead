//! Arbitrary bytes as an existing deployment file: each reader (.env, compose, Kubernetes), then
//! `lint` and `import`, and the imported profile checked again. Any panic, hang or huge
//! allocation here is a bug of svcgen's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use svcgen::import::{Format, ImportOptions, ReadOptions, import, read_bytes};
use svcgen::pipeline::check_text;
use svcgen::diag::source::Sources;

fuzz_target!(|data: &[u8]| {
    for format in [
        None,
        Some(Format::Dotenv),
        Some(Format::Compose),
        Some(Format::Kubernetes),
    ] {
        let mut sources = Sources::new();
        let options = ReadOptions {
            format,
            service: None,
            base_dir: None,
        };
        let read = read_bytes("fuzz.input", data.to_vec(), &options, &mut sources);
        let lint = svcgen::commands::lint::lint(&read, None, &sources);
        let _ = svcgen::diag::human::render(&lint, &sources, false);
        if let Ok(imported) = import(
            &read,
            ImportOptions {
                edition: None,
                keep_defaults: false,
            },
            &sources,
        ) {
            let mut again = Sources::new();
            let _ = check_text("imported.toml", &imported.profile, None, &mut again);
        }
    }
});
