//! Sandbox-only routes that play the service's side of the conversation-ended webhook, which the
//! interface describes but gives no way to trigger:
//!
//! - `POST /api/sandbox/assistants/{id}/simulate-conversation-ended` ends a made-up chat of one
//!   of the user's live assistants and answers 202 with the payload at once; a background task
//!   POSTs that payload to the webhook enabled through operation 6 (422 when none is).
//! - `GET /api/sandbox/conversations/{id}/deliveries` shows the attempts so far.
//!
//! A delivery is tried at once and, after each failure (no connection, timeout, non-2xx), again
//! after 30 s, 60 s and 120 s — the [`WebhookRetry`] schedule, which tests compress. Every
//! attempt sends the same bytes, so the receiver's dedupe sees one conversation. The payload's
//! layout is this sandbox's guess, since the interface does not show the real one: a flat object
//! with the conversation id, the assistant's UUID, transcript, variables and customer.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::AppState;
use super::auth::User;
use super::defaults::uuid_v4;
use super::error::SandboxError;
use super::reply::{ApiError, json_body};
use super::validation::{ValidationErrors, must_be};

/// Conversations whose deliveries are remembered for the status route; older ones are dropped.
const REMEMBERED: usize = 1_000;
const RECORD_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.6fZ";

/// When the sandbox tries a webhook delivery again.
#[derive(Debug, Clone, PartialEq)]
pub struct WebhookRetry {
    /// Waits before the second, third, ... attempt; the first is immediate.
    pub delays: Vec<Duration>,
    /// How long one attempt may take.
    pub timeout: Duration,
}

impl Default for WebhookRetry {
    /// The service's schedule: again after 30 s, 60 s and 120 s.
    fn default() -> Self {
        WebhookRetry {
            delays: WebhookRetry::doubling(Duration::from_secs(30)),
            timeout: Duration::from_secs(10),
        }
    }
}

impl WebhookRetry {
    /// The service's schedule scaled so the first retry waits `first` (then 2×, 4×): for tests.
    pub fn compressed(first: Duration) -> WebhookRetry {
        WebhookRetry { delays: WebhookRetry::doubling(first), ..WebhookRetry::default() }
    }

    fn doubling(first: Duration) -> Vec<Duration> {
        vec![first, first * 2, first * 4]
    }
}

/// The delivery tasks' shared state: the HTTP client, the schedule, and what happened so far.
pub(crate) struct Deliveries {
    http: reqwest::Client,
    retry: WebhookRetry,
    log: Mutex<IndexMap<String, Delivery>>,
}

#[derive(Debug, Clone, Serialize)]
struct Delivery {
    #[serde(skip)]
    user: i64,
    conversation_id: String,
    assistant_id: i64,
    /// `pending`, `delivered` or `failed` (every attempt failed).
    state: &'static str,
    attempts: Vec<Attempt>,
}

#[derive(Debug, Clone, Serialize)]
struct Attempt {
    at: String,
    ok: bool,
    /// `HTTP 200`, or why the attempt failed.
    outcome: String,
}

impl Deliveries {
    pub(crate) fn new(retry: WebhookRetry) -> Deliveries {
        // Straight to the receiver: a proxy from the environment must not carry a sandbox's
        // notifications (or the secret in their URL) elsewhere.
        let http = reqwest::Client::builder()
            .no_proxy()
            .user_agent(concat!("leadsync-sandbox/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_default();
        Deliveries { http, retry, log: Mutex::new(IndexMap::new()) }
    }

    fn begin(
        self: &Arc<Self>,
        user: i64,
        assistant_id: i64,
        conversation: &str,
        url: String,
        body: Vec<u8>,
    ) {
        let delivery = Delivery {
            user,
            conversation_id: conversation.to_string(),
            assistant_id,
            state: "pending",
            attempts: Vec::new(),
        };
        self.update(|log| {
            log.insert(conversation.to_string(), delivery);
            if log.len() > REMEMBERED {
                log.shift_remove_index(0);
            }
        });
        tokio::spawn(Arc::clone(self).deliver(conversation.to_string(), url, body));
    }

    async fn deliver(self: Arc<Self>, conversation: String, url: String, body: Vec<u8>) {
        let waits = std::iter::once(Duration::ZERO).chain(self.retry.delays.clone());
        for (number, wait) in waits.enumerate() {
            tokio::time::sleep(wait).await;
            let outcome = self.attempt(&url, &body).await;
            // Never the URL: it carries the receiver's secret.
            tracing::info!(conversation, attempt = number + 1, "webhook delivery: {outcome:?}");
            let ok = outcome.is_ok();
            self.record(&conversation, outcome, ok);
            if ok {
                return;
            }
        }
        self.update(|log| log.get_mut(&conversation).into_iter().for_each(|d| d.state = "failed"));
    }

    async fn attempt(&self, url: &str, body: &[u8]) -> Result<String, String> {
        let request = self.http.post(url).timeout(self.retry.timeout);
        let request = request.header(reqwest::header::CONTENT_TYPE, "application/json");
        let response = request.body(body.to_vec()).send().await.map_err(|e| describe(&e))?;
        let status = format!("HTTP {}", response.status().as_u16());
        if response.status().is_success() { Ok(status) } else { Err(status) }
    }

    fn record(&self, conversation: &str, outcome: Result<String, String>, ok: bool) {
        let outcome = outcome.unwrap_or_else(|e| e);
        let attempt = Attempt { at: Utc::now().format(RECORD_FORMAT).to_string(), ok, outcome };
        self.update(|log| {
            if let Some(delivery) = log.get_mut(conversation) {
                delivery.attempts.push(attempt);
                delivery.state = if ok { "delivered" } else { delivery.state };
            }
        });
    }

    fn status(&self, user: i64, conversation: &str) -> Option<Delivery> {
        let log = self.log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        log.get(conversation).filter(|d| d.user == user).cloned()
    }

    fn update(&self, change: impl FnOnce(&mut IndexMap<String, Delivery>)) {
        change(&mut self.log.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    }
}

/// reqwest's message with its causes ("error sending request: connection refused").
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// `POST /api/sandbox/assistants/{id}/simulate-conversation-ended`.
pub(crate) async fn simulate(
    State(state): State<AppState>,
    User(user): User,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let overrides = overrides(&json_body(body)?)?;
    let assistant_id: i64 = id.parse().map_err(|_| ApiError::NotFound("Assistant not found."))?;
    let target = state.store.run("finding a conversation-ended webhook", move |tx| {
        let sql = "SELECT a.uuid, w.url FROM assistants a
                   LEFT JOIN conversation_webhooks w ON w.assistant_id = a.id
                   WHERE a.user_id = ?1 AND a.id = ?2 AND a.deleted_at IS NULL";
        let row = tx.prepare_cached(sql)?.query_row(params![user, assistant_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
        });
        row.optional().map_err(SandboxError::from)
    });
    let (uuid, url) = target.await?.ok_or(ApiError::NotFound("Assistant not found."))?;
    let url = url.ok_or_else(no_webhook)?;
    let payload = conversation(&uuid, overrides, Utc::now());
    let conversation_id = payload["conversation_id"].as_str().unwrap_or_default().to_string();
    let body = serde_json::to_vec(&payload)
        .map_err(|e| SandboxError::Answer { problem: e.to_string() })?;
    state.deliveries.begin(user, assistant_id, &conversation_id, url, body);
    let message = "Conversation ended; its webhook is being notified.";
    let answer =
        json!({"message": message, "conversation_id": conversation_id, "payload": payload});
    Ok((StatusCode::ACCEPTED, Json(answer)))
}

/// `GET /api/sandbox/conversations/{id}/deliveries`.
pub(crate) async fn deliveries(
    State(state): State<AppState>,
    User(user): User,
    Path(conversation): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let delivery = state.deliveries.status(user, &conversation);
    let delivery = delivery.ok_or(ApiError::NotFound("Conversation not found."))?;
    serde_json::to_value(delivery)
        .map(Json)
        .map_err(|e| ApiError::Internal(SandboxError::Answer { problem: e.to_string() }))
}

fn no_webhook() -> ApiError {
    let mut errors = ValidationErrors::default();
    errors.add(
        "assistant_id",
        "The assistant has no conversation-ended webhook enabled; enable one with POST \
         user/assistants/enable-conversation-ended-webhook."
            .to_string(),
    );
    ApiError::Invalid(errors)
}

/// What the caller wants in the payload instead of the made-up defaults.
#[derive(Debug, Default)]
struct Overrides {
    transcript: Option<Value>,
    variables: Option<Value>,
    customer: Option<Value>,
}

fn overrides(body: &Value) -> Result<Overrides, ApiError> {
    let empty = Map::new();
    let input = body.as_object().unwrap_or(&empty);
    let mut errors = ValidationErrors::default();
    let mut take = |field: &str, ok: fn(&Value) -> bool, what: &str| {
        let value = input.get(field).filter(|v| !v.is_null())?;
        if ok(value) {
            return Some(value.clone());
        }
        errors.add(field, must_be(field, what));
        None
    };
    let overrides = Overrides {
        transcript: take("transcript", |v| v.is_array() || v.is_string(), "an array or a string"),
        variables: take("variables", Value::is_object, "an object"),
        customer: take("customer", Value::is_object, "an object"),
    };
    if errors.is_empty() { Ok(overrides) } else { Err(ApiError::Invalid(errors)) }
}

/// The notification of a two-minute chat with assistant `uuid` that ended at `ended`.
fn conversation(uuid: &str, overrides: Overrides, ended: DateTime<Utc>) -> Value {
    let started = ended - chrono::Duration::minutes(2);
    let at = |t: DateTime<Utc>| t.format(RECORD_FORMAT).to_string();
    let default_transcript = json!([
        {"role": "assistant", "content": "Hi! How can I help you today?", "timestamp": at(started)},
        {"role": "user", "content": "I'd like a demo of the Pro plan next week.",
         "timestamp": at(started + chrono::Duration::seconds(20))},
        {"role": "assistant", "content": "Booked: Tuesday at 10:00. Anything else?",
         "timestamp": at(ended - chrono::Duration::seconds(10))}
    ]);
    json!({
        "event": "conversation.ended",
        "conversation_id": uuid_v4(),
        "assistant_id": uuid,
        "channel": "web_widget",
        "started_at": at(started),
        "ended_at": at(ended),
        "transcript": overrides.transcript.unwrap_or(default_transcript),
        "variables": overrides.variables.unwrap_or_else(|| json!({"interested": "yes", "demo_slot": "Tuesday 10:00"})),
        "customer": overrides.customer.unwrap_or_else(|| json!({"name": "Erika Mustermann", "phone": "+4915112345678", "email": "erika@example.com"})),
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{Overrides, WebhookRetry, conversation, overrides};

    #[test]
    fn the_default_schedule_is_the_services() {
        let secs: Vec<u64> = WebhookRetry::default().delays.iter().map(Duration::as_secs).collect();
        assert_eq!(secs, [30, 60, 120]);
        let fast = WebhookRetry::compressed(Duration::from_millis(10)).delays;
        assert_eq!(fast, [10, 20, 40].map(Duration::from_millis));
    }

    #[test]
    fn overrides_must_have_the_right_types() {
        assert!(overrides(&json!({})).is_ok());
        assert!(overrides(&json!({"transcript": "User: hi", "variables": {"a": 1}})).is_ok());
        assert!(overrides(&json!({"transcript": 5})).is_err());
        assert!(overrides(&json!({"customer": "Erika"})).is_err());
    }

    #[test]
    fn the_payload_carries_the_assistant_uuid_and_the_overrides() {
        let custom =
            Overrides { variables: Some(json!({"budget": "10k €"})), ..Overrides::default() };
        let payload = conversation("a-uuid", custom, chrono::Utc::now());
        assert_eq!(payload["assistant_id"], "a-uuid");
        assert_eq!(payload["conversation_id"].as_str().map(str::len), Some(36));
        assert_eq!(payload["transcript"].as_array().map(Vec::len), Some(3));
        assert_eq!(payload["variables"], json!({"budget": "10k €"}));
        assert_eq!(payload["customer"]["email"], "erika@example.com");
        assert!(payload["started_at"].as_str() < payload["ended_at"].as_str());
    }
}
