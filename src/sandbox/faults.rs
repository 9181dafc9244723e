//! Fault injection, a middleware over every route. In order: a per-token rate limit (429), then
//! injected failures (500/503, before the handler does anything), then the handler, then the
//! faults that strike after the work is done: a dropped connection, or (writes only: POST, PUT,
//! PATCH and DELETE) a 500 in place of the answer, or the answer held back. Latency is added to
//! every answer.
//!
//! | fault | requests | the handler | the client sees |
//! |---|---|---|---|
//! | `fail_rate` | all | does not run | 500 or 503 |
//! | `drop_rate` | all | runs, commits | the connection closed, no answer |
//! | `commit_fail_rate` | writes | runs, commits | 500 |
//! | `stall_rate` | writes | runs, commits | the answer `stall` later (or its own timeout) |
//! | `slow_commit_rate` | writes | runs `stall` later, commits even if the client left | the answer `stall` later (or its own timeout) |
//! | `garble_rate` | writes | runs, commits | 200 with an HTML page instead of the record |
//! | `echo_auth` | one route | does not run | its status, the request's `Authorization` repeated |
//!
//! The last four are the "write in doubt" cases, so they strike writes only: a GET commits
//! nothing, and failing or stalling reads would only slow down the checks that a client makes
//! to resolve its doubts. They combine: a write may commit slowly, then be answered 500, late.
//! A slow commit runs its handler in a task of its own because hyper drops a request's future
//! when the client disconnects; the task survives that, as a real server's worker would.
//!
//! Decisions come from seedable RNGs. Each request draws the same number of values in the same
//! order whatever happens to it (reads too, though they ignore the write faults), so with a fault
//! seed a given arrival order of requests always meets the same faults. The write faults draw
//! from a second stream derived from the same seed, so a seed chosen before they existed still
//! meets the same 5xx and dropped connections as it did.

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::sync::Notify;

use super::error::SandboxError;
use super::reply::ApiError;
use super::{EchoAuth, Faults};

/// Header marking answers the sandbox made up, so a test or a human can tell them apart.
const FAULT_HEADER: &str = "x-sandbox-fault";

/// Per-connection switch, put in each request's extensions by the server: firing it makes the
/// connection task drop the connection, closing the socket with nothing written.
#[derive(Clone, Default)]
pub(crate) struct DropConnection(Arc<Notify>);

impl DropConnection {
    pub(crate) fn fire(&self) {
        self.0.notify_one();
    }

    pub(crate) async fn fired(&self) {
        self.0.notified().await;
    }
}

pub(crate) struct FaultState {
    faults: Faults,
    rng: Mutex<Streams>,
    limiter: Option<DefaultKeyedRateLimiter<String>>,
}

/// The two RNG streams: one for the faults of every request, one for the write faults.
struct Streams {
    any: StdRng,
    writes: StdRng,
}

/// What will happen to one request, drawn before it runs.
struct Plan {
    fail: Option<StatusCode>,
    drop: bool,
    commit_fail: bool,
    stall: bool,
    slow_commit: bool,
    garble: bool,
}

/// Mixed into the fault seed for the write-fault stream, so the two streams differ.
const WRITE_STREAM: u64 = 0x9E37_79B9_7F4A_7C15;
/// The longest stall accepted: longer than any sensible client timeout, short of a hang.
const MAX_STALL: Duration = Duration::from_secs(600);
/// What a slow commit buffers of a body before it waits; axum's own default body limit.
const BODY_LIMIT: usize = 2 * 1024 * 1024;

impl FaultState {
    pub(crate) fn new(faults: &Faults) -> Result<FaultState, SandboxError> {
        check_rate("fail_rate", faults.fail_rate)?;
        check_rate("drop_rate", faults.drop_rate)?;
        check_rate("commit_fail_rate", faults.commit_fail_rate)?;
        check_rate("stall_rate", faults.stall_rate)?;
        check_rate("slow_commit_rate", faults.slow_commit_rate)?;
        check_rate("garble_rate", faults.garble_rate)?;
        check_stall(faults)?;
        let limiter = match faults.rate_limit {
            None => None,
            Some(n) => Some(RateLimiter::keyed(Quota::per_second(NonZeroU32::new(n).ok_or(
                SandboxError::InvalidFaults {
                    setting: "rate_limit",
                    problem: "must be at least 1 request per second".into(),
                },
            )?))),
        };
        let rng = match faults.seed {
            Some(seed) => Streams {
                any: StdRng::seed_from_u64(seed),
                writes: StdRng::seed_from_u64(seed ^ WRITE_STREAM),
            },
            None => Streams { any: StdRng::from_os_rng(), writes: StdRng::from_os_rng() },
        };
        Ok(FaultState { faults: faults.clone(), rng: Mutex::new(rng), limiter })
    }

    /// Whether no fault can ever fire, so the middleware can be left out of the router.
    pub(crate) fn is_inert(&self) -> bool {
        let f = &self.faults;
        let rates = [
            f.fail_rate,
            f.drop_rate,
            f.commit_fail_rate,
            f.stall_rate,
            f.slow_commit_rate,
            f.garble_rate,
        ];
        rates.iter().all(|rate| *rate == 0.0)
            && f.rate_limit.is_none()
            && f.latency.is_zero()
            && f.echo_auth.is_none()
    }

    /// Draws seven values whatever the request, and keeps the write faults for writes.
    fn plan(&self, write: bool) -> Plan {
        let mut rng = self.rng.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let Streams { any, writes } = &mut *rng;
        let (fail, unavailable, drop): (f64, bool, f64) =
            (any.random(), any.random(), any.random());
        let (commit_fail, stall, slow_commit, garble): (f64, f64, f64, f64) =
            (writes.random(), writes.random(), writes.random(), writes.random());
        let status = if unavailable {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::INTERNAL_SERVER_ERROR
        };
        let f = &self.faults;
        Plan {
            fail: (fail < f.fail_rate).then_some(status),
            drop: drop < f.drop_rate,
            commit_fail: write && commit_fail < f.commit_fail_rate,
            stall: write && stall < f.stall_rate,
            slow_commit: write && slow_commit < f.slow_commit_rate,
            garble: write && garble < f.garble_rate,
        }
    }

    /// Seconds until `key` may send again, if it is over its rate.
    fn retry_after(&self, key: &str) -> Option<u64> {
        let limiter = self.limiter.as_ref()?;
        let denied = limiter.check_key(&key.to_string()).err()?;
        let wait = denied.wait_time_from(limiter.clock().now());
        Some(wait.as_secs_f64().ceil().max(1.0) as u64)
    }
}

fn check_rate(setting: &'static str, rate: f64) -> Result<(), SandboxError> {
    if (0.0..=1.0).contains(&rate) {
        return Ok(());
    }
    Err(SandboxError::InvalidFaults {
        setting,
        problem: format!("must be a fraction between 0 and 1, got {rate}"),
    })
}

/// A stall rate with no stall would be a fault that never shows, surely not what was meant.
fn check_stall(faults: &Faults) -> Result<(), SandboxError> {
    let stalling = faults.stall_rate > 0.0 || faults.slow_commit_rate > 0.0;
    let problem = if faults.stall > MAX_STALL {
        format!("must be at most {} s, got {} ms", MAX_STALL.as_secs(), faults.stall.as_millis())
    } else if stalling && faults.stall.is_zero() {
        "must be more than 0 ms when stall_rate or slow_commit_rate is above 0 (`--stall-ms`)"
            .into()
    } else {
        return Ok(());
    };
    Err(SandboxError::InvalidFaults { setting: "stall", problem })
}

/// The middleware. Rate limits are per token (the raw Authorization header), checked before
/// authentication as a gateway would.
pub(crate) async fn inject(
    State(state): State<Arc<FaultState>>,
    request: Request,
    next: Next,
) -> Response {
    let plan = state.plan(is_write(request.method()));
    let key = request.headers().get(header::AUTHORIZATION);
    let key = key.and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    let echo = state.faults.echo_auth.as_ref().filter(|e| request.uri().path().ends_with(&e.path));
    let response = if let Some(echo) = echo {
        echo_auth(echo, &key)
    } else if let Some(seconds) = state.retry_after(&key) {
        too_many_attempts(seconds)
    } else if let Some(status) = plan.fail {
        server_error(status, "fail")
    } else {
        perform(&state.faults, &plan, request, next).await
    };
    tokio::time::sleep(state.faults.latency).await;
    response
}

/// Whether a request may change what the service stores: creates, updates and deletes alike
/// can be applied and their answer lost, so the write faults strike them all.
fn is_write(method: &Method) -> bool {
    matches!(*method, Method::POST | Method::PUT | Method::PATCH | Method::DELETE)
}

/// Runs the handler, then applies the faults that strike after the work is done.
async fn perform(faults: &Faults, plan: &Plan, request: Request, next: Next) -> Response {
    let kill = request.extensions().get::<DropConnection>().cloned();
    let mut response = if plan.slow_commit {
        let mut response = commit_later(request, next, faults.stall).await;
        mark(&mut response, "slow-commit");
        response
    } else {
        next.run(request).await
    };
    if plan.drop {
        drop_after_work(faults, kill).await;
    }
    if plan.commit_fail {
        response = server_error(StatusCode::INTERNAL_SERVER_ERROR, "commit-fail");
    } else if plan.garble && response.status().is_success() {
        response = garbled();
    }
    if plan.stall {
        tokio::time::sleep(faults.stall).await;
        mark(&mut response, "stall");
    }
    response
}

/// A success that does not carry the record: what a proxy's error page or a misconfigured
/// endpoint could send after the work was done.
fn garbled() -> Response {
    let page = "<html><body>OK</body></html>";
    let mut response =
        (StatusCode::OK, [(header::CONTENT_TYPE, "text/html")], page).into_response();
    mark(&mut response, "garble");
    response
}

/// An answer that repeats the request's credentials: in the message, in a field error, and
/// the bare token (after `Bearer `) elsewhere, as JSON; or for 200 an HTML page.
fn echo_auth(echo: &EchoAuth, authorization: &str) -> Response {
    let status = StatusCode::from_u16(echo.status).unwrap_or(StatusCode::BAD_REQUEST);
    let token = authorization.strip_prefix("Bearer ").unwrap_or(authorization);
    let mut response = if status == StatusCode::OK {
        let page = format!(
            "<html><body><p>Your request had Authorization: {authorization}</p>\
             <p>key={token}</p></body></html>"
        );
        (status, [(header::CONTENT_TYPE, "text/html")], page).into_response()
    } else {
        let body = json!({
            "message": format!("your request had Authorization: {authorization} (token {token})"),
            "errors": {"phone_number": [format!("not for {token}")]},
        });
        (status, Json(body)).into_response()
    };
    mark(&mut response, "echo-auth");
    response
}

/// Waits `stall`, then runs the handler, in a task of its own: when the client gives up first,
/// hyper drops this future, and the task carries on and commits. The body is read before the
/// wait, while the client is still there to send it.
async fn commit_later(request: Request, next: Next, stall: Duration) -> Response {
    let task = tokio::spawn(async move {
        let request = match buffered(request).await {
            Ok(request) => request,
            Err(refused) => return refused.into_response(),
        };
        tokio::time::sleep(stall).await;
        next.run(request).await
    });
    match task.await {
        Ok(response) => response,
        Err(error) => {
            tracing::error!("a slow-commit handler task failed: {error}");
            server_error(StatusCode::INTERNAL_SERVER_ERROR, "slow-commit")
        }
    }
}

/// The request with its body read into memory, or the answer the handler would have given to
/// a body it could not read.
async fn buffered(request: Request) -> Result<Request, ApiError> {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, BODY_LIMIT).await.map_err(|error| {
        let error = error.into_inner();
        let status = match error.downcast_ref::<http_body_util::LengthLimitError>() {
            Some(_) => StatusCode::PAYLOAD_TOO_LARGE,
            None => StatusCode::BAD_REQUEST,
        };
        ApiError::UnreadableBody { status, problem: format!("Failed to read the body: {error}") }
    })?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// Closes the connection without an answer and never returns, so hyper never writes the
/// response. Without a connection switch (the router driven directly, as in `oneshot` tests)
/// there is nothing to close, and the answer goes out.
async fn drop_after_work(faults: &Faults, kill: Option<DropConnection>) {
    let Some(kill) = kill else {
        tracing::warn!("drop fault drawn, but the request has no connection to drop");
        return;
    };
    tokio::time::sleep(faults.latency).await;
    kill.fire();
    std::future::pending::<()>().await;
}

/// Tags an answer the sandbox tampered with, so a test or a human can tell.
fn mark(response: &mut Response, fault: &'static str) {
    response.headers_mut().insert(FAULT_HEADER, HeaderValue::from_static(fault));
}

fn too_many_attempts(seconds: u64) -> Response {
    let body = json!({"message": "Too Many Attempts.", "retry_after": seconds});
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    mark(&mut response, "rate-limit");
    response
}

fn server_error(status: StatusCode, fault: &'static str) -> Response {
    let message = match status {
        StatusCode::SERVICE_UNAVAILABLE => "Service Unavailable",
        _ => "Server Error",
    };
    let mut response = (status, Json(json!({ "message": message }))).into_response();
    mark(&mut response, fault);
    response
}
