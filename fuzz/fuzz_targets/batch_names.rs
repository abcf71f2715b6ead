//! Arbitrary bytes as a batch profile's file name: the folder it renders into must be exactly one
//! new folder directly under `--out-dir`, or the name is refused. Any panic, or a folder created
//! anywhere else, is a bug of svcgen's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;
use svcgen::output::{OutDir, batch_folder_name};

/// One locked output folder for the whole run.
fn out_dir() -> &'static OutDir {
    static OUT: OnceLock<OutDir> = OnceLock::new();
    OUT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("svcgen-fuzz-names-{}", std::process::id()));
        OutDir::open(&dir, &Default::default()).expect("a temporary output folder")
    })
}

fuzz_target!(|data: &[u8]| {
    let profile = PathBuf::from("profiles").join(OsStr::from_bytes(data));
    let Ok(name) = batch_folder_name(&profile) else {
        return;
    };
    let components: Vec<Component> = Path::new(&name).components().collect();
    assert!(
        matches!(components.as_slice(), [Component::Normal(_)]),
        "{name:?} is not one plain folder name"
    );
    assert!(
        !name.chars().any(char::is_control),
        "{name:?} has a control character"
    );
    let out = out_dir();
    let folder = out
        .sub_folder(&name)
        .expect("an accepted name makes a folder");
    assert_eq!(
        folder.parent(),
        Some(out.root.as_path()),
        "{name:?} left the output folder"
    );
    let _ = std::fs::remove_dir(&folder);
});
