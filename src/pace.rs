//! Where the sending pace and the progress display meet: what the rate limiter (`push`) shows
//! to whoever watches (`progress`), as a small trait neither of them owns, so neither depends on
//! the other.

/// The pace of sending as a watcher sees it.
pub trait Pace: Send + Sync {
    /// The rate limit in force (requests per second), `None` without one.
    fn current_rate(&self) -> Option<f64>;
    /// Workers sleeping before a retry.
    fn retries_waiting(&self) -> usize;
}
