//! Fault injection, a middleware over every route: in order, a per-token rate limit (429), then
//! injected failures (500/503, before the handler does anything), then the handler, then dropped
//! connections (after the handler did everything), with latency added to every answer.
//!
//! Decisions come from one seedable RNG. Each request draws the same number of values in the
//! same order whatever happens to it, so with a fault seed a given arrival order of requests
//! always meets the same faults.

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use tokio::sync::Notify;

use super::Faults;
use super::error::SandboxError;

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
    rng: Mutex<StdRng>,
    limiter: Option<DefaultKeyedRateLimiter<String>>,
}

/// What will happen to one request, drawn before it runs.
struct Plan {
    fail: Option<StatusCode>,
    drop: bool,
}

impl FaultState {
    pub(crate) fn new(faults: &Faults) -> Result<FaultState, SandboxError> {
        check_rate("fail_rate", faults.fail_rate)?;
        check_rate("drop_rate", faults.drop_rate)?;
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
            Some(seed) => StdRng::seed_from_u64(seed),
            None => StdRng::from_os_rng(),
        };
        Ok(FaultState { faults: faults.clone(), rng: Mutex::new(rng), limiter })
    }

    /// Whether no fault can ever fire, so the middleware can be left out of the router.
    pub(crate) fn is_inert(&self) -> bool {
        let f = &self.faults;
        f.fail_rate == 0.0 && f.drop_rate == 0.0 && f.rate_limit.is_none() && f.latency.is_zero()
    }

    fn plan(&self) -> Plan {
        let mut rng = self.rng.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (fail, unavailable, drop): (f64, bool, f64) =
            (rng.random(), rng.random(), rng.random());
        let status = if unavailable {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::INTERNAL_SERVER_ERROR
        };
        Plan {
            fail: (fail < self.faults.fail_rate).then_some(status),
            drop: drop < self.faults.drop_rate,
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

/// The middleware. Rate limits are per token (the raw Authorization header), checked before
/// authentication as a gateway would.
pub(crate) async fn inject(
    State(state): State<Arc<FaultState>>,
    request: Request,
    next: Next,
) -> Response {
    let plan = state.plan();
    let key = request.headers().get(header::AUTHORIZATION);
    let key = key.and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
    let response = if let Some(seconds) = state.retry_after(&key) {
        too_many_attempts(seconds)
    } else if let Some(status) = plan.fail {
        server_error(status)
    } else {
        let kill = request.extensions().get::<DropConnection>().cloned();
        let response = next.run(request).await;
        if plan.drop {
            drop_after_work(&state.faults, kill).await;
        }
        response
    };
    tokio::time::sleep(state.faults.latency).await;
    response
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

fn too_many_attempts(seconds: u64) -> Response {
    let body = json!({"message": "Too Many Attempts.", "retry_after": seconds});
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    headers.insert(FAULT_HEADER, HeaderValue::from_static("rate-limit"));
    response
}

fn server_error(status: StatusCode) -> Response {
    let message = match status {
        StatusCode::SERVICE_UNAVAILABLE => "Service Unavailable",
        _ => "Server Error",
    };
    let mut response = (status, Json(json!({ "message": message }))).into_response();
    let headers = response.headers_mut();
    headers.insert(FAULT_HEADER, HeaderValue::from_static("fail"));
    response
}
