//! Journals of earlier versions, read into the ledger once, so that upgrading never sends again
//! what an older version sent: every row a journal settled with a lead becomes that lead's
//! identity, and every write a journal left in doubt a claim of nobody alive, which the next run
//! settles from the lead list before anything is sent.

use std::collections::HashMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use rusqlite::params;

use super::identity::{Who, identity_key};
use super::{Ledger, LedgerError, origin_id, service_id, sqlite};
use crate::journal::regular::{is_regular, next_line, open_regular};
use crate::journal::{Entry, Final, RunHeader};

/// How deep under the state folder journals are looked for (`journals/`, `sync/`, the
/// browser's runs).
const DEPTH: usize = 4;

/// A row of a journal as far as it was read: what its last attempt sent.
struct Sent {
    phone: String,
    campaign_id: u64,
    occurrence: u32,
    /// The row's identity as its journal recorded it, else computed from its number.
    identity: Option<u64>,
    key: Option<u64>,
    keyed: bool,
    timeout_ms: Option<u64>,
}

impl Ledger {
    /// Reads the state folder's journals into the ledger, the first time it is opened.
    pub(super) fn adopt_journals(&mut self, state_dir: &Path) -> Result<(), LedgerError> {
        let done = self
            .conn
            .query_row("SELECT 1 FROM meta WHERE name = 'journals_read'", [], |_| Ok(()))
            .is_ok();
        if done {
            return Ok(());
        }
        let mut journals = Vec::new();
        find_journals(state_dir, DEPTH, &mut journals);
        let path = self.path.clone();
        let conn = &self.conn;
        let adopt_all = || -> rusqlite::Result<()> {
            // Immediate: a read that had to become a write could not wait for another run.
            let tx = rusqlite::Transaction::new_unchecked(
                conn,
                rusqlite::TransactionBehavior::Immediate,
            )?;
            let done =
                tx.query_row("SELECT 1 FROM meta WHERE name = 'journals_read'", [], |_| Ok(()));
            if done.is_ok() {
                return Ok(()); // another run read them in meanwhile
            }
            for journal in &journals {
                adopt(&tx, journal)?;
            }
            super::drop_settled_claims(&tx)?;
            tx.execute(
                "INSERT OR REPLACE INTO meta (name, value) VALUES ('journals_read', '1')",
                [],
            )?;
            tx.commit()
        };
        super::busy_retry(adopt_all).map_err(|e| sqlite(&path, e))
    }
}

/// Regular files named `*.jsonl` under `dir`, not through links.
fn find_journals(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && depth > 0 {
            find_journals(&path, depth - 1, out);
        } else if path.extension().is_some_and(|e| e == "jsonl") && is_regular(&path) {
            out.push(path);
        }
    }
}

/// Reads one journal into the ledger; a file that is not a run's journal is passed over.
fn adopt(tx: &rusqlite::Transaction, path: &Path) -> rusqlite::Result<()> {
    let Ok(file) = open_regular(path) else { return Ok(()) };
    let modified = file.metadata().and_then(|m| m.modified()).map_or(0, super::unix_ms);
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    if next_line(&mut reader, &mut line).is_none() {
        return Ok(());
    }
    let Ok(header) = serde_json::from_slice::<RunHeader>(&line) else { return Ok(()) };
    let mut sending: HashMap<u64, Sent> = HashMap::new();
    let mut occurrences: HashMap<(u64, String), u32> = HashMap::new();
    while next_line(&mut reader, &mut line).is_some() {
        let Ok(entry) = serde_json::from_slice::<Entry>(&line) else { continue };
        match entry {
            Entry::Attempt { row, phone, campaign_id, key, keyed, timeout_ms, .. } => {
                let occurrence = match sending.get(&row) {
                    Some(earlier) => earlier.occurrence,
                    None if header.allow_duplicates => {
                        let n = occurrences.entry((campaign_id, phone.clone())).or_insert(0);
                        *n += 1;
                        *n - 1
                    }
                    None => 0,
                };
                let key = key.as_deref().and_then(|k| u64::from_str_radix(k, 16).ok());
                // A journal of this version knows each row's identity: its key.
                let identity = key.filter(|_| header.identity_keys);
                let sent =
                    Sent { phone, campaign_id, occurrence, identity, key, keyed, timeout_ms };
                sending.insert(row, sent);
            }
            Entry::Outcome { row, status, lead_id, commit_by, .. } => {
                let Some(sent) = sending.get(&row) else { continue };
                match status {
                    Final::Created | Final::Skipped => {
                        insert_sent(tx, &header, path, row, sent, lead_id)?;
                        sending.remove(&row);
                    }
                    Final::Rejected | Final::Failed => {
                        sending.remove(&row);
                    }
                    Final::InDoubt => {
                        let commit_by = commit_by.unwrap_or(0);
                        insert_doubt(tx, &header, path, row, sent, commit_by)?;
                    }
                }
            }
            Entry::Finished { .. } | Entry::Carried { .. } => {}
        }
    }
    // Attempts with no outcome: the run died with them in the air.
    for (row, sent) in &sending {
        let window = sent.timeout_ms.unwrap_or(header.timeout_ms).saturating_mul(2);
        insert_doubt(tx, &header, path, *row, sent, modified.saturating_add(window))?;
    }
    Ok(())
}

fn identity_of(sent: &Sent) -> u64 {
    sent.identity.unwrap_or_else(|| {
        identity_key(sent.campaign_id, Who::Number(&sent.phone, sent.occurrence))
    })
}

fn insert_sent(
    tx: &rusqlite::Transaction,
    header: &RunHeader,
    path: &Path,
    row: u64,
    sent: &Sent,
    lead_id: Option<u64>,
) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id, origin, row, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            service_id(tx, &header.service)?,
            identity_of(sent) as i64,
            sent.campaign_id as i64,
            sent.phone,
            lead_id.map(|id| id as i64),
            journal_origin(tx, header)?,
            row as i64,
            started_ms(header, path) as i64,
        ],
    )?;
    Ok(())
}

fn insert_doubt(
    tx: &rusqlite::Transaction,
    header: &RunHeader,
    path: &Path,
    row: u64,
    sent: &Sent,
    commit_by: u64,
) -> rusqlite::Result<()> {
    let sent_key = sent.key.unwrap_or_else(|| identity_of(sent));
    tx.execute(
        // Owner 0 is no run alive; one claim per identity, the first journal's.
        "INSERT INTO claims (owner, seq, service, key, campaign_id, phone, origin, row, at,
            sent_key, keyed, commit_by)
         SELECT 0, (SELECT coalesce(max(seq), 0) + 1 FROM claims WHERE owner = 0),
            ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
         WHERE NOT EXISTS (SELECT 1 FROM claims WHERE service = ?1 AND key = ?2)",
        params![
            service_id(tx, &header.service)?,
            identity_of(sent) as i64,
            sent.campaign_id as i64,
            sent.phone,
            journal_origin(tx, header)?,
            row as i64,
            started_ms(header, path) as i64,
            sent_key as i64,
            sent.keyed && sent.key.is_some(),
            commit_by as i64,
        ],
    )?;
    Ok(())
}

/// The origin of what a journal of an earlier version sent: its source and sheet, front
/// `journal`.
fn journal_origin(tx: &rusqlite::Transaction, header: &RunHeader) -> rusqlite::Result<i64> {
    origin_id(tx, &header.source, header.reading.sheet.as_deref(), "journal")
}

/// When the journal's run started, as its header says (else when the file was last written).
fn started_ms(header: &RunHeader, path: &Path) -> u64 {
    chrono::DateTime::parse_from_rfc3339(&header.started_at)
        .ok()
        .and_then(|at| u64::try_from(at.timestamp_millis()).ok())
        .or_else(|| {
            let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
            Some(super::unix_ms(modified))
        })
        .unwrap_or(0)
}
