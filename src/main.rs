fn main() -> std::process::ExitCode {
    svcgen::cli::main()
}
