//! The memory a user's template may hold while it renders (issue 20, class 8).
//!
//! minijinja bounds a render's instructions (fuel), its nesting and (with our sink) its output,
//! but has no hook on allocation: `{% set ns.x = ns.x ~ ns.x %}` in a loop doubles a string
//! each turn, and a few dozen instructions ask for gigabytes. So the binary's global allocator is wrapped
//! in [`Budgeted`], which counts the bytes the current thread holds while a [`Budget`] is open
//! on it (a user's template renders between [`Budget::open`] and its drop). One user's template
//! renders at a time (the budget is a turn of a process-wide lock), so the limits below are the
//! process's, however many threads a batch runs.
//!
//! Two limits follow from that count:
//! - [`TEMPLATE_MAX_MEMORY_BYTES`], checked ([`check`]) each time the template reaches svcgen's
//!   code: a value written, a turn of a `range()` loop, a filter of svcgen. Past it the render
//!   fails with a minijinja error, which names the template and the line.
//! - Four times that ([`TEMPLATE_HARD_MEMORY_BYTES`]), checked by the allocator on every
//!   allocation: a template that gets there between two checks (a string doubled inside a
//!   macro's arguments) cannot be told so through minijinja, and an allocator must not unwind. svcgen then ends at once ([`end_process`]): a
//!   fixed message naming the template on standard error, exit 1, no destructors, nothing more
//!   written. Renders come before writes, so nothing of that profile is written; a batch
//!   folder another thread was committing at that moment is rolled back or forward by its commit
//!   record on the next run, as after a kill.
//!
//! With no budget open the allocator adds one thread-local load and branch per call (measured:
//! benches/RESULTS.md). The lib's own unit tests install the same wrapper, so the checks with
//! their lines are tested there too; other users of the library get no counting (and no limit).

use minijinja::{Error, ErrorKind};
use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::{Mutex, MutexGuard};

/// The memory a render of a user's template may hold at a point where svcgen's code runs (a
/// value written, a `range()` turn, a filter of svcgen), in bytes: past it, an error with the
/// template's line. Twice the output limit: room for the output, its growth and the
/// context: thousands of times what a template over the largest profile holds.
pub const TEMPLATE_MAX_MEMORY_BYTES: usize = 128 * 1024 * 1024;

/// The memory past which the allocator ends the process at once (see the module's doc). Four
/// times the checked limit: a string doubled between two checks (a macro that writes its
/// argument before it recurses holds every level's copy, then asks for twice the last) is
/// stopped by the check, with its line, before it gets here.
pub const TEMPLATE_HARD_MEMORY_BYTES: usize = 4 * TEMPLATE_MAX_MEMORY_BYTES;

/// The count of the thread's open budget. Plain `Cell`s with a `const` start and no destructor:
/// the allocator reads them on every call, so reading must never allocate, lazily initialise or
/// fail, on any thread, at any time of its life.
struct Meter {
    open: Cell<bool>,
    /// Bytes allocated minus bytes freed on this thread since the budget opened (negative when
    /// the render frees what existed before it).
    held: Cell<isize>,
    /// The template's file as the error names it (pointer and length of the `&str` that the
    /// open [`Budget`] borrows): the allocator writes it without allocating.
    file: Cell<(*const u8, usize)>,
}

thread_local! {
    static METER: Meter = const {
        Meter {
            open: Cell::new(false),
            held: Cell::new(0),
            file: Cell::new((std::ptr::null(), 0)),
        }
    };
}

/// Held by the open [`Budget`]: one user's template renders at a time in the process, so the
/// limits bound the process and not each of a batch's worker threads (two workers each at
/// the hard limit would be twice the memory promised). Built-in templates do not take it.
static RENDERING: Mutex<()> = Mutex::new(());

/// The memory budget of one render of a user's template on this thread, open until dropped.
/// It borrows the template's file name, which the allocator prints if it ends the process.
/// Renders of user templates do not nest (a template renders no other one through svcgen).
pub struct Budget<'file> {
    _turn: MutexGuard<'static, ()>,
    _file: PhantomData<&'file str>,
}

impl<'file> Budget<'file> {
    /// Opens the budget of a render of the template `file` on this thread, once no other
    /// user's template renders.
    pub fn open(file: &'file str) -> Budget<'file> {
        let turn = RENDERING.lock().unwrap_or_else(|e| e.into_inner());
        METER.with(|m| {
            m.held.set(0);
            m.file.set((file.as_ptr(), file.len()));
            m.open.set(true);
        });
        Budget {
            _turn: turn,
            _file: PhantomData,
        }
    }
}

impl Drop for Budget<'_> {
    fn drop(&mut self) {
        METER.with(|m| {
            m.open.set(false);
            m.held.set(0);
            m.file.set((std::ptr::null(), 0));
        });
    }
}

/// The bytes the render on this thread holds now (0 with no budget open, or without [`Budgeted`]
/// as the global allocator).
pub fn held() -> usize {
    METER.with(|m| {
        if m.open.get() {
            usize::try_from(m.held.get()).unwrap_or(0)
        } else {
            0
        }
    })
}

/// Fails the render once it holds more than [`TEMPLATE_MAX_MEMORY_BYTES`]; minijinja adds the
/// template and line to the error. Called wherever a template reaches svcgen's code.
pub fn check() -> Result<(), Error> {
    if held() <= TEMPLATE_MAX_MEMORY_BYTES {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "the template holds more than {TEMPLATE_MAX_MEMORY_BYTES} bytes of memory, the limit of a user's template (a string or list that keeps growing?)"
        ),
    ))
}

/// Whether a budget is open on this thread: the one test on the allocator's common path.
#[inline(always)]
fn counting() -> bool {
    METER.with(|m| m.open.get())
}

/// Counts an allocation of `bytes` (or a growth by `bytes`) against the open budget; past
/// [`TEMPLATE_HARD_MEMORY_BYTES`], ends the process.
fn charge(bytes: usize) {
    METER.with(|m| {
        let held = m
            .held
            .get()
            .saturating_add(isize::try_from(bytes).unwrap_or(isize::MAX));
        if held > TEMPLATE_HARD_MEMORY_BYTES as isize {
            m.open.set(false);
            end_process(m.file.get());
        }
        m.held.set(held);
    });
}

/// Counts a free (or a shrink) of `bytes`.
fn refund(bytes: usize) {
    METER.with(|m| {
        let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
        m.held.set(m.held.get().saturating_sub(bytes));
    });
}

/// Ends the process from inside the allocator: the message with raw `write(2)` (nothing here may
/// allocate or unwind), then `_exit(1)` (no destructor, no atexit handler, no stdio flush; the
/// render had written nothing).
#[cold]
fn end_process(file: (*const u8, usize)) -> ! {
    const HEAD: &[u8] = b"error: template ";
    const TAIL: &[u8] = b": the template took more than 536870912 bytes of memory (four times the \
limit of 134217728 bytes of a user's template) between two points where svcgen could stop it with its \
line; svcgen stopped at once and wrote nothing for this render (a string or list that keeps \
doubling, e.g. inside a macro's arguments?)\n";
    const _: () = assert!(TEMPLATE_HARD_MEMORY_BYTES == 536_870_912);
    const _: () = assert!(TEMPLATE_MAX_MEMORY_BYTES == 134_217_728);
    let name: &[u8] = if file.0.is_null() {
        b"(unnamed)"
    } else {
        // SAFETY: `file` is the `&str` that the open `Budget` borrows, alive while it is open.
        unsafe { std::slice::from_raw_parts(file.0, file.1) }
    };
    for part in [HEAD, name, TAIL] {
        write_stderr(part);
    }
    exit_now(1)
}

#[cfg(unix)]
fn write_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: a write of a live buffer to file descriptor 2.
        let n = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => bytes = &bytes[n..],
            _ if n < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return,
        }
    }
}

#[cfg(not(unix))]
fn write_stderr(_bytes: &[u8]) {}

#[cfg(unix)]
fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` ends the process without running anything of it.
    unsafe { libc::_exit(code) }
}

#[cfg(not(unix))]
fn exit_now(_code: i32) -> ! {
    std::process::abort()
}

/// A global allocator that counts what the thread holds while a [`Budget`] is open on it (see
/// the module's doc); `A` allocates. The binary wraps its allocator in it:
/// `#[global_allocator] static A: Budgeted<System> = Budgeted(System);`.
pub struct Budgeted<A>(pub A);

// SAFETY: every call is `A`'s own, with the same arguments; the counting around it neither
// allocates nor unwinds (it reads and writes thread-local cells, or ends the process). With no
// budget open a call is one thread-local test and a jump to `A` (the counting is out of line,
// so the common path saves no register).
unsafe impl<A: GlobalAlloc> GlobalAlloc for Budgeted<A> {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            // SAFETY: the caller's contract, passed on.
            return unsafe { self.alloc_counted(layout, false) };
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if counting() {
            // SAFETY: the caller's contract, passed on.
            return unsafe { self.alloc_counted(layout, true) };
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counting() {
            refund(layout.size());
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            // SAFETY: the caller's contract, passed on.
            return unsafe { self.realloc_counted(ptr, layout, new_size) };
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

impl<A: GlobalAlloc> Budgeted<A> {
    /// An allocation while a budget is open: counted first, so the hard limit stops it before
    /// the memory is taken.
    ///
    /// # Safety
    /// `GlobalAlloc::alloc`'s (or `alloc_zeroed`'s) contract.
    #[cold]
    #[inline(never)]
    unsafe fn alloc_counted(&self, layout: Layout, zeroed: bool) -> *mut u8 {
        charge(layout.size());
        if zeroed {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.0.alloc_zeroed(layout) }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { self.0.alloc(layout) }
        }
    }

    /// A reallocation while a budget is open: the growth counted first, a shrink refunded.
    ///
    /// # Safety
    /// `GlobalAlloc::realloc`'s contract.
    #[cold]
    #[inline(never)]
    unsafe fn realloc_counted(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= layout.size() {
            charge(new_size - layout.size());
        } else {
            refund(layout.size() - new_size);
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.realloc(ptr, layout, new_size) }
    }
}

#[cfg(test)]
#[global_allocator]
static TEST_ALLOCATOR: Budgeted<std::alloc::System> = Budgeted(std::alloc::System);

#[cfg(test)]
mod tests {
    use super::*;

    /// The lib's test binary counts with the same wrapper (see the module's doc).
    #[test]
    fn an_open_budget_counts_what_its_thread_holds() {
        let name = String::from("t.j2");
        let budget = Budget::open(&name);
        let before = held();
        let block = vec![0u8; 1 << 20];
        assert!(held() >= before + (1 << 20), "{}", held());
        drop(block);
        assert!(held() < before + (1 << 20), "{}", held());
        assert!(check().is_ok());
        drop(budget);
        assert_eq!(held(), 0, "no budget open");
    }

    #[test]
    fn past_the_limit_the_check_fails_naming_it() {
        let name = String::from("t.j2");
        let _budget = Budget::open(&name);
        // Zeroed: the system maps it without touching a page.
        let block = vec![0u8; TEMPLATE_MAX_MEMORY_BYTES + 1];
        let err = check().expect_err("past the limit");
        assert!(
            err.to_string()
                .contains(&TEMPLATE_MAX_MEMORY_BYTES.to_string()),
            "{err}"
        );
        drop(block);
        assert!(check().is_ok());
    }
}
