//! `Sandbox`: the service on a real socket, with our own accept loop.
//!
//! `axum::serve` would do for a well-behaved server, but the drop fault must close a connection
//! after its request was fully handled and before a byte of the answer is written. So each
//! connection is served by hyper-util's auto (HTTP/1 + HTTP/2) builder in its own task, with the
//! axum router as the service, and every request carries that connection's [`DropConnection`]
//! switch. When the fault middleware fires it, the task stops polling and drops the connection
//! future; the socket closes with the response never written, and the client sees a connection
//! error rather than any HTTP status.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::service::Service;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use super::error::SandboxError;
use super::faults::DropConnection;
use super::store::StoreClosed;
use super::{AppState, SandboxConfig, app};

/// How long a graceful stop waits for requests in flight before cutting them off.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// A running sandbox. Dropping it stops the server too, without waiting.
pub struct Sandbox {
    pub addr: SocketAddr,
    /// `http://127.0.0.1:PORT/api`: what the client takes as its base URL.
    pub base_url: String,
    stop: watch::Sender<bool>,
    server: JoinHandle<()>,
    closed: StoreClosed,
}

impl Sandbox {
    /// Opens the database, loads the seed (or the demo data), and starts serving on `bind`;
    /// use port 0 for a free port, then read `addr`.
    pub async fn start(config: SandboxConfig, bind: SocketAddr) -> Result<Sandbox, SandboxError> {
        let (state, closed) = AppState::open_parts(config).await?;
        let listener = TcpListener::bind(bind)
            .await
            .map_err(|source| SandboxError::Bind { addr: bind, source })?;
        let addr =
            listener.local_addr().map_err(|source| SandboxError::Bind { addr: bind, source })?;
        let (stop, stopping) = watch::channel(false);
        let server = tokio::spawn(accept_loop(listener, app(state), stopping));
        tracing::info!("sandbox listening on http://{addr}/api");
        Ok(Sandbox { addr, base_url: format!("http://{addr}/api"), stop, server, closed })
    }

    /// Stops accepting, lets requests in flight finish (up to a few seconds), and waits until
    /// the database is closed, so the same file can be opened again right away.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.server.await;
        self.closed.wait(DRAIN_LIMIT).await;
    }

    /// Serves until the process is asked to stop (Ctrl-C, or SIGTERM on Unix), then shuts down
    /// gracefully.
    pub async fn wait(self) {
        stop_requested().await;
        tracing::info!("sandbox stopping");
        self.shutdown().await;
    }
}

async fn stop_requested() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
}

async fn accept_loop(listener: TcpListener, router: Router, mut stop: watch::Receiver<bool>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            // Also fires when the `Sandbox` was dropped: the sender is gone.
            _ = stop.changed() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, router.clone(), stop.clone()));
                }
                Err(error) => {
                    // Usually out of file descriptors: back off instead of spinning.
                    tracing::warn!("sandbox accept failed: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(DRAIN_LIMIT, drained).await.is_err() {
        tracing::warn!("sandbox stopped with requests still in flight");
    }
}

async fn serve_connection(stream: TcpStream, router: Router, mut stop: watch::Receiver<bool>) {
    let _ = stream.set_nodelay(true);
    let switch = DropConnection::default();
    let service = {
        let switch = switch.clone();
        let router = TowerToHyperService::new(router);
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(switch.clone());
            router.call(request)
        })
    };
    let builder = auto::Builder::new(TokioExecutor::new());
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let mut draining = false;
    loop {
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(error) = served {
                    tracing::debug!("sandbox connection ended with an error: {error}");
                }
                return;
            }
            // Returning drops `connection` unpolled: the socket closes, nothing more is written.
            () = switch.fired() => return,
            _ = stop.changed(), if !draining => {
                draining = true;
                connection.as_mut().graceful_shutdown();
            }
        }
    }
}
