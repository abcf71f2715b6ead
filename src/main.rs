/// The static (musl) build allocates with dlmalloc: musl's malloc is the slowest part of a run
/// there (see the Cargo.toml entry); the glibc build keeps glibc's.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

fn main() -> std::process::ExitCode {
    svcgen::cli::main()
}
