fn main() -> std::process::ExitCode {
    cxwatch::cli::main()
}
