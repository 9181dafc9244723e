//! Reading a journal back: which rows an earlier run settled, which are in doubt and which may
//! simply be sent again.
//!
//! Only one kind of damage is expected: a torn last line, left by a crash in the middle of a
//! write. It is ignored here and cut off before the journal is appended to. Anything else that
//! does not parse (a bad line in the middle, a header from a newer leadsync) is damage that
//! could make a row look unsent, so it stops the run with an error naming the line.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::states::RowStates;
use super::{Entry, FORMAT_VERSION, Final, JournalError, RunHeader, Sending};

/// A row's state as read back from a journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowState {
    /// Finished: report it and never send it again (when its content is still `fp`).
    Done { status: Final, lead_id: Option<u64>, message: Option<String>, fp: u64 },
    /// Sent (or maybe sent) without a final answer: reconcile before resending. `commit_by`
    /// (Unix ms) is when the write can no longer commit; `None` when the run died before it
    /// knew.
    InDoubt { fp: u64, commit_by: Option<u64> },
    /// Failed cleanly (the service did not act on it): send again.
    Retry,
}

/// A write an earlier run left in doubt, known by its row's key rather than its row number:
/// a new run of a changed source takes it over until the lead list settles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CarriedDoubt {
    pub key: u64,
    /// The key went out with the lead, so the lead list shows it.
    pub keyed: bool,
    /// When the write can no longer commit (Unix ms).
    pub commit_by: u64,
}

/// What a previous run left behind.
#[derive(Debug, Clone, Default)]
pub struct Recovered {
    pub header: Option<RunHeader>,
    pub rows: RowStates,
    /// The last word of the journal is `finished`: nothing was attempted or settled after it.
    pub finished: bool,
    /// How each row whose last line is an attempt or an in-doubt outcome was sent (its key and
    /// timeout); rows with a final outcome are dropped from it as they are read.
    pub sending: HashMap<u64, Sending>,
    /// Writes in doubt carried in from an earlier run of the source, by key.
    pub carried: HashMap<u64, CarriedDoubt>,
    /// Lead ids already claimed by rows of this journal.
    pub claimed: super::Claimed,
    /// Where a torn last line starts, to be cut off before appending.
    pub(super) torn_at: Option<u64>,
}

impl Recovered {
    pub fn in_doubt(&self) -> usize {
        self.rows.counts().1
    }

    pub fn done(&self) -> usize {
        self.rows.counts().0
    }

    /// Whether a row this journal left in doubt was sent without its key, so that it can only
    /// be matched to a lead by content.
    pub fn has_unkeyed_doubts(&self) -> bool {
        let unkeyed = |row: &u64| !self.sending.get(row).is_some_and(|s| s.keyed);
        self.rows.rows_in_doubt().any(|row| unkeyed(&row))
            || self.carried.values().any(|c| !c.keyed)
    }

    /// Whether this journal is of a run against the service and account of `header`.
    pub fn of_run(&self, header: &RunHeader) -> bool {
        self.header.as_ref().is_some_and(|h| h.service == header.service && h.same_account(header))
    }

    /// The writes this journal leaves in doubt, for a new run that replaces it: its rows in
    /// doubt (a write of a run that died can commit until `listed_at` plus twice the timeout
    /// it was sent with, `fallback` for attempts that did not record one), and what it had
    /// carried in itself and whose deadline is still ahead. Rows sent without a key (older
    /// versions) cannot be told apart in another version of the sheet and are not carried.
    pub fn doubts_to_carry(
        &self,
        listed_at: u64,
        fallback: std::time::Duration,
    ) -> Vec<CarriedDoubt> {
        let mut carried: Vec<CarriedDoubt> =
            self.carried.values().filter(|c| c.commit_by > listed_at).copied().collect();
        for (row, sending) in &self.sending {
            let Some(RowState::InDoubt { commit_by, .. }) = self.rows.get(*row) else { continue };
            let Some(key) = sending.key else { continue };
            let window = sending
                .timeout_ms
                .map_or(fallback, |ms| std::time::Duration::from_millis(ms).saturating_mul(2));
            let commit_by = commit_by.unwrap_or_else(|| {
                listed_at.saturating_add(u64::try_from(window.as_millis()).unwrap_or(u64::MAX))
            });
            carried.retain(|c| c.key != key);
            carried.push(CarriedDoubt { key, keyed: sending.keyed, commit_by });
        }
        carried.sort_unstable_by_key(|c| c.key);
        carried
    }

    /// Reads what the journal at `path` holds. A missing file is an empty journal.
    pub fn read(path: &Path) -> Result<Recovered, JournalError> {
        let file = match super::regular::open_file(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Recovered::default()),
            Err(source) => return Err(io_err(path, source)),
        };
        let mut reader = BufReader::with_capacity(1 << 20, file);
        let mut recovered = Recovered::default();
        let mut line = Vec::new();
        let (mut offset, mut number) = (0u64, 0u64);
        loop {
            line.clear();
            let mut bounded = reader.by_ref().take(super::regular::MAX_LINE);
            let read = bounded.read_until(b'\n', &mut line).map_err(|e| io_err(path, e))?;
            if read == 0 {
                return Ok(recovered.settled());
            }
            if read as u64 == super::regular::MAX_LINE && line.last() != Some(&b'\n') {
                return Err(JournalError::Corrupt {
                    path: path.display().to_string(),
                    line: number + 1,
                    reason: "a line longer than 1 MiB".into(),
                });
            }
            number += 1;
            let complete = line.last() == Some(&b'\n');
            match recovered.take_line(trim_newline(&line), number, path) {
                Ok(()) => {}
                // Only a line cut short by a crash may fail: it is the last one and has no
                // newline, because a line's newline is the last byte written.
                Err(_) if !complete && number > 1 => {
                    recovered.torn_at = Some(offset);
                    return Ok(recovered.settled());
                }
                Err(e) => return Err(e),
            }
            offset += read as u64;
        }
    }

    /// Reading is done, whichever way the journal ended: row states and claimed ids are
    /// sorted for lookup.
    fn settled(mut self) -> Recovered {
        self.rows.settle();
        self.claimed.settle();
        self
    }

    fn take_line(&mut self, line: &[u8], number: u64, path: &Path) -> Result<(), JournalError> {
        if number == 1 {
            self.header = Some(parse_header(line, path)?);
            return Ok(());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let entry = serde_json::from_slice::<Entry>(line).map_err(|e| JournalError::Corrupt {
            path: path.display().to_string(),
            line: number,
            reason: e.to_string(),
        })?;
        self.apply(entry).map_err(|reason| JournalError::Corrupt {
            path: path.display().to_string(),
            line: number,
            reason,
        })
    }

    fn apply(&mut self, entry: Entry) -> Result<(), String> {
        // Anything after a `finished` line reopens the run: only the last word counts.
        if !matches!(entry, Entry::Finished { .. }) {
            self.finished = false;
        }
        match entry {
            Entry::Attempt { row, fp, key, keyed, timeout_ms, .. } => {
                let key = key.as_deref().map(parse_fp).transpose()?;
                self.sending.insert(row, Sending { key, keyed, timeout_ms });
                self.rows.insert(row, RowState::InDoubt { fp: parse_fp(&fp)?, commit_by: None });
            }
            Entry::Outcome { row, status: Final::Failed, .. } => {
                self.sending.remove(&row);
                self.rows.insert(row, RowState::Retry);
            }
            Entry::Outcome { row, status: Final::InDoubt, fp, commit_by, key, keyed, .. } => {
                if let Some(key) = key.as_deref().map(parse_fp).transpose()? {
                    let timeout_ms = self.sending.get(&row).and_then(|s| s.timeout_ms);
                    self.sending.insert(row, Sending { key: Some(key), keyed, timeout_ms });
                }
                self.rows.insert(row, RowState::InDoubt { fp: parse_fp(&fp)?, commit_by });
            }
            Entry::Carried { key, keyed, commit_by } => {
                let key = parse_fp(&key)?;
                self.carried.insert(key, CarriedDoubt { key, keyed, commit_by });
            }
            Entry::Outcome { row, status, lead_id, message, fp, .. } => {
                self.sending.remove(&row);
                if let Some(id) = lead_id {
                    self.claimed.record(id);
                }
                let fp = parse_fp(&fp)?;
                self.rows.insert(row, RowState::Done { status, lead_id, message, fp });
            }
            Entry::Finished { .. } => self.finished = true,
        }
        Ok(())
    }
}

/// The first line: a run header of this format version, or a clear refusal.
fn parse_header(line: &[u8], path: &Path) -> Result<RunHeader, JournalError> {
    let not_a_journal =
        |reason: String| JournalError::NotAJournal { path: path.display().to_string(), reason };
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| not_a_journal(e.to_string()))?;
    if value.get("event").and_then(|e| e.as_str()) != Some("run") {
        return Err(not_a_journal("its first line is not a run header".into()));
    }
    let version = value.get("version").and_then(serde_json::Value::as_u64).unwrap_or(0);
    if version != u64::from(FORMAT_VERSION) {
        return Err(JournalError::Version {
            path: path.display().to_string(),
            found: version,
            newer: version > u64::from(FORMAT_VERSION),
        });
    }
    serde_json::from_value(value).map_err(|e| not_a_journal(e.to_string()))
}

fn parse_fp(text: &str) -> Result<u64, String> {
    u64::from_str_radix(text, 16).map_err(|_| format!("`{text}` is not a row fingerprint"))
}

fn trim_newline(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

fn io_err(path: &Path, source: std::io::Error) -> JournalError {
    JournalError::Io { action: "read", path: path.display().to_string(), source }
}
