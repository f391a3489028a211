/// The crates compiled in, in cargo-auditable's format, for scanners that read the installed
/// binary (`cargo audit bin`, `rust-audit-info`, trivy, grype): build.rs writes it.
#[used]
#[link_section = ".dep-v0"]
static DEPENDENCY_LIST: [u8; DEPENDENCY_LIST_LEN] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/dep-v0.zlib"));
const DEPENDENCY_LIST_LEN: usize = include_bytes!(concat!(env!("OUT_DIR"), "/dep-v0.zlib")).len();

fn main() -> std::process::ExitCode {
    // Kept by the linker, which drops sections nothing refers to.
    std::hint::black_box(&DEPENDENCY_LIST);
    // Before any thread starts: glibc's heap arenas are made per thread.
    cxwatch::server::limit_heap_arenas();
    cxwatch::cli::main()
}
