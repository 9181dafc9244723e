//! `leadsync ui`: the import as a guided flow in the browser, a second front of the library
//! next to the command line. It reads, infers and checks nothing itself: every step calls the
//! same library functions the CLI calls, and renders what they return as HTML.
//!
//! ```text
//!  Ui::start ─► serve::accept_loop ─► headers (CSP, nosniff, …) ─► guard (Host, Origin, secret)
//!                                 ─► lang ─► steps: source ─► reading ─► mapping ─► check ─► send
//!                                                     │ upload (streamed        edit: a row's cells,
//!                                                       to <state>/ui/uploads)  exclusions, reasons
//! ```
//!
//! Pages are rendered by the server; the one stylesheet and the one small script are compiled
//! into the binary, and the Content-Security-Policy forbids loading anything else. The service's
//! token stays in the [`Client`]: no page and no answer carries it.
//!
//! Adding a step: a file in `steps/` whose handlers call the library and render with
//! `page::page` from maud's `html!` (every `(value)` is escaped by its type; raw HTML only
//! through an explicit `PreEscaped`, with a comment saying why), its route in `router()` (behind the same
//! layers, nothing to add for security), its words in both languages of `text.rs`, and its
//! tests in `tests/integration/ui/steps.rs`. A step that changes state takes a POST form: the
//! browser sends this server's `Origin` with it, and the guard refuses any other.

mod assets;
mod download;
mod error;
mod guard;
mod headers;
mod lang;
mod mappings;
mod page;
mod runs;
mod sources;
mod steps;
mod text;
mod upload;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::client::Client;
use crate::serve::Limits;
use crate::source::MAX_DOWNLOAD_BYTES;

pub use error::UiError;
pub use headers::CONTENT_SECURITY_POLICY_VALUE;

use crate::push::PushConfig;
use guard::{Guard, SECRET_PARAM, Secret};
use mappings::SavedMappings;
use runs::Runs;
use sources::Sources;

/// How long a stop waits for requests in flight.
const DRAIN_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);
/// The longest an upload may fall silent: a slow link stalls for seconds, not half a minute.
const BODY_IDLE: std::time::Duration = std::time::Duration::from_secs(30);

/// How to start the UI.
#[derive(Debug, Clone)]
pub struct UiConfig {
    /// The address to listen on: loopback unless the user asked otherwise.
    pub ip: IpAddr,
    /// 0 for a free port.
    pub port: u16,
    /// The state folder: uploads go to `ui/uploads/` in it.
    pub state_dir: PathBuf,
    /// The service's client, `None` when none is set up (reading and mapping need none).
    pub client: Option<Client>,
    /// The largest upload accepted: the CLI's download limit, so a file is refused the same
    /// whether it comes by URL or from the browser.
    pub max_upload_bytes: u64,
    /// How a send from the page sends: the rate and concurrency `leadsync ui` was given.
    pub push: PushConfig,
    /// Folders and files the Source page's path field never reads, besides `/proc`, `/sys`,
    /// `/dev` and the state folder: the CLI's config folder, the token file and its folder.
    pub private: Vec<PathBuf>,
    /// Header and body timeouts and the connection cap: a slow or stalled client is cut.
    pub limits: Limits,
    /// The most rows a check takes (`--max-rows`): past it a sheet is refused before its rows
    /// are stored.
    pub max_rows: u64,
    /// Checks, sends and uploads older than this are deleted at start (`--keep-runs-days`).
    pub keep_runs: std::time::Duration,
}

/// A check's rows at most, by default: far more than a campaign calls, and a few GB of
/// `rows.sqlite` at the most.
pub const DEFAULT_MAX_ROWS: u64 = 5_000_000;
/// How long runs and uploads are kept, by default, in days.
pub const DEFAULT_KEEP_RUNS_DAYS: u64 = 30;

impl UiConfig {
    /// Loopback, a free port, no service, the CLI's limits.
    pub fn new(state_dir: PathBuf) -> UiConfig {
        UiConfig {
            ip: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            state_dir,
            client: None,
            max_upload_bytes: MAX_DOWNLOAD_BYTES,
            push: PushConfig::default(),
            private: Vec::new(),
            // The Mapping page's choices travel in its address (and the Referer): a sheet of
            // a few hundred columns makes a long one.
            limits: Limits {
                body_idle: BODY_IDLE,
                drain: DRAIN_LIMIT,
                max_header_bytes: 64 * 1024,
                ..Limits::default()
            },
            max_rows: DEFAULT_MAX_ROWS,
            keep_runs: std::time::Duration::from_secs(DEFAULT_KEEP_RUNS_DAYS * 24 * 3600),
        }
    }
}

/// What the handlers share.
#[derive(Clone)]
struct App {
    sources: Arc<Sources>,
    /// For the steps that talk to the service; the token never leaves it.
    client: Option<Client>,
    service: Service,
    max_upload_bytes: u64,
    runs: Arc<Runs>,
    mappings: Arc<SavedMappings>,
    push: PushConfig,
    state_dir: PathBuf,
    /// What the path field never reads: the state folder and `UiConfig::private`.
    private: Arc<[PathBuf]>,
    max_rows: u64,
    /// How long runs are kept, in days, for the first page to say.
    keep_runs_days: u64,
}

/// A running UI. Dropping it stops the server too, without waiting.
pub struct Ui {
    /// The address it is bound to.
    pub addr: SocketAddr,
    url: String,
    stop: watch::Sender<bool>,
    server: JoinHandle<()>,
    runs: Arc<Runs>,
}

impl Ui {
    /// Binds, draws the secret and starts serving. `--bind` addresses that would match any
    /// interface are refused: the Host check needs the one address the browser will use.
    pub async fn start(config: UiConfig) -> Result<Ui, UiError> {
        if every_address(config.ip) {
            return Err(UiError::Unspecified { ip: config.ip });
        }
        let wanted = SocketAddr::new(config.ip, config.port);
        let listener = TcpListener::bind(wanted)
            .await
            .map_err(|source| UiError::Bind { addr: wanted, source })?;
        let addr =
            listener.local_addr().map_err(|source| UiError::Bind { addr: wanted, source })?;
        let secret = Secret::random();
        let url = format!("http://{addr}/?{SECRET_PARAM}={}", secret.as_str());
        let guard = Arc::new(Guard::new(secret, addr));
        let service = Service::of(config.client.as_ref());
        // People's numbers are not kept longer than asked for.
        let removed = runs::remove_older_than(&config.state_dir, config.keep_runs);
        if removed > 0 {
            tracing::info!(removed, "ui: runs and uploads past their age removed");
        }
        let app = App {
            sources: Arc::new(Sources::new(&config.state_dir)),
            client: config.client,
            service,
            max_upload_bytes: config.max_upload_bytes,
            runs: Arc::new(Runs::new(&config.state_dir)),
            mappings: Arc::new(SavedMappings::new(&config.state_dir)),
            push: config.push,
            private: config.private.into_iter().chain([config.state_dir.clone()]).collect(),
            max_rows: config.max_rows,
            keep_runs_days: config.keep_runs.as_secs() / (24 * 3600),
            state_dir: config.state_dir,
        };
        let runs = app.runs.clone();
        let router = router(app, guard);
        let (stop, mut stopping) = watch::channel(false);
        let limits = config.limits;
        let server = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopping.changed().await;
            };
            crate::serve::accept_loop("ui", listener, router, limits, shutdown).await;
        });
        tracing::info!(%addr, "ui listening");
        Ok(Ui { addr, url, stop, server, runs })
    }

    /// The address to open, with the secret: print it once, to the person who started the UI.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops accepting and lets requests in flight finish, for a few seconds at most: an upload
    /// still coming in must not keep Ctrl-C from stopping the server.
    pub async fn shutdown(self) {
        // A send under way stops as the CLI's does on Ctrl-C: its journal resumes it.
        self.runs.stop_all();
        let _ = self.stop.send(true);
        let mut server = self.server;
        if tokio::time::timeout(DRAIN_LIMIT, &mut server).await.is_err() {
            tracing::warn!("the ui stopped with requests still in flight");
            server.abort();
        }
    }
}

/// `0.0.0.0`, `::` and the IPv4 one written as IPv6 (`::ffff:0.0.0.0`, which a dual-stack
/// socket takes for every IPv4 address): all of them listen everywhere.
fn every_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_unspecified(),
        IpAddr::V6(v6) => {
            v6.is_unspecified() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_unspecified())
        }
    }
}

impl std::fmt::Debug for Ui {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ui").field("addr", &self.addr).finish_non_exhaustive()
    }
}

/// Every route behind the same three layers; the headers outermost, so refusals carry them.
fn router(app: App, guard: Arc<Guard>) -> Router {
    let upload_limit =
        usize::try_from(app.max_upload_bytes + upload::OVERHEAD_BYTES).unwrap_or(usize::MAX);
    Router::new()
        .route("/", get(steps::source::show))
        .route(
            "/source/upload",
            post(steps::source::upload).layer(DefaultBodyLimit::max(upload_limit)),
        )
        .route("/source/location", post(steps::source::location))
        .route("/reading/{id}", get(steps::reading::show))
        .route("/mapping/{id}", get(steps::mapping::show))
        .route("/mapping/{id}/mapping.toml", get(steps::mapping::download))
        .route("/mapping/{id}/save", post(steps::mapping::save))
        .route(
            "/mapping/{id}/load",
            // The file and the rest of the Mapping page's form beside it.
            post(steps::load::load).layer(DefaultBodyLimit::max(
                steps::load::MAX_MAPPING_BYTES
                    + upload::TextBudget::MAX_TOTAL_BYTES
                    + upload::OVERHEAD_BYTES as usize,
            )),
        )
        .route(
            "/mapping/{id}/suppress",
            post(steps::callable::upload_list).layer(DefaultBodyLimit::max(upload_limit)),
        )
        .route("/check/{id}", post(steps::check::start_check))
        .route("/send/{run}", post(steps::check::start_send))
        .route("/run/{run}", get(steps::check::show))
        .route("/run/{run}/stop", post(steps::check::stop))
        .route("/run/{run}/delete", post(steps::source::delete_run))
        .route("/run/{run}/live", get(steps::live::live))
        .route("/run/{run}/files/{name}", get(steps::check::file))
        .route("/run/{run}/row/{row}", get(steps::edit::show_row).post(steps::edit::save_row))
        .route("/run/{run}/row/{row}/exclude", post(steps::edit::exclude_row))
        .route("/run/{run}/row/{row}/never", post(steps::never::never_row))
        .route("/never-call", get(steps::never::show))
        .route("/never-call/add", post(steps::never::add))
        .route("/never-call/remove", post(steps::never::remove))
        .route("/run/{run}/reasons", post(steps::edit::for_reason))
        .route("/run/{run}/corrected.xlsx", get(steps::edit::corrected))
        .route("/assets/ui.css", get(assets::css))
        .route("/assets/ui.js", get(assets::js))
        .route("/assets/icon.svg", get(assets::icon))
        .route("/favicon.ico", get(assets::icon))
        .fallback(|view: page::View| async move { page::not_found(view) })
        .with_state(app)
        .layer(axum::middleware::from_fn(lang::remember))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
        .layer(axum::middleware::from_fn(headers::secure))
}

/// The service as a page names it, without anything secret: none, the embedded sandbox, or
/// the host (and port) of the base URL (never its path, user or password).
#[derive(Debug, Clone)]
enum Service {
    None,
    Sandbox,
    Host(Arc<str>),
}

impl Service {
    fn of(client: Option<&Client>) -> Service {
        let Some(client) = client else { return Service::None };
        if client.service_name() == "sandbox" {
            return Service::Sandbox;
        }
        let url = client.base_url();
        let host = url.host_str().unwrap_or_default();
        Service::Host(match url.port() {
            Some(port) => Arc::from(format!("{host}:{port}")),
            None => Arc::from(host),
        })
    }

    fn label(&self, t: &text::Text) -> &str {
        match self {
            Service::None => t.no_service,
            Service::Sandbox => t.sandbox,
            Service::Host(host) => host,
        }
    }
}
