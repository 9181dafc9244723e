//! Panics a library raises on damaged input, caught where they happen and reported as errors
//! about the file. While such a catch runs, the process's panic hook (installed by the CLI)
//! keeps the panic's own report for `-vv` instead of printing it: the person sees the one line
//! that names the file, whatever `RUST_BACKTRACE` says.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};

thread_local! {
    /// How many catches this thread is inside.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

/// Runs `work`, catching a panic in it.
pub fn catch<T>(work: impl FnOnce() -> T) -> std::thread::Result<T> {
    CATCHING.with(|c| c.set(c.get() + 1));
    let done = catch_unwind(AssertUnwindSafe(work));
    CATCHING.with(|c| c.set(c.get() - 1));
    done
}

/// Whether a panic on this thread now will be caught by [`catch`].
pub fn catching() -> bool {
    CATCHING.with(|c| c.get() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_is_caught_and_the_thread_knows_it() {
        assert!(!catching());
        assert!(catch(|| assert!(catching())).is_ok());
        assert!(catch(|| panic!("damaged")).is_err());
        assert!(!catching(), "after a caught panic, no longer catching");
    }
}
