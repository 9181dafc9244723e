//! The one place that knows the order of the stages: open the source, resolve the mapping,
//! fetch campaigns, then stream rows through checking threads, an in-order dedupe and the
//! report writers (and, when not a dry run, the push engine).
//!
//! Rows travel in batches: a reader thread parses, `workers` threads normalize and check, and
//! the calling thread puts batches back in file order, so "duplicate of row 12" is the same
//! whatever thread was faster. Channels are bounded, so memory stays flat on any file size.
//!
//! `rows` checks a few rows alone, as a run would, for a front that shows one row after an edit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use tokio::sync::mpsc;

mod changes;
mod rows;

pub use changes::{SyncResult, applied_line};

pub use rows::{CheckedRow, check_rows, write_corrected_sheet};

use crate::assistant::{AssistantCheck, Speaker};
use crate::client::account::AccountError;
use crate::client::{Client, ClientError};
use crate::edits::Edits;
use crate::guards::{GuardError, GuardSpec, Guards};
use crate::journal::{self, JournalError, OnChange, Reading, RunHeader, RunLock};
use crate::mapping::{
    AssistantRef, CampaignRef, CampaignSource, MappingError, MappingFile, Plan, SheetRef,
};
use crate::phone::{PhoneError, PhoneParser};
use crate::progress::{self, Display, Progress};
use crate::push::{
    CollectError, Collector, LeadIndex, PushConfig, PushSummary, SendPlan, SkipPreview,
};
use crate::report::{self, ReportError, Reports, RowReport, RunInfo};
use crate::source::{Extent, Record, SheetSelector, Source, SourceError, SourceOptions};
use crate::validate::{CampaignBook, Campaigns, Checked, Deduper, RowChecker};

/// Rows per batch: large enough to amortize channel hops, small enough to keep memory flat.
const BATCH_ROWS: usize = 512;
/// Batches in flight between stages.
const BATCHES_IN_FLIGHT: usize = 4;

/// What to import and how.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub path: PathBuf,
    /// The path or URL as the user gave it, for messages and reports.
    pub location: String,
    /// `None`: infer the mapping from the headers.
    pub mapping: Option<MappingFile>,
    /// Command-line overrides of the mapping.
    pub sheet: Option<String>,
    pub region: Option<String>,
    pub campaign: Option<String>,
    /// The assistant that calls the leads, by id or name (overrides the mapping's).
    pub assistant: Option<String>,
    pub delimiter: Option<u8>,
    pub encoding: Option<String>,
    pub header_row: Option<u64>,
    /// Suppression lists from the command line, on top of the mapping's.
    pub suppress: Vec<String>,
    /// Allowed countries from the command line, instead of the mapping's.
    pub countries: Option<Vec<String>>,
    /// Validate without the service: campaigns are not checked.
    pub offline: bool,
    /// A dry run shows what `--skip-existing` would skip (it reads the service's lead list).
    pub preview_skips: bool,
    pub allow_duplicates: bool,
    pub dry_run: bool,
    pub reports: Vec<PathBuf>,
    /// Checking threads; 0 = one per core.
    pub workers: usize,
    /// How to send; `None` (or `dry_run`) sends nothing.
    pub push: Option<PushOptions>,
    /// How progress is shown while sending.
    pub display: Display,
    /// Read only this many rows (blank ones included): a preview of the first rows, checked
    /// exactly as the whole sheet would be. `None`: every row.
    pub max_rows: Option<u64>,
    /// The person's changes to cells and rows (the Check page, `--edits`), applied as each row
    /// is read; part of the run's identity.
    pub edits: Arc<Edits>,
    /// Where a send's status line is kept for a front that shows it itself (the browser).
    pub board: Option<Arc<progress::Board>>,
    /// Refuse a sheet of more rows than this (the browser's check: one small crafted file must
    /// not fill the disk with millions of stored rows); `None`: any number.
    pub row_limit: Option<u64>,
    /// The state folder, which holds the account's own do-not-call list: with a service, every
    /// check and send applies it. `None`: no such list (a library caller's choice).
    pub state_dir: Option<PathBuf>,
    /// A dry run that says what `--update` would change (`import --dry-run --update`): the
    /// plan from the state folder's ledger, nothing written.
    pub plan_sync: Option<crate::sync::Rules>,
    /// The language of the HTML report and the fix file for Excel; English unless a front
    /// asks for another (the CLI asks the environment, the browser the page's language).
    pub lang: crate::row::Lang,
}

/// How a non-dry run sends and keeps its journal.
#[derive(Debug, Clone)]
pub struct PushOptions {
    pub config: PushConfig,
    pub skip_existing: bool,
    /// Ignore any earlier journal and start a new run.
    pub restart: bool,
    /// The journal file; default: one per source, sheet, service and account under
    /// `state_dir/<journal_folder>`.
    pub journal: Option<PathBuf>,
    pub state_dir: PathBuf,
    /// The folder of default journals under `state_dir` (`journals` for import, `sync`).
    pub journal_folder: &'static str,
    /// More that tells runs apart in the default journal's name (sync: the mapping file).
    pub run_key: String,
    /// What a changed source or mapping does to an unfinished run.
    pub on_change: OnChange,
    /// Which front sends (`import`, `sync`, `ui`), for where the ledger says a lead came from.
    pub front: &'static str,
    /// Keep the sheet the truth (`sync`, `import --update`): changed rows update their lead,
    /// and leads whose rows left or now say no are handled as these rules say.
    pub sync: Option<crate::sync::Rules>,
}

impl PushOptions {
    /// How the browser (`leadsync ui`) sends a checked sheet: skipping what is on the service,
    /// resuming the sheet's journal (shared with `leadsync import` of the same file), refusing
    /// a changed sheet while a send of it is unfinished.
    pub fn for_browser(config: PushConfig, state_dir: PathBuf) -> PushOptions {
        PushOptions {
            config,
            skip_existing: true,
            restart: false,
            journal: None,
            state_dir,
            journal_folder: "journals",
            run_key: String::new(),
            on_change: OnChange::Refuse,
            front: "ui",
            sync: None,
        }
    }
}

/// How an import went.
#[derive(Debug)]
pub struct ImportResult {
    pub outcome: report::Outcome,
    pub run: RunInfo,
    /// What the inferred mapping chose, one line each (empty with `--mapping`); shown (unless
    /// hidden) before any row was read.
    pub mapping_notes: Vec<String>,
    /// How sending went; `None` for a dry run.
    pub push: Option<PushSummary>,
    /// What a sync planned and changed; `None` unless the run keeps the sheet the truth.
    pub sync: Option<SyncResult>,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Corrected(Box<crate::edits::CorrectedError>),
    #[error(transparent)]
    Mapping(#[from] MappingError),
    #[error("invalid mapping: {0}")]
    MappingValue(String),
    #[error(transparent)]
    Phone(#[from] PhoneError),
    #[error(transparent)]
    Report(#[from] ReportError),
    #[error("fetching the campaign list")]
    Campaigns(#[source] ClientError),
    #[error("the campaign for every row, {0}")]
    FixedCampaign(String),
    #[error("fetching the assistant list")]
    Assistants(#[source] ClientError),
    #[error(
        "the sheet has more than {limit} rows, more than a check here takes: split it, or raise the limit (`leadsync ui --max-rows`)"
    )]
    TooManyRows { limit: u64 },
    #[error(transparent)]
    Assistant(#[from] crate::assistant::NotFound),
    #[error(transparent)]
    Unfilled(#[from] crate::assistant::Unfilled),
    #[error("cannot read `{location}` to fingerprint it for the journal: {source}")]
    Fingerprint { location: String, source: std::io::Error },
    #[error(
        "`{location}` has a header row but no data rows: check that you exported the right sheet"
    )]
    NoRows { location: String },
    #[error("fetching the lead list")]
    Leads(#[source] ClientError),
    #[error(transparent)]
    Account(#[from] AccountError),
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Collect(#[from] CollectError),
    #[error(transparent)]
    Ledger(#[from] crate::ledger::LedgerError),
    #[error(transparent)]
    Guards(#[from] GuardError),
    #[error("fetching the suppression list")]
    SuppressionFetch(#[source] SourceError),
    #[error(transparent)]
    Sync(#[from] crate::sync::plan::PlanError),
}

/// Runs an import: a dry run (validate and report) or, with `opts.push`, sending as well.
/// `stop` is raised by Ctrl-C: reading stops, requests in flight finish, and the journal and
/// reports are still written.
pub async fn import(
    opts: &ImportOptions,
    client: Option<&Client>,
    stop: Arc<AtomicBool>,
) -> Result<ImportResult, PipelineError> {
    let started_at = now();
    let Prepared { source, headers, mapping_notes, plan, assistant, speaker, guards, campaigns } =
        prepare(opts, client).await?;
    let mut send = match (&opts.push, client) {
        (Some(push), Some(client)) if !opts.dry_run => {
            Some(prepare_send(opts, push, client, &plan, &source).await?)
        }
        _ => None,
    };
    let shape = report::SourceShape {
        delimiter: source.delimiter.unwrap_or(b','),
        phone_column: Some(plan.phone),
        lang: opts.lang,
    };
    let reports = Reports::create(&opts.reports, &headers, shape)?;
    let mut run = RunInfo {
        source: opts.location.clone(),
        sheet: source.sheet.clone(),
        dry_run: send.is_none(),
        interrupted: false,
        read_whole: false,
        campaigns_checked: matches!(campaigns, Campaigns::Checked(_)),
        blank_rows: 0,
        headers: headers.clone(),
        reading_notes: source.notes.clone(),
        started_at,
        finished_at: String::new(),
        assistant: speaker,
    };
    // The CSV and XLSX fix files carry every row's original cells, and the HTML report shows
    // the phone as typed of every row to fix, a duplicate's too, whose number did parse.
    let keep_cells = opts.reports.iter().any(|p| {
        p.extension().is_some_and(|e| {
            ["csv", "xlsx", "html", "htm"].iter().any(|kept| e.eq_ignore_ascii_case(kept))
        })
    });
    let checkers = Checkers {
        guards: Arc::new(guards),
        plan: Arc::new(plan),
        headers: headers.into(),
        campaigns: Arc::new(campaigns),
        assistant,
        keep_cells,
        workers: worker_count(opts.workers),
        max_rows: opts.max_rows,
        row_limit: opts.row_limit,
        edits: opts.edits.clone(),
    };
    let (planned, dry_plan) =
        changes::before_push(opts, send.is_some(), client, &source, &checkers, &stop).await?;
    // A sync's changes go out before its creates, so each row's report says what became of
    // its lead.
    let sync = match (planned, client, opts.push.as_ref(), send.as_mut()) {
        (Some(planned), Some(client), Some(options), Some(send)) => {
            let (done, notes) =
                changes::carry_out(planned, client, options, opts.display, &stop).await?;
            send.row_notes = notes;
            Some(done)
        }
        _ => dry_plan,
    };
    let extent = source.extent.clone();
    let (rows_tx, rows_rx) = mpsc::channel::<Vec<RowReport>>(BATCHES_IN_FLIGHT);
    let allow_duplicates = opts.allow_duplicates;
    let stages_stop = stop.clone();
    let stages = tokio::task::spawn_blocking(move || {
        run_stages(source, checkers, rows_tx, allow_duplicates, &stages_stop)
    });
    let progress = Arc::new(Progress::default());
    let (reports, push) = match send {
        Some(plan) => {
            let (count, rows_rx) = count_sends(rows_rx, &plan, &extent).await;
            if let Some(count) = count {
                progress.plan_sends(count.to_send);
                progress::announce_plan(opts.display, count, plan.config.rate, plan.lead_key);
            }
            let collector = Collector::new(
                client.expect("sending needs a client"),
                plan,
                reports,
                progress.clone(),
            );
            let context =
                progress::Context { throttle: Some(collector.throttle()), extent: Some(extent) };
            let _board = opts
                .board
                .clone()
                .map(|board| progress::watch_into(progress.clone(), context.clone(), board));
            let _watch = progress::watch(progress.clone(), opts.display, context);
            let (reports, summary, journal) = collector.run(rows_rx, stop.clone()).await?;
            (reports, Some((summary, journal)))
        }
        None => {
            let mut preview = match (opts.preview_skips && !opts.offline, client) {
                (true, Some(client)) => Some(skip_preview(opts, client).await?),
                _ => None,
            };
            (write_all(rows_rx, reports, preview.as_mut()).await?, None)
        }
    };
    let (blank_rows, stream_result) = stages.await.expect("the row stages do not panic")?;
    run.blank_rows = blank_rows;
    // A run that sends knows whether every row reached it; a dry run reads what was read.
    run.read_whole = match &push {
        Some((summary, _)) => summary.read_whole,
        None => matches!(stream_result, Ok(true)),
    };
    run.finished_at = now();
    // Ctrl-C stops reading and sending, so the reports cover only the rows handled so far. One
    // that lands after the last row still counts: a whole report marked partial is the safe error.
    run.interrupted = stop.load(Ordering::Relaxed);
    // Reports are finished even when reading stopped half-way, so the rows seen are not lost.
    let outcome = reports.finish(&run)?;
    stream_result?;
    let push = match push {
        Some((summary, mut journal)) => {
            // Only a run that read every row and settled every one is finished: anything else
            // must stay resumable (and guarded against a changed file).
            if summary.is_complete() {
                journal.finish(now())?;
            }
            Some(summary)
        }
        None => None,
    };
    if outcome.summary.rows == 0 && !stop.load(Ordering::Relaxed) {
        return Err(PipelineError::NoRows { location: opts.location.clone() });
    }
    Ok(ImportResult { outcome, run, mapping_notes, push, sync })
}

/// What checking a row needs, made before the first row is read.
struct Prepared {
    source: Source,
    headers: Vec<String>,
    mapping_notes: Vec<String>,
    plan: Plan,
    assistant: Option<Arc<AssistantCheck>>,
    speaker: Option<Speaker>,
    guards: Guards,
    campaigns: Campaigns,
}

/// Opens the source, resolves the mapping (inferred when there is none), and fetches what the
/// checks ask of the service: the assistant, the suppression lists, the campaigns.
async fn prepare(opts: &ImportOptions, client: Option<&Client>) -> Result<Prepared, PipelineError> {
    let mapping = merged_mapping(opts)?;
    let source =
        Source::open_named(&opts.path, &opts.location, &source_options(opts, mapping.as_ref())?)?;
    refuse_past_row_limit(opts, &source)?;
    let headers = source.headers.clone();
    let campaigns = match (opts.offline, client) {
        (false, Some(client)) => Campaigns::Checked(fetch_campaigns(client).await?),
        _ => Campaigns::Unchecked,
    };
    let (mapping, mut mapping_notes) = match mapping {
        Some(m) => (m, Vec::new()),
        None => {
            let samples = source.samples();
            let (mut file, mut notes) = infer_with_overrides(opts, &headers, &samples);
            unname_campaign_column(&mut file, &mut notes, &campaigns, (&headers, &samples));
            (file, notes)
        }
    };
    let mut resolved = mapping.resolve(&headers, &opts.location);
    if let Ok(plan) = &mut resolved {
        leave_out_hidden_columns(plan, &mapping, &source, &mut mapping_notes);
    }
    // Said before any row is read, on a terminal and off it alike, and before a mapping
    // that cannot be resolved is refused.
    progress::announce_mapping(opts.display, &mapping_notes);
    let plan = resolved?;
    let (assistant, speaker) =
        assistant_check(opts, &mapping, &plan, &headers, client).await?.unzip();
    let never_call = never_call_list(opts, client).await?;
    let guards =
        load_guards(opts, &guard_spec(opts, &mapping), &headers, &plan, never_call).await?;
    check_fixed_campaign(&plan, &campaigns)?;
    Ok(Prepared { source, headers, mapping_notes, plan, assistant, speaker, guards, campaigns })
}

/// Columns the workbook hides are not carried as variables: the note of the columns carried
/// loses them, and one more says which were left out and how to send one.
fn leave_out_hidden_columns(
    plan: &mut Plan,
    mapping: &MappingFile,
    source: &Source,
    notes: &mut Vec<String>,
) {
    let left_out = plan.leave_out_hidden(mapping, &source.hidden_columns());
    if left_out.is_empty() {
        return;
    }
    let named = |c: &usize| format!("`{}`", source.headers[*c]);
    let hidden: Vec<String> = left_out.iter().map(named).collect();
    use crate::mapping::CARRIED_NOTE;
    for note in notes.iter_mut().filter(|n| n.starts_with(CARRIED_NOTE)) {
        let carried =
            note[CARRIED_NOTE.len()..].split(", ").filter(|c| !hidden.iter().any(|h| h == c));
        *note = format!("{CARRIED_NOTE}{}", carried.collect::<Vec<_>>().join(", "));
    }
    notes.retain(|n| n != CARRIED_NOTE);
    notes.push(format!(
        "hidden in the workbook, not sent: {} (name one under [variables] in a mapping to send it)",
        hidden.join(", ")
    ));
}

/// Rows looked at before the first request to count what a run will send: a sheet of up to
/// this many is counted exactly, a longer one from its first rows. Held in memory until sending
/// starts, they cost a few MiB and a moment of reading.
const PLAN_ROWS: usize = 10_000;

/// Counts the rows a run will send among its first [`PLAN_ROWS`] (all of a smaller sheet):
/// valid rows that neither an earlier run of the journal settled nor, under `sync` or
/// `--skip-existing`, the lead list holds. A longer sheet's count is scaled to its estimated
/// rows; without an estimate there is no count. Returns the rows, to be sent as if never held.
async fn count_sends(
    mut rows: mpsc::Receiver<Vec<RowReport>>,
    plan: &SendPlan,
    extent: &Extent,
) -> (Option<progress::SendCount>, mpsc::Receiver<Vec<RowReport>>) {
    let mut head = Vec::new();
    let mut seen = 0;
    let mut ended = false;
    while seen < PLAN_ROWS {
        match rows.recv().await {
            Some(batch) => {
                seen += batch.len();
                head.push(batch);
            }
            None => {
                ended = true;
                break;
            }
        }
    }
    let mut count = head_count(&head, plan);
    let scale = match (ended, extent.estimated_rows()) {
        (true, _) => Some(1.0),
        (false, Some(total)) if seen > 0 => Some(total as f64 / seen as f64),
        (false, _) => None,
    };
    let (tx, forwarded) = mpsc::channel(BATCHES_IN_FLIGHT);
    tokio::spawn(async move {
        for batch in head {
            if tx.send(batch).await.is_err() {
                return;
            }
        }
        while let Some(batch) = rows.recv().await {
            if tx.send(batch).await.is_err() {
                return;
            }
        }
    });
    let Some(scale) = scale else { return (None, forwarded) };
    let scaled = |n: u64| (n as f64 * scale).round() as u64;
    count.to_send = scaled(count.to_send);
    count.skipped = scaled(count.skipped);
    count.settled = plan.recovered.done() as u64;
    (Some(count), forwarded)
}

/// The rows to send and to skip among `head`, judged as the collector will judge them.
fn head_count(head: &[Vec<RowReport>], plan: &SendPlan) -> progress::SendCount {
    // A copy of the lead list for as long as the head is counted: `SkipPreview` owns one, and
    // the collector keeps its own.
    let mut preview = plan.skip_existing.then(|| {
        let index = LeadIndex::clone(&plan.index);
        SkipPreview::new(index, plan.lead_key, plan.allow_duplicates)
    });
    let mut keys = crate::ledger::identity::RowKeys::new(plan.allow_duplicates);
    let mut count = progress::SendCount::default();
    plan.ledger.in_one_read(|_| {
        for row in head.iter().flatten() {
            count_row(row, plan, &mut keys, preview.as_mut(), &mut count);
        }
    });
    count
}

/// Counts one row of the head as to send, skipped, or neither.
fn count_row(
    row: &RowReport,
    plan: &SendPlan,
    keys: &mut crate::ledger::identity::RowKeys,
    preview: Option<&mut SkipPreview>,
    count: &mut progress::SendCount,
) {
    let mut row = row.clone();
    let valid = row.status == report::RowStatus::Valid;
    // Judged whatever its fate: every row takes its place in the count of occurrences, as
    // in a real run.
    let key = keys.next(&row);
    if let Some(preview) = preview {
        preview.judge(&mut row);
    }
    let settled = matches!(plan.recovered.rows.get(row.row), Some(journal::RowState::Done { .. }));
    match row.status {
        _ if !valid || settled => {}
        report::RowStatus::Valid if !known_to_ledger(plan, key) => count.to_send += 1,
        _ => count.skipped += 1,
    }
}

/// Whether the ledger knows a lead of the identity `key`: its row is skipped, whatever the
/// lead list says (a lead another front or file sent).
fn known_to_ledger(plan: &SendPlan, key: Option<u64>) -> bool {
    key.is_some_and(|k| matches!(plan.ledger.lookup(k), Ok(crate::ledger::Known::Sent { .. })))
}

/// Dry run: every row straight into the reports.
async fn write_all(
    mut rows: mpsc::Receiver<Vec<RowReport>>,
    mut reports: Reports,
    mut preview: Option<&mut SkipPreview>,
) -> Result<Reports, PipelineError> {
    while let Some(batch) = rows.recv().await {
        for mut row in batch {
            if let Some(preview) = preview.as_deref_mut() {
                preview.judge(&mut row);
            }
            reports.write_row(&row)?;
        }
    }
    Ok(reports)
}

/// A dry run with `--skip-existing`: the service's leads, to show which rows a real run skips.
async fn skip_preview(opts: &ImportOptions, client: &Client) -> Result<SkipPreview, PipelineError> {
    let index = LeadIndex::load(client).await.map_err(PipelineError::Leads)?;
    Ok(SkipPreview::new(index, lead_key(opts), opts.allow_duplicates))
}

/// Before the first row is sent: the run's lock, then the service's leads (for
/// `--skip-existing`, the baseline and reconciliation) and the journal, resumed or new. A new
/// run that replaces a journal takes over the writes it left in doubt.
async fn prepare_send(
    opts: &ImportOptions,
    push: &PushOptions,
    client: &Client,
    plan: &Plan,
    source: &Source,
) -> Result<SendPlan, PipelineError> {
    let preparing = std::time::Instant::now();
    let service = client.service_name();
    let mut accounts = client.account_names().await?;
    let (path, legacy) = journal_path(opts, push, source, &service, &accounts, client).await?;
    // A journal an older version named by a token's tag is this account's too.
    accounts.extend(legacy);
    // Locked before the journal and the lead list are read: a run that starts while another
    // finishes must not work from the view the other had.
    let lock = RunLock::acquire(&path)?;
    let reading = std::time::Instant::now();
    // The baseline is set below, for a new run; a resumed run keeps its own.
    let header = run_header(opts, plan, source, service, &accounts, 0, client)?;
    let mut opening = journal::Opening::read(lock, &header, push.on_change, push.restart)?;
    let mut ledger = open_ledger(opts, push, source, &header.service)?;
    let claimed_by_others = ledger.claimed_by_others()?;
    // A ledger that never learnt this account's leads (a new machine, a lost state folder)
    // learns them from the service first: a lead is never sent again because it was lost.
    let relearn = !ledger.knows_account(&accounts)?;
    let listed_at = crate::push::now_ms();
    let carried = carried_doubts(&mut opening, &header, client, listed_at);
    let index_loaded = needs_lead_list(&opening, push.skip_existing)
        || !carried.is_empty()
        || !claimed_by_others.is_empty()
        || relearn;
    let index = if index_loaded {
        LeadIndex::load(client).await.map_err(PipelineError::Leads)?
    } else {
        tracing::info!("lead list not read: the run resumes with no row in doubt");
        LeadIndex::default()
    };
    if relearn {
        ledger.learn_list(&accounts, index.identities())?;
    }
    let claimed_by_others = match index_loaded && !claimed_by_others.is_empty() {
        // Dead runs' claims the list settles now need no row to settle them later.
        true if ledger.settle_stale(listed_at, |key| index.keyed(key))? > 0 => {
            ledger.claimed_by_others()?
        }
        _ => claimed_by_others,
    };
    let header = journal::RunHeader { baseline_lead_id: index.max_id(), ..header };
    let (mut journal, mut recovered) = opening.start(header.clone())?;
    if !carried.is_empty() {
        tracing::info!(carried = carried.len(), "writes in doubt taken over from the run replaced");
        journal.carry(&carried)?;
        recovered.carried = carried.iter().map(|c| (c.key, *c)).collect();
    }
    let identity = recovered.header.clone().unwrap_or(header);
    if !lead_key(opts) || recovered.has_unkeyed_doubts() {
        // Rows matched by content must not take a lead another run's row owns.
        let folders = [push.state_dir.join("journals"), push.state_dir.join("sync")];
        recovered.claimed.merge(journal::claimed_elsewhere(&folders, &path, &identity));
    }
    tracing::info!(
        journal = %path.display(),
        settled = recovered.done(),
        in_doubt = recovered.in_doubt(),
        elapsed_ms = reading.elapsed().as_millis() as u64,
        "journal opened"
    );
    let earlier = recovered.header.as_ref();
    let baseline = earlier.map_or(index.max_id(), |h| h.baseline_lead_id);
    let earlier_window = crate::push::doubt_window(earlier_timeout(client, earlier));
    tracing::info!(
        elapsed_ms = preparing.elapsed().as_millis() as u64,
        "ready to send (lock, lead list, fingerprint, journal)"
    );
    Ok(SendPlan {
        journal,
        recovered,
        index: Arc::new(index),
        listed_at,
        baseline,
        earlier_window,
        skip_existing: push.skip_existing,
        allow_duplicates: opts.allow_duplicates,
        config: push.config.clone(),
        source: opts.location.clone(),
        location: absolute_location(&opts.location),
        sheet: source.sheet.clone(),
        lead_key: lead_key(opts),
        timeout: client.timeout(),
        identity,
        display: opts.display,
        ledger,
        index_loaded,
        claimed_by_others,
        row_notes: Default::default(),
    })
}

/// The state folder's ledger, for a run of `source` against `service` from `push.front`.
fn open_ledger(
    opts: &ImportOptions,
    push: &PushOptions,
    source: &Source,
    service: &str,
) -> Result<crate::ledger::Ledger, PipelineError> {
    let origin = crate::ledger::RunOrigin {
        source: opts.location.clone(),
        sheet: source.sheet.clone(),
        front: push.front.to_string(),
    };
    Ok(crate::ledger::Ledger::open(&push.state_dir, service, origin)?)
}

/// The writes in doubt of the journal a new run replaces (a changed sheet under `sync`, a
/// restart, a new run after a finished one): carried into the new run until the lead list
/// settles them.
fn carried_doubts(
    opening: &mut journal::Opening,
    header: &RunHeader,
    client: &Client,
    listed_at: u64,
) -> Vec<journal::CarriedDoubt> {
    let journal::Opening::New(_, replaced) = opening else { return Vec::new() };
    let Some(old) = replaced.take().filter(|old| old.of_run(header)) else { return Vec::new() };
    let window = crate::push::doubt_window(earlier_timeout(client, old.header.as_ref()));
    old.doubts_to_carry(listed_at, window)
}

/// The timeout to assume for an earlier run's attempts that did not record their own (older
/// versions): the longer of this run's and the one its journal's first run had.
fn earlier_timeout(client: &Client, earlier: Option<&RunHeader>) -> std::time::Duration {
    earlier.map_or(client.timeout(), |h| {
        client.timeout().max(std::time::Duration::from_millis(h.timeout_ms))
    })
}

/// The service's leads are needed for a new run's baseline (its highest lead id), to settle
/// rows an earlier run left in doubt, and for `--skip-existing`. Resuming a run with none of
/// these skips the list: against a service that holds a million leads, reading it is most of
/// a resume's time and memory.
fn needs_lead_list(opening: &journal::Opening, skip_existing: bool) -> bool {
    match opening {
        journal::Opening::New(..) => true,
        journal::Opening::Resume(resumed) => skip_existing || resumed.1.in_doubt() > 0,
    }
}

/// The journal of this run: the one named, or the one per source, sheet and service of this
/// account (by any of its names), or the journal an older version kept for it under its one
/// old name.
async fn journal_path(
    opts: &ImportOptions,
    push: &PushOptions,
    source: &Source,
    service: &str,
    accounts: &[String],
    client: &Client,
) -> Result<(PathBuf, Option<String>), PipelineError> {
    if let Some(path) = &push.journal {
        return Ok((path.clone(), None));
    }
    let dir = push.state_dir.join(push.journal_folder);
    let location = absolute_location(&opts.location);
    let sheet = source.sheet.as_deref();
    let path = journal::account_path(&dir, &location, sheet, &[service, &push.run_key], accounts);
    if path.exists() {
        return Ok((path, None));
    }
    for legacy in legacy_account_names(push, accounts, client).await? {
        let old = journal::default_path(&dir, &location, sheet, &[service, &legacy, &push.run_key]);
        if old.exists() {
            return Ok((old, Some(legacy)));
        }
    }
    Ok((path, None))
}

/// The names older versions gave the account's journals: its user id, or a keyed hash of its
/// token when the state folder holds the key (it was made only for such a journal).
async fn legacy_account_names(
    push: &PushOptions,
    accounts: &[String],
    client: &Client,
) -> Result<Vec<String>, PipelineError> {
    let mut names: Vec<String> =
        accounts.iter().filter(|n| n.starts_with("user:")).cloned().collect();
    if push.state_dir.join("account.key").exists() {
        names.push(client.legacy_account_id(&push.state_dir).await?);
    }
    Ok(names)
}

/// Everything that decides which rows are read and what each sends, and where they go.
fn run_header(
    opts: &ImportOptions,
    plan: &Plan,
    source: &Source,
    service: String,
    accounts: &[String],
    baseline_lead_id: u64,
    client: &Client,
) -> Result<RunHeader, PipelineError> {
    let fingerprint = journal::fingerprint_file(&opts.path)
        .map_err(|source| PipelineError::Fingerprint { location: opts.location.clone(), source })?;
    let fingerprint = edited_fingerprint(fingerprint, &opts.edits);
    let reading = Reading {
        sheet: source.sheet.clone(),
        sheet_position: source.sheet_position,
        header_row: source.header_row,
        delimiter: source.delimiter.map(|d| char::from(d).to_string()),
        encoding: source.encoding.map(str::to_string),
    };
    Ok(RunHeader {
        event: "run".into(),
        version: journal::FORMAT_VERSION,
        source: opts.location.clone(),
        fingerprint,
        reading,
        mapping: blake3::hash(
            format!("{plan:?}|{}|{}", opts.allow_duplicates, lead_key_text(opts)).as_bytes(),
        )
        .to_hex()
        .to_string(),
        service,
        account: accounts.first().cloned().unwrap_or_default(),
        accounts: accounts.get(1..).unwrap_or_default().to_vec(),
        baseline_lead_id,
        allow_duplicates: opts.allow_duplicates,
        identity_keys: true,
        timeout_ms: u64::try_from(client.timeout().as_millis()).unwrap_or(u64::MAX),
        started_at: now(),
    })
}

/// Edits change what the rows are: the run is the file as edited, resumed only with the same
/// edits. Without edits the fingerprint is the file's, as it always was.
fn edited_fingerprint(file: String, edits: &Edits) -> String {
    match edits.digest() {
        digest if digest.is_empty() => file,
        digest => blake3::hash(format!("{file}|edits {digest}").as_bytes()).to_hex().to_string(),
    }
}

pub use crate::source::is_url;

/// A path made canonical (absolute, `..` and symbolic links resolved), so `leads.csv`,
/// `sub/../leads.csv` and a link to it share a journal, a lock and their rows' keys; URLs as
/// they are. A path that cannot be resolved is only made absolute.
pub fn absolute_location(location: &str) -> String {
    if is_url(location) {
        return location.to_string();
    }
    std::fs::canonicalize(location)
        .or_else(|_| std::path::absolute(location))
        .map_or_else(|_| location.to_string(), |p| p.display().to_string())
}

/// Whether leads go out with their own key: on unless the mapping says `lead_key = false`.
pub fn lead_key(opts: &ImportOptions) -> bool {
    opts.mapping.as_ref().and_then(|m| m.lead_key).unwrap_or(true)
}

fn lead_key_text(opts: &ImportOptions) -> &'static str {
    if lead_key(opts) { "keyed" } else { "unkeyed" }
}

fn merged_mapping(opts: &ImportOptions) -> Result<Option<MappingFile>, PipelineError> {
    let Some(file) = &opts.mapping else { return Ok(None) };
    let mut file = file.clone();
    apply_overrides(opts, &mut file);
    Ok(Some(file))
}

fn apply_overrides(opts: &ImportOptions, file: &mut MappingFile) {
    if let Some(sheet) = &opts.sheet {
        file.sheet = Some(SheetRef::Name(sheet.clone()));
    }
    if let Some(region) = &opts.region {
        file.region = Some(region.clone());
    }
    if let Some(campaign) = &opts.campaign {
        file.campaign = Some(CampaignRef::parse(campaign));
    }
    if let Some(assistant) = &opts.assistant {
        file.assistant = Some(AssistantRef::parse(assistant));
    }
}

/// The mapping inferred from the headers and the first data rows (`samples`: a yes/no column
/// is never a phone column), with the command line's choices on top.
/// A sheet whose size says it is past the row limit is refused before any row is read or
/// stored; one that only turns out so while read is refused there (`read_batches`).
fn refuse_past_row_limit(opts: &ImportOptions, source: &Source) -> Result<(), PipelineError> {
    let Some(limit) = opts.row_limit else { return Ok(()) };
    // A CSV's size is estimated from its first lines: only a sheet well past the limit is
    // refused on its estimate, one near it when it is read.
    match source.extent.estimated_rows() {
        Some(rows) if rows / 5 * 4 > limit => Err(PipelineError::TooManyRows { limit }),
        _ => Ok(()),
    }
}

/// An inferred campaign column whose first values name no campaign of the account is not the
/// campaign (`CampaignBook::unname_campaign_column`); the note says to name the campaign, as
/// the browser's Mapping page asks for one.
fn unname_campaign_column(
    file: &mut MappingFile,
    notes: &mut Vec<String>,
    campaigns: &Campaigns,
    (headers, samples): (&[String], &[Vec<String>]),
) {
    let Campaigns::Checked(book) = campaigns else { return };
    let Some((column, example)) = book.unname_campaign_column(file, headers, samples) else {
        return;
    };
    notes.retain(|n| !n.starts_with("campaign from"));
    notes.push(format!(
        "column `{column}` names no campaign of the account (for example `{example}`): it is \
         sent as a variable; pass --campaign to name the campaign"
    ));
}

fn infer_with_overrides(
    opts: &ImportOptions,
    headers: &[String],
    samples: &[Vec<String>],
) -> (MappingFile, Vec<String>) {
    let (mut file, mut notes) = crate::mapping::infer_from(headers, samples);
    // A country or consent column is proposed (by `init` too), never applied unasked: a run
    // without a mapping checks what it always did.
    file.region_column = None;
    file.consent = None;
    apply_overrides(opts, &mut file);
    if file.campaign.is_some() {
        notes.retain(|n| !n.starts_with("campaign from"));
    }
    (file, notes)
}

/// How to read the source: the command line's (or the UI's) choices over the mapping file's.
pub fn source_options(
    opts: &ImportOptions,
    mapping: Option<&MappingFile>,
) -> Result<SourceOptions, PipelineError> {
    let from_file = |f: &MappingFile| f.delimiter_byte().map_err(PipelineError::MappingValue);
    let delimiter = match (opts.delimiter, mapping) {
        (Some(d), _) => Some(d),
        (None, Some(f)) => from_file(f)?,
        (None, None) => None,
    };
    let sheet = match (&opts.sheet, mapping.and_then(|m| m.sheet.as_ref())) {
        (Some(s), _) => Some(
            s.parse::<SheetSelector>().map_err(|e| PipelineError::MappingValue(e.to_string()))?,
        ),
        (None, Some(SheetRef::Index(i))) => Some(SheetSelector::Index(*i)),
        (None, Some(SheetRef::Name(n))) => Some(SheetSelector::Name(n.clone())),
        (None, None) => None,
    };
    Ok(SourceOptions {
        delimiter,
        encoding: opts.encoding.clone().or_else(|| mapping.and_then(|m| m.encoding.clone())),
        sheet,
        header_row: opts.header_row.or_else(|| mapping.and_then(|m| m.header_row)),
        region: Some(encoding_hint_region(opts, mapping)),
    })
}

/// The region whose top-level domain helps guess a legacy CSV encoding: the one national
/// numbers are read in, so a sheet from nowhere in particular is guessed as a German one
/// (`£` as Windows-1252, not 1250), and a country's name (`Österreich`) counts as its code.
fn encoding_hint_region(opts: &ImportOptions, mapping: Option<&MappingFile>) -> String {
    let asked = opts.region.clone().or_else(|| mapping.and_then(|m| m.region.clone()));
    match asked {
        Some(asked) => crate::phone::region_of(&asked).unwrap_or(asked),
        None => crate::mapping::DEFAULT_REGION.to_string(),
    }
}

/// The mapping's guards with the command line's on top: `--suppress` adds lists, `--countries`
/// replaces the mapping's.
fn guard_spec(opts: &ImportOptions, mapping: &MappingFile) -> GuardSpec {
    let mut spec = mapping.guard_spec();
    spec.suppress.extend(opts.suppress.iter().cloned());
    if let Some(countries) = &opts.countries {
        spec.countries = countries.clone();
    }
    spec
}

/// Resolves the guards against the headers and loads every suppression list (downloading
/// those given as URLs), reading national numbers in the mapping's region.
async fn load_guards(
    opts: &ImportOptions,
    spec: &GuardSpec,
    headers: &[String],
    plan: &Plan,
    never_call: Vec<PathBuf>,
) -> Result<Guards, PipelineError> {
    let phones = PhoneParser::new(&plan.region)?;
    // A folder only when a list is downloaded: one left by every run fills /tmp when runs are
    // killed, which cannot remove theirs.
    let downloads = match spec.suppress.iter().any(|list| is_url(list)) {
        true => Some(download_dir().map_err(|e| {
            PipelineError::SuppressionFetch(SourceError::io("a temporary folder", e))
        })?),
        false => None,
    };
    let mut lists = Vec::with_capacity(spec.suppress.len());
    for (i, list) in spec.suppress.iter().enumerate() {
        let path = if let (true, Some(downloads)) = (is_url(list), &downloads) {
            let dir = downloads.path().join(i.to_string());
            std::fs::create_dir_all(&dir)
                .map_err(|e| PipelineError::SuppressionFetch(SourceError::io(list, e)))?;
            crate::source::fetch(list, &dir).await.map_err(PipelineError::SuppressionFetch)?
        } else {
            PathBuf::from(list)
        };
        lists.push((path, list.clone()));
    }
    for path in never_call {
        lists.push((path, NEVER_CALL_LABEL.to_string()));
    }
    let loaded = tokio::task::spawn_blocking(move || crate::guards::load_lists(&lists, &phones))
        .await
        .expect("loading suppression lists does not panic")?;
    Ok(Guards::resolve(spec, headers, &opts.location, loaded)?)
}

/// How a row suppressed by the account's own list names it.
pub const NEVER_CALL_LABEL: &str = "do-not-call list of this account";

/// The account's own do-not-call list ([`NeverCall`](crate::guards::NeverCall)), when this run has a service and a
/// state folder and the list has been started: every check, import and sync of the account
/// holds its rows to it, whichever file or front they come from.
pub async fn never_call_list(
    opts: &ImportOptions,
    client: Option<&Client>,
) -> Result<Vec<PathBuf>, PipelineError> {
    let (Some(client), Some(state_dir), false) = (client, &opts.state_dir, opts.offline) else {
        return Ok(Vec::new());
    };
    let lists = account_never_calls(client, state_dir).await?;
    Ok(lists.into_iter().filter(|l| l.exists()).map(|l| l.path().to_path_buf()).collect())
}

/// The do-not-call lists of the account `client` speaks for, one under each name its journals
/// know it by (its user, else its campaigns), never by anything made from the token. The first
/// is the one a number is added to; every one is applied, so a list started while the account
/// was named by its campaigns still holds once it has a user.
pub async fn account_never_calls(
    client: &Client,
    state_dir: &std::path::Path,
) -> Result<Vec<crate::guards::NeverCall>, PipelineError> {
    let names = client.account_names().await?;
    let service = client.service_name();
    let list =
        |account: &String| crate::guards::NeverCall::for_account(state_dir, &service, account);
    Ok(names.iter().map(list).collect())
}

async fn fetch_campaigns(client: &Client) -> Result<CampaignBook, PipelineError> {
    let list = client.list_campaigns().await.map_err(PipelineError::Campaigns)?;
    Ok(CampaignBook::new(list.into_iter().map(|c| (c.id, c.name))))
}

/// The assistant the mapping (or `--assistant`) names, checked against the plan before any
/// row is read: its notes said, a placeholder nothing fills refused. Offline, nothing is read
/// from the service, so the assistant is not checked, and a note says so. The assistant comes
/// back beside its check: the reports fill its first message in for a few rows.
async fn assistant_check(
    opts: &ImportOptions,
    mapping: &MappingFile,
    plan: &Plan,
    headers: &[String],
    client: Option<&Client>,
) -> Result<Option<(Arc<AssistantCheck>, Speaker)>, PipelineError> {
    let Some(asked) = &mapping.assistant else { return Ok(None) };
    let Some(client) = client.filter(|_| !opts.offline) else {
        let note = format!(
            "assistant `{}` not checked: --offline reads nothing from the service",
            asked.as_text()
        );
        progress::announce_notes(opts.display, &[note]);
        return Ok(None);
    };
    let speaker = fetch_assistant(client, asked).await?;
    let severity = mapping.missing_variables.unwrap_or_default();
    let (check, notes) = AssistantCheck::new(&speaker, plan, headers, severity)?;
    progress::announce_notes(opts.display, &notes);
    Ok(Some((Arc::new(check), speaker)))
}

/// The assistant `asked` names, among the account's assistants not deleted.
pub async fn fetch_assistant(
    client: &Client,
    asked: &AssistantRef,
) -> Result<Speaker, PipelineError> {
    Ok(crate::assistant::pick(speakers(client).await?, asked)?)
}

/// The account's assistants not deleted, as far as their variables and texts go.
pub async fn speakers(client: &Client) -> Result<Vec<Speaker>, PipelineError> {
    let all = client.all_assistants().await.map_err(PipelineError::Assistants)?;
    let speakers = all.into_iter().filter(|a| a.deleted_at.is_none()).map(|a| Speaker {
        id: a.id,
        name: a.name,
        variables: a.variables,
        initial_message: a.initial_message,
        system_prompt: a.system_prompt,
    });
    Ok(speakers.collect())
}

/// One campaign for every row must exist: otherwise every row would fail the same way.
fn check_fixed_campaign(plan: &Plan, campaigns: &Campaigns) -> Result<(), PipelineError> {
    if let (CampaignSource::Fixed(fixed), Campaigns::Checked(book)) = (&plan.campaign, campaigns) {
        book.resolve(&fixed.as_text())
            .map_err(|issue| PipelineError::FixedCampaign(issue.message))?;
    }
    Ok(())
}

fn worker_count(requested: usize) -> usize {
    match requested {
        0 => thread::available_parallelism().map_or(2, usize::from),
        n => n,
    }
}

/// What each checking thread is built from.
#[derive(Clone)]
struct Checkers {
    guards: Arc<Guards>,
    plan: Arc<Plan>,
    headers: Arc<[String]>,
    campaigns: Arc<Campaigns>,
    assistant: Option<Arc<AssistantCheck>>,
    keep_cells: bool,
    workers: usize,
    max_rows: Option<u64>,
    row_limit: Option<u64>,
    edits: Arc<Edits>,
}

impl Checkers {
    fn build(&self) -> Result<RowChecker, PipelineError> {
        // Each thread owns its phone parser: sharing one would serialize the hot path.
        let phones = PhoneParser::new(&self.plan.region)?;
        Ok(RowChecker::new(
            self.plan.clone(),
            self.headers.clone(),
            self.campaigns.clone(),
            phones,
            self.keep_cells,
        )
        .with_guards(self.guards.clone())
        .with_assistant(self.assistant.clone()))
    }
}

type Batch = (u64, Vec<Record>);
type CheckedBatch = (u64, Vec<Option<Checked>>);

/// Reader → checkers → in-order collector, which hands each row's verdict to `out`. Returns
/// the blank-row count and how reading ended (true: at the end of the source).
fn run_stages(
    source: Source,
    checkers: Checkers,
    out: mpsc::Sender<Vec<RowReport>>,
    allow_duplicates: bool,
    stop: &AtomicBool,
) -> Result<(u64, Result<bool, PipelineError>), PipelineError> {
    let row_checkers =
        (0..checkers.workers).map(|_| checkers.build()).collect::<Result<Vec<_>, _>>()?;
    let (batch_tx, batch_rx) = sync_channel::<Batch>(BATCHES_IN_FLIGHT);
    let batch_rx = Arc::new(std::sync::Mutex::new(batch_rx));
    let (done_tx, done_rx) = sync_channel::<CheckedBatch>(BATCHES_IN_FLIGHT);
    // Checked records go back to the reader to be freed: memory freed on the thread that
    // allocated it stays out of glibc's arena locks, which cost ~15% of a dry run's time.
    let (spent_tx, spent_rx) = std::sync::mpsc::channel::<Vec<Record>>();
    thread::scope(move |scope| {
        let limits = (checkers.max_rows.unwrap_or(u64::MAX), checkers.row_limit);
        let reader = scope.spawn(move || read_batches(source, limits, batch_tx, &spent_rx, stop));
        for checker in row_checkers {
            let (rx, tx, spent) = (batch_rx.clone(), done_tx.clone(), spent_tx.clone());
            let edits = checkers.edits.clone();
            scope.spawn(move || check_batches(&checker, &edits, &rx, &tx, &spent));
        }
        drop(spent_tx);
        // Only the threads may hold the channel ends: a stage that stops must unblock the rest.
        drop((batch_rx, done_tx));
        let blank_rows = collect_in_order(done_rx, &out, allow_duplicates);
        drop(out);
        let read = reader.join().expect("the reader thread does not panic");
        Ok((blank_rows, read))
    })
}

/// Reads every record into batches, the first `max_rows` of them, refusing a sheet past
/// `row_limit` (its estimate may have been low); true when it got to the end of the source.
fn read_batches(
    source: Source,
    (max_rows, row_limit): (u64, Option<u64>),
    tx: SyncSender<Batch>,
    spent: &Receiver<Vec<Record>>,
    stop: &AtomicBool,
) -> Result<bool, PipelineError> {
    let mut batch = Vec::with_capacity(BATCH_ROWS);
    let mut seq = 0;
    let limit = usize::try_from(max_rows).unwrap_or(usize::MAX);
    for (read, record) in source.records().take(limit).enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        if let Some(limit) = row_limit.filter(|&limit| read as u64 >= limit) {
            return Err(PipelineError::TooManyRows { limit });
        }
        batch.push(record?);
        if batch.len() == BATCH_ROWS {
            spent.try_iter().for_each(drop);
            if tx
                .send((seq, std::mem::replace(&mut batch, Vec::with_capacity(BATCH_ROWS))))
                .is_err()
            {
                return Ok(false); // the collector stopped: its error is the one to report
            }
            seq += 1;
        }
    }
    if !batch.is_empty() {
        let _ = tx.send((seq, batch));
    }
    Ok(true)
}

fn check_batches(
    checker: &RowChecker,
    edits: &Edits,
    rx: &std::sync::Mutex<Receiver<Batch>>,
    tx: &SyncSender<CheckedBatch>,
    spent: &std::sync::mpsc::Sender<Vec<Record>>,
) {
    loop {
        let next = rx.lock().map(|rx| rx.recv());
        let Ok(Ok((seq, mut records))) = next else { return };
        let checked = match edits.is_empty() {
            true => records.iter().map(|r| (!r.is_blank()).then(|| checker.check(r))).collect(),
            false => records.iter_mut().map(|r| check_edited(checker, edits, r)).collect(),
        };
        // The reader has stopped when this fails: the records are simply freed here.
        let _ = spent.send(records);
        if tx.send((seq, checked)).is_err() {
            return;
        }
    }
}

/// A row with the person's edits put in: excluded, or checked as edited.
fn check_edited(checker: &RowChecker, edits: &Edits, record: &mut Record) -> Option<Checked> {
    edits.apply(record);
    match record.is_blank() {
        true => None,
        false if edits.is_excluded(record.row) => Some(checker.excluded(record)),
        false => Some(checker.check(record)),
    }
}

/// Puts batches back in file order, dedupes, and hands each row's verdict on. Returns the
/// number of blank rows skipped.
fn collect_in_order(
    rx: Receiver<CheckedBatch>,
    out: &mpsc::Sender<Vec<RowReport>>,
    allow_duplicates: bool,
) -> u64 {
    let mut deduper = Deduper::new(allow_duplicates);
    let mut pending: BTreeMap<u64, Vec<Option<Checked>>> = BTreeMap::new();
    let mut next = 0;
    let mut blank_rows = 0;
    for (seq, batch) in rx {
        pending.insert(seq, batch);
        while let Some(batch) = pending.remove(&next) {
            next += 1;
            let before = batch.len();
            let rows: Vec<RowReport> =
                batch.into_iter().flatten().map(|checked| deduper.admit(checked)).collect();
            blank_rows += (before - rows.len()) as u64;
            // The receiver is gone only when the run stops early; its error is reported.
            if out.blocking_send(rows).is_err() {
                return blank_rows;
            }
        }
    }
    blank_rows
}

/// The current UTC time as ISO 8601, for reports.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Where a downloaded source goes: a fresh temporary directory.
pub fn download_dir() -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix("leadsync-").tempdir()
}

/// The path to read for `location`: the file itself, or a URL downloaded into a temporary
/// folder made for it, which the caller keeps while the file is read.
pub async fn local_copy(
    location: &str,
) -> Result<(PathBuf, Option<tempfile::TempDir>), PipelineError> {
    if !is_url(location) {
        return Ok((PathBuf::from(location), None));
    }
    let dir = download_dir().map_err(|e| SourceError::io("a temporary folder", e))?;
    let path = materialize(location, dir.path()).await?;
    Ok((path, Some(dir)))
}

/// The path to read for `location`, downloading a URL first.
pub async fn materialize(location: &str, dir: &Path) -> Result<PathBuf, PipelineError> {
    if is_url(location) {
        Ok(crate::source::fetch(location, dir).await?)
    } else {
        Ok(PathBuf::from(location))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_edits_is_another_run_than_the_files_and_than_other_edits() {
        let file = "f".repeat(64);
        assert_eq!(
            edited_fingerprint(file.clone(), &Edits::default()),
            file,
            "no edits: as before"
        );
        let mut one = Edits::default();
        one.exclude(5, true);
        let mut other = one.clone();
        other.set_cell(3, 2, "+4915112345678", "0151 CALL ME");
        let with_one = edited_fingerprint(file.clone(), &one);
        assert_ne!(with_one, file);
        assert_ne!(with_one, edited_fingerprint(file.clone(), &other));
        assert_eq!(
            with_one,
            edited_fingerprint(file, &one.clone()),
            "the same edits: the same run"
        );
    }
}
