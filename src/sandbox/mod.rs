//! The sandbox: a local reference implementation of the calling service (see
//! `docs/service-api.md`), for tests, demos and `--sandbox` runs. It is real software over real
//! HTTP: axum routes, a SQLite store, tenant isolation, Laravel-shaped answers (lists in any of
//! three shapes), the update and delete of a lead the service documents beyond the interface
//! (under either path form), and fault injection (rate limits, 5xx, dropped connections, writes that commit
//! and then fail or stall, latency) to exercise a client's retries.
//!
//! ```text
//!  Sandbox::start ─► server (accept loop, drop switch) ─► app(): faults ─► routes ─► store
//!                                                                 auth, requests,    (SQLite
//!                                                                 page, shape,        thread)
//!                                                                 reply
//! ```
//!
//! It depends on none of the import pipeline's stages, and its wire types are its own reading
//! of the spec, independent of the client's.

mod auth;
mod defaults;
mod demo;
mod error;
mod faults;
mod page;
mod reply;
mod requests;
mod routes;
mod seed;
mod server;
mod shape;
mod simulate;
mod store;
mod time;
mod validation;
mod wire;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;

pub use demo::OTHER_TOKEN;
pub use error::SandboxError;
pub use routes::LeadPaths;
pub use seed::Seed;
pub use server::Sandbox;
pub use shape::ListShape;
pub use simulate::WebhookRetry;

use faults::FaultState;
use store::{Store, StoreClosed};

/// The token of the demo user (id 1) in the built-in demo data.
pub const DEMO_TOKEN: &str = "sandbox-demo-token";

/// Faults to inject; the default injects none.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// Fraction (0–1) of requests answered 500 or 503 before anything is done.
    pub fail_rate: f64,
    /// Fraction (0–1) of requests fully performed, then answered by closing the connection.
    pub drop_rate: f64,
    /// Fraction (0–1) of writes (POST, PUT, DELETE) performed and committed, then answered 500 anyway.
    pub commit_fail_rate: f64,
    /// Fraction (0–1) of writes performed and committed whose answer is then held back for
    /// `stall`: a client with a shorter timeout gives up on a lead that is already stored.
    pub stall_rate: f64,
    /// Fraction (0–1) of writes held for `stall` before the handler runs; the handler still runs
    /// and commits if the client has given up and closed the connection meanwhile.
    pub slow_commit_rate: f64,
    /// Fraction (0–1) of writes performed and committed, then answered 200 with a body that is
    /// not the record (an HTML page): a success that does not say what it created.
    pub garble_rate: f64,
    /// How long `stall_rate` and `slow_commit_rate` hold a write; must be set when either is.
    pub stall: Duration,
    /// Requests per second allowed per token; the rest get 429 with `Retry-After`.
    pub rate_limit: Option<u32>,
    /// Delay added to every answer.
    pub latency: Duration,
    /// Seed of the fault RNG, for reproducible runs; random when `None`.
    pub seed: Option<u64>,
    /// Answer every request to one route with a body that repeats the request's
    /// `Authorization` header, as a careless service or proxy does in its error pages.
    pub echo_auth: Option<EchoAuth>,
}

/// The route and status of the `echo_auth` fault.
#[derive(Debug, Clone)]
pub struct EchoAuth {
    /// Requests whose path ends with this (`/api/user/lead`) get the echo.
    pub path: String,
    /// The status of the echo: an error's, or 200 for an HTML page in place of the record.
    pub status: u16,
}

/// How to start a sandbox.
#[derive(Debug, Clone, Default)]
pub struct SandboxConfig {
    /// SQLite file to keep state in across restarts; `None` keeps it in memory.
    pub db: Option<PathBuf>,
    /// Users, campaigns and assistants to upsert at start; `None` loads the built-in demo data
    /// when the database has no users yet.
    pub seed: Option<Seed>,
    pub faults: Faults,
    /// When simulated conversation-ended notifications are tried again (default: the
    /// service's 30 s, 60 s, 120 s).
    pub webhook_retry: WebhookRetry,
    /// How the lists of campaigns, leads and outbound assistants are answered (default: bare
    /// arrays, as the spec shows).
    pub list_shape: ListShape,
    /// Under which paths a lead is updated and deleted (default: both forms the service's
    /// documentation names).
    pub lead_paths: LeadPaths,
}

/// Everything the handlers share: the store, the token table, the fault state, and the
/// simulated webhook deliveries.
#[derive(Clone)]
pub struct AppState {
    store: Store,
    tokens: Arc<HashMap<String, i64>>,
    faults: Arc<FaultState>,
    deliveries: Arc<simulate::Deliveries>,
    list_shape: ListShape,
    lead_paths: LeadPaths,
}

impl AppState {
    /// Opens the database and loads the seed, as [`Sandbox::start`] does, for driving [`app`]
    /// without a socket (tower's `oneshot`, as in axum's testing example).
    pub async fn open(config: SandboxConfig) -> Result<AppState, SandboxError> {
        Ok(AppState::open_parts(config).await?.0)
    }

    pub(crate) async fn open_parts(
        config: SandboxConfig,
    ) -> Result<(AppState, StoreClosed), SandboxError> {
        let faults = Arc::new(FaultState::new(&config.faults)?);
        let (store, closed) = Store::open(config.db).await?;
        match config.seed {
            Some(seed) => store.apply_seed(seed).await?,
            None if !store.has_users().await? => store.apply_seed(Seed::demo()).await?,
            None => {}
        }
        let tokens = Arc::new(store.tokens().await?);
        let deliveries = Arc::new(simulate::Deliveries::new(config.webhook_retry));
        let (list_shape, lead_paths) = (config.list_shape, config.lead_paths);
        let state = AppState { store, tokens, faults, deliveries, list_shape, lead_paths };
        Ok((state, closed))
    }
}

/// The service as a router: every route under `/api`, behind the fault middleware.
pub fn app(state: AppState) -> Router {
    let faults = Arc::clone(&state.faults);
    let router = routes::router(state);
    if faults.is_inert() {
        return router;
    }
    router.layer(axum::middleware::from_fn_with_state(faults, faults::inject))
}
