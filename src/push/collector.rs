//! The one owner of a sending run: it takes judged rows in file order, decides for each
//! whether to send it (or what the journal and the lead list already say), journals each
//! attempt once its request has a worker and a turn of the rate limit (so only requests about
//! to leave are on the journal, never a queue of them), gathers the workers' answers, journals
//! them and reports them in sheet order (`order.rs`).
//!
//! Rows whose request may have reached the service without an answer are settled at the end
//! (`resolve.rs`), by the rule in `doubt.rs`: never sent again while the first write could
//! still commit.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc;

use super::doubt::{self, Doubt, Verdict};
use super::key::{self, RowKeys};
use super::order::SheetOrder;
use super::reconcile::{LeadIndex, RowId};
use super::{Job, Pool, PushConfig, Sent, Slot, Workers, content_fingerprint};
use crate::client::{Client, NewContact, NewLead};
use crate::journal::{Attempt, Entry, Final, Journal, JournalError, Recovered, RowState, fp_text};
use crate::ledger::{Granted, Held, Intent, Known, Ledger, LedgerError, Origin, Settled};
use crate::progress::Progress;
use crate::report::{ReportError, Reports};
use crate::row::{Issue, IssueCode, RowReport, RowStatus, Said};

/// Rows queued for a worker (not journaled yet) before reading waits.
const QUEUED: usize = 64;
/// Leads learnt that are written into the ledger together, at most this long after the first:
/// a kill loses at most these, which stay claims that the next run settles from the list.
const LEARNT_BATCH: usize = 4096;
const LEARNT_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Everything the collector needs to know before the first row arrives.
pub struct SendPlan {
    pub journal: Journal,
    pub recovered: Recovered,
    /// The service's leads when the run started.
    pub index: Arc<LeadIndex>,
    /// When that list was asked for (Unix ms).
    pub listed_at: u64,
    pub baseline: u64,
    /// How long a write of an earlier run may still commit after this run started.
    pub earlier_window: std::time::Duration,
    pub skip_existing: bool,
    pub allow_duplicates: bool,
    pub config: PushConfig,
    /// The source as the user named it, for messages.
    pub source: String,
    /// The source's canonical path or URL and its sheet: what a row's key is made of.
    pub location: String,
    pub sheet: Option<String>,
    /// Send each lead with its own key (`leadsync_key`); off with `lead_key = false`.
    pub lead_key: bool,
    /// The client's request timeout, recorded with each attempt.
    pub timeout: std::time::Duration,
    /// The run's identity, as its journal records it.
    pub identity: crate::journal::RunHeader,
    /// How lines are said while the run goes (the wait for writes in doubt is said).
    pub display: crate::progress::Display,
    /// Who each lead is, for every run of the state folder: consulted before each row is
    /// sent, claimed in a transaction before its write leaves.
    pub ledger: Ledger,
    /// The lead list was read at the start (`index` holds it); without it a row another run
    /// holds in doubt waits for the lists read at the end.
    pub index_loaded: bool,
    /// Identities other runs held claims on when this one started: a row this run's journal
    /// settled is written into the ledger over such a claim.
    pub claimed_by_others: std::collections::HashSet<u64>,
    /// What a sync did to the leads of rows before the push (updated, stopped, not changed),
    /// and rows whose secondary numbers changed: notes each row's report carries, by row.
    pub row_notes: HashMap<u64, Vec<Issue>>,
}

/// How the sending went, beyond the row counts.
#[derive(Debug, Clone, Default)]
pub struct PushSummary {
    pub journal: PathBuf,
    /// The run's identity as its journal records it.
    pub identity: Option<crate::journal::RunHeader>,
    /// Rows whose outcome came from the journal of an earlier run.
    pub from_journal: u64,
    /// Rows settled by finding their lead on the service's list.
    pub reconciled: u64,
    pub sent: u64,
    pub rate_limited: u64,
    /// Rows still in doubt after the last reconciliation round (the next run settles them).
    pub unsettled: u64,
    /// Rows reported failed (in doubt included): the next run sends or settles them.
    pub failed: u64,
    /// Seconds from the first request sent to the last answer received.
    pub sending_secs: f64,
    /// Ctrl-C stopped the run before every row was read and sent.
    pub interrupted: bool,
    /// Every row of the source reached the collector (a stopped run may have read them all).
    pub read_whole: bool,
}

impl PushSummary {
    /// Every row read has a final outcome, and every row was read: the journal may say
    /// `finished`.
    pub fn is_complete(&self) -> bool {
        !self.interrupted && self.failed == 0 && self.unsettled == 0
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("fetching the lead list to reconcile rows in doubt")]
    LeadList(#[source] crate::client::ClientError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

/// A row on its way to the service.
pub(super) struct Flight {
    pub row: RowReport,
    pub fp: u64,
    pub key: u64,
    /// The request carries the key.
    pub keyed: bool,
    /// Times this row was sent again after a write in doubt.
    pub resends: u32,
    /// A lead list asked for at this time (Unix ms) did not hold the row: another run's claim
    /// whose write could no longer commit by then may be taken over.
    pub checked_at: Option<u64>,
}

pub struct Collector {
    pub(super) client: Client,
    pub(super) plan: SendPlan,
    /// The reports, fed in sheet order.
    order: SheetOrder,
    /// Closed at the end, which stops the workers.
    jobs: Option<mpsc::UnboundedSender<(Job, Slot)>>,
    pub(super) results: mpsc::Receiver<(u64, Sent)>,
    pub(super) pool: Pool,
    progress: Arc<Progress>,
    /// Waiting for a worker and a turn; not journaled yet, so a stop leaves them unsent.
    pub(super) pending: VecDeque<Job>,
    /// Queued or handed to a worker, answer not yet back.
    pub(super) in_flight: HashMap<u64, Flight>,
    /// Maybe written by the service; settled at the end.
    pub(super) in_doubt: Vec<Doubt>,
    /// In doubt and out of resends: left in doubt for the next run.
    pub(super) given_up: Vec<Doubt>,
    pub(super) claimed: crate::journal::Claimed,
    pub(super) summary: PushSummary,
    /// Each row's key, in file order.
    pub(super) keys: RowKeys,
    /// Leads learnt and not yet in the ledger: written with the next claims, in one
    /// transaction (a kill loses at most these, which stay claims the next run settles).
    ledger_learnt: Vec<Settled>,
    learnt_since: std::time::Instant,
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
        let keys = RowKeys::new(plan.allow_duplicates);
        let summary = PushSummary {
            journal: plan.journal.path().to_path_buf(),
            identity: Some(plan.identity.clone()),
            ..PushSummary::default()
        };
        Collector {
            client: client.clone(),
            plan,
            order: SheetOrder::new(reports),
            jobs: Some(jobs),
            results,
            pool,
            progress,
            pending: VecDeque::new(),
            in_flight: HashMap::new(),
            in_doubt: Vec::new(),
            given_up: Vec::new(),
            claimed,
            summary,
            keys,
            ledger_learnt: Vec::new(),
            learnt_since: std::time::Instant::now(),
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
        let (slots, throttle) = (self.pool.slots(), self.pool.throttle.clone());
        let mut reading = true;
        loop {
            // Checked whether or not reading is over: a small sheet is read whole long before
            // its rows are sent, and a stop must still keep the queued ones from going out.
            if stop.load(Ordering::Relaxed) && !self.summary.interrupted {
                self.summary.read_whole = !reading;
                reading = false;
                self.summary.interrupted = true;
                self.abandon_pending()?;
            }
            // The source read to its end while rows wait to be sent: with more queued than
            // `QUEUED` the end is not received, yet a stop from now on must say every row was
            // read. (Looked at after the stop: a channel closed by the stop is not the end.)
            if reading && rows.is_closed() && rows.is_empty() {
                reading = false;
                self.summary.read_whole = true;
            }
            if !reading && self.pending.is_empty() && self.in_flight.is_empty() {
                break;
            }
            tokio::select! {
                batch = rows.recv(), if reading && self.pending.len() < QUEUED => match batch {
                    Some(batch) => {
                        for row in batch {
                            self.admit(row)?;
                        }
                    }
                    None => {
                        reading = false;
                        self.summary.read_whole = true;
                    }
                },
                slot = Pool::next_slot(slots.clone(), throttle.clone()), if !self.pending.is_empty() => {
                    self.send_out(slot)?;
                }
                Some((row, sent)) = self.results.recv() => {
                    self.settle(row, sent)?;
                    // Every answer already waiting is settled before the next batch leaves:
                    // their slots go out together, one claim and one fsync for them all.
                    while let Ok((row, sent)) = self.results.try_recv() {
                        self.settle(row, sent)?;
                    }
                }
                () = tokio::time::sleep(std::time::Duration::from_millis(100)) => {}
            }
        }
        if !self.summary.interrupted {
            self.resolve_in_doubt(&stop).await?;
            self.summary.interrupted = stop.load(Ordering::Relaxed);
        }
        self.summary.unsettled = (self.in_doubt.len() + self.given_up.len()) as u64;
        self.park_in_doubt()?;
        self.summary.rate_limited = self.pool.throttle.rate_limited.load(Ordering::Relaxed) as u64;
        if let (Some(first), Some(last)) = (self.first_sent, self.last_answer) {
            self.summary.sending_secs = last.duration_since(first).as_secs_f64();
        }
        self.jobs.take();
        self.pool.join().await;
        self.plan.journal.sync()?;
        self.plan.ledger.record(&std::mem::take(&mut self.ledger_learnt))?;
        let reports = self.order.finish()?;
        Ok((reports, self.summary, self.plan.journal))
    }

    /// Decides what to do with one judged row: report it, settle it from the journal or the
    /// lead list, hold it in doubt, or queue it for sending.
    fn admit(&mut self, mut row: RowReport) -> Result<(), CollectError> {
        self.progress.row_read();
        self.order.read(row.row);
        // Every row with a number and a campaign takes its place in the count of identical
        // rows, valid or not, so a guard that turns one away does not shift the others' keys.
        let identity = self.keys.next(&row).map(|key| {
            let fp = content_fingerprint(&job_for(&row, self.plan.allow_duplicates, None).lead);
            (fp, key)
        });
        let Some((fp, key)) = identity.filter(|_| row.status == RowStatus::Valid) else {
            return self.held_back(row, identity);
        };
        match self.plan.recovered.rows.remove(row.row) {
            Some(RowState::Done { status, lead_id, message, fp: settled }) => {
                if settled != fp && !self.guarded_after_creation(&mut row, status, lead_id) {
                    self.same_content(row.row, settled, fp)?;
                }
                self.summary.from_journal += 1;
                if self.plan.claimed_by_others.contains(&key) {
                    // The journal's run died before the ledger learnt this outcome.
                    self.learnt(&row, key, status, lead_id, false);
                }
                apply_final(&mut row, status, lead_id, message.as_deref());
                return self.report(row);
            }
            Some(RowState::InDoubt { fp: sent, commit_by }) => {
                self.same_content(row.row, sent, fp)?;
                match self.plan.ledger.lookup(key)? {
                    // Settled meanwhile, by this run's own write or another run's.
                    Known::Sent { lead_id, origin } => {
                        return self.known_lead(row, fp, key, lead_id, &origin);
                    }
                    // Another run took the identity over (this row's write could no longer
                    // commit by then): its write is the one to settle.
                    Known::Claimed(held) if !self.is_this_row(&held.origin, row.row) => {
                        return self.settle_claimed(row, fp, key, held, 0, true);
                    }
                    Known::Claimed(_) | Known::Ours | Known::Unknown => {}
                }
                let doubt = self.earlier_doubt(row, fp, key, commit_by, true);
                return self.decide_now(doubt);
            }
            Some(RowState::Retry) | None => {
                // The ledger is asked here only of identities a claim held when the run started
                // or a replaced run left in doubt; any other's is looked at when its write is
                // claimed (`claim_in_ledger`), in one transaction for each batch that leaves.
                let suspect = self.plan.claimed_by_others.contains(&key)
                    || self.plan.recovered.carried.contains_key(&key);
                let known = if suspect { self.plan.ledger.lookup(key)? } else { Known::Unknown };
                match known {
                    // Sent before: by an earlier run of this very row only when that run left
                    // its write in doubt (carried into this one); otherwise from elsewhere, or
                    // settled and now sent again, which makes no second lead.
                    Known::Sent { lead_id, origin } => {
                        if self.plan.recovered.carried.remove(&key).is_some() {
                            return self.known_lead(row, fp, key, lead_id, &origin);
                        }
                        return self.sent_before(row, fp, lead_id, &origin);
                    }
                    // The ledger's claim says best how the write went out, and since when.
                    Known::Claimed(held) => {
                        self.plan.recovered.carried.remove(&key);
                        return self.settle_claimed(row, fp, key, held, 0, true);
                    }
                    Known::Ours | Known::Unknown => {}
                }
                if let Some(carried) = self.plan.recovered.carried.remove(&key) {
                    let id = if carried.keyed { RowId::Keyed(key) } else { RowId::Content };
                    let commit_by = carried.commit_by;
                    let (resends, sendable, earlier) = (0, true, true);
                    let foreign = false;
                    let doubt =
                        Doubt { row, fp, key, id, commit_by, resends, sendable, earlier, foreign };
                    return self.decide_now(doubt);
                }
                // A lead of this identity on the list (made by hand, by another tool, on
                // another machine) is this row's, also without `--skip-existing`: with
                // duplicates allowed the service would otherwise take a second one.
                if (self.plan.skip_existing || self.plan.index_loaded)
                    && let Some(id) = self.already_there(&row, key)
                {
                    // Where and when it was sent, when the ledger knows.
                    if let Known::Sent { lead_id, origin } = self.plan.ledger.lookup(key)? {
                        return self.sent_before(row, fp, lead_id.or(Some(id)), &origin);
                    }
                    return self.settle_found(row, fp, key, Final::Skipped, id, false);
                }
            }
        }
        let keyed = self.plan.lead_key;
        let job = job_for(&row, self.plan.allow_duplicates, keyed.then_some(key));
        self.queue(Flight { row, fp, key, keyed, resends: 0, checked_at: None }, job);
        Ok(())
    }

    /// A row whose identity the ledger knows a lead of: created by this very row (its write
    /// in doubt was found by another run), or sent before from anywhere else.
    fn known_lead(
        &mut self,
        row: RowReport,
        fp: u64,
        key: u64,
        lead_id: Option<u64>,
        origin: &Origin,
    ) -> Result<(), CollectError> {
        let this_row = self.is_this_row(origin, row.row);
        match lead_id {
            Some(id) if this_row => self.settle_found(row, fp, key, Final::Created, id, true),
            _ => self.sent_before(row, fp, lead_id, origin),
        }
    }

    /// Whether `origin` is row `row` of this run's source and sheet.
    pub(super) fn is_this_row(&self, origin: &Origin, row: u64) -> bool {
        origin.source == self.plan.source && origin.sheet == self.plan.sheet && origin.row == row
    }

    /// A row whose lead the ledger knows: sent before, from this or any other source or front.
    /// Reported as already on the service, with where and when it was sent, never created.
    fn sent_before(
        &mut self,
        mut row: RowReport,
        fp: u64,
        lead_id: Option<u64>,
        origin: &Origin,
    ) -> Result<(), CollectError> {
        self.summary.reconciled += 1;
        let said = sent_before_said(lead_id, origin);
        let issue = Issue::said(IssueCode::AlreadyExists, Some("phone_number".into()), said);
        let entry = Entry::Outcome {
            row: row.row,
            status: Final::Skipped,
            fp: fp_text(fp),
            lead_id,
            message: Some(issue.message.clone()),
            commit_by: None,
            reconciled: true,
            key: None,
            keyed: false,
        };
        self.plan.journal.outcome(&entry)?;
        row.lead_id = lead_id;
        row.status = RowStatus::Skipped;
        row.warnings.push(issue);
        self.report(row)
    }

    /// A row whose identity a claim holds (another run sending it now, or a run that died with
    /// its write in doubt), settled like a write in doubt: from the lead list now when it was
    /// read, else at the end of the run, and sent only once a list read after that write's
    /// deadline shows it never arrived, if `sendable` (a row a guard holds back is not).
    pub(super) fn settle_claimed(
        &mut self,
        row: RowReport,
        fp: u64,
        key: u64,
        held: Held,
        resends: u32,
        sendable: bool,
    ) -> Result<(), CollectError> {
        let id = if held.keyed { RowId::Keyed(held.sent_key) } else { RowId::Number };
        let row_number = row.row;
        let doubt = Doubt {
            row,
            fp,
            key,
            id,
            commit_by: held.commit_by,
            resends,
            sendable,
            earlier: true,
            // A claim this row's own earlier run left (a killed run of this sheet): a lead
            // found for it is this row's.
            foreign: !self.is_this_row(&held.origin, row_number),
        };
        if self.plan.index_loaded { self.decide_now(doubt) } else { self.hold_in_doubt(doubt) }
    }

    /// Notes a lead learnt for the ledger, written with the next claims.
    pub(super) fn learnt(
        &mut self,
        row: &RowReport,
        key: u64,
        status: Final,
        lead_id: Option<u64>,
        keep_origin: bool,
    ) {
        if !matches!(status, Final::Created | Final::Skipped) {
            return;
        }
        self.ledger_learnt.push(Settled {
            key,
            campaign_id: row.campaign_id.unwrap_or_default(),
            phone: row.phone.clone().unwrap_or_default(),
            lead_id,
            digest: crate::ledger::identity::row_digest(row),
            made: status == Final::Created,
            contacts: crate::ledger::identity::contacts_digest(row),
            row: row.row,
            keep_origin,
        });
    }

    /// The lead `--skip-existing` finds for a row, by its key first.
    fn already_there(&self, row: &RowReport, key: u64) -> Option<u64> {
        let id = if self.plan.lead_key { RowId::Keyed(key) } else { RowId::Content };
        self.plan.index.existing(
            row.campaign_id.unwrap_or_default(),
            row.phone.as_deref().unwrap_or_default(),
            id,
            self.plan.allow_duplicates,
            self.plan.baseline,
        )
    }

    /// A write an earlier run of this journal left in doubt, with its deadline: the one
    /// journaled, else (the run died) this run's start plus twice the timeout the write was
    /// sent with. Its key and how it was sent come from its attempt line.
    pub(super) fn earlier_doubt(
        &mut self,
        row: RowReport,
        fp: u64,
        key: u64,
        commit_by: Option<u64>,
        sendable: bool,
    ) -> Doubt {
        let sending = self.plan.recovered.sending.remove(&row.row).unwrap_or_default();
        let window = sending.timeout_ms.map_or(self.plan.earlier_window, |ms| {
            doubt::window(std::time::Duration::from_millis(ms))
        });
        let commit_by = commit_by.unwrap_or_else(|| doubt::after(self.plan.listed_at, window));
        let key = sending.key.unwrap_or(key);
        let id = if sending.keyed { RowId::Keyed(key) } else { RowId::Content };
        Doubt { row, fp, key, id, commit_by, resends: 0, sendable, earlier: true, foreign: false }
    }

    /// Decides a row in doubt from the lead list read at the start; holds it when it must wait.
    pub(super) fn decide_now(&mut self, doubt: Doubt) -> Result<(), CollectError> {
        let index = self.plan.index.clone();
        match self.decide(&index, self.plan.listed_at, doubt)? {
            Some(doubt) => self.hold_in_doubt(doubt),
            None => Ok(()),
        }
    }

    /// A row the journal settled (or sent) must still have the content it had then.
    fn same_content(&self, row: u64, journaled: u64, now: u64) -> Result<(), CollectError> {
        if journaled == now {
            return Ok(());
        }
        Err(JournalError::RowChanged {
            row,
            source_name: self.plan.source.clone(),
            path: self.plan.journal.path().display().to_string(),
        }
        .into())
    }

    /// Settles a row in doubt from `index` (asked for at `listed_at`, Unix ms) when it can:
    /// found there, or safe to send again (queued). Returns the row when it must wait for its
    /// commit deadline.
    pub(super) fn decide(
        &mut self,
        index: &LeadIndex,
        listed_at: u64,
        mut doubt: Doubt,
    ) -> Result<Option<Doubt>, CollectError> {
        doubt.row.errors.retain(|e| e.code != IssueCode::RequestFailed);
        let row = &doubt.row;
        let (phone, campaign_id) =
            (row.phone.as_deref().unwrap_or_default(), row.campaign_id.unwrap_or_default());
        let found = index.settle(
            campaign_id,
            phone,
            doubt.id,
            &row.variables,
            self.plan.baseline,
            &mut self.claimed,
        );
        let pending = doubt::Pending {
            commit_by: doubt.commit_by,
            resends: doubt.resends,
            budget: self.plan.config.max_retries,
        };
        let verdict = doubt::verdict(found, self.plan.allow_duplicates, pending, listed_at);
        if !doubt.sendable {
            return self.decide_held_back(doubt, verdict);
        }
        match verdict {
            Verdict::Settle(status, id) => {
                // Another run's write: its lead, already on the service before this row.
                let status = if doubt.foreign { Final::Skipped } else { status };
                let (row, fp, key, foreign) = (doubt.row, doubt.fp, doubt.key, doubt.foreign);
                self.settle_found(row, fp, key, status, id, foreign)?;
            }
            Verdict::Wait => return Ok(Some(doubt)),
            Verdict::GiveUp => self.given_up.push(doubt),
            Verdict::Resend => {
                let keyed = self.plan.lead_key;
                let job =
                    job_for(&doubt.row, self.plan.allow_duplicates, keyed.then_some(doubt.key));
                let (row, fp, key, resends) = (doubt.row, doubt.fp, doubt.key, doubt.resends + 1);
                let checked_at = Some(listed_at);
                self.queue(Flight { row, fp, key, keyed, resends, checked_at }, job);
            }
        }
        Ok(None)
    }

    /// Keeps a row in doubt for the end of the run, journaling its deadline, so that the next
    /// run knows when it may send the row again should this one stop first.
    pub(super) fn hold_in_doubt(&mut self, doubt: Doubt) -> Result<(), CollectError> {
        let entry = Entry::Outcome {
            row: doubt.row.row,
            status: Final::InDoubt,
            fp: fp_text(doubt.fp),
            lead_id: None,
            message: None,
            commit_by: Some(doubt.commit_by),
            reconciled: false,
            // How it was sent goes with it: a doubt carried in from a replaced run has no
            // attempt line in this journal, and a resume must still settle it by its key.
            key: Some(fp_text(doubt.key)),
            keyed: matches!(doubt.id, RowId::Keyed(_)),
        };
        self.plan.journal.outcome(&entry)?;
        // Settled at the end of the run at the earliest: the rows after it are not held up.
        self.order.pass_over(doubt.row.row)?;
        self.in_doubt.push(doubt);
        Ok(())
    }

    /// Queues a row for the workers. Nothing is journaled yet: see `send_out`.
    pub(super) fn queue(&mut self, flight: Flight, job: Job) {
        self.in_flight.insert(job.row, flight);
        self.pending.push_back(job);
    }

    /// Sends queued jobs: as many as have a free worker and a turn of the rate limit right now,
    /// `first` already holding both. Their attempts are journaled and made durable (one fsync
    /// for them all) before any of them is handed to its worker, which sends it at once. So
    /// the journal never holds attempts of requests still waiting for a turn: a hard stop
    /// leaves at most `concurrency` writes in doubt, whatever the rate and the queue.
    pub(super) fn send_out(&mut self, first: Slot) -> Result<(), CollectError> {
        let mut slots = vec![first];
        while slots.len() < self.pending.len()
            && let Some(slot) = self.pool.try_slot()
        {
            slots.push(slot);
        }
        let count = slots.len().min(self.pending.len());
        // A job without its flight cannot be journaled, so it is never sent (none is).
        let jobs: Vec<Job> = self
            .pending
            .drain(..count)
            .filter(|job| self.in_flight.contains_key(&job.row))
            .collect();
        let jobs = self.claim_in_ledger(jobs)?;
        self.first_sent.get_or_insert_with(std::time::Instant::now);
        for (job, slot) in jobs.into_iter().zip(slots) {
            let row = job.row;
            let handed = self.jobs.as_ref().is_some_and(|jobs| jobs.send((job, slot)).is_ok());
            if !handed {
                // Every worker gone: journaled and never sent, but taken as in doubt, which is
                // always safe.
                let commit_by = doubt::deadline(std::time::SystemTime::now(), self.plan.timeout);
                let message = "the request could not be handed to a worker".to_string();
                self.settle(row, Sent::InDoubt { message, commit_by })?;
            }
        }
        Ok(())
    }

    /// Claims the identities of `jobs` in the ledger (with what was learnt since the last
    /// claims) and keeps the jobs that may leave; a row another run sent or is sending
    /// meanwhile is reported so and not sent.
    fn claim_in_ledger(&mut self, jobs: Vec<Job>) -> Result<Vec<Job>, CollectError> {
        let commit_by = doubt::deadline(std::time::SystemTime::now(), self.plan.timeout);
        let intents: Vec<Intent> = jobs
            .iter()
            .map(|job| {
                let flight = &self.in_flight[&job.row];
                Intent {
                    key: flight.key,
                    campaign_id: job.lead.campaign_id,
                    phone: job.lead.phone_number.as_str(),
                    sent_key: flight.key,
                    keyed: flight.keyed,
                    commit_by,
                    row: job.row,
                    checked_at: flight.checked_at,
                }
            })
            .collect();
        // Leads learnt go in with the claims in batches: a few hundred settled rows cost one
        // write of the pages they share, not one each.
        let due =
            self.ledger_learnt.len() >= LEARNT_BATCH || self.learnt_since.elapsed() >= LEARNT_EVERY;
        let learnt = if due { std::mem::take(&mut self.ledger_learnt) } else { Vec::new() };
        if due {
            self.learnt_since = std::time::Instant::now();
        }
        // The attempts of the writes granted are journaled and fsynced while the claims
        // commit: both are durable before any of them leaves.
        let (timeout, in_flight, journal) =
            (self.plan.timeout, &self.in_flight, &mut self.plan.journal);
        let (granted, syncing) =
            self.plan.ledger.claim_then(&learnt, &intents, |granted: &[Granted]| {
                let going = jobs.iter().zip(granted).filter(|(_, g)| **g == Granted::Go);
                let attempts = going.map(|(job, _)| Self::attempt_of(job, in_flight, timeout));
                journal.attempts_syncing(attempts).map_err(CollectError::from)
            })?;
        syncing.wait()?;
        drop(intents);
        let mut going = Vec::with_capacity(jobs.len());
        for (job, granted) in jobs.into_iter().zip(granted) {
            if granted == Granted::Go {
                going.push(job);
                continue;
            }
            let Some(Flight { row, fp, key, resends, .. }) = self.in_flight.remove(&job.row) else {
                continue;
            };
            match granted {
                Granted::Sent { lead_id, origin } => self.sent_before(row, fp, lead_id, &origin)?,
                // Another run's write of this identity is in the air (or was, when that run
                // died): settled like a write in doubt, sent only if it never lands.
                Granted::UnderWay(held) => {
                    self.settle_claimed(row, fp, key, held, resends, true)?
                }
                Granted::Go => {}
            }
        }
        Ok(going)
    }

    /// The journal's attempt for `job`, whose flight is in `in_flight`.
    fn attempt_of<'a>(
        job: &'a Job,
        in_flight: &HashMap<u64, Flight>,
        timeout: std::time::Duration,
    ) -> Attempt<'a> {
        let flight = &in_flight[&job.row];
        Attempt {
            row: job.row,
            phone: job.lead.phone_number.as_str(),
            campaign_id: job.lead.campaign_id,
            fp: flight.fp,
            key: Some(flight.key),
            keyed: flight.keyed,
            timeout,
        }
    }

    /// A worker's answer for `row`.
    pub(super) fn settle(&mut self, row_number: u64, sent: Sent) -> Result<(), CollectError> {
        let Some(Flight { mut row, fp, key, keyed, resends, .. }) =
            self.in_flight.remove(&row_number)
        else {
            return Ok(());
        };
        self.last_answer = Some(std::time::Instant::now());
        self.summary.sent += 1;
        self.progress.sent();
        let (status, lead_id, message) = match sent {
            Sent::Created { lead_id } => (Final::Created, Some(lead_id), None),
            Sent::Duplicate { message } => (Final::Skipped, None, Some(message)),
            Sent::Rejected { message, .. } => (Final::Rejected, None, Some(message)),
            Sent::Failed { message } => (Final::Failed, None, Some(message)),
            Sent::InDoubt { message, commit_by } => {
                self.plan.ledger.in_doubt(key, commit_by)?;
                let said = Said::SendFailed { detail: message };
                row.errors.push(Issue::said(IssueCode::RequestFailed, None, said));
                let id = if keyed { RowId::Keyed(key) } else { RowId::Content };
                let (sendable, earlier) = (true, false);
                return self.hold_in_doubt(Doubt {
                    row,
                    fp,
                    key,
                    id,
                    commit_by,
                    resends,
                    sendable,
                    earlier,
                    foreign: false,
                });
            }
        };
        self.journal_outcome(row_number, fp, status, lead_id, message.as_deref())?;
        if let Some(id) = lead_id {
            self.claimed.insert(id);
        }
        match status {
            Final::Created | Final::Skipped => self.learnt(&row, key, status, lead_id, false),
            // Refused, or never acted on: the identity is free again.
            _ => self.plan.ledger.release(&[key])?,
        }
        apply_final(&mut row, status, lead_id, message.as_deref());
        self.report(row)
    }

    /// A row settled from the lead list: `key` is its identity, and `foreign` says the lead was
    /// written by another run that claimed it (whose origin the ledger keeps).
    pub(super) fn settle_found(
        &mut self,
        mut row: RowReport,
        fp: u64,
        key: u64,
        status: Final,
        lead_id: u64,
        foreign: bool,
    ) -> Result<(), CollectError> {
        self.summary.reconciled += 1;
        self.learnt(&row, key, status, Some(lead_id), foreign);
        let message = match status {
            Final::Skipped => Some(format!("already on the service as lead {lead_id}")),
            _ => None,
        };
        let entry = Entry::Outcome {
            row: row.row,
            status,
            fp: fp_text(fp),
            lead_id: Some(lead_id),
            message: message.clone(),
            commit_by: None,
            reconciled: true,
            key: None,
            keyed: false,
        };
        self.plan.journal.outcome(&entry)?;
        apply_final(&mut row, status, Some(lead_id), message.as_deref());
        self.report(row)
    }

    /// A row read but never journaled or sent, because the run was stopped: not a failure,
    /// the next run sends it.
    fn not_sent(&mut self, mut row: RowReport) -> Result<(), CollectError> {
        row.status = RowStatus::NotSent;
        self.report(row)
    }

    /// Ctrl-C: queued rows were neither journaled nor sent: not sent yet, and the next run
    /// sends them (a row queued to be sent again after a doubt keeps its journaled doubt, which
    /// the next run settles first).
    fn abandon_pending(&mut self) -> Result<(), CollectError> {
        while let Some(job) = self.pending.pop_front() {
            if let Some(Flight { row, .. }) = self.in_flight.remove(&job.row) {
                self.not_sent(row)?;
            }
        }
        Ok(())
    }

    fn journal_outcome(
        &mut self,
        row: u64,
        fp: u64,
        status: Final,
        lead_id: Option<u64>,
        message: Option<&str>,
    ) -> Result<(), CollectError> {
        let entry = Entry::Outcome {
            row,
            status,
            fp: fp_text(fp),
            lead_id,
            message: message.map(str::to_string),
            commit_by: None,
            reconciled: false,
            key: None,
            keyed: false,
        };
        Ok(self.plan.journal.outcome(&entry)?)
    }

    pub(super) fn report(&mut self, mut row: RowReport) -> Result<(), CollectError> {
        if let Some(notes) = self.plan.row_notes.remove(&row.row) {
            row.warnings.extend(notes);
        }
        if row.status == RowStatus::Failed {
            self.summary.failed += 1;
        }
        self.progress.settled(row.status);
        Ok(self.order.place(row)?)
    }
}

/// Puts a final outcome on the row's report.
pub(super) fn apply_final(
    row: &mut RowReport,
    status: Final,
    lead_id: Option<u64>,
    message: Option<&str>,
) {
    row.lead_id = lead_id;
    let message = message.unwrap_or_default().to_string();
    match status {
        Final::Created => row.status = RowStatus::Created,
        Final::Skipped => {
            row.status = RowStatus::Skipped;
            let said = Said::AlreadyOnService { detail: message };
            row.warnings.push(Issue::said(
                IssueCode::AlreadyExists,
                Some("phone_number".into()),
                said,
            ));
        }
        Final::Rejected => {
            row.status = RowStatus::Rejected;
            let said = Said::ServiceRefused { detail: message };
            row.errors.push(Issue::said(IssueCode::ServerRejected, None, said));
        }
        Final::Failed | Final::InDoubt => {
            row.status = RowStatus::Failed;
            let said = Said::SendFailed { detail: message };
            row.errors.push(Issue::said(IssueCode::RequestFailed, None, said));
        }
    }
}

/// The job that sends a valid row, with its key when it is given.
pub(super) fn job_for(row: &RowReport, allow_duplicates: bool, key: Option<u64>) -> Job {
    let mut lead = new_lead(row, allow_duplicates);
    if let Some(own) = key {
        lead.variables.insert(key::VARIABLE.to_string(), key::text(own));
    }
    Job { row: row.row, lead }
}

/// The create-lead request for a valid row.
fn new_lead(row: &RowReport, allow_duplicates: bool) -> NewLead {
    NewLead {
        phone_number: row.phone.clone().unwrap_or_default(),
        campaign_id: row.campaign_id.unwrap_or_default(),
        variables: lead_variables(&row.variables),
        allow_dupplicate: allow_duplicates,
        secondary_contacts: row
            .secondary_contacts
            .iter()
            .map(|c| NewContact {
                phone_number: c.phone.clone(),
                variables: lead_variables(&c.variables),
            })
            .collect(),
    }
}

/// A row's variables as the service's request model holds them.
fn lead_variables(variables: &crate::row::Variables) -> crate::client::Variables {
    variables.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
}

/// What a row whose lead the ledger knows says: the lead, and where and when it was sent.
fn sent_before_said(lead: Option<u64>, origin: &Origin) -> Said {
    let at = i64::try_from(origin.at)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map(|at| at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default();
    Said::SentBefore {
        lead,
        source: origin.source.clone(),
        row: origin.row,
        front: origin.front.clone(),
        at,
    }
}
