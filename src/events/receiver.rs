//! The receiver: `POST /hooks/{conversation-ended|post-call|inbound-call}?token=SECRET`.
//!
//! Each request is checked in the order that reveals least: the token first (a wrong or missing
//! one gets the same bare 404 as a path that does not exist, before the body is read), then the
//! body's size (413) and that it is JSON (400). A valid notification is answered 200 only after
//! the journal synced it, so a 200 always means "on disk"; a failed write answers 500 and the
//! service's retry brings the notification again. Bad requests never stop the receiver.
//!
//! Abuse is bounded: a request's headers must arrive within [`HEADER_TIMEOUT`] and fit in
//! [`MAX_HEADER_BYTES`], its body within [`BODY_TIMEOUT`], and at most [`MAX_CONNECTIONS`]
//! connections are served at once (the rest wait in the kernel's backlog), so slow or huge
//! senders can hold neither a worker nor memory for long: the accept loop `crate::serve`
//! shares with `leadsync ui` holds these limits.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::error::EventsError;
use super::journal::{Appended, Journal, JournalClosed};
use super::secret::Secret;
use super::{Kind, dedupe_key};
use crate::serve::Limits;

/// Larger bodies are refused with 413: a transcript is text, a megabyte is a very long chat.
pub const DEFAULT_MAX_BODY: usize = 1024 * 1024;
/// How long a stop waits for requests in flight and for the journal to close.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);
/// A request's headers must arrive within this.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive within this (a megabyte at a slow 200 KB/s).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(5);
/// The most header bytes a request may send (hyper's read buffer; larger headers are refused).
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 512;

/// How to start a receiver.
#[derive(Debug, Clone)]
pub struct ReceiverConfig {
    /// Address to listen on; port 0 picks a free one.
    pub bind: SocketAddr,
    /// The journal file (see [`super::journal_path`]).
    pub journal: PathBuf,
    pub secret: Secret,
    /// Largest accepted body, in bytes.
    pub max_body: usize,
}

/// A running receiver. Dropping it stops the server without waiting.
pub struct Receiver {
    pub addr: SocketAddr,
    /// `http://ADDR/hooks`: append `/conversation-ended?token=SECRET` for the service.
    pub base_url: String,
    pub journal: PathBuf,
    /// Notifications the journal already held at start.
    pub already_stored: usize,
    stop: oneshot::Sender<()>,
    server: JoinHandle<()>,
    closed: JournalClosed,
}

struct Shared {
    journal: Journal,
    secret: Secret,
    max_body: usize,
}

impl Receiver {
    /// Opens the journal (rebuilding its dedupe keys) and starts serving on `config.bind`.
    pub async fn start(config: ReceiverConfig) -> Result<Receiver, EventsError> {
        let path = config.journal.clone();
        let (journal, closed) =
            tokio::task::spawn_blocking(move || Journal::open(&path))
                .await
                .map_err(|e| EventsError::Spawn(std::io::Error::other(e.to_string())))??;
        let bind_error = |cause| EventsError::Bind { addr: config.bind, cause };
        let listener = TcpListener::bind(config.bind).await.map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        let already_stored = journal.already_stored();
        let shared = Arc::new(Shared { journal, secret: config.secret, max_body: config.max_body });
        let (stop, stopping) = oneshot::channel::<()>();
        let server = tokio::spawn(accept_loop(listener, router(shared), stopping));
        let base_url = format!("http://{addr}/hooks");
        tracing::info!("receiver listening on {base_url}");
        let journal = config.journal;
        Ok(Receiver { addr, base_url, journal, already_stored, stop, server, closed })
    }

    /// Stops accepting, lets requests in flight finish, and waits until the journal is closed
    /// (and unlocked), so it can be opened again at once.
    pub async fn shutdown(self) {
        let _ = self.stop.send(());
        if tokio::time::timeout(DRAIN_LIMIT, self.server).await.is_err() {
            tracing::warn!("the receiver stopped with requests still in flight");
        }
        self.closed.wait(DRAIN_LIMIT).await;
    }

    /// Serves until Ctrl-C (or SIGTERM on Unix), then shuts down gracefully.
    pub async fn wait(self) {
        stop_requested().await;
        tracing::info!("receiver stopping");
        self.shutdown().await;
    }
}

async fn stop_requested() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Serves through the shared accept loop (`crate::serve`) under the receiver's limits, until
/// `stopping` fires (or its sender is dropped).
async fn accept_loop(listener: TcpListener, router: Router, stopping: oneshot::Receiver<()>) {
    let limits = Limits {
        header_timeout: HEADER_TIMEOUT,
        body_idle: BODY_TIMEOUT,
        max_header_bytes: MAX_HEADER_BYTES,
        max_connections: MAX_CONNECTIONS,
        drain: DRAIN_LIMIT,
    };
    let stopping = async move {
        let _ = stopping.await;
    };
    crate::serve::accept_loop("receiver", listener, router, limits, stopping).await;
}

/// The body limit is applied where the body is read (`read_body`), with its timeout.
fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/hooks/{kind}", post(receive))
        .fallback(not_found)
        .method_not_allowed_fallback(not_found)
        .with_state(shared)
}

/// Proof that the request carried the secret. Extracted before the body, so an unauthorised
/// request costs no read of its body.
struct Authorized;

impl FromRequestParts<Arc<Shared>> for Authorized {
    type Rejection = StatusCode;

    async fn from_request_parts(
        parts: &mut Parts,
        shared: &Arc<Shared>,
    ) -> Result<Self, StatusCode> {
        let query = parts.uri.query().unwrap_or_default();
        let token = url::form_urlencoded::parse(query.as_bytes()).find(|(name, _)| name == "token");
        match token {
            Some((_, token)) if shared.secret.matches(&token) => Ok(Authorized),
            _ => Err(StatusCode::NOT_FOUND),
        }
    }
}

async fn receive(
    State(shared): State<Arc<Shared>>,
    Path(segment): Path<String>,
    _: Authorized,
    body: Body,
) -> Response {
    let Some(kind) = Kind::from_segment(&segment) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let body = match read_body(body, shared.max_body).await {
        Ok(body) => body,
        Err((status, problem)) => return refuse(status, &problem),
    };
    let payload: Value = match serde_json::from_slice(&body) {
        Ok(payload) => payload,
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("the body is not JSON: {e}")),
    };
    // serde_json accepted the bytes, so they are UTF-8.
    let text = String::from_utf8_lossy(&body);
    let key = dedupe_key(kind, &payload);
    match shared.journal.append(kind, key.clone(), received_now(), &text).await {
        Ok(outcome) => stored(kind, &key, outcome),
        Err(error) => {
            tracing::error!("{error}");
            refuse(StatusCode::INTERNAL_SERVER_ERROR, "the notification could not be stored")
        }
    }
}

/// The whole body, if it arrives within [`BODY_TIMEOUT`] and fits in `limit` bytes.
async fn read_body(body: Body, limit: usize) -> Result<Bytes, (StatusCode, String)> {
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(error)) if is_too_large(&error) => {
            Err((StatusCode::PAYLOAD_TOO_LARGE, format!("the body is over {limit} bytes")))
        }
        Ok(Err(error)) => {
            Err((StatusCode::BAD_REQUEST, format!("the body could not be read: {error}")))
        }
        Err(_) => Err((
            StatusCode::REQUEST_TIMEOUT,
            format!("the body did not arrive within {}s", BODY_TIMEOUT.as_secs()),
        )),
    }
}

fn is_too_large(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if cause.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = cause.source();
    }
    false
}

fn stored(kind: Kind, key: &str, outcome: Appended) -> Response {
    let status = match outcome {
        Appended::Stored => "stored",
        Appended::Duplicate => "duplicate",
    };
    tracing::info!(kind = kind.as_str(), key, "{status}");
    (StatusCode::OK, axum::Json(json!({ "status": status }))).into_response()
}

fn refuse(status: StatusCode, problem: &str) -> Response {
    tracing::info!("refused a notification ({status}): {problem}");
    (status, axum::Json(json!({ "error": problem }))).into_response()
}

async fn not_found() -> StatusCode {
    StatusCode::NOT_FOUND
}

/// RFC 3339 in UTC with milliseconds: sorts as text, reads in Excel.
fn received_now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}
