//! A sync's two steps before the push: the plan, made before the first request by reading
//! the sheet once more and judging every row against the ledger (so the mass-removal guard
//! refuses a run before anything is sent), and the changes, sent before the creates so each
//! row's report can say what became of its lead.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tokio::sync::mpsc;

use super::{BATCHES_IN_FLIGHT, Checkers, ImportOptions, PipelineError, PushOptions, RowReport};
use crate::client::Client;
use crate::ledger::Ledger;
use crate::progress::{self, Display};
use crate::row::{Issue, IssueCode, Said};
use crate::source::Source;
use crate::sync::Rules;
use crate::sync::apply::{Applied, Entry, GONE, Pace, apply};
use crate::sync::plan::{Plan, Planner};

/// What a sync planned and did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SyncResult {
    pub plan: Plan,
    /// `None` for a dry run's plan.
    pub applied: Option<Applied>,
}

/// The plan of a sync, with the ledger connection that will carry it out.
pub(super) struct Planned {
    ledger: Ledger,
    plan: Plan,
    mapped: Vec<&'static str>,
}

/// What a run that keeps the sheet the truth plans before its push: a sending run's plan
/// (with the ledger that carries it out), or a dry run's (`import --dry-run --update`).
pub(super) async fn before_push(
    opts: &ImportOptions,
    sending: bool,
    client: Option<&Client>,
    source: &Source,
    checkers: &Checkers,
    stop: &Arc<AtomicBool>,
) -> Result<(Option<Planned>, Option<SyncResult>), PipelineError> {
    let Some(client) = client else { return Ok((None, None)) };
    match (sending, opts.push.as_ref(), &opts.plan_sync) {
        (true, Some(push), _) if push.sync.is_some() => {
            let ledger = super::open_ledger(opts, push, source, &client.service_name())?;
            // The mapping says how, where the front left it open.
            let rules = push.sync.clone().unwrap_or_default().with_mapping(opts.mapping.as_ref());
            let again = (reopen(opts)?, checkers.clone());
            Ok((Some(plan(opts, &rules, ledger, again, stop.clone(), false).await?), None))
        }
        (false, _, Some(rules)) if !opts.offline => {
            let rules = rules.clone().with_mapping(opts.mapping.as_ref());
            let again = (reopen(opts)?, checkers.clone());
            Ok((None, dry_plan(opts, &rules, again, client, stop.clone()).await?))
        }
        _ => Ok((None, None)),
    }
}

/// Reads `source` (opened again) through the same checks as the push and judges each row;
/// `dry`: a dry run's plan, which writes nothing.
async fn plan(
    opts: &ImportOptions,
    rules: &Rules,
    ledger: Ledger,
    (source, checkers): (Source, Checkers),
    stop: Arc<AtomicBool>,
    dry: bool,
) -> Result<Planned, PipelineError> {
    let mapped = checkers.plan.variable_names();
    // Where a record under an id column may have moved from.
    let campaigns = match checkers.campaigns.as_ref() {
        crate::validate::Campaigns::Checked(book) => book.ids().collect(),
        crate::validate::Campaigns::Unchecked => Vec::new(),
    };
    let (rows_tx, mut rows_rx) = mpsc::channel::<Vec<RowReport>>(BATCHES_IN_FLIGHT);
    let allow_duplicates = opts.allow_duplicates;
    let stages = tokio::task::spawn_blocking(move || {
        super::run_stages(source, checkers, rows_tx, allow_duplicates, &stop)
    });
    let mut planner = Planner::new(ledger, rules.clone(), allow_duplicates, campaigns);
    let mut judged = Ok(());
    while let Some(batch) = rows_rx.recv().await {
        // Read to the end even after an error, so the reading threads finish.
        if judged.is_ok() {
            judged = batch.iter().try_for_each(|row| planner.row(row));
        }
    }
    let (_, read) = stages.await.expect("the row stages do not panic")?;
    judged?;
    let read_whole = matches!(read, Ok(true));
    let sources = [opts.location.clone()];
    let (ledger, plan) = planner.finish(&sources, read_whole, dry)?;
    progress::say(opts.display, &format!("plan: {}", plan.line()));
    let contacts = plan.contacts_not_updated.len();
    if contacts > 0 {
        let said = format!(
            "{contacts} rows changed a secondary number, which the service cannot update: each says so in the report"
        );
        progress::say(opts.display, &said);
    }
    if plan.in_doubt_before > 0 {
        let doubt = plan.in_doubt_before;
        progress::say(
            opts.display,
            &format!("{doubt} changes of an earlier run were in doubt: sent again"),
        );
    }
    Ok(Planned { ledger, plan, mapped })
}

/// The plan a dry run shows (`import --dry-run --update`), from the state folder's ledger; a
/// removal the guard would refuse is said, not an error.
async fn dry_plan(
    opts: &ImportOptions,
    rules: &Rules,
    (source, checkers): (Source, Checkers),
    client: &Client,
    stop: Arc<AtomicBool>,
) -> Result<Option<SyncResult>, PipelineError> {
    let Some(state_dir) = &opts.state_dir else { return Ok(None) };
    let origin = crate::ledger::RunOrigin {
        source: opts.location.clone(),
        sheet: source.sheet.clone(),
        front: "import".into(),
    };
    let ledger = Ledger::open(state_dir, &client.service_name(), origin)?;
    match plan(opts, rules, ledger, (source, checkers), stop, true).await {
        Ok(Planned { plan, .. }) => Ok(Some(SyncResult { plan, applied: None })),
        Err(PipelineError::Sync(crate::sync::plan::PlanError::MassRemoval(refused))) => {
            progress::say(opts.display, &format!("plan: {refused}"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Sends the planned changes, before the run's creates. Returns what was done, and the notes
/// each row's report carries: what became of its lead, a secondary number not updated.
pub(super) async fn carry_out(
    planned: Planned,
    client: &Client,
    push: &PushOptions,
    display: Display,
    stop: &AtomicBool,
) -> Result<(SyncResult, HashMap<u64, Vec<Issue>>), PipelineError> {
    let Planned { mut ledger, plan, mapped } = planned;
    let mut notes: HashMap<u64, Vec<Issue>> = HashMap::new();
    for &row in &plan.contacts_not_updated {
        let said = Said::SecondaryNotUpdated;
        notes.entry(row).or_default().push(Issue::said(IssueCode::SecondaryNotUpdated, None, said));
    }
    let pace = Pace { rate: push.config.rate, concurrency: push.config.concurrency };
    let applied = apply(client, &mut ledger, &plan, &mapped, &pace, stop).await?;
    if !applied.entries.is_empty() {
        progress::say(display, &applied_line(&applied));
    }
    for entry in &applied.entries {
        if let Some(row) = entry.row {
            notes.entry(row).or_default().push(note_of(entry));
        }
    }
    Ok((SyncResult { plan, applied: Some(applied) }, notes))
}

/// What a row's report says of its lead's change.
fn note_of(entry: &Entry) -> Issue {
    let stop = entry.action == "stop";
    // A lead found gone while stopping it is not called either way.
    let stopped = stop && (entry.outcome == "done" || entry.outcome == GONE);
    if stopped {
        return Issue::said(IssueCode::LeadStopped, None, Said::LeadStopped);
    }
    if entry.outcome != "done" {
        let said = Said::ChangeFailed { stop, error: entry.outcome.clone() };
        return Issue::said(IssueCode::ChangeFailed, None, said);
    }
    let values = entry.values.iter().map(|v| (v.field.clone(), v.before.clone(), v.after.clone()));
    let said = Said::LeadUpdated { values: values.collect() };
    Issue::said(IssueCode::LeadUpdated, None, said)
}

/// `changes: 3 updated, 2 stopped, 0 deleted, 1 failed`.
pub fn applied_line(applied: &Applied) -> String {
    let Applied { updated, stopped, deleted, failed, .. } = applied;
    let mut line = format!("changes: {updated} updated, {stopped} stopped, {deleted} deleted");
    if *failed > 0 {
        line.push_str(&format!(", {failed} failed (see the summary; sent again next time)"));
    }
    line
}

/// Opens the sheet again for the plan, as `prepare` opened it.
fn reopen(opts: &ImportOptions) -> Result<Source, PipelineError> {
    let mapping = super::merged_mapping(opts)?;
    let options = super::source_options(opts, mapping.as_ref())?;
    Ok(Source::open_named(&opts.path, &opts.location, &options)?)
}
