//! Reading a journal back: which rows an earlier run settled, which are in doubt and which may
//! simply be sent again.
//!
//! Only one kind of damage is expected: a torn last line, left by a crash in the middle of a
//! write. It is ignored here and cut off before the journal is appended to. Anything else that
//! does not parse (a bad line in the middle, a header from a newer leadsync) is damage that
//! could make a row look unsent, so it stops the run with an error naming the line.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use super::states::RowStates;
use super::{Entry, FORMAT_VERSION, Final, JournalError, RunHeader};

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

/// What a previous run left behind.
#[derive(Debug, Clone, Default)]
pub struct Recovered {
    pub header: Option<RunHeader>,
    pub rows: RowStates,
    pub finished: bool,
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

    /// Reads what the journal at `path` holds. A missing file is an empty journal.
    pub fn read(path: &Path) -> Result<Recovered, JournalError> {
        let file = match File::open(path) {
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
            let read = reader.read_until(b'\n', &mut line).map_err(|e| io_err(path, e))?;
            if read == 0 {
                return Ok(recovered.settled());
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
        match entry {
            Entry::Attempt { row, fp, .. } => {
                self.rows.insert(row, RowState::InDoubt { fp: parse_fp(&fp)?, commit_by: None });
            }
            Entry::Outcome { row, status: Final::Failed, .. } => {
                self.rows.insert(row, RowState::Retry);
            }
            Entry::Outcome { row, status: Final::InDoubt, fp, commit_by, .. } => {
                self.rows.insert(row, RowState::InDoubt { fp: parse_fp(&fp)?, commit_by });
            }
            Entry::Outcome { row, status, lead_id, message, fp, .. } => {
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
