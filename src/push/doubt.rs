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

use super::reconcile::{Found, RowId};
use crate::journal::Final;
use crate::row::RowReport;

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
    /// The row's own key, and whether its write carried it (else it is matched by content).
    pub key: u64,
    pub id: RowId,
    pub commit_by: u64,
    /// False for a row that may no longer be sent (a guard now turns it away): it is settled
    /// from the lead list, or dropped once its write can no longer commit, never resent.
    pub sendable: bool,
    /// Times the row was already sent again after being in doubt (bounded by
    /// `--max-retries`).
    pub resends: u32,
    /// Sent by an earlier run (one stopped hard, or one whose doubts this run takes over), not
    /// this one: for what the wait for its deadline says.
    pub earlier: bool,
    /// Claimed in the ledger by another run (another source, front or process): a lead found
    /// for it is that run's, so the row is reported as already on the service, never created.
    pub foreign: bool,
}

/// Where a row in doubt stands: its commit deadline (Unix ms) and resends made and allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub commit_by: u64,
    pub resends: u32,
    pub budget: u32,
}

/// What becomes of a row in doubt, given what a lead list asked for at `listed_at` (Unix ms)
/// shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Settled from the list: created by this run, or (duplicates not allowed) already there.
    Settle(Final, u64),
    /// Not there, and its write can no longer commit: sending again cannot double it.
    Resend,
    /// Not there, but its write may still commit: wait and look again.
    Wait,
    /// Not there, and out of resends: it stays in doubt for the next run.
    GiveUp,
}

pub fn verdict(found: Found, allow_duplicates: bool, doubt: Pending, listed_at: u64) -> Verdict {
    match found {
        Found::Ours(id) => Verdict::Settle(Final::Created, id),
        // Without duplicates the service holds one lead per number: sending would be refused.
        Found::Other(id) if !allow_duplicates => Verdict::Settle(Final::Skipped, id),
        Found::Other(_) | Found::Missing if doubt.commit_by > listed_at => Verdict::Wait,
        Found::Other(_) | Found::Missing if doubt.resends >= doubt.budget => Verdict::GiveUp,
        Found::Other(_) | Found::Missing => Verdict::Resend,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubt(commit_by: u64, resends: u32) -> Pending {
        Pending { commit_by, resends, budget: 5 }
    }

    #[test]
    fn the_deadline_is_twice_the_timeout_after_sending() {
        let sent = UNIX_EPOCH + Duration::from_secs(1_000);
        assert_eq!(deadline(sent, Duration::from_secs(30)), 1_060_000);
        assert_eq!(deadline(sent, Duration::MAX), u64::MAX, "no overflow");
    }

    #[test]
    fn a_missing_lead_is_resent_only_when_the_list_was_asked_for_after_the_deadline() {
        let row = doubt(1_000, 0);
        assert_eq!(verdict(Found::Missing, false, row, 999), Verdict::Wait);
        assert_eq!(verdict(Found::Missing, false, row, 1_000), Verdict::Resend);
        assert_eq!(verdict(Found::Missing, true, row, 999), Verdict::Wait);
        assert_eq!(verdict(Found::Missing, false, doubt(1_000, 5), 2_000), Verdict::GiveUp);
    }

    #[test]
    fn a_lead_found_settles_the_row_whatever_the_deadline() {
        let row = doubt(5_000, 0);
        let ours = verdict(Found::Ours(7), true, row, 1);
        assert_eq!(ours, Verdict::Settle(Final::Created, 7));
        let other = verdict(Found::Other(3), false, row, 1);
        assert_eq!(other, Verdict::Settle(Final::Skipped, 3));
        // With duplicates allowed another lead of the number is no reason not to send.
        assert_eq!(verdict(Found::Other(3), true, row, 1), Verdict::Wait);
        assert_eq!(verdict(Found::Other(3), true, row, 5_000), Verdict::Resend);
    }
}
