//! The progress log that makes a run resumable and exactly-once: an append-only JSON-lines
//! file recording the run's identity, each row's attempt (made durable *before* the request
//! goes out) and each row's outcome.
//!
//! Reading it back tells a new run which rows are finished (never sent again) and which are in
//! doubt: attempted with no final outcome, because the process died or the answer was lost
//! after the service may have written the lead. Those are reconciled against the service's
//! lead list before anything is resent. Every attempt and outcome carries a fingerprint of the
//! row's content, so a settled row is trusted only for the content it was settled with.
//!
//! `Finished` has one meaning: the run read its whole source and every row it read has a final
//! outcome (created, skipped or rejected): none failed, none is in doubt. Only then may a new
//! version of the source start a new run without losing anything.

mod claimed;
mod lock;
mod others;
mod recover;
pub mod regular;
mod states;

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use claimed::Claimed;
pub use lock::RunLock;
pub use others::claimed_elsewhere;
pub use recover::{CarriedDoubt, Recovered, RowState};
pub use states::RowStates;

/// The journal format this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// Outcome lines written before an fsync; attempts are always synced before sending.
const SYNC_EVERY_LINES: usize = 512;
const SYNC_EVERY: Duration = Duration::from_millis(500);

/// What identifies a run, written as the journal's first line: everything that decides which
/// rows are read and what each row sends, and where they go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    pub event: String,
    pub version: u32,
    /// The file or URL as given.
    pub source: String,
    /// blake3 of the source's bytes: a changed file is a different run.
    pub fingerprint: String,
    /// How rows are read out of those bytes.
    pub reading: Reading,
    /// blake3 of the resolved mapping (after every override) and row-affecting options.
    pub mapping: String,
    /// `sandbox` for the embedded sandbox, otherwise the service's base URL.
    pub service: String,
    /// The account as the service identifies it (never the token).
    pub account: String,
    /// Every name the service gave for the account (its user id, its campaigns), so a later
    /// run that knows it by another of them finds this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accounts: Vec<String>,
    /// The highest lead id on the service when the run started: leads above it that match an
    /// in-doubt row were written by this run.
    pub baseline_lead_id: u64,
    pub allow_duplicates: bool,
    /// Each attempt's key is its row's identity (`ledger::identity`), as from leadsync 0.3 on;
    /// older journals keyed rows by their place, which the ledger reads them in without.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub identity_keys: bool,
    /// The request timeout of the run that started this journal, in ms; each attempt records
    /// its own, which is the one that counts.
    pub timeout_ms: u64,
    pub started_at: String,
}

/// Which rows of the source bytes are read: the sheet (by name and tab position), the header
/// row, and for text files the delimiter and encoding.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    pub sheet: Option<String>,
    pub sheet_position: Option<usize>,
    pub header_row: u64,
    pub delimiter: Option<String>,
    pub encoding: Option<String>,
}

impl RunHeader {
    /// Every name this run's journal knows its account by.
    pub fn account_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.account.as_str()).chain(self.accounts.iter().map(String::as_str))
    }

    /// The same account: one name in common (a user id, a campaign).
    pub fn same_account(&self, other: &RunHeader) -> bool {
        let theirs: Vec<&str> = other.account_names().collect();
        self.account_names().any(|name| theirs.contains(&name))
    }

    /// What differs between this run and `other` in the rows they read or send, if anything.
    pub fn differs_from(&self, other: &RunHeader) -> Option<&'static str> {
        if self.fingerprint != other.fingerprint {
            Some("the source file")
        } else if self.reading.sheet != other.reading.sheet
            || self.reading.sheet_position != other.reading.sheet_position
        {
            Some("the sheet")
        } else if self.reading != other.reading {
            Some("the header row, delimiter or encoding")
        } else if self.mapping != other.mapping || self.allow_duplicates != other.allow_duplicates {
            Some("the mapping")
        } else {
            None
        }
    }
}

/// One line after the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Entry {
    /// About to send this row, with this content (`fp`, hex).
    Attempt {
        row: u64,
        phone: String,
        campaign_id: u64,
        fp: String,
        /// The row's own key (hex): its identity across runs of its source.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        /// The key went out with the lead (as its `leadsync_key` variable).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keyed: bool,
        /// The request timeout it is sent with, in ms: its commit window is twice that.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// What became of it.
    Outcome {
        row: u64,
        status: Final,
        /// The content the outcome is for (hex).
        fp: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        lead_id: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// For `in_doubt`: when the write can no longer commit (Unix ms).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        commit_by: Option<u64>,
        /// Found on the service's lead list rather than answered by it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        reconciled: bool,
        /// For `in_doubt`: the row's key (hex) and whether its write carried it, when no attempt
        /// line of this journal says so (a doubt carried in from the run this one replaced).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keyed: bool,
    },
    /// The whole source was read and every row has a final outcome.
    Finished { at: String },
    /// A write an earlier run of this source left in doubt, carried into this one (which reads
    /// other rows or other content) until the lead list settles it.
    Carried {
        key: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keyed: bool,
        /// When the write can no longer commit (Unix ms).
        commit_by: u64,
    },
}

/// A row about to be sent, as its attempt line records it.
#[derive(Debug, Clone, Copy)]
pub struct Attempt<'a> {
    pub row: u64,
    pub phone: &'a str,
    pub campaign_id: u64,
    pub fp: u64,
    pub key: Option<u64>,
    pub keyed: bool,
    pub timeout: Duration,
}

/// A write in doubt as the journal knows it beyond its row state: the row's key, and the
/// timeout it was sent with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sending {
    pub key: Option<u64>,
    pub keyed: bool,
    pub timeout_ms: Option<u64>,
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
    /// Not final: the service did not act on it; the next run sends it again.
    Failed,
    /// Not final: the service may have written it; the next run reconciles before resending.
    InDoubt,
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
    #[error(
        "row {row} of `{source_name}` is not what the unfinished run recorded in `{path}` sent or settled: it would be reported as done with other content; pass `--restart` to start over (rows already sent are then found by `--skip-existing`)"
    )]
    RowChanged { row: u64, source_name: String, path: String },
    #[error("cannot {action} the journal `{path}`: {source}")]
    Io { action: &'static str, path: String, source: std::io::Error },
    #[error(
        "`{path}` is not a leadsync journal (line 1): {reason}; move it away or pass `--restart`"
    )]
    NotAJournal { path: String, reason: String },
    #[error(
        "the journal `{path}` is damaged at line {line} ({reason}): rows after it could be sent twice, so nothing is sent; move it away and run with `--skip-existing`, or pass `--restart`"
    )]
    Corrupt { path: String, line: u64, reason: String },
    #[error("{}", version_message(path, *found, *newer))]
    Version { path: String, found: u64, newer: bool },
    #[error(
        "the journal `{path}` belongs to a run against `{service}` or another account: use another `--journal`, or `--restart` to start over"
    )]
    OtherService { path: String, service: String },
    #[error("another leadsync run is using the journal `{path}`: wait for it to finish")]
    Busy { path: String },
}

fn version_message(path: &str, found: u64, newer: bool) -> String {
    if newer {
        format!(
            "the journal `{path}` was written by a newer leadsync (format {found}, this one reads {FORMAT_VERSION}): upgrade leadsync to resume it"
        )
    } else {
        format!(
            "the journal `{path}` has the old format {found}, which cannot prove which row content was sent: pass `--restart --skip-existing` to start over without sending what is already on the service"
        )
    }
}

/// The open journal of the current run. Only the collector writes to it.
pub struct Journal {
    path: PathBuf,
    out: BufWriter<File>,
    unsynced: usize,
    last_sync: Instant,
    /// Makes attempts durable on its own thread while the ledger commits their claims.
    syncer: Option<Syncer>,
    _lock: RunLock,
}

/// A thread that fsyncs the journal when asked, so a batch's fsync and the commit of its claims
/// in the ledger run side by side instead of one after the other.
struct Syncer {
    ask: std::sync::mpsc::Sender<()>,
    done: std::sync::mpsc::Receiver<std::io::Result<()>>,
}

impl Syncer {
    fn start(file: File) -> std::io::Result<Syncer> {
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let (tell, done) = std::sync::mpsc::channel();
        std::thread::Builder::new().name("journal-sync".into()).spawn(move || {
            while asked.recv().is_ok() {
                if tell.send(file.sync_data()).is_err() {
                    return;
                }
            }
        })?;
        Ok(Syncer { ask, done })
    }
}

/// Attempts written and being made durable: `wait` returns once they are. Dropped without
/// `wait` (an error elsewhere), it still takes the fsync's answer, so a later batch never
/// reads this one's.
#[must_use = "the attempts are durable only once `wait` returned"]
pub struct Syncing<'a> {
    journal: &'a mut Journal,
    answered: bool,
}

impl Syncing<'_> {
    pub fn wait(mut self) -> Result<(), JournalError> {
        let synced = self.answer();
        synced.map_err(|e| io_err("sync", &self.journal.path, e))?;
        self.journal.unsynced = 0;
        self.journal.last_sync = Instant::now();
        Ok(())
    }

    fn answer(&mut self) -> std::io::Result<()> {
        self.answered = true;
        match &self.journal.syncer {
            Some(syncer) => syncer.done.recv().unwrap_or_else(|_| Err(syncer_gone())),
            None => Err(syncer_gone()),
        }
    }
}

impl Drop for Syncing<'_> {
    fn drop(&mut self) {
        if !self.answered {
            let _ = self.answer();
        }
    }
}

fn syncer_gone() -> std::io::Error {
    std::io::Error::other("the thread that syncs the journal stopped")
}

impl Journal {
    /// Reads what the journal at `path` holds (see [`Recovered::read`]).
    pub fn recover(path: &Path) -> Result<Recovered, JournalError> {
        Recovered::read(path)
    }

    /// Starts a new journal (replacing any old one) with `header` as its first line. The new
    /// file is written aside and renamed into place, so a crash leaves the old or the new.
    fn create(lock: RunLock, header: &RunHeader) -> Result<Journal, JournalError> {
        let path = lock.journal().to_path_buf();
        let mut aside = path.clone().into_os_string();
        aside.push(".new");
        let aside = PathBuf::from(aside);
        let file = File::create(&aside).map_err(|e| io_err("create", &path, e))?;
        let mut journal = Journal::wrap(lock, file);
        journal.write_line(header)?;
        journal.sync()?;
        std::fs::rename(&aside, &path).map_err(|e| io_err("create", &path, e))?;
        lock::sync_dir(lock::folder_of(&path))
            .map_err(|e| io_err("sync the folder of", &path, e))?;
        Ok(journal)
    }

    /// Continues an existing journal, first cutting off a torn last line.
    fn append(lock: RunLock, recovered: &Recovered) -> Result<Journal, JournalError> {
        let path = lock.journal().to_path_buf();
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| io_err("open", &path, e))?;
        if let Some(at) = recovered.torn_at {
            file.set_len(at).map_err(|e| io_err("repair", &path, e))?;
            file.sync_data().map_err(|e| io_err("sync", &path, e))?;
        } else if ends_without_newline(&file).map_err(|e| io_err("read", &path, e))? {
            // The last line parsed but its newline never made it to disk.
            (&file).write_all(b"\n").map_err(|e| io_err("write", &path, e))?;
        }
        Ok(Journal::wrap(lock, file))
    }

    fn wrap(lock: RunLock, file: File) -> Journal {
        Journal {
            path: lock.journal().to_path_buf(),
            out: BufWriter::with_capacity(1 << 16, file),
            unsynced: 0,
            last_sync: Instant::now(),
            syncer: None,
            _lock: lock,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records attempts (row, phone, campaign, content) without a key or timeout, as older
    /// versions did, and makes them durable.
    pub fn attempts<'a>(
        &mut self,
        rows: impl IntoIterator<Item = (u64, &'a str, u64, u64)>,
    ) -> Result<(), JournalError> {
        self.attempts_of(rows.into_iter().map(|(row, phone, campaign_id, fp)| Attempt {
            row,
            phone,
            campaign_id,
            fp,
            key: None,
            keyed: false,
            timeout: Duration::ZERO,
        }))
    }

    /// Records attempts and makes them durable before any of these rows is sent.
    pub fn attempts_of<'a>(
        &mut self,
        rows: impl IntoIterator<Item = Attempt<'a>>,
    ) -> Result<(), JournalError> {
        self.write_attempts(rows)?;
        self.sync()
    }

    /// Records attempts and starts making them durable on another thread; none of these rows
    /// may be sent before [`Syncing::wait`] returned.
    pub fn attempts_syncing<'a>(
        &mut self,
        rows: impl IntoIterator<Item = Attempt<'a>>,
    ) -> Result<Syncing<'_>, JournalError> {
        self.write_attempts(rows)?;
        self.out.flush().map_err(|e| io_err("write", &self.path, e))?;
        if self.syncer.is_none() {
            let file = self.out.get_ref().try_clone().map_err(|e| io_err("sync", &self.path, e))?;
            self.syncer = Some(Syncer::start(file).map_err(|e| io_err("sync", &self.path, e))?);
        }
        let asked = self.syncer.as_ref().is_some_and(|syncer| syncer.ask.send(()).is_ok());
        if !asked {
            return Err(io_err("sync", &self.path, syncer_gone()));
        }
        Ok(Syncing { journal: self, answered: false })
    }

    fn write_attempts<'a>(
        &mut self,
        rows: impl IntoIterator<Item = Attempt<'a>>,
    ) -> Result<(), JournalError> {
        for a in rows {
            let timeout_ms = (!a.timeout.is_zero())
                .then(|| u64::try_from(a.timeout.as_millis()).unwrap_or(u64::MAX));
            self.write_line(&Entry::Attempt {
                row: a.row,
                phone: a.phone.to_string(),
                campaign_id: a.campaign_id,
                fp: fp_text(a.fp),
                key: a.key.map(fp_text),
                keyed: a.keyed,
                timeout_ms,
            })?;
        }
        Ok(())
    }

    /// Records the writes an earlier run left in doubt that this new run takes over.
    pub fn carry(&mut self, doubts: &[CarriedDoubt]) -> Result<(), JournalError> {
        for d in doubts {
            let entry =
                Entry::Carried { key: fp_text(d.key), keyed: d.keyed, commit_by: d.commit_by };
            self.write_line(&entry)?;
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

/// A row fingerprint as journaled.
pub fn fp_text(fp: u64) -> String {
    format!("{fp:016x}")
}

fn ends_without_newline(mut file: &File) -> std::io::Result<bool> {
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

/// Where the journal of one run lives under `dir`: one file per distinct `parts` (the source,
/// its sheet, the service, the account, ...), named after the source and sheet for people.
pub fn default_path(dir: &Path, source: &str, sheet: Option<&str>, parts: &[&str]) -> PathBuf {
    let mut text = format!("{source}\n{}", sheet.unwrap_or_default());
    for part in parts {
        text.push('\n');
        text.push_str(part);
    }
    let key = blake3::hash(text.as_bytes()).to_hex();
    let readable = |s: &str| -> String {
        s.chars().filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_').take(40).collect()
    };
    let mut stem = Path::new(source).file_stem().map(|s| readable(&s.to_string_lossy()));
    if let (Some(stem), Some(sheet)) = (stem.as_mut(), sheet) {
        stem.push('-');
        stem.push_str(&readable(sheet));
    }
    dir.join(format!("{}-{}.jsonl", stem.unwrap_or_default(), &key[..16]))
}

/// The default journal of a run of `source` for the account known by `names`: the journal
/// one per source, sheet and `parts` (service, run key) that an earlier run of the same account
/// wrote, whatever name the account had then; else the first free slot beside it. Another
/// account's journal of the same source takes a slot of its own.
pub fn account_path(
    dir: &Path,
    source: &str,
    sheet: Option<&str>,
    parts: &[&str],
    names: &[String],
) -> PathBuf {
    let base = default_path(dir, source, sheet, parts);
    let mut free = None;
    for slot in 1..=MAX_ACCOUNT_SLOTS {
        let path = if slot == 1 { base.clone() } else { slot_path(&base, slot) };
        match first_line_accounts(&path) {
            Some(theirs) if theirs.iter().any(|n| names.contains(n)) => return path,
            Some(_) => {}
            None => {
                free.get_or_insert(path);
            }
        }
    }
    free.unwrap_or(base)
}

/// Accounts importing the same source into one state folder, at most.
const MAX_ACCOUNT_SLOTS: usize = 16;

fn slot_path(base: &Path, slot: usize) -> PathBuf {
    let stem = base.file_stem().unwrap_or_default().to_string_lossy();
    base.with_file_name(format!("{stem}.{slot}.jsonl"))
}

/// The account names of the journal at `path`, from its header; `None` when there is no
/// journal there (or no readable header, which the run itself then reports).
fn first_line_accounts(path: &Path) -> Option<Vec<String>> {
    use std::io::{BufRead, Read};
    let file = regular::open_file(path).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(file).take(1 << 20).read_line(&mut line).ok()?;
    let header: RunHeader = serde_json::from_str(line.trim_end()).ok()?;
    Some(header.account_names().map(str::to_string).collect())
}

/// Reads the journal under `lock` and starts the run described by `header` in one step, its
/// baseline already known (the journal's tests and the fuzz harness open runs this way).
pub fn open_run(
    lock: RunLock,
    header: RunHeader,
    on_change: OnChange,
    restart: bool,
) -> Result<(Journal, Recovered), JournalError> {
    Opening::read(lock, &header, on_change, restart)?.start(header)
}

/// A run's journal, read under its lock (taken before anything the run depends on is read):
/// the run recorded there when it is the same (same rows read the same way, same mapping), or
/// a new run to start. Split from writing a new header because a new run's header holds the
/// service's highest lead id, which only a new run needs to ask for.
pub enum Opening {
    /// The same run: it goes on where it stopped (boxed: a journal's buffer is large).
    Resume(Box<(Journal, Recovered)>),
    /// A new run; [`Opening::start`] writes its header. With what the journal it replaces
    /// left behind, when that was a run of the same service and account: its writes in doubt
    /// are carried over.
    New(RunLock, Option<Box<Recovered>>),
}

impl Opening {
    /// Reads the journal and decides whether `header` (whose baseline is not compared)
    /// continues it.
    pub fn read(
        lock: RunLock,
        header: &RunHeader,
        on_change: OnChange,
        restart: bool,
    ) -> Result<Opening, JournalError> {
        let path = lock.journal().to_path_buf();
        if restart {
            // Starting over still takes over what the old run left in doubt, when it can be read.
            let old = Journal::recover(&path).ok().filter(|r| r.of_run(header));
            return Ok(Opening::New(lock, old.map(Box::new)));
        }
        let recovered = match Journal::recover(&path) {
            // An old-format journal of a finished run holds nothing to resume.
            Err(JournalError::Version { newer: false, .. }) if old_run_finished(&path) => {
                return Ok(Opening::New(lock, None));
            }
            other => other?,
        };
        let Some(old) = &recovered.header else { return Ok(Opening::New(lock, None)) };
        if old.service != header.service || !old.same_account(header) {
            // Resuming another service's run would mark rows as sent that this service never saw.
            let service = old.service.clone();
            return Err(JournalError::OtherService { path: path.display().to_string(), service });
        }
        match header.differs_from(old) {
            None => {
                let journal = Journal::append(lock, &recovered)?;
                Ok(Opening::Resume(Box::new((journal, recovered))))
            }
            Some(what) if on_change == OnChange::Refuse && !recovered.finished => {
                Err(JournalError::Changed { what, path: path.display().to_string() })
            }
            Some(_) => Ok(Opening::New(lock, Some(Box::new(recovered)))),
        }
    }

    /// The journal to write to, and what an earlier run of it settled. A new run's journal
    /// starts with `header`; a resumed one keeps its own.
    pub fn start(self, header: RunHeader) -> Result<(Journal, Recovered), JournalError> {
        match self {
            Opening::Resume(resumed) => Ok(*resumed),
            Opening::New(lock, _) => Ok((Journal::create(lock, &header)?, Recovered::default())),
        }
    }
}

/// Whether a journal of an older format ends with its run's `finished` line (read from its
/// tail only: an old journal can be large).
fn old_run_finished(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = regular::open_file(path) else { return false };
    let len = file.metadata().map_or(0, |m| m.len());
    let mut tail = Vec::new();
    let read = file
        .seek(SeekFrom::Start(len.saturating_sub(4096)))
        .and_then(|_| file.read_to_end(&mut tail));
    if read.is_err() {
        return false;
    }
    let last = tail.trim_ascii_end().rsplit(|b| *b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<serde_json::Value>(last)
        .is_ok_and(|v| v.get("event").and_then(|e| e.as_str()) == Some("finished"))
}

/// blake3 of a file's bytes, streamed.
pub fn fingerprint_file(path: &Path) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(File::open(path)?)?;
    Ok(hasher.finalize().to_hex().to_string())
}

#[cfg(test)]
pub(crate) mod tests;
