//! The sandbox's SQLite database, owned by one dedicated thread.
//!
//! rusqlite is blocking, and SQLite takes one writer at a time anyway, so a single thread owns
//! the connection and async handlers send it jobs over a channel. Each job runs in its own
//! transaction (one per request) and answers on a oneshot. Compared with `spawn_blocking` per
//! request this keeps prepared statements cached on one connection and never parks runtime
//! threads on SQLite's lock; a create-lead job is a few indexed statements, so the one thread
//! sustains tens of thousands of them per second.

mod catalog;
mod changes;
mod leads;
mod records;
mod seeding;

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{Connection, Transaction};
use tokio::sync::oneshot;

pub(crate) use changes::Outcome;
pub(crate) use records::Record;

use super::error::SandboxError;

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// Part of a list, or all of it: the records read and how many the whole list holds.
pub(crate) struct Listed<T> {
    pub items: Vec<T>,
    pub total: i64,
}

impl<T> Listed<T> {
    /// A whole list: its total is its length.
    fn whole(items: Vec<T>) -> Listed<T> {
        let total = i64::try_from(items.len()).unwrap_or(i64::MAX);
        Listed { items, total }
    }
}

/// Which records of a list to read: `limit` of them after skipping `offset`, in id order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    pub offset: i64,
    pub limit: i64,
}

/// A handle to the database thread; cheap to clone. The thread ends when the last clone drops.
#[derive(Clone)]
pub(crate) struct Store {
    jobs: mpsc::Sender<Job>,
}

/// Resolves once the database thread has closed its connection (WAL checkpointed, file whole).
pub(crate) struct StoreClosed(oneshot::Receiver<()>);

impl StoreClosed {
    /// Waits up to `limit`; a handle still held elsewhere keeps the thread, and we don't hang.
    pub(crate) async fn wait(self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.0).await;
    }
}

impl Store {
    /// Opens (or creates) the database, in memory when `db` is `None`, and starts its thread.
    pub(crate) async fn open(db: Option<PathBuf>) -> Result<(Store, StoreClosed), SandboxError> {
        let conn = tokio::task::spawn_blocking(move || connect(db.as_deref()))
            .await
            .map_err(|_| SandboxError::StoreClosed)??;
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (closed_tx, closed_rx) = oneshot::channel();
        std::thread::Builder::new()
            .name("sandbox-db".into())
            .spawn(move || {
                serve_jobs(conn, inbox);
                let _ = closed_tx.send(());
            })
            .map_err(SandboxError::SpawnThread)?;
        Ok((Store { jobs }, StoreClosed(closed_rx)))
    }

    /// Runs `work` in one transaction on the database thread: committed if it returns `Ok`,
    /// rolled back otherwise. `action` names the work in error messages.
    pub(crate) async fn run<T, F>(&self, action: &'static str, work: F) -> Result<T, SandboxError>
    where
        T: Send + 'static,
        F: FnOnce(&Transaction<'_>) -> Result<T, SandboxError> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = reply.send(in_transaction(conn, work).map_err(|e| e.during(action)));
        });
        self.jobs.send(job).map_err(|_| SandboxError::StoreClosed)?;
        answer.await.map_err(|_| SandboxError::StoreClosed)?
    }
}

fn in_transaction<T>(
    conn: &mut Connection,
    work: impl FnOnce(&Transaction<'_>) -> Result<T, SandboxError>,
) -> Result<T, SandboxError> {
    let tx = conn.transaction()?;
    let out = work(&tx)?;
    tx.commit()?;
    Ok(out)
}

/// A panicking job is a bug in one request; it must not take the database down for the rest.
fn serve_jobs(mut conn: Connection, inbox: mpsc::Receiver<Job>) {
    for job in inbox {
        if crate::source::caught::catch(|| job(&mut conn)).is_err() {
            tracing::error!("a sandbox database job panicked; its request got a 500");
        }
    }
}

fn connect(db: Option<&Path>) -> Result<Connection, SandboxError> {
    let opened = match db {
        Some(path) => Connection::open(path),
        None => Connection::open_in_memory(),
    };
    let path = db.map_or_else(|| PathBuf::from(":memory:"), Path::to_path_buf);
    let conn =
        opened.map_err(|source| SandboxError::OpenDatabase { path: path.clone(), source })?;
    configure(&conn, db.is_some()).map_err(|source| SandboxError::OpenDatabase { path, source })?;
    Ok(conn)
}

/// WAL lets readers of a file database (say, a second process inspecting it) run beside the
/// writer; synchronous=NORMAL is durable across crashes of the sandbox, not of the machine,
/// which is the right trade for a test service that must be fast.
fn configure(conn: &Connection, on_disk: bool) -> rusqlite::Result<()> {
    if on_disk {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(64);
    conn.execute_batch(include_str!("schema.sql"))
}
