/// The allocator counts what a user's template holds while it renders, to bound it
/// (`svcgen::templates::memory`); with no template rendering it adds one thread-local check per
/// call. Underneath, the static (musl) build allocates with dlmalloc: musl's malloc is the
/// slowest part of a run there (see the Cargo.toml entry); the glibc build keeps glibc's.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: svcgen::templates::memory::Budgeted<dlmalloc::GlobalDlmalloc> =
    svcgen::templates::memory::Budgeted(dlmalloc::GlobalDlmalloc);

#[cfg(not(target_env = "musl"))]
#[global_allocator]
static ALLOCATOR: svcgen::templates::memory::Budgeted<std::alloc::System> =
    svcgen::templates::memory::Budgeted(std::alloc::System);

fn main() -> std::process::ExitCode {
    svcgen::cli::main()
}
