fn main() -> std::process::ExitCode {
    // Before any thread starts: glibc's heap arenas are made per thread.
    cxwatch::server::limit_heap_arenas();
    cxwatch::cli::main()
}
