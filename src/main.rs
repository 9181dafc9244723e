//! The `leadsync` binary: everything happens in `leadsync::cli`.

/// mimalloc instead of glibc's malloc: rows are built on the checking threads and freed on
/// others, which glibc serves through locked arenas. A 200k-row dry run took 22% less CPU
/// (README, "Benchmarks"). `no_thp` keeps it off transparent huge pages, which on a machine
/// with THP `always` doubled peak memory (127 MiB instead of 67 MiB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    leadsync::cli::main()
}
