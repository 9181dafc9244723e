//! Sending leads: `concurrency` workers under one [`Throttle`], retrying what is safe to retry,
//! each outcome sent to a single collector (which alone writes the journal and the reports).
//! A request's first turn is the collector's to take: it waits for a free worker and a turn of
//! the throttle (a [`Slot`]), journals the attempt, and only then hands the job over, so the
//! worker sends it at once and the journal never lists requests still waiting for their turn.
//!
//! A request that may have reached the service (a timeout, a connection broken before the
//! answer, a 500/502/504, a success without a lead id) is *not* retried blindly: with
//! `allow_dupplicate` the service would accept a second copy. It comes back as
//! [`Sent::InDoubt`] with its commit deadline, and the collector reconciles it against the lead
//! list (see `doubt`).

mod collector;
mod doubt;
mod held_back;
pub use crate::ledger::identity as key;
mod order;
mod preview;
mod reconcile;
mod resolve;
mod throttle;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rand::Rng;
use tokio::sync::{Mutex, OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinSet;

pub use collector::{CollectError, Collector, PushSummary, SendPlan};
pub use doubt::{now_ms, window as doubt_window};
pub use preview::SkipPreview;
pub use reconcile::{LeadIndex, RowId};
pub use throttle::Throttle;

use crate::client::{Client, ClientError, NewLead};

/// How hard to push.
#[derive(Debug, Clone)]
pub struct PushConfig {
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Requests per second; 0 = unlimited.
    pub rate: f64,
    /// Retries of a 5xx or a failed connection before the row is `failed`.
    pub max_retries: u32,
    /// First retry delay; doubles each time, with jitter.
    pub backoff: Duration,
}

impl Default for PushConfig {
    fn default() -> Self {
        PushConfig {
            concurrency: 4,
            rate: 5.0,
            max_retries: 5,
            backoff: Duration::from_millis(250),
        }
    }
}

/// Longest single backoff.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// 429s tolerated for one row before it is given up (they also slow everyone down).
const MAX_RATE_LIMITED: u32 = 50;

/// One row to send.
#[derive(Debug, Clone)]
pub struct Job {
    pub row: u64,
    pub lead: NewLead,
}

/// What the service made of a job.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    Created {
        lead_id: u64,
    },
    /// The service says the number is already in the campaign.
    Duplicate {
        message: String,
    },
    /// The service's validation refused it.
    Rejected {
        message: String,
        field: Option<String>,
    },
    /// Given up; the service did not act on it.
    Failed {
        message: String,
    },
    /// The service may have written it; it cannot commit after `commit_by` (Unix ms).
    InDoubt {
        message: String,
        commit_by: u64,
    },
}

/// A fingerprint of what a row sends (number, campaign, variables, secondary contacts): the
/// journal trusts a settled row only for the content it was settled with.
pub fn content_fingerprint(lead: &NewLead) -> u64 {
    let bytes = serde_json::to_vec(lead).expect("a NewLead always serializes");
    let hash = blake3::hash(&bytes);
    u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// A request cleared to leave: a free worker, and the rate limiter's turn already taken. The
/// worker holds it until its answer is handed back.
pub type Slot = OwnedSemaphorePermit;

/// The running workers: feed `(job, slot)` into `jobs`, read `(row, Sent)` from `results`.
pub struct Workers {
    pub jobs: mpsc::UnboundedSender<(Job, Slot)>,
    pub results: mpsc::Receiver<(u64, Sent)>,
    pub pool: Pool,
}

/// The worker tasks, the pace they share, and their free places.
pub struct Pool {
    tasks: JoinSet<()>,
    pub throttle: Arc<Throttle>,
    /// One permit per worker: a job is journaled and handed out only with one.
    slots: Arc<Semaphore>,
}

impl Workers {
    pub fn start(client: &Client, config: &PushConfig) -> Workers {
        let concurrency = config.concurrency.max(1);
        // Unbounded, yet never holding more than `concurrency` jobs: each comes with a slot.
        let (jobs, jobs_rx) = mpsc::unbounded_channel::<(Job, Slot)>();
        let (results_tx, results) = mpsc::channel(concurrency * 4);
        let jobs_rx = Arc::new(Mutex::new(jobs_rx));
        let throttle = Arc::new(Throttle::new(config.rate));
        let mut tasks = JoinSet::new();
        for _ in 0..concurrency {
            let worker = Worker {
                client: client.clone(),
                config: config.clone(),
                throttle: throttle.clone(),
            };
            let (jobs, results) = (jobs_rx.clone(), results_tx.clone());
            tasks.spawn(async move { worker.run(jobs, results).await });
        }
        let slots = Arc::new(Semaphore::new(concurrency));
        Workers { jobs, results, pool: Pool { tasks, throttle, slots } }
    }
}

impl Pool {
    /// Waits for a free worker, then for the rate limiter's turn: once it returns, a request
    /// may leave at once. Cancel-safe: dropped before it returns, it holds nothing and took no
    /// turn (the limiter hands a turn out in the same poll that returns it).
    pub async fn next_slot(slots: Arc<Semaphore>, throttle: Arc<Throttle>) -> Slot {
        let Ok(slot) = slots.acquire_owned().await else {
            // The slots are never closed; should they be, no request leaves any more.
            return std::future::pending().await;
        };
        throttle.wait_turn().await;
        slot
    }

    /// The worker places, for `next_slot`.
    pub fn slots(&self) -> Arc<Semaphore> {
        self.slots.clone()
    }

    /// Another slot if a worker is free and a turn is to be had right now, without waiting.
    pub fn try_slot(&self) -> Option<Slot> {
        let slot = self.slots.clone().try_acquire_owned().ok()?;
        self.throttle.try_turn().then_some(slot)
    }

    /// Waits for every worker to stop (after the job sender is dropped).
    pub async fn join(mut self) {
        while self.tasks.join_next().await.is_some() {}
    }
}

struct Worker {
    client: Client,
    config: PushConfig,
    throttle: Arc<Throttle>,
}

impl Worker {
    async fn run(
        &self,
        jobs: Arc<Mutex<mpsc::UnboundedReceiver<(Job, Slot)>>>,
        results: mpsc::Sender<(u64, Sent)>,
    ) {
        loop {
            let next = jobs.lock().await.recv().await;
            let Some((job, slot)) = next else { return };
            let sent = self.send(&job.lead).await;
            let handed_back = results.send((job.row, sent)).await.is_ok();
            // Free only once the answer is handed back: a slot is a worker with nothing to do.
            drop(slot);
            if !handed_back {
                return;
            }
        }
    }

    /// Sends `lead`, whose first turn the collector took before it journaled the attempt;
    /// retries (after a 429, a 503, a connection never made) wait for turns of their own.
    async fn send(&self, lead: &NewLead) -> Sent {
        let (mut failures, mut limited) = (0u32, 0u32);
        let mut first = true;
        loop {
            if !std::mem::take(&mut first) {
                self.throttle.wait_turn().await;
            }
            let sent_at = SystemTime::now();
            let error = match self.client.create_lead(lead).await {
                Ok(created) => {
                    self.throttle.succeeded();
                    let lead_id = created.data.map(|l| l.id).unwrap_or_default();
                    return Sent::Created { lead_id };
                }
                Err(e) => e,
            };
            match classify(&error) {
                Verdict::Final(sent) => return sent,
                Verdict::InDoubt => {
                    let commit_by = doubt::deadline(sent_at, self.client.timeout());
                    return Sent::InDoubt { message: error.to_string(), commit_by };
                }
                Verdict::Wait(wait) if limited < MAX_RATE_LIMITED => {
                    limited += 1;
                    self.throttle.rate_limited(wait);
                }
                Verdict::Retry if failures < self.config.max_retries => {
                    failures += 1;
                    self.backoff(failures).await;
                }
                Verdict::Wait(_) | Verdict::Retry => {
                    return Sent::Failed { message: error.to_string() };
                }
            }
        }
    }

    /// Exponential backoff with full jitter, so retrying workers do not stampede together.
    async fn backoff(&self, attempt: u32) {
        let ceiling = self.config.backoff.saturating_mul(1 << attempt.min(16)).min(MAX_BACKOFF);
        let wait = ceiling.mul_f64(rand::rng().random_range(0.5..=1.0));
        self.throttle.waiting.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tokio::time::sleep(wait).await;
        self.throttle.waiting.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

enum Verdict {
    Final(Sent),
    /// May have been applied: never retried here.
    InDoubt,
    Wait(Option<Duration>),
    Retry,
}

fn classify(error: &ClientError) -> Verdict {
    match error {
        e if e.maybe_applied() => Verdict::InDoubt,
        // A 500/502/504 may come after the service saved the lead (or while it still is):
        // only a 503 reliably means "not done". Retrying blindly could double the lead.
        ClientError::Server { status, .. } if *status != 503 => Verdict::InDoubt,
        e if e.is_duplicate() => Verdict::Final(Sent::Duplicate { message: e.to_string() }),
        ClientError::RateLimited { retry_after, .. } => Verdict::Wait(*retry_after),
        e if e.is_retryable() => Verdict::Retry,
        ClientError::Validation { fields, message } => Verdict::Final(Sent::Rejected {
            message: error_text(message, fields),
            field: fields.first().map(|f| f.field.clone()),
        }),
        other => Verdict::Final(Sent::Failed { message: other.to_string() }),
    }
}

fn error_text(message: &str, fields: &[crate::client::FieldError]) -> String {
    if fields.is_empty() {
        return message.to_string();
    }
    fields
        .iter()
        .map(|f| format!("{}: {}", f.field, f.messages.join(" ")))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(status: u16) -> ClientError {
        ClientError::Server { status, path: "user/lead".into(), message: "x".into() }
    }

    #[test]
    fn only_writes_that_cannot_have_been_applied_are_retried() {
        assert!(matches!(classify(&server(503)), Verdict::Retry));
        for status in [500, 502, 504] {
            assert!(matches!(classify(&server(status)), Verdict::InDoubt), "{status}");
        }
        let timeout =
            ClientError::Timeout { path: "user/lead".into(), timeout: Duration::from_secs(1) };
        assert!(matches!(classify(&timeout), Verdict::InDoubt));
        let unconfirmed =
            ClientError::Unconfirmed { status: 201, path: "user/lead".into(), detail: "x".into() };
        assert!(matches!(classify(&unconfirmed), Verdict::InDoubt), "a 2xx without an id");
        let refused = ClientError::Connect { url: "u".into(), reason: "refused".into() };
        assert!(matches!(classify(&refused), Verdict::Retry), "never sent: safe to retry");
    }

    #[test]
    fn rate_limits_wait_and_refusals_are_final() {
        let limited = ClientError::RateLimited {
            path: "user/lead".into(),
            retry_after: Some(Duration::from_secs(2)),
        };
        assert!(
            matches!(classify(&limited), Verdict::Wait(Some(d)) if d == Duration::from_secs(2))
        );
        let taken = ClientError::Validation {
            message: "invalid".into(),
            fields: vec![crate::client::FieldError {
                field: "phone_number".into(),
                messages: vec!["The phone number has already been taken.".into()],
            }],
        };
        assert!(matches!(classify(&taken), Verdict::Final(Sent::Duplicate { .. })));
        let invalid = ClientError::Validation {
            message: "invalid".into(),
            fields: vec![crate::client::FieldError {
                field: "campaign_id".into(),
                messages: vec!["The selected campaign id is invalid.".into()],
            }],
        };
        let Verdict::Final(Sent::Rejected { field, message }) = classify(&invalid) else {
            panic!("a refusal is final")
        };
        assert_eq!(field.as_deref(), Some("campaign_id"));
        assert!(message.starts_with("campaign_id: "), "{message}");
    }

    #[test]
    fn the_content_fingerprint_changes_with_anything_a_row_sends() {
        let lead = NewLead {
            phone_number: "+4915123".into(),
            campaign_id: 10,
            variables: [("customer_name".to_string(), "A".to_string())].into_iter().collect(),
            allow_dupplicate: false,
            secondary_contacts: Vec::new(),
        };
        let base = content_fingerprint(&lead);
        assert_eq!(base, content_fingerprint(&lead.clone()));
        let mut other = lead.clone();
        other.variables.insert("customer_name".into(), "B".into());
        assert_ne!(base, content_fingerprint(&other));
        let mut other = lead.clone();
        other.campaign_id = 11;
        assert_ne!(base, content_fingerprint(&other));
        let mut other = lead;
        other.secondary_contacts.push(crate::client::NewContact {
            phone_number: "+4930".into(),
            variables: Default::default(),
        });
        assert_ne!(base, content_fingerprint(&other));
    }
}
