//! Serving a router to connections that may be slow or hostile: the one accept loop that both
//! local servers use, `leadsync ui` and the webhook receiver. A request's headers must arrive
//! within [`Limits::header_timeout`] and fit in [`Limits::max_header_bytes`]; its body may fall
//! silent for at most [`Limits::body_idle`] between chunks (an upload of any size keeps
//! flowing, a stalled one is cut); at most [`Limits::max_connections`] connections are served
//! at once (the rest wait in the kernel's backlog), so slow senders can hold neither file
//! descriptors nor memory for long. That takes our own loop with hyper-util's builder, whose
//! HTTP/1 settings `axum::serve` does not expose.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::middleware::Next;
use hyper::body::{Frame, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::{Instant, Sleep};

/// What a connection may take of the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A request's headers must arrive within this.
    pub header_timeout: Duration,
    /// The longest a request's body may fall silent.
    pub body_idle: Duration,
    /// The most header bytes a request may send (hyper's read buffer).
    pub max_header_bytes: usize,
    /// Connections served at once.
    pub max_connections: usize,
    /// How long a stop waits for requests in flight.
    pub drain: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_idle: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            max_connections: 512,
            drain: Duration::from_secs(5),
        }
    }
}

/// Accepts connections until `stopping` resolves, at most `limits.max_connections` at a
/// time, then waits up to `limits.drain` for requests in flight. `name` says whose in logs.
pub async fn accept_loop(
    name: &'static str,
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stopping: impl Future<Output = ()>,
) {
    tokio::pin!(stopping);
    let idle = limits.body_idle;
    let router = router.layer(axum::middleware::from_fn(move |request: Request, next: Next| {
        next.run(request.map(|body| Body::new(IdleBody::new(body, idle))))
    }));
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let (drain, draining) = watch::channel(false);
    let mut connections = JoinSet::new();
    loop {
        let slot = tokio::select! {
            _ = &mut stopping => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let accepted = tokio::select! {
            _ = &mut stopping => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let (router, draining) = (router.clone(), draining.clone());
                connections.spawn(async move {
                    serve_connection(name, stream, router, limits, draining).await;
                    drop(slot);
                });
            }
            Err(error) => {
                // Usually out of file descriptors: back off instead of spinning.
                tracing::warn!("{name}: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let _ = drain.send(true);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(limits.drain, drained).await.is_err() {
        tracing::warn!("{name}: stopped with requests still in flight");
    }
}

async fn serve_connection(
    name: &'static str,
    stream: TcpStream,
    router: Router,
    limits: Limits,
    mut draining: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    // HTTP/1.1 only: a browser speaks it to an http:// page and the service to the webhook,
    // and HTTP/2 without TLS has no header timeout here, so a crafted client could hold a
    // connection slot idle for as long as it likes.
    let mut builder = auto::Builder::new(TokioExecutor::new()).http1_only();
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes);
    let service = TowerToHyperService::new(router);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    loop {
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(error) = served {
                    tracing::debug!("{name}: connection ended: {error}");
                }
                return;
            }
            _ = draining.changed() => connection.as_mut().graceful_shutdown(),
        }
    }
}

/// A request body that fails when no chunk arrives within `idle`.
struct IdleBody {
    inner: Body,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
}

impl IdleBody {
    fn new(inner: Body, idle: Duration) -> IdleBody {
        IdleBody { inner, idle, timer: Box::pin(tokio::time::sleep(idle)) }
    }
}

/// Why a body read was cut.
#[derive(Debug, thiserror::Error)]
#[error("the request body stopped arriving")]
struct BodyStalled;

impl hyper::body::Body for IdleBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                let next = Instant::now() + this.idle;
                this.timer.as_mut().reset(next);
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => match this.timer.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyStalled)))),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
