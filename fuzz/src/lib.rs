//! Fuzz targets for leadsync's parsers of outside input: one function per target taking raw
//! bytes, shared by the two engines that drive them.
//!
//! ```text
//!  scripts/fuzz.sh ──► leadsync-fuzz-afl TARGET   (AFL++ through cargo-afl: coverage-guided)
//!                 └──► leadsync-fuzz run TARGET   (a mutation loop without coverage: no
//!                                                  instrumentation, so it builds fast for CI)
//! ```
//!
//! A target fails by panicking (an escaped panic, a broken invariant) or by taking the process
//! down (an abort, memory exhaustion): both are what a user must never see. `seeds` writes the
//! starting corpora from `tests/fixtures` and small generated inputs.

pub mod mutate;
pub mod seeds;
pub mod targets;

use std::path::PathBuf;
use std::sync::OnceLock;

/// One fuzz target.
pub struct Target {
    pub name: &'static str,
    /// Feeds one input through the code under test; panics when it finds a bug.
    pub run: fn(&[u8]),
    /// Tokens the mutation loop splices in: the syntax the parser cares about.
    pub dictionary: &'static [&'static [u8]],
    /// The largest input worth trying; the mutation loop never grows one past it.
    pub max_len: usize,
}

/// Every target, in the order the fuzz script runs them.
pub const TARGETS: &[Target] = &[
    targets::source::TARGET,
    targets::workbook::TARGET,
    targets::mapping::TARGET,
    targets::phone::TARGET,
    targets::payload::TARGET,
    targets::journal::TARGET,
    targets::seed::TARGET,
];

pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// Where file-based targets write their input: `LEADSYNC_FUZZ_SCRATCH` (the script gives each
/// run its own folder on tmpfs and removes it), else a folder in the temp dir. Fixed file
/// names inside it, not a fresh temp dir per process: AFL restarts its target process every
/// few thousand inputs and a process that is killed leaves its temp dir behind.
pub fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::var_os("LEADSYNC_FUZZ_SCRATCH").map(PathBuf::from).unwrap_or_else(|| {
                std::env::temp_dir().join(format!("leadsync-fuzz-{}", std::process::id()))
            });
        std::fs::create_dir_all(&dir).expect("the fuzz scratch folder can be created");
        dir
    })
}
