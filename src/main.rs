/// The crates compiled in, in cargo-auditable's format, for scanners that read the installed
/// binary (`cargo audit bin`, `rust-audit-info`, trivy, grype): build.rs writes it.
#[used]
#[link_section = ".dep-v0"]
static DEPENDENCY_LIST: [u8; DEPENDENCY_LIST_LEN] =
    *include_bytes!(concat!(env!("OUT_DIR"), "/dep-v0.zlib"));
const DEPENDENCY_LIST_LEN: usize = include_bytes!(concat!(env!("OUT_DIR"), "/dep-v0.zlib")).len();

/// jemalloc for every allocation of the process, Rust's and the C libraries' (SQLite's page
/// caches). glibc's arenas kept a burst's memory until trimmed and, with threads contending,
/// peaked far above what the data needed; jemalloc returns freed pages itself.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings, read at its start: background threads purge freed pages after a
/// second (`dirty_decay_ms`) and give them straight back to the kernel (`muzzy_decay_ms:0`),
/// so a server at rest holds what it uses, not its busiest moment.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[export_name = "malloc_conf"]
static MALLOC_CONF: &[u8; 60] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

fn main() -> std::process::ExitCode {
    // Kept by the linker, which drops sections nothing refers to.
    std::hint::black_box(&DEPENDENCY_LIST);
    cxwatch::cli::main()
}
