//! The end of a sending run: rows in doubt are looked up on the service's lead list in rounds.
//! A row found there is settled; a row missing from a list asked for after its commit deadline
//! is sent again (at most `--max-retries` times); a row whose write could still commit is
//! waited for. Each round but the first waits for the earliest deadline, so every round
//! settles, resends or gives up at least one row, and the rounds end. A row given up stays in
//! doubt in the journal, for the next run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Pool;
use super::collector::{CollectError, Collector};
use super::doubt::{self, Doubt};
use super::reconcile::LeadIndex;
use crate::progress;
use crate::report::thousands;
use crate::row::{Issue, IssueCode, RowStatus, Said};

/// How often a wait for a commit deadline looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);
/// Deadlines this close after the earliest are waited for in the same round (ms).
const GATHER: u64 = 1_000;
/// Waits shorter than this go unsaid (ms).
const SAY_WAITS_FROM: u64 = 1_000;

impl Collector {
    /// Settles what it can of the rows in doubt, resending those that can no longer commit.
    pub(super) async fn resolve_in_doubt(&mut self, stop: &AtomicBool) -> Result<(), CollectError> {
        let mut first = true;
        while !self.in_doubt.is_empty() && !stop.load(Ordering::Relaxed) {
            if !std::mem::take(&mut first) {
                // Nothing new can be learnt before the earliest deadline passes; deadlines
                // close behind it are waited for too, to read the lead list fewer times.
                let until = self.next_check();
                self.say_wait(until);
                if !wait_until(until, stop).await {
                    return Ok(());
                }
            }
            let listed_at = doubt::now_ms();
            let index = LeadIndex::load(&self.client).await.map_err(CollectError::LeadList)?;
            for row in std::mem::take(&mut self.in_doubt) {
                if let Some(waiting) = self.decide(&index, listed_at, row)? {
                    self.in_doubt.push(waiting);
                }
            }
            self.drain().await?;
        }
        Ok(())
    }

    /// When to read the lead list next: the earliest deadline of the rows in doubt, or the last
    /// of those within `GATHER` of it.
    fn next_check(&self) -> u64 {
        let earliest = self.in_doubt.iter().map(|d| d.commit_by).min().unwrap_or(0);
        let close = self.in_doubt.iter().map(|d| d.commit_by).filter(|&c| c <= earliest + GATHER);
        close.max().unwrap_or(earliest)
    }

    /// Says what the run waits for and until when: nothing else moves meanwhile, and the
    /// progress line alone would show a run sending nothing.
    fn say_wait(&self, until: u64) {
        let now = doubt::now_ms();
        if until < now + SAY_WAITS_FROM {
            return;
        }
        let due: Vec<&Doubt> = self.in_doubt.iter().filter(|d| d.commit_by <= until).collect();
        let line = wait_line(due.len(), due.iter().filter(|d| d.earlier).count(), until, now);
        let later = self.in_doubt.len() - due.len();
        let line = match later {
            0 => line,
            n => format!("{line} ({} more later)", thousands(n as u64)),
        };
        progress::notice(self.plan.display, &line);
    }

    /// Sends everything pending and waits for every answer.
    async fn drain(&mut self) -> Result<(), CollectError> {
        let (slots, throttle) = (self.pool.slots(), self.pool.throttle.clone());
        while !self.pending.is_empty() || !self.in_flight.is_empty() {
            tokio::select! {
                slot = Pool::next_slot(slots.clone(), throttle.clone()), if !self.pending.is_empty() => {
                    self.send_out(slot)?;
                }
                Some((row, sent)) = self.results.recv() => self.settle(row, sent)?,
            }
        }
        Ok(())
    }

    /// Rows still in doubt after the last round: failed for now; the journal keeps them in
    /// doubt with their deadline, and the next run reconciles them before anything is resent.
    pub(super) fn park_in_doubt(&mut self) -> Result<(), CollectError> {
        let parked = std::mem::take(&mut self.in_doubt)
            .into_iter()
            .chain(std::mem::take(&mut self.given_up));
        for doubt in parked.collect::<Vec<_>>() {
            let mut row = doubt.row;
            row.status = RowStatus::Failed;
            row.errors.retain(|e| e.code != IssueCode::RequestFailed);
            row.errors.push(Issue::said(IssueCode::RequestFailed, None, Said::InDoubt));
            self.report(row)?;
        }
        Ok(())
    }
}

/// `waiting until 14:03:12 (60 s) for 69 writes of an earlier run to pass their commit deadline
/// …`, for `due` rows in doubt of which `earlier` were sent by an earlier run.
fn wait_line(due: usize, earlier: usize, until: u64, now: u64) -> String {
    let clock = i64::try_from(until)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map(|at| at.with_timezone(&chrono::Local).format("%H:%M:%S").to_string())
        .unwrap_or_default();
    let secs = progress::human(until.saturating_sub(now) as f64 / 1000.0);
    let (writes, their) = if due == 1 { ("write", "its") } else { ("writes", "their") };
    let whose = match earlier {
        0 => format!("whose answer {} lost", if due == 1 { "was" } else { "were" }),
        e if e == due => "of an earlier run".to_string(),
        e => format!("in doubt ({} of an earlier run)", thousands(e as u64)),
    };
    format!(
        "waiting until {clock} ({secs}) for {} {writes} {whose} to pass {their} commit deadline \
         before checking the lead list: until then the service may still store {}, and sending \
         again could make a second lead",
        thousands(due as u64),
        if due == 1 { "it" } else { "them" }
    )
}

/// Sleeps until `deadline` (Unix ms); false when `stop` was raised first.
async fn wait_until(deadline: u64, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = doubt::now_ms();
        if now >= deadline {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(deadline - now).min(STOP_POLL)).await;
    }
}
