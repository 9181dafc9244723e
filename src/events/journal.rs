//! The journal: notifications as JSON lines, appended by one writer thread and synced to disk
//! before the sender is answered.
//!
//! One line per notification: `{"received_at": ..., "kind": ..., "key": ..., "payload": ...}`,
//! with the payload exactly as it was sent (only line breaks between JSON tokens are taken out,
//! so a pretty-printed payload still fits on its line). The file is the whole state: the set of
//! dedupe keys is rebuilt from it at start, so a redelivery after a restart is still recognised.
//!
//! All handlers hand their lines to one thread over a channel, which makes "is this key new?"
//! and "append it" one step, keeps lines from interleaving, and lets one `fsync` cover every line
//! that arrived meanwhile (group commit). An exclusive lock on the file keeps a second receiver
//! from writing the same journal.

use std::collections::HashSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tokio::sync::oneshot;

use super::Kind;
use super::error::EventsError;

/// Lines written under one `fsync` at most.
const MAX_BATCH: usize = 256;

/// One stored notification: one line of the journal.
#[derive(Debug, Serialize, Deserialize)]
pub struct StoredEvent {
    /// When the receiver got it: RFC 3339, UTC, milliseconds.
    pub received_at: String,
    /// `conversation-ended`, `post-call` or `inbound-call`.
    pub kind: String,
    /// The dedupe key (see [`super::dedupe_key`]).
    pub key: String,
    /// The body as sent.
    pub payload: Box<RawValue>,
}

/// What became of an appended notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// Written and synced.
    Stored,
    /// Its key was stored before; nothing was written.
    Duplicate,
}

struct Job {
    key: String,
    line: String,
    reply: oneshot::Sender<Result<Appended, Arc<io::Error>>>,
}

/// A handle to the journal's writer thread; cheap to clone. The thread ends, and the file is
/// unlocked, when the last handle is dropped.
#[derive(Clone)]
pub struct Journal {
    jobs: mpsc::Sender<Job>,
    path: Arc<PathBuf>,
    already_stored: usize,
}

/// Resolves once the writer thread has closed the file.
pub struct JournalClosed(oneshot::Receiver<()>);

impl JournalClosed {
    pub async fn wait(self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.0).await;
    }
}

impl Journal {
    /// Opens (or creates) the journal at `path`, locks it, drops a torn last line left by a
    /// crash (it was never acknowledged), and starts the writer thread.
    pub fn open(path: &Path) -> Result<(Journal, JournalClosed), EventsError> {
        let open_error = |cause| EventsError::Open { path: path.to_path_buf(), cause };
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(open_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(EventsError::Locked { path: path.to_path_buf() });
            }
            Err(TryLockError::Error(cause)) => return Err(open_error(cause)),
        }
        let scan = scan(&file, path)?;
        if scan.torn {
            file.set_len(scan.complete_len).map_err(open_error)?;
            tracing::warn!(
                "dropped an unfinished last line of `{}` (never acknowledged)",
                path.display()
            );
        }
        let already_stored = scan.keys.len();
        let writer =
            Writer { path: path.to_path_buf(), file, len: scan.complete_len, seen: scan.keys };
        let (jobs, inbox) = mpsc::channel();
        let (closed_tx, closed_rx) = oneshot::channel();
        std::thread::Builder::new()
            .name("events-journal".into())
            .spawn(move || {
                writer.serve(inbox);
                let _ = closed_tx.send(());
            })
            .map_err(EventsError::Spawn)?;
        let journal = Journal { jobs, path: Arc::new(path.to_path_buf()), already_stored };
        Ok((journal, JournalClosed(closed_rx)))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How many distinct notifications the file held when it was opened.
    pub fn already_stored(&self) -> usize {
        self.already_stored
    }

    /// Stores `payload` (valid JSON text) under `key` unless the key is stored already. Returns
    /// once the line is synced to disk.
    pub async fn append(
        &self,
        kind: Kind,
        key: String,
        received_at: String,
        payload: &str,
    ) -> Result<Appended, EventsError> {
        let line = line(kind, &key, received_at, payload);
        let (reply, answer) = oneshot::channel();
        let stopped = || EventsError::WriterStopped { path: self.path.to_path_buf() };
        self.jobs.send(Job { key, line, reply }).map_err(|_| stopped())?;
        let result = answer.await.map_err(|_| stopped())?;
        result.map_err(|cause| EventsError::Append { path: self.path.to_path_buf(), cause })
    }
}

fn line(kind: Kind, key: &str, received_at: String, payload: &str) -> String {
    // The receiver only passes bodies that parsed as JSON; should one not, it is kept as a
    // JSON string rather than lost.
    let payload = RawValue::from_string(one_line(payload)).unwrap_or_else(|_| {
        serde_json::value::to_raw_value(payload).expect("a string always serializes")
    });
    let event =
        StoredEvent { received_at, kind: kind.as_str().to_string(), key: key.to_string(), payload };
    serde_json::to_string(&event).expect("a stored event always serializes")
}

/// `json` without the whitespace between tokens if it spans several lines; unchanged otherwise.
/// Line breaks inside JSON strings are always escaped, so only whitespace outside strings goes.
fn one_line(json: &str) -> String {
    let json = json.trim();
    if !json.contains(['\n', '\r']) {
        return json.to_string();
    }
    let (mut out, mut in_string, mut escaped) = (String::with_capacity(json.len()), false, false);
    for c in json.chars() {
        if in_string {
            (escaped, in_string) = (c == '\\' && !escaped, c != '"' || escaped);
        } else if c == '"' {
            in_string = true;
        } else if c.is_ascii_whitespace() {
            continue;
        }
        out.push(c);
    }
    out
}

/// The single owner of the file.
struct Writer {
    path: PathBuf,
    file: File,
    /// Length of the file up to its last complete line.
    len: u64,
    seen: HashSet<String>,
}

impl Writer {
    fn serve(mut self, inbox: mpsc::Receiver<Job>) {
        while let Ok(first) = inbox.recv() {
            let mut batch = vec![first];
            while batch.len() < MAX_BATCH {
                match inbox.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            self.commit(batch);
        }
    }

    /// Writes the batch's new lines, syncs once, then answers every job in it: nobody hears
    /// "stored" or "duplicate" about a line before it is on disk.
    fn commit(&mut self, batch: Vec<Job>) {
        let mut text = String::new();
        let mut fresh = Vec::new();
        for job in &batch {
            if self.seen.insert(job.key.clone()) {
                text.push_str(&job.line);
                text.push('\n');
                fresh.push(job.key.clone());
            }
        }
        let written = if text.is_empty() { Ok(()) } else { self.write(text.as_bytes()) };
        match written {
            Ok(()) => {
                let mut first_time: HashSet<&str> = fresh.iter().map(String::as_str).collect();
                for job in batch {
                    let outcome = match first_time.remove(job.key.as_str()) {
                        true => Appended::Stored,
                        false => Appended::Duplicate,
                    };
                    let _ = job.reply.send(Ok(outcome));
                }
            }
            Err(error) => self.fail(batch, &fresh, error),
        }
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.file.sync_data()?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Forgets the batch's keys and cuts off whatever part of it reached the file, so a retry
    /// by the sender finds the journal as it was.
    fn fail(&mut self, batch: Vec<Job>, fresh: &[String], error: io::Error) {
        tracing::error!("cannot append to `{}`: {error}", self.path.display());
        if let Err(cut) = self.file.set_len(self.len) {
            tracing::error!(
                "cannot cut `{}` back after a failed append: {cut}",
                self.path.display()
            );
        }
        fresh.iter().for_each(|key| {
            self.seen.remove(key);
        });
        let error = Arc::new(error);
        for job in batch {
            let answer = match self.seen.contains(&job.key) {
                true => Ok(Appended::Duplicate),
                false => Err(Arc::clone(&error)),
            };
            let _ = job.reply.send(answer);
        }
    }
}

/// What the journal held when opened.
struct Scan {
    keys: HashSet<String>,
    complete_len: u64,
    torn: bool,
}

fn scan(file: &File, path: &Path) -> Result<Scan, EventsError> {
    let mut keys = HashSet::new();
    let read =
        visit_lines(file, path, |number, line| match serde_json::from_slice::<KeyOnly>(line) {
            Ok(stored) => {
                keys.insert(stored.key);
            }
            Err(e) => tracing::warn!(
                "line {number} of `{}` is not a stored notification: {e}",
                path.display()
            ),
        })?;
    Ok(Scan { keys, complete_len: read.complete_len, torn: read.torn })
}

#[derive(Deserialize)]
struct KeyOnly {
    key: String,
}

struct Visited {
    complete_len: u64,
    torn: bool,
}

/// Calls `each` with the number and bytes of every complete (newline-ended) line; an
/// unfinished last line is reported as torn, never visited.
fn visit_lines(
    file: &File,
    path: &Path,
    mut each: impl FnMut(u64, &[u8]),
) -> Result<Visited, EventsError> {
    let read_error = |cause| EventsError::Read { path: path.to_path_buf(), cause };
    let mut reader = BufReader::with_capacity(256 * 1024, file);
    let (mut buf, mut number, mut complete_len) = (Vec::new(), 0u64, 0u64);
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(read_error)?;
        if n == 0 {
            return Ok(Visited { complete_len, torn: false });
        }
        if buf.last() != Some(&b'\n') {
            return Ok(Visited { complete_len, torn: true });
        }
        number += 1;
        complete_len += n as u64;
        if !buf.iter().all(u8::is_ascii_whitespace) {
            each(number, &buf);
        }
    }
}

/// A journal as read back: its notifications in arrival order, and the numbers of lines that
/// were not notifications (edited by hand, say).
#[derive(Debug, Default)]
pub struct JournalContents {
    pub events: Vec<StoredEvent>,
    pub skipped_lines: Vec<u64>,
}

/// Reads every complete line of the journal at `path`. A receiver may be appending meanwhile:
/// its unfinished last line is left for the next read.
pub fn read_journal(path: &Path) -> Result<JournalContents, EventsError> {
    let file =
        File::open(path).map_err(|cause| EventsError::Read { path: path.to_path_buf(), cause })?;
    let mut contents = JournalContents::default();
    visit_lines(&file, path, |number, line| match serde_json::from_slice::<StoredEvent>(line) {
        Ok(event) => contents.events.push(event),
        Err(_) => contents.skipped_lines.push(number),
    })?;
    Ok(contents)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::{Appended, Journal, one_line, read_journal};
    use crate::events::{EventsError, Kind};

    const AT: &str = "2026-01-02T10:00:00.000Z";

    async fn append(journal: &Journal, key: &str, payload: &str) -> Appended {
        journal.append(Kind::ConversationEnded, key.into(), AT.into(), payload).await.unwrap()
    }

    #[tokio::test]
    async fn a_key_is_stored_once_even_after_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let (journal, closed) = Journal::open(&path).unwrap();
        assert_eq!(append(&journal, "k1", r#"{"a": 1}"#).await, Appended::Stored);
        assert_eq!(append(&journal, "k1", r#"{"a": 1}"#).await, Appended::Duplicate);
        assert_eq!(append(&journal, "k2", "[1,\n 2]").await, Appended::Stored);
        drop(journal);
        closed.wait(std::time::Duration::from_secs(5)).await;
        let (journal, _closed) = Journal::open(&path).unwrap();
        assert_eq!(journal.already_stored(), 2);
        assert_eq!(append(&journal, "k2", "[1,2]").await, Appended::Duplicate);
        let contents = read_journal(&path).unwrap();
        let payloads: Vec<&str> = contents.events.iter().map(|e| e.payload.get()).collect();
        assert_eq!(payloads, [r#"{"a": 1}"#, "[1,2]"]);
        assert_eq!(contents.events[0].kind, "conversation-ended");
        assert_eq!(contents.events[0].received_at, AT);
    }

    #[tokio::test]
    async fn concurrent_appends_give_whole_lines_and_one_line_per_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let (journal, _closed) = Journal::open(&path).unwrap();
        let tasks: Vec<_> = (0..200)
            .map(|i| {
                let journal = journal.clone();
                tokio::spawn(async move {
                    let payload = format!(r#"{{"n": {}, "pad": "{}"}}"#, i % 50, "x".repeat(4000));
                    append(&journal, &format!("k{}", i % 50), &payload).await
                })
            })
            .collect();
        let mut stored = 0;
        for task in tasks {
            stored += usize::from(task.await.unwrap() == Appended::Stored);
        }
        assert_eq!(stored, 50);
        let contents = read_journal(&path).unwrap();
        assert_eq!((contents.events.len(), contents.skipped_lines.len()), (50, 0));
    }

    #[tokio::test]
    async fn a_torn_last_line_is_dropped_and_a_second_writer_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let whole = r#"{"received_at":"t","kind":"post-call","key":"a","payload":{}}"#;
        let mut file = std::fs::File::create(&path).unwrap();
        write!(file, "{whole}\nnot a notification\n{{\"received_at\":\"t\",\"ki").unwrap();
        drop(file);
        let contents = read_journal(&path).unwrap();
        assert_eq!((contents.events.len(), contents.skipped_lines.as_slice()), (1, &[2][..]));
        let (journal, _closed) = Journal::open(&path).unwrap();
        assert!(matches!(Journal::open(&path), Err(EventsError::Locked { .. })));
        assert_eq!(append(&journal, "b", "{}").await, Appended::Stored);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3, "{text}");
        assert!(text.ends_with("\"payload\":{}}\n"), "{text}");
        assert_eq!(read_journal(&path).unwrap().events.len(), 2);
    }

    #[test]
    fn one_line_removes_only_whitespace_between_tokens() {
        assert_eq!(one_line(r#"{"a": "x y"}"#), r#"{"a": "x y"}"#, "single lines stay as sent");
        let pretty = "{\n  \"a\": \"x \\\" y\",\n  \"b\": [1,\r\n 2.50]\n}\n";
        assert_eq!(one_line(pretty), r#"{"a":"x \" y","b":[1,2.50]}"#);
    }
}
