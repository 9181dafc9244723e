//! The `leadsync` binary: everything happens in `leadsync::cli`.

/// mimalloc instead of glibc's malloc: rows are built on the checking threads and freed on
/// others, which glibc serves through locked arenas. A 200k-row dry run took 22% less CPU
/// (commit c4bf73a). `no_thp` keeps it off transparent huge pages, which on a machine
/// with THP `always` doubled peak memory (127 MiB instead of 67 MiB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (the same index in mimalloc 2 and 3, `mimalloc.h`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// Milliseconds freed memory stays with mimalloc before it goes back to the system: mimalloc
/// 3's default is 1000, its predecessor's 10. At 10 a 200k-row dry run peaks at 61-63 MiB
/// instead of 66-68, at the same CPU (commit efbb135).
const PURGE_DELAY_MS: std::ffi::c_long = 10;

fn main() -> std::process::ExitCode {
    return_freed_memory_sooner();
    keep_files_private();
    leadsync::cli::main()
}

#[allow(unsafe_code)]
fn return_freed_memory_sooner() {
    // SAFETY: sets one process-wide option, a plain integer that mimalloc reads atomically,
    // before any other thread exists; no pointer crosses the call.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

/// Everything leadsync writes (journals, rows, reports, uploads, edits, saved mappings, the
/// receiver's store) holds people's phone numbers: readable by the user only, whatever the
/// umask the shell was started with. Files are created 0600 and folders 0700.
#[allow(unsafe_code)]
fn keep_files_private() {
    #[cfg(unix)]
    // SAFETY: umask(2) sets one process-wide integer and cannot fail; called before any other
    // thread exists, so no file is being created meanwhile.
    unsafe {
        libc::umask(0o077);
    }
}

#[cfg(test)]
mod tests {
    use super::MI_OPTION_PURGE_DELAY;

    const PROBE: &str = "LEADSYNC_PROBE_MIMALLOC_OPTION";

    /// The option index is a bare number: a mimalloc that renumbered its options would have the
    /// binary set some other option without a word. mimalloc reads `MIMALLOC_PURGE_DELAY` at
    /// start-up, so a child run of this test with it set must read it back at that index.
    #[test]
    #[allow(unsafe_code)]
    fn the_option_set_is_mimallocs_purge_delay() {
        if std::env::var_os(PROBE).is_some() {
            // SAFETY: reads one integer option; no pointer crosses the call.
            let value = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
            println!("option={value}");
            return;
        }
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "tests::the_option_set_is_mimallocs_purge_delay", "--nocapture"])
            .env(PROBE, "1")
            .env("MIMALLOC_PURGE_DELAY", "4321")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("option=4321"), "{stdout}");
    }
}
