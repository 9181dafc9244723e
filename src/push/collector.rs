//! The one owner of a sending run: it takes judged rows in file order, decides for each
//! whether to send it (or what the journal and the lead list already say), journals attempts
//! before they go out, gathers the workers' answers, journals and reports them.
//!
//! Rows whose request may have reached the service without an answer are reconciled against
//! the lead list at the end, in rounds, before any of them is sent again.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

use super::reconcile::{Found, LeadIndex};
use super::{Job, Pool, PushConfig, Sent, Workers};
use crate::client::{Client, NewContact, NewLead};
use crate::journal::{Entry, Final, Journal, JournalError, Recovered, RowState};
use crate::progress::Progress;
use crate::report::{Issue, IssueCode, ReportError, Reports, RowReport, RowStatus};

/// Rows journaled per fsync before they are handed to the workers.
const DISPATCH_BATCH: usize = 64;
/// Reconciliation rounds before rows still in doubt are left to the next run.
const RECONCILE_ROUNDS: usize = 8;
/// Wait before each reconciliation round.
const RECONCILE_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// Everything the collector needs to know before the first row arrives.
pub struct SendPlan {
    pub journal: Journal,
    pub recovered: Recovered,
    /// The service's leads when the run started.
    pub index: LeadIndex,
    pub baseline: u64,
    pub skip_existing: bool,
    pub allow_duplicates: bool,
    pub config: PushConfig,
}

/// How the sending went, beyond the row counts.
#[derive(Debug, Clone, Default)]
pub struct PushSummary {
    pub journal: PathBuf,
    /// Rows whose outcome came from the journal of an earlier run.
    pub from_journal: u64,
    /// Rows settled by finding their lead on the service's list.
    pub reconciled: u64,
    pub sent: u64,
    pub rate_limited: u64,
    /// Rows still in doubt after the last reconciliation round (the next run settles them).
    pub unsettled: u64,
    /// Seconds from the first request sent to the last answer received.
    pub sending_secs: f64,
    /// Ctrl-C stopped the run before every row was read and sent.
    pub interrupted: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("fetching the lead list to reconcile rows in doubt")]
    LeadList(#[source] crate::client::ClientError),
}

pub struct Collector {
    client: Client,
    plan: SendPlan,
    reports: Reports,
    jobs: Option<mpsc::Sender<Job>>,
    results: mpsc::Receiver<(u64, Sent)>,
    pool: Pool,
    progress: Arc<Progress>,
    /// Journaled, waiting for a free worker.
    pending: VecDeque<Job>,
    /// Handed to a worker, answer not yet back.
    in_flight: HashMap<u64, RowReport>,
    /// Maybe written by the service; settled at the end.
    in_doubt: Vec<RowReport>,
    claimed: HashSet<u64>,
    summary: PushSummary,
    /// When the first request went out, and the last answer came back.
    first_sent: Option<std::time::Instant>,
    last_answer: Option<std::time::Instant>,
}

impl Collector {
    pub fn new(
        client: &Client,
        mut plan: SendPlan,
        reports: Reports,
        progress: Arc<Progress>,
    ) -> Collector {
        let Workers { jobs, results, pool } = Workers::start(client, &plan.config);
        let claimed = std::mem::take(&mut plan.recovered.claimed);
        let summary =
            PushSummary { journal: plan.journal.path().to_path_buf(), ..PushSummary::default() };
        Collector {
            client: client.clone(),
            plan,
            reports,
            jobs: Some(jobs),
            results,
            pool,
            progress,
            pending: VecDeque::new(),
            in_flight: HashMap::new(),
            in_doubt: Vec::new(),
            claimed,
            summary,
            first_sent: None,
            last_answer: None,
        }
    }

    /// The pace the workers share, for the progress display.
    pub fn throttle(&self) -> Arc<super::Throttle> {
        self.pool.throttle.clone()
    }

    /// Runs until every row is settled (or `stop` is raised), then returns the reports to finish.
    pub async fn run(
        mut self,
        mut rows: mpsc::Receiver<Vec<RowReport>>,
        stop: Arc<AtomicBool>,
    ) -> Result<(Reports, PushSummary, Journal), CollectError> {
        // The sender lives outside `self`: a permit borrowed from it must not lock `self`.
        let mut jobs = self.jobs.take();
        let mut reading = true;
        let mut ready: Vec<(RowReport, Job)> = Vec::new();
        loop {
            if stop.load(Ordering::Relaxed) && reading {
                reading = false;
                self.summary.interrupted = true;
                // Rows read but not yet journaled are simply not sent: the next run sends them.
                for (row, _) in std::mem::take(&mut ready) {
                    self.not_sent(row)?;
                }
                self.abandon_pending()?;
            }
            if !ready.is_empty() {
                self.dispatch(std::mem::take(&mut ready))?;
            }
            if !reading && self.pending.is_empty() && self.in_flight.is_empty() {
                break;
            }
            tokio::select! {
                batch = rows.recv(), if reading && self.pending.len() < DISPATCH_BATCH => match batch {
                    Some(batch) => {
                        for row in batch {
                            self.admit(row, &mut ready)?;
                        }
                    }
                    None => reading = false,
                },
                permit = reserve(&jobs), if !self.pending.is_empty() => {
                    self.hand_out(permit);
                }
                Some((row, sent)) = self.results.recv() => self.settle(row, sent)?,
                () = tokio::time::sleep(std::time::Duration::from_millis(100)) => {}
            }
        }
        if !self.summary.interrupted {
            self.resolve_in_doubt(&jobs, &stop).await?;
            self.summary.interrupted = stop.load(Ordering::Relaxed);
        }
        self.summary.unsettled = self.in_doubt.len() as u64;
        self.park_in_doubt()?;
        self.summary.rate_limited = self.pool.throttle.rate_limited.load(Ordering::Relaxed) as u64;
        if let (Some(first), Some(last)) = (self.first_sent, self.last_answer) {
            self.summary.sending_secs = last.duration_since(first).as_secs_f64();
        }
        jobs.take();
        self.pool.join().await;
        self.plan.journal.sync()?;
        Ok((self.reports, self.summary, self.plan.journal))
    }

    /// Decides what to do with one judged row: report it, settle it from the journal or the
    /// lead list, or queue it for sending.
    fn admit(
        &mut self,
        mut row: RowReport,
        ready: &mut Vec<(RowReport, Job)>,
    ) -> Result<(), CollectError> {
        self.progress.row_read();
        if row.status != RowStatus::Valid {
            return self.report(row);
        }
        let (Some(phone), Some(campaign_id)) = (row.phone.clone(), row.campaign_id) else {
            return self.report(row);
        };
        match self.plan.recovered.rows.remove(&row.row) {
            Some(RowState::Done { status, lead_id, message }) => {
                self.summary.from_journal += 1;
                apply_final(&mut row, status, lead_id, message.as_deref());
                return self.report(row);
            }
            Some(RowState::InDoubt { .. }) => {
                if let Some((status, id)) =
                    listed_outcome(&self.plan.index, &row, &self.plan, &mut self.claimed)
                {
                    return self.settle_found(row, status, id);
                }
            }
            Some(RowState::Retry) | None => {
                if self.plan.skip_existing
                    && let Some(id) =
                        self.plan.index.existing(campaign_id, &phone, self.plan.baseline)
                {
                    return self.settle_found(row, Final::Skipped, id);
                }
            }
        }
        let job = job_for(&row, self.plan.allow_duplicates);
        ready.push((row, job));
        Ok(())
    }

    /// Journals the attempts (one fsync for the batch) and queues them for the workers.
    fn dispatch(&mut self, ready: Vec<(RowReport, Job)>) -> Result<(), CollectError> {
        self.plan.journal.attempts(
            ready
                .iter()
                .map(|(_, job)| (job.row, job.lead.phone_number.as_str(), job.lead.campaign_id)),
        )?;
        for (row, job) in ready {
            self.in_flight.insert(row.row, row);
            self.pending.push_back(job);
        }
        Ok(())
    }

    /// Gives the next pending job to the worker slot `permit`; without a slot (every worker
    /// gone) the job stays pending.
    fn hand_out(&mut self, permit: Option<mpsc::Permit<'_, Job>>) {
        if let Some(permit) = permit
            && let Some(job) = self.pending.pop_front()
        {
            self.first_sent.get_or_insert_with(std::time::Instant::now);
            permit.send(job);
        }
    }

    /// A worker's answer for `row`.
    fn settle(&mut self, row_number: u64, sent: Sent) -> Result<(), CollectError> {
        let Some(mut row) = self.in_flight.remove(&row_number) else { return Ok(()) };
        self.last_answer = Some(std::time::Instant::now());
        self.summary.sent += 1;
        self.progress.sent();
        let (status, lead_id, message, maybe_applied) = match sent {
            Sent::Created { lead_id } => (Final::Created, lead_id, None, false),
            Sent::Duplicate { message } => (Final::Skipped, None, Some(message), false),
            Sent::Rejected { message, .. } => (Final::Rejected, None, Some(message), false),
            Sent::Failed { message, maybe_applied: true } => {
                self.journal_outcome(row_number, Final::Failed, None, Some(&message), true, false)?;
                row.errors.push(Issue::new(IssueCode::RequestFailed, None, message));
                self.in_doubt.push(row);
                return Ok(());
            }
            Sent::Failed { message, maybe_applied } => {
                (Final::Failed, None, Some(message), maybe_applied)
            }
        };
        self.journal_outcome(
            row_number,
            status,
            lead_id,
            message.as_deref(),
            maybe_applied,
            false,
        )?;
        if let Some(id) = lead_id {
            self.claimed.insert(id);
        }
        apply_final(&mut row, status, lead_id, message.as_deref());
        self.report(row)
    }

    fn settle_found(
        &mut self,
        mut row: RowReport,
        status: Final,
        lead_id: u64,
    ) -> Result<(), CollectError> {
        self.summary.reconciled += 1;
        let message = match status {
            Final::Skipped => Some(format!("already on the service as lead {lead_id}")),
            _ => None,
        };
        self.journal_outcome(row.row, status, Some(lead_id), message.as_deref(), false, true)?;
        apply_final(&mut row, status, Some(lead_id), message.as_deref());
        self.report(row)
    }

    /// Rows that may have been written: look them up, settle those found, send the rest again.
    async fn resolve_in_doubt(
        &mut self,
        jobs: &Option<mpsc::Sender<Job>>,
        stop: &AtomicBool,
    ) -> Result<(), CollectError> {
        for _ in 0..RECONCILE_ROUNDS {
            if self.in_doubt.is_empty() || stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            // A request that just timed out may still be finishing on the service: give it a
            // moment before deciding it never arrived.
            tokio::time::sleep(RECONCILE_GRACE).await;
            let leads = self.client.list_leads().await.map_err(CollectError::LeadList)?;
            let index = LeadIndex::new(&leads);
            let mut resend = Vec::new();
            for mut row in std::mem::take(&mut self.in_doubt) {
                row.errors.retain(|e| e.code != IssueCode::RequestFailed);
                match listed_outcome(&index, &row, &self.plan, &mut self.claimed) {
                    Some((status, id)) => self.settle_found(row, status, id)?,
                    None => {
                        let job = job_for(&row, self.plan.allow_duplicates);
                        resend.push((row, job));
                    }
                }
            }
            self.dispatch(resend)?;
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

    /// Rows still in doubt after the last round: failed for now; the next run reconciles them.
    fn park_in_doubt(&mut self) -> Result<(), CollectError> {
        for mut row in std::mem::take(&mut self.in_doubt) {
            row.status = RowStatus::Failed;
            if !row.errors.iter().any(|e| e.code == IssueCode::RequestFailed) {
                let message = "no answer from the service; the next run checks the lead list before resending";
                row.errors.push(Issue::new(IssueCode::RequestFailed, None, message));
            }
            self.report(row)?;
        }
        Ok(())
    }

    /// A row read but never journaled or sent, because the run was stopped.
    fn not_sent(&mut self, mut row: RowReport) -> Result<(), CollectError> {
        apply_final(
            &mut row,
            Final::Failed,
            None,
            Some("not sent: the run was interrupted; run the same command again"),
        );
        self.report(row)
    }

    /// Ctrl-C: rows journaled but not yet handed out are not sent; record that cleanly so the
    /// next run sends them without a reconciliation.
    fn abandon_pending(&mut self) -> Result<(), CollectError> {
        while let Some(job) = self.pending.pop_front() {
            let message = "not sent: the run was interrupted; run the same command again";
            self.journal_outcome(job.row, Final::Failed, None, Some(message), false, false)?;
            if let Some(mut row) = self.in_flight.remove(&job.row) {
                apply_final(&mut row, Final::Failed, None, Some(message));
                self.report(row)?;
            }
        }
        Ok(())
    }

    fn journal_outcome(
        &mut self,
        row: u64,
        status: Final,
        lead_id: Option<u64>,
        message: Option<&str>,
        maybe_applied: bool,
        reconciled: bool,
    ) -> Result<(), CollectError> {
        let entry = Entry::Outcome {
            row,
            status,
            lead_id,
            message: message.map(str::to_string),
            maybe_applied,
            reconciled,
        };
        Ok(self.plan.journal.outcome(&entry)?)
    }

    fn report(&mut self, row: RowReport) -> Result<(), CollectError> {
        self.progress.settled(row.status);
        Ok(self.reports.write_row(&row)?)
    }
}

/// A slot with a free worker; never resolves once the sender is gone.
async fn reserve(jobs: &Option<mpsc::Sender<Job>>) -> Option<mpsc::Permit<'_, Job>> {
    match jobs {
        Some(jobs) => jobs.reserve().await.ok(),
        None => std::future::pending().await,
    }
}

/// Puts a final outcome on the row's report.
fn apply_final(row: &mut RowReport, status: Final, lead_id: Option<u64>, message: Option<&str>) {
    row.lead_id = lead_id;
    let message = message.unwrap_or_default().to_string();
    match status {
        Final::Created => row.status = RowStatus::Created,
        Final::Skipped => {
            row.status = RowStatus::Skipped;
            let text =
                if message.is_empty() { "already on the service".to_string() } else { message };
            row.warnings.push(Issue::new(
                IssueCode::AlreadyExists,
                Some("phone_number".into()),
                text,
            ));
        }
        Final::Rejected => {
            row.status = RowStatus::Rejected;
            row.errors.push(Issue::new(IssueCode::ServerRejected, None, message));
        }
        Final::Failed => {
            row.status = RowStatus::Failed;
            row.errors.push(Issue::new(IssueCode::RequestFailed, None, message));
        }
    }
}

/// What the lead list says about a row in doubt: created by this run or there before (unless
/// duplicates are allowed, when an older lead is no reason not to send), with the lead's id;
/// `None` when the row must be sent.
fn listed_outcome(
    index: &LeadIndex,
    row: &RowReport,
    plan: &SendPlan,
    claimed: &mut HashSet<u64>,
) -> Option<(Final, u64)> {
    let (phone, campaign_id) = (row.phone.as_deref()?, row.campaign_id?);
    let found = index.reconcile(
        campaign_id,
        phone,
        &row.variables,
        plan.allow_duplicates,
        plan.baseline,
        claimed,
    );
    match found {
        Found::Ours(id) => Some((Final::Created, id)),
        Found::Before(id) if !plan.allow_duplicates => Some((Final::Skipped, id)),
        Found::Before(_) | Found::Missing => None,
    }
}

/// The job that sends a valid row.
fn job_for(row: &RowReport, allow_duplicates: bool) -> Job {
    Job { row: row.row, lead: new_lead(row, allow_duplicates) }
}

/// The create-lead request for a valid row.
fn new_lead(row: &RowReport, allow_duplicates: bool) -> NewLead {
    NewLead {
        phone_number: row.phone.clone().unwrap_or_default(),
        campaign_id: row.campaign_id.unwrap_or_default(),
        variables: row.variables.clone(),
        allow_dupplicate: allow_duplicates,
        secondary_contacts: row
            .secondary_contacts
            .iter()
            .map(|c| NewContact { phone_number: c.phone.clone(), variables: c.variables.clone() })
            .collect(),
    }
}
