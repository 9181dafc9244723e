//! The end of a sending run: rows in doubt are looked up on the service's lead list in rounds.
//! A row found there is settled; a row missing from a list asked for after its commit deadline
//! is sent again (at most `--max-retries` times); a row whose write could still commit is
//! waited for. Each round but the first waits for the earliest deadline, so every round
//! settles, resends or gives up at least one row, and the rounds end. A row given up stays in
//! doubt in the journal, for the next run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::mpsc;

use super::Job;
use super::collector::{CollectError, Collector, reserve};
use super::doubt;
use super::reconcile::LeadIndex;
use crate::row::{Issue, IssueCode, RowStatus};

/// How often a wait for a commit deadline looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(100);

impl Collector {
    /// Settles what it can of the rows in doubt, resending those that can no longer commit.
    pub(super) async fn resolve_in_doubt(
        &mut self,
        jobs: &Option<mpsc::Sender<Job>>,
        stop: &AtomicBool,
    ) -> Result<(), CollectError> {
        let mut first = true;
        while !self.in_doubt.is_empty() && !stop.load(Ordering::Relaxed) {
            if !std::mem::take(&mut first) {
                // Nothing new can be learnt before the earliest deadline passes.
                let earliest = self.in_doubt.iter().map(|d| d.commit_by).min().unwrap_or(0);
                if !wait_until(earliest, stop).await {
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
            self.drain(jobs).await?;
        }
        Ok(())
    }

    /// Sends everything pending and waits for every answer.
    async fn drain(&mut self, jobs: &Option<mpsc::Sender<Job>>) -> Result<(), CollectError> {
        while !self.pending.is_empty() || !self.in_flight.is_empty() {
            tokio::select! {
                permit = reserve(jobs), if !self.pending.is_empty() => {
                    self.hand_out(permit);
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
            let message = "in doubt: the service may have stored this lead; the next run checks the lead list before sending it again";
            row.errors.push(Issue::new(IssueCode::RequestFailed, None, message));
            self.report(row)?;
        }
        Ok(())
    }
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
