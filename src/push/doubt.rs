//! Writes in doubt: when a create-lead request whose answer was lost may still commit, and so
//! when it is safe to send the row again.
//!
//! The rule: a request sent at `t` with a client timeout `T` is taken to be unable to commit
//! after `t + 2T` (the commit deadline). The client gives up at `t + T` at the latest, and the
//! service's own request handling is assumed to be bounded like ours (a service that kept
//! working on a request for longer than twice the time its caller waits would break every
//! client with a timeout). A row in doubt is sent again only when a lead list *requested after
//! its deadline* does not hold it; until then it is reconciled, waited for, or left in doubt
//! for the next run, which applies the same rule. A run that died leaves no deadline behind:
//! its requests were sent before the lock passed to the next run, so the next run takes its
//! own start (when it listed the leads) plus `2T` as the deadline.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::report::RowReport;

/// How long after it was sent a write may still commit, for a client timeout `timeout`.
pub fn window(timeout: Duration) -> Duration {
    timeout.saturating_mul(2)
}

/// The commit deadline (Unix ms) of a write sent at `sent_at`.
pub fn deadline(sent_at: SystemTime, timeout: Duration) -> u64 {
    after(unix_ms(sent_at), window(timeout))
}

/// `window` after `at` (Unix ms).
pub fn after(at: u64, window: Duration) -> u64 {
    at.saturating_add(millis(window))
}

/// Milliseconds since the Unix epoch (0 for a clock before it).
pub fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, millis)
}

pub fn now_ms() -> u64 {
    unix_ms(SystemTime::now())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A row whose write may have reached the service, with its content fingerprint and the
/// time after which it can no longer commit.
#[derive(Debug)]
pub struct Doubt {
    pub row: RowReport,
    pub fp: u64,
    pub commit_by: u64,
    /// Times the row was already sent again after being in doubt (bounded by
    /// `--max-retries`).
    pub resends: u32,
}

/// What to do with a row in doubt that a lead list (requested at `listed_at`) does not show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// The write can no longer commit: sending again cannot double it.
    Resend,
    /// The write may still commit: wait and look again.
    Wait,
}

pub fn missing(commit_by: u64, listed_at: u64) -> Missing {
    if commit_by <= listed_at { Missing::Resend } else { Missing::Wait }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_lead_is_resent_only_when_the_list_was_asked_for_after_the_deadline() {
        let sent = UNIX_EPOCH + Duration::from_secs(1_000);
        let commit_by = deadline(sent, Duration::from_secs(30));
        assert_eq!(commit_by, 1_060_000, "twice the timeout after sending");
        assert_eq!(missing(commit_by, 1_059_999), Missing::Wait);
        assert_eq!(missing(commit_by, 1_060_000), Missing::Resend);
        assert_eq!(deadline(sent, Duration::MAX), u64::MAX, "no overflow");
    }
}
