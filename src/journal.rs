//! The progress log that makes a run resumable and exactly-once: an append-only JSON-lines
//! file recording the run, each row's attempt (made durable *before* the request goes out)
//! and each row's outcome.
//!
//! Reading it back tells a new run which rows are finished (never sent again) and which are in
//! doubt: attempted with no final outcome, because the process died or the connection broke
//! after the service may have written the lead. Those are reconciled against the service's
//! lead list before anything is resent. A torn last line (a crash mid-write) is ignored.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Outcome lines written before an fsync; attempts are always synced before sending.
const SYNC_EVERY_LINES: usize = 512;
const SYNC_EVERY: Duration = Duration::from_millis(500);

/// What identifies a run, written as the journal's first line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub event: String,
    pub version: u32,
    /// The file or URL as given.
    pub source: String,
    /// blake3 of the source's bytes: a changed file is a different run.
    pub fingerprint: String,
    /// blake3 of the resolved mapping and row-affecting options.
    pub mapping: String,
    pub base_url: String,
    /// A tag of the token (never the token).
    pub account: String,
    /// The highest lead id on the service when the run started: leads above it that match an
    /// in-doubt row were written by this run.
    pub baseline_lead_id: u64,
    pub allow_duplicates: bool,
    pub started_at: String,
}

/// One line after the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Entry {
    /// About to send this row.
    Attempt { row: u64, phone: String, campaign_id: u64 },
    /// What became of it.
    Outcome {
        row: u64,
        status: Final,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lead_id: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// For `failed`: the service may have acted on the request after all.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        maybe_applied: bool,
        /// Found on the service's lead list rather than answered by it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reconciled: bool,
    },
    /// Every row has a final outcome.
    Finished { at: String },
}

/// A row's outcome as journaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Final {
    Created,
    /// Already on the service (answered as a duplicate, or found by `--skip-existing`).
    Skipped,
    /// Refused by the service's validation.
    Rejected,
    /// Gave up after retries; not final: the next run tries again.
    Failed,
}

/// A row's state as read back from a journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowState {
    /// Finished: report it and never send it again.
    Done { status: Final, lead_id: Option<u64>, message: Option<String> },
    /// Sent (or maybe sent) without a final answer: reconcile before resending.
    InDoubt { phone: String, campaign_id: u64 },
    /// Failed cleanly (the service did not act on it): send again.
    Retry,
}

/// What a previous run left behind.
#[derive(Debug, Clone, Default)]
pub struct Recovered {
    pub header: Option<RunHeader>,
    pub rows: HashMap<u64, RowState>,
    pub finished: bool,
    /// Lead ids already claimed by rows of this journal.
    pub claimed: std::collections::HashSet<u64>,
}

impl Recovered {
    pub fn in_doubt(&self) -> usize {
        self.rows.values().filter(|s| matches!(s, RowState::InDoubt { .. })).count()
    }

    pub fn done(&self) -> usize {
        self.rows.values().filter(|s| matches!(s, RowState::Done { .. })).count()
    }
}

/// What to do when the journal of this source belongs to a different file or mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnChange {
    /// Refuse: the user must say `--restart` (import).
    Refuse,
    /// Start over silently: the source is expected to change between runs (sync).
    StartOver,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error(
        "{what} changed since the unfinished run recorded in `{path}`: resuming would misnumber rows; pass `--restart` to start over (rows already sent are then found by `--skip-existing`)"
    )]
    Changed { what: &'static str, path: String },
    #[error("cannot {action} the journal `{path}`: {source}")]
    Io { action: &'static str, path: String, source: std::io::Error },
    #[error(
        "`{path}` is not a leadsync journal (line 1): {reason}; move it away or pass `--restart`"
    )]
    NotAJournal { path: String, reason: String },
    #[error(
        "the journal `{path}` belongs to a run against `{base_url}` or another account: use another `--journal`, or `--restart` to start over"
    )]
    OtherService { path: String, base_url: String },
    #[error("another leadsync run is using the journal `{path}`: wait for it to finish")]
    Busy { path: String },
}

/// The open journal of the current run. Only the collector writes to it.
pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
    unsynced: usize,
    last_sync: Instant,
}

impl Journal {
    /// Reads what a journal holds, tolerating a torn last line. A missing file is empty.
    pub fn recover(path: &Path) -> Result<Recovered, JournalError> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Recovered::default()),
            Err(source) => return Err(io_err("read", path, source)),
        };
        let mut lines = BufReader::with_capacity(1 << 20, file).split(b'\n');
        let mut recovered = Recovered::default();
        let Some(first) = lines.next() else { return Ok(recovered) };
        let first = first.map_err(|e| io_err("read", path, e))?;
        let header: RunHeader = serde_json::from_slice(&first).map_err(|e| {
            JournalError::NotAJournal { path: path.display().to_string(), reason: e.to_string() }
        })?;
        recovered.header = Some(header);
        for line in lines {
            let line = line.map_err(|e| io_err("read", path, e))?;
            // A line that does not parse can only be the torn tail of a crash: skip it.
            let Ok(entry) = serde_json::from_slice::<Entry>(&line) else { continue };
            apply(&mut recovered, entry);
        }
        Ok(recovered)
    }

    /// Starts a new journal at `path` (replacing any old one) with `header` as its first line.
    pub fn create(path: &Path, header: &RunHeader) -> Result<Journal, JournalError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_err("create the folder of", path, e))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| io_err("create", path, e))?;
        // Lock before emptying: another run may still be writing to this journal.
        lock(&file, path)?;
        file.set_len(0).map_err(|e| io_err("empty", path, e))?;
        let mut journal = Journal::wrap(path, file);
        journal.write_line(header)?;
        journal.sync()?;
        Ok(journal)
    }

    /// Continues an existing journal.
    pub fn append(path: &Path) -> Result<Journal, JournalError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| io_err("open", path, e))?;
        lock(&file, path)?;
        // After a torn write the file does not end in a newline; start a fresh line.
        if ends_without_newline(&mut file).map_err(|e| io_err("read", path, e))? {
            file.write_all(b"\n").map_err(|e| io_err("write", path, e))?;
        }
        Ok(Journal::wrap(path, file))
    }

    fn wrap(path: &Path, file: File) -> Journal {
        Journal {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 16, file),
            unsynced: 0,
            last_sync: Instant::now(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records attempts and makes them durable before any of these rows is sent.
    pub fn attempts<'a>(
        &mut self,
        rows: impl IntoIterator<Item = (u64, &'a str, u64)>,
    ) -> Result<(), JournalError> {
        for (row, phone, campaign_id) in rows {
            self.write_line(&Entry::Attempt { row, phone: phone.to_string(), campaign_id })?;
        }
        self.sync()
    }

    /// Records an outcome; synced in batches (a lost outcome only costs a reconciliation).
    pub fn outcome(&mut self, entry: &Entry) -> Result<(), JournalError> {
        self.write_line(entry)?;
        self.unsynced += 1;
        if self.unsynced >= SYNC_EVERY_LINES || self.last_sync.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    pub fn finish(&mut self, at: String) -> Result<(), JournalError> {
        self.write_line(&Entry::Finished { at })?;
        self.sync()
    }

    /// Flushes and fsyncs.
    pub fn sync(&mut self) -> Result<(), JournalError> {
        self.out.flush().map_err(|e| io_err("write", &self.path, e))?;
        self.out.get_ref().sync_data().map_err(|e| io_err("sync", &self.path, e))?;
        self.unsynced = 0;
        self.last_sync = Instant::now();
        Ok(())
    }

    fn write_line(&mut self, value: &impl Serialize) -> Result<(), JournalError> {
        let mut line = serde_json::to_vec(value).expect("journal entries always serialize");
        line.push(b'\n');
        self.out.write_all(&line).map_err(|e| io_err("write", &self.path, e))
    }
}

fn apply(recovered: &mut Recovered, entry: Entry) {
    match entry {
        Entry::Attempt { row, phone, campaign_id } => {
            recovered.rows.insert(row, RowState::InDoubt { phone, campaign_id });
        }
        Entry::Outcome { row, status: Final::Failed, maybe_applied, .. } => {
            // A clean failure can simply be sent again; one that may have reached the
            // service stays in doubt until the lead list says otherwise.
            if !maybe_applied {
                recovered.rows.insert(row, RowState::Retry);
            }
        }
        Entry::Outcome { row, status, lead_id, message, .. } => {
            if let Some(id) = lead_id {
                recovered.claimed.insert(id);
            }
            recovered.rows.insert(row, RowState::Done { status, lead_id, message });
        }
        Entry::Finished { .. } => recovered.finished = true,
    }
}

/// An exclusive lock on the journal for the life of the run: two runs appending to one journal
/// would both send every row.
fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => {
            Err(JournalError::Busy { path: path.display().to_string() })
        }
        Err(std::fs::TryLockError::Error(e)) => Err(io_err("lock", path, e)),
    }
}

fn ends_without_newline(file: &mut File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

fn io_err(action: &'static str, path: &Path, source: std::io::Error) -> JournalError {
    JournalError::Io { action, path: path.display().to_string(), source }
}

/// Where the journal of `source` on one service account lives: one file per (source, service,
/// account), so the same file sent to another account is a new run, not a silent resume.
pub fn default_path(state_dir: &Path, source: &str, base_url: &str, account: &str) -> PathBuf {
    let key = blake3::hash(format!("{source}\n{base_url}\n{account}").as_bytes()).to_hex();
    let stem: String = Path::new(source)
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
                .take(40)
                .collect()
        })
        .unwrap_or_default();
    state_dir.join("journals").join(format!("{stem}-{}.jsonl", &key[..16]))
}

/// Opens the journal for a run described by `header`: resumes the run recorded there when it is
/// the same (same file and mapping), or starts a new one.
pub fn open_run(
    path: &Path,
    header: RunHeader,
    on_change: OnChange,
    restart: bool,
) -> Result<(Journal, Recovered), JournalError> {
    let recovered = if restart { Recovered::default() } else { Journal::recover(path)? };
    if let Some(old) = &recovered.header
        && (old.base_url != header.base_url || old.account != header.account)
    {
        // Resuming another service's run would mark rows as sent that this service never saw.
        return Err(JournalError::OtherService {
            path: path.display().to_string(),
            base_url: old.base_url.clone(),
        });
    }
    let journal = match &recovered.header {
        Some(old) if old.fingerprint == header.fingerprint && old.mapping == header.mapping => {
            Journal::append(path)?
        }
        Some(old) if on_change == OnChange::Refuse && !recovered.finished => {
            let what = if old.fingerprint != header.fingerprint {
                "the source file"
            } else {
                "the mapping"
            };
            return Err(JournalError::Changed { what, path: path.display().to_string() });
        }
        _ => {
            let journal = Journal::create(path, &header)?;
            return Ok((journal, Recovered::default()));
        }
    };
    Ok((journal, recovered))
}

/// blake3 of a file's bytes, streamed.
pub fn fingerprint_file(path: &Path) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(File::open(path)?)?;
    Ok(hasher.finalize().to_hex().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RunHeader {
        RunHeader {
            event: "run".into(),
            version: 1,
            source: "leads.csv".into(),
            fingerprint: "f".into(),
            mapping: "m".into(),
            base_url: "http://127.0.0.1/api/".into(),
            account: "a".into(),
            baseline_lead_id: 7,
            allow_duplicates: false,
            started_at: "t".into(),
        }
    }

    fn outcome(row: u64, status: Final, lead_id: Option<u64>, maybe_applied: bool) -> Entry {
        Entry::Outcome { row, status, lead_id, message: None, maybe_applied, reconciled: false }
    }

    #[test]
    fn rows_are_done_in_doubt_or_retried() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal
            .attempts([(2, "+491", 10), (3, "+492", 10), (4, "+493", 10), (5, "+494", 10)])
            .unwrap();
        journal.outcome(&outcome(2, Final::Created, Some(41), false)).unwrap();
        journal.outcome(&outcome(4, Final::Failed, None, false)).unwrap();
        journal.outcome(&outcome(5, Final::Failed, None, true)).unwrap();
        journal.sync().unwrap();
        let r = Journal::recover(&path).unwrap();
        assert_eq!(r.header.unwrap(), header());
        assert!(matches!(
            r.rows[&2],
            RowState::Done { status: Final::Created, lead_id: Some(41), .. }
        ));
        assert_eq!(r.rows[&3], RowState::InDoubt { phone: "+492".into(), campaign_id: 10 });
        assert_eq!(r.rows[&4], RowState::Retry);
        assert!(
            matches!(r.rows[&5], RowState::InDoubt { .. }),
            "a maybe-applied failure stays in doubt"
        );
        assert!(r.claimed.contains(&41) && !r.finished);
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_appending_continues_on_a_new_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.attempts([(2, "+491", 10)]).unwrap();
        drop(journal);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"event":"outcome","row":2,"sta"#).unwrap();
        drop(file);
        let r = Journal::recover(&path).unwrap();
        assert!(matches!(r.rows[&2], RowState::InDoubt { .. }));
        let mut journal = Journal::append(&path).unwrap();
        journal.outcome(&outcome(2, Final::Created, Some(5), false)).unwrap();
        journal.finish("now".into()).unwrap();
        let r = Journal::recover(&path).unwrap();
        assert!(matches!(r.rows[&2], RowState::Done { lead_id: Some(5), .. }));
        assert!(r.finished);
    }

    #[test]
    fn a_foreign_file_is_not_a_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        std::fs::write(&path, "hello\n").unwrap();
        assert!(matches!(Journal::recover(&path), Err(JournalError::NotAJournal { .. })));
        assert!(Journal::recover(&dir.path().join("missing")).unwrap().header.is_none());
    }

    #[test]
    fn another_service_or_a_second_run_cannot_take_over_a_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let (journal, _) = open_run(&path, header(), OnChange::Refuse, false).unwrap();
        assert!(matches!(
            open_run(&path, header(), OnChange::Refuse, false),
            Err(JournalError::Busy { .. })
        ));
        drop(journal);
        let elsewhere = RunHeader { base_url: "https://calls.example.com/api/".into(), ..header() };
        let err = open_run(&path, elsewhere.clone(), OnChange::Refuse, false).err().unwrap();
        assert!(matches!(err, JournalError::OtherService { .. }), "{err}");
        assert!(
            open_run(&path, elsewhere, OnChange::Refuse, true).is_ok(),
            "--restart starts over"
        );
    }
}
