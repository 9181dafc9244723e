//! Carrying out a sync's changes: each one written into the ledger before its request leaves
//! and settled there after its answer. Every change is idempotent, so one whose answer was
//! lost is sent again (up to three times here); one still in doubt then is read back from the
//! lead list, and one the list does not show done stays begun in the ledger: the next sync
//! finds its lead still differing and sends it again.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;

use super::plan::{Action, Change, Plan, Why};
use crate::client::{Client, ClientError, Lead, LeadChange, LeadStatus, Variables};
use crate::ledger::{ChangeDone, Ledger, LedgerError};

/// Sends of one change before it is left in doubt for the next run.
const TRIES: u32 = 3;
/// The outcome of a change whose lead was found gone from the service.
pub const GONE: &str = "the lead is gone";

/// What the changes came to.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Applied {
    pub updated: u64,
    pub stopped: u64,
    pub deleted: u64,
    /// Refused by the service, or still in doubt after every try (done again next time).
    pub failed: u64,
    pub entries: Vec<Entry>,
}

/// One change as the summary lists it.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The sheet row; `None` for a lead whose row is gone.
    pub row: Option<u64>,
    pub lead_id: u64,
    /// The lead's number (E.164) before the change.
    pub phone: String,
    /// `update`, `stop`, `delete`.
    pub action: &'static str,
    /// Why a lead is stopped or deleted: `removed` or the guard's code (`suppressed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// Each value sent, with the one the service held before (when it was read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<ValueChange>,
    /// `done`, or what went wrong.
    pub outcome: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ValueChange {
    /// A variable's name, or `phone_number`.
    pub field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    pub after: String,
}

/// How the changes are sent.
#[derive(Debug, Clone)]
pub struct Pace {
    /// Requests per second; 0: no limit.
    pub rate: f64,
    pub concurrency: usize,
}

/// Sends `plan`'s changes. `mapped`: the variable names the mapping fills, the only ones an
/// emptied cell empties on the lead. `stop` (Ctrl-C) leaves the changes not yet begun.
pub async fn apply(
    client: &Client,
    ledger: &mut Ledger,
    plan: &Plan,
    mapped: &[&str],
    pace: &Pace,
    stop: &AtomicBool,
) -> Result<Applied, LedgerError> {
    let mut applied = Applied::default();
    if plan.changes.is_empty() {
        return Ok(applied);
    }
    let started = std::time::Instant::now();
    let before = values_before(client, &plan.changes).await;
    tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "values before read");
    let gap = (pace.rate > 0.0).then(|| Duration::from_secs_f64(1.0 / pace.rate));
    let mut next = tokio::time::Instant::now();
    let mut doubted = Vec::new();
    for chunk in plan.changes.chunks(pace.concurrency.max(1)) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut requests = tokio::task::JoinSet::new();
        for (at, change) in chunk.iter().enumerate() {
            let (request, entry) = prepare(change, before.as_ref(), mapped);
            let Some(request) = request else {
                // The service already says what the row says: only the ledger learns it.
                ledger.change_done(change.key, &done_of(change))?;
                applied.count(change, &done_of(change), entry, "done".into());
                continue;
            };
            ledger.change_begins(change.key, request.kind(), change.lead_id)?;
            if let Some(gap) = gap {
                tokio::time::sleep_until(next).await;
                next = next.max(tokio::time::Instant::now()) + gap;
            }
            let client = client.clone();
            let lead_id = change.lead_id;
            requests.spawn(async move {
                let answer = send(&client, lead_id, &request).await;
                (at, entry, request, answer)
            });
        }
        while let Some(joined) = requests.join_next().await {
            let (at, entry, request, answer) = joined.expect("a change's request does not panic");
            let sent = Sent { change: &chunk[at], entry, request };
            doubted.extend(settle(ledger, sent, answer, &mut applied)?);
        }
    }
    read_back(client, ledger, doubted, &mut applied).await?;
    tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "changes sent");
    Ok(applied)
}

/// A request of a change.
#[derive(Debug, Clone)]
enum Request {
    Update(LeadChange),
    Delete,
}

impl Request {
    fn kind(&self) -> &'static str {
        match self {
            Request::Update(change) if change.status == Some(LeadStatus::Completed) => "stop",
            Request::Update(_) => "update",
            Request::Delete => "delete",
        }
    }
}

/// The request for `change` (none when there is nothing to send) and its summary entry.
fn prepare(
    change: &Change,
    before: Option<&HashMap<u64, Variables>>,
    mapped: &[&str],
) -> (Option<Request>, Entry) {
    let mut entry = Entry {
        row: change.row,
        lead_id: change.lead_id,
        phone: change.phone.clone(),
        action: "update",
        reason: None,
        values: Vec::new(),
        outcome: String::new(),
    };
    let request = match &change.action {
        Action::Update { phone, variables, resume, moved, .. } => {
            let held = before.and_then(|b| b.get(&change.lead_id));
            let mut request = LeadChange::default();
            for value in changed_values(variables, held, mapped, before.is_some()) {
                request.variables.insert(value.field.clone(), value.after.clone());
                entry.values.push(value);
            }
            if *phone != change.phone {
                request.phone_number = Some(phone.clone());
                let (before, after) = (Some(change.phone.clone()), phone.clone());
                entry.values.push(ValueChange { field: "phone_number".into(), before, after });
            }
            if let Some(moved) = moved {
                request.campaign_id = Some(moved.to);
                let (before, after) = (Some(moved.from.to_string()), moved.to.to_string());
                entry.values.push(ValueChange { field: "campaign_id".into(), before, after });
                // The lead's own key names its identity, which is the new campaign's now.
                let keyed = held.is_none_or(|h| h.contains_key(crate::ledger::identity::VARIABLE));
                if keyed {
                    let own = crate::ledger::identity::text(moved.key);
                    request.variables.insert(crate::ledger::identity::VARIABLE.into(), own);
                }
            }
            if *resume {
                request.status = Some(LeadStatus::Created);
                let (before, after) = (Some("completed".to_string()), "created".to_string());
                entry.values.push(ValueChange { field: "status".into(), before, after });
            }
            (request != LeadChange::default()).then_some(Request::Update(request))
        }
        Action::Stop(why) => {
            (entry.action, entry.reason) = ("stop", Some(reason(why)));
            let stop = LeadChange { status: Some(LeadStatus::Completed), ..Default::default() };
            Some(Request::Update(stop))
        }
        Action::Delete(why) => {
            (entry.action, entry.reason) = ("delete", Some(reason(why)));
            Some(Request::Delete)
        }
    };
    (request, entry)
}

/// The variables to send: each the row sets to another value than the lead holds, and each
/// mapped one the row leaves empty that the lead holds (sent as `""`: the service merges).
/// Without the lead's values (`known` false: the list could not be read), every mapped one.
fn changed_values(
    row: &[(String, String)],
    held: Option<&Variables>,
    mapped: &[&str],
    known: bool,
) -> Vec<ValueChange> {
    let held_value = |name: &str| held.and_then(|h| h.get(name)).cloned();
    let set: HashSet<&str> = row.iter().map(|(n, _)| n.as_str()).collect();
    let emptied = mapped.iter().filter(|name| !set.contains(**name)).map(|n| (*n, ""));
    let wanted = row.iter().map(|(n, v)| (n.as_str(), v.as_str())).chain(emptied);
    let mut values = Vec::new();
    for (name, after) in wanted {
        let before = held_value(name);
        let same = before.as_deref().unwrap_or_default() == after;
        if known && same {
            continue;
        }
        values.push(ValueChange { field: name.to_string(), before, after: after.to_string() });
    }
    values
}

fn reason(why: &Why) -> &'static str {
    match why {
        Why::Removed => "removed",
        Why::Refused(code) => code.as_str(),
    }
}

/// The variables the service holds for each lead to update, read from the lead list (no read
/// of one lead is documented). `None` when the list cannot be read: every mapped variable is
/// then sent.
async fn values_before(client: &Client, changes: &[Change]) -> Option<HashMap<u64, Variables>> {
    let wanted: HashSet<u64> = changes
        .iter()
        .filter(|c| matches!(c.action, Action::Update { .. }))
        .map(|c| c.lead_id)
        .collect();
    if wanted.is_empty() {
        return Some(HashMap::new());
    }
    match listed(client, &wanted).await {
        Ok(leads) => Some(leads.into_iter().map(|(id, lead)| (id, lead.variables)).collect()),
        Err(e) => {
            tracing::warn!(error = %e, "lead list not read: every mapped variable is sent");
            None
        }
    }
}

/// The leads of `wanted` on the service, by id, in one pass of the lead list (no read of one
/// lead is documented): only those stay in memory.
async fn listed(client: &Client, wanted: &HashSet<u64>) -> Result<HashMap<u64, Lead>, ClientError> {
    let mut found = HashMap::new();
    client
        .for_each_lead(|lead| {
            if wanted.contains(&lead.id) {
                found.insert(lead.id, lead);
            }
        })
        .await?;
    Ok(found)
}

/// Sends one request, again while its answer is in doubt or the service asks to wait.
async fn send(client: &Client, lead_id: u64, request: &Request) -> Result<(), ClientError> {
    let mut tries = 0;
    loop {
        tries += 1;
        let answer = match request {
            Request::Update(change) => client.update_lead(lead_id, change).await.map(drop),
            Request::Delete => client.delete_lead(lead_id).await.map(drop),
        };
        match answer {
            Err(e) if tries < TRIES && (e.maybe_applied() || e.is_retryable()) => {
                let wait = e.retry_after().unwrap_or(Duration::from_millis(200 * tries as u64));
                tokio::time::sleep(wait.min(Duration::from_secs(10))).await;
            }
            answer => return answer,
        }
    }
}

/// What the ledger keeps of `change` once done.
fn done_of(change: &Change) -> ChangeDone {
    match &change.action {
        Action::Update { digest, phone, moved: Some(moved), .. } => ChangeDone::Moved {
            key: moved.key,
            campaign_id: moved.to,
            digest: *digest,
            phone: phone.clone(),
        },
        Action::Update { digest, phone, .. } => {
            ChangeDone::Updated { digest: *digest, phone: phone.clone() }
        }
        Action::Stop(_) => ChangeDone::Stopped,
        Action::Delete(_) => ChangeDone::Deleted,
    }
}

/// Records the answer to `change`'s request in the ledger and the summary.
/// A change's request, sent.
struct Sent<'a> {
    change: &'a Change,
    entry: Entry,
    request: Request,
}

/// A change still in doubt after every send, with what was said last.
struct Doubted<'a> {
    sent: Sent<'a>,
    error: String,
}

/// Records the answer to a change's request in the ledger and the summary; a change still in
/// doubt is handed back, to be read back from the lead list.
fn settle<'a>(
    ledger: &mut Ledger,
    sent: Sent<'a>,
    answer: Result<(), ClientError>,
    applied: &mut Applied,
) -> Result<Option<Doubted<'a>>, LedgerError> {
    let Sent { change, entry, .. } = &sent;
    let (done, outcome) = match answer {
        Ok(()) => (done_of(change), "done".to_string()),
        // Gone from the service (deleted by hand, or by an earlier try of this delete): the
        // identity is free again, and a row that still names it makes a new lead next time.
        Err(ClientError::LeadNotFound { .. }) => (ChangeDone::Deleted, GONE.into()),
        Err(e) if e.maybe_applied() || e.is_retryable() => {
            return Ok(Some(Doubted { error: e.to_string(), sent }));
        }
        Err(e) => (ChangeDone::Abandoned, format!("refused: {e}")),
    };
    ledger.change_done(change.key, &done)?;
    applied.count(change, &done, entry.clone(), outcome);
    Ok(None)
}

/// Reads the changes still in doubt back from the lead list (no read of one lead is
/// documented), once for all: a change the list shows done is settled; the others stay begun
/// in the ledger, and the next sync sends them again.
async fn read_back(
    client: &Client,
    ledger: &mut Ledger,
    doubted: Vec<Doubted<'_>>,
    applied: &mut Applied,
) -> Result<(), LedgerError> {
    if doubted.is_empty() {
        return Ok(());
    }
    let wanted: HashSet<u64> = doubted.iter().map(|d| d.sent.change.lead_id).collect();
    // A list that cannot be read shows nothing done: every change stays in doubt.
    let read = listed(client, &wanted).await;
    for Doubted { sent: Sent { change, entry, request }, error } in doubted {
        let shown =
            read.as_ref().is_ok_and(|leads| shown_done(leads.get(&change.lead_id), &request));
        if !shown {
            applied.failed += 1;
            let outcome = format!("in doubt, sent again next time: {error}");
            applied.entries.push(Entry { outcome, ..entry });
            continue;
        }
        tracing::info!(lead = change.lead_id, "a change in doubt was read back from the lead list");
        let done = done_of(change);
        ledger.change_done(change.key, &done)?;
        applied.count(change, &done, entry, "done".into());
    }
    Ok(())
}

/// Whether the listed `lead` shows `request` done: a deleted lead gone, an updated one with
/// every field sent. A lead to update that the list does not hold stays in doubt: forgetting
/// it on a list that missed it would let its row make a second lead (a lead gone for sure
/// answers its update with a 404, which says so).
fn shown_done(lead: Option<&Lead>, request: &Request) -> bool {
    let (lead, change) = match (lead, request) {
        (None, Request::Delete) => return true,
        (Some(lead), Request::Update(change)) => (lead, change),
        _ => return false,
    };
    let held = |name: &str| lead.variables.get(name).map_or("", String::as_str);
    let variables = change.variables.iter().all(|(name, value)| held(name) == value);
    let phone = change.phone_number.as_ref().is_none_or(|p| *p == lead.phone_number);
    let campaign = change.campaign_id.is_none_or(|c| c == lead.campaign_id);
    let status = change.status.is_none_or(|s| status_text(s) == lead.status);
    variables && phone && campaign && status
}

/// A status as the service spells it.
fn status_text(status: LeadStatus) -> String {
    let spelt = serde_json::to_value(status).ok();
    spelt.and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

impl Applied {
    fn count(&mut self, change: &Change, done: &ChangeDone, entry: Entry, outcome: String) {
        match (done, &change.action) {
            (ChangeDone::Abandoned, _) => self.failed += 1,
            (ChangeDone::Deleted, Action::Delete(_)) => self.deleted += 1,
            // Found gone while stopping it: it is not called either way.
            (ChangeDone::Deleted, Action::Stop(_)) => self.stopped += 1,
            // Found gone while updating it: the row makes a new lead next time.
            (ChangeDone::Deleted, _) => self.failed += 1,
            (ChangeDone::Updated { .. } | ChangeDone::Moved { .. }, _) => self.updated += 1,
            (ChangeDone::Stopped, _) => self.stopped += 1,
        }
        self.entries.push(Entry { outcome, ..entry });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(pairs: &[(&str, &str)]) -> Variables {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    fn row(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn only_values_that_differ_are_sent_and_an_emptied_mapped_one_as_empty() {
        let lead = held(&[("name", "Ada"), ("city", "Köln"), ("note", "by hand"), ("x", "1")]);
        let now = row(&[("name", "Ada"), ("city", "Bonn")]);
        let sent = changed_values(&now, Some(&lead), &["name", "city", "x"], true);
        let fields: Vec<_> = sent.iter().map(|v| (v.field.as_str(), v.after.as_str())).collect();
        // `note` is no mapped variable: a value added on the service is kept.
        assert_eq!(fields, vec![("city", "Bonn"), ("x", "")]);
        assert_eq!(sent[0].before.as_deref(), Some("Köln"));
    }

    #[test]
    fn a_change_in_doubt_is_done_only_when_the_list_shows_it() {
        let change = LeadChange {
            status: Some(LeadStatus::Completed),
            variables: held(&[("name", "Ada")]),
            ..LeadChange::default()
        };
        let update = Request::Update(change);
        let mut lead = Lead { variables: held(&[("name", "Ada")]), ..Lead::default() };
        lead.status = "completed".into();
        assert!(shown_done(Some(&lead), &update));
        lead.status = "created".into();
        assert!(!shown_done(Some(&lead), &update), "the status not set yet");
        assert!(!shown_done(None, &update), "a lead the list misses stays in doubt");
        assert!(shown_done(None, &Request::Delete));
        assert!(!shown_done(Some(&lead), &Request::Delete));
    }

    #[test]
    fn without_the_leads_values_every_mapped_one_is_sent() {
        let now = row(&[("name", "Ada")]);
        let sent = changed_values(&now, None, &["name", "city"], false);
        let fields: Vec<_> = sent.iter().map(|v| (v.field.as_str(), v.after.as_str())).collect();
        assert_eq!(fields, vec![("name", "Ada"), ("city", "")]);
    }
}
