//! svcgen in the browser. The WebAssembly module exports a raw C ABI (no wasm-bindgen, no
//! JavaScript glue to ship): the page asks for a buffer with [`svcgen_alloc`], copies the
//! profile's UTF-8 text into it, calls [`svcgen_answer`] (which frees it) and reads the answer,
//! a JSON object of [`svcgen::commands::playground::answer`], at [`svcgen_result_ptr`] for the length
//! `svcgen_answer` returned.

use std::cell::RefCell;

pub mod site;

thread_local! {
    /// The built-in templates, compiled on first use and kept between edits.
    static TEMPLATES: svcgen::templates::Templates = svcgen::templates::Templates::load(None)
        .expect("the built-in templates load without a file system");
    /// The last answer, kept until the next call so that the page can read it.
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The playground's answer for a profile text (see [`svcgen::commands::playground::answer`]), as JSON text.
pub fn answer_json(text: &str) -> String {
    TEMPLATES.with(|templates| svcgen::commands::playground::answer(text, templates).to_string())
}

/// A buffer of `len` bytes for the page to write the profile into.
#[unsafe(no_mangle)]
pub extern "C" fn svcgen_alloc(len: usize) -> *mut u8 {
    let mut buffer = Vec::<u8>::with_capacity(len);
    let ptr = buffer.as_mut_ptr();
    std::mem::forget(buffer);
    ptr
}

/// Answers for the `len` bytes at `ptr` (from [`svcgen_alloc`], freed here); returns the
/// answer's length in bytes, read at [`svcgen_result_ptr`]. Invalid UTF-8 is read lossily, as
/// the page only ever sends text it encoded itself.
///
/// # Safety
/// `ptr` must come from `svcgen_alloc(len)` with `len` bytes written, and is not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn svcgen_answer(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: the caller passes a buffer of svcgen_alloc(len), now initialized, and gives it up.
    let bytes = unsafe { Vec::from_raw_parts(ptr, len, len) };
    let text = String::from_utf8_lossy(&bytes);
    let answer = answer_json(&text).into_bytes();
    let len = answer.len();
    RESULT.with(|result| *result.borrow_mut() = answer);
    len
}

/// Where the last answer is (valid until the next call of [`svcgen_answer`]).
#[unsafe(no_mangle)]
pub extern "C" fn svcgen_result_ptr() -> *const u8 {
    RESULT.with(|result| result.borrow().as_ptr())
}
