//! The ledger: who each lead is, for every command and front. One SQLite file in the state
//! folder (`ledger.sqlite`) holds, per service and identity ([`identity`]), the lead id,
//! a digest of what was sent, where it came from (source, sheet, row, front) and when; and for
//! a write under way, the claim taken in a transaction before its request leaves, which stays
//! until its outcome is recorded, so a write in doubt survives any kill.
//!
//! Why SQLite: two processes on one account (`import` and `sync` at once, the browser and a
//! cron job) must never both send one identity, and SQLite's transactions between processes
//! (`BEGIN IMMEDIATE`, WAL so readers never wait) give exactly that with no server; a
//! million identities open at once and are looked up by key. The journals of each run stay for
//! progress and resume; "never twice, never lost" rests on this ledger and the service's lead
//! list. Campaign ids are unique across a service, so identities (which hold the campaign) of
//! two accounts never meet: one file serves every account of the folder.

pub mod identity;
mod upgrade;

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

/// The ledger's file in the state folder.
pub const FILE: &str = "ledger.sqlite";
/// The schema this build writes and reads.
const SCHEMA: i64 = 1;

/// Where a lead, or a claim on one, came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The file or URL as the user named it.
    pub source: String,
    pub sheet: Option<String>,
    pub row: u64,
    /// `import`, `sync`, `ui`, or `service` for a lead learnt from the lead list.
    pub front: String,
    /// Unix ms.
    pub at: u64,
}

/// A write claimed by a run: under way, or in doubt until its outcome is recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    /// The key the write carried (`leadsync_key`), when `keyed`.
    pub sent_key: u64,
    pub keyed: bool,
    /// When the write can no longer commit (Unix ms).
    pub commit_by: u64,
    pub origin: Origin,
}

/// What the ledger knows of an identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    Unknown,
    /// On the service: its lead (unknown when the service answered "duplicate" without it).
    Sent {
        lead_id: Option<u64>,
        origin: Origin,
    },
    /// Claimed by this run.
    Ours,
    /// Claimed by another run, alive or not.
    Claimed(Held),
}

/// A write about to leave.
#[derive(Debug, Clone)]
pub struct Intent<'a> {
    pub key: u64,
    pub campaign_id: u64,
    pub phone: &'a str,
    pub sent_key: u64,
    pub keyed: bool,
    pub commit_by: u64,
    pub row: u64,
    /// A lead list asked for at this time (Unix ms) did not hold the identity: a claim of
    /// another run whose write could no longer commit by then may be taken over.
    pub checked_at: Option<u64>,
}

/// Whether a write may leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Granted {
    Go,
    /// Another run sent it meanwhile.
    Sent {
        lead_id: Option<u64>,
        origin: Origin,
    },
    /// Another run is sending it, or holds it in doubt.
    UnderWay(Held),
}

/// A lead on the service, learnt by a run.
#[derive(Debug, Clone)]
pub struct Settled {
    pub key: u64,
    pub campaign_id: u64,
    pub phone: String,
    pub lead_id: Option<u64>,
    /// A digest of what was sent (0 when not sent by this run).
    pub digest: u64,
    pub row: u64,
    /// Found on the lead list for another run's claim: the claim's origin is kept.
    pub keep_origin: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error(
        "cannot use the ledger `{path}` ({source}); it records which leads were sent, so nothing is sent without it: check the state folder's permissions and free space"
    )]
    Sqlite { path: String, source: rusqlite::Error },
    #[error(
        "the ledger `{path}` was written by a newer leadsync (schema {found}): upgrade leadsync"
    )]
    Newer { path: String, found: i64 },
    #[error("cannot create the state folder `{path}`: {source}")]
    Folder { path: String, source: std::io::Error },
}

/// The ledger of one state folder, opened for one run against one service.
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
    service: String,
    /// This run's claims carry it; random per run.
    owner: i64,
    source: String,
    sheet: Option<String>,
    front: String,
}

/// Where a run sends from, for the origins it records.
#[derive(Debug, Clone, Default)]
pub struct RunOrigin {
    pub source: String,
    pub sheet: Option<String>,
    pub front: String,
}

impl Ledger {
    /// Opens (creating) the ledger of `state_dir` for a run against `service`. The first open
    /// reads the journals earlier versions left in the folder into it, once.
    pub fn open(state_dir: &Path, service: &str, run: RunOrigin) -> Result<Ledger, LedgerError> {
        std::fs::create_dir_all(state_dir).map_err(|source| LedgerError::Folder {
            path: state_dir.display().to_string(),
            source,
        })?;
        let path = state_dir.join(FILE);
        let conn = Connection::open(&path).map_err(|e| sqlite(&path, e))?;
        let owner = loop {
            let id: i64 = rand::random();
            if id != 0 {
                break id;
            }
        };
        let RunOrigin { source, sheet, front } = run;
        let mut ledger =
            Ledger { conn, path, service: service.to_string(), owner, source, sheet, front };
        busy_retry(|| ledger.prepare()).map_err(|e| sqlite(&ledger.path, e))?;
        ledger.check_schema()?;
        ledger.adopt_journals(state_dir)?;
        Ok(ledger)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn prepare(&mut self) -> rusqlite::Result<()> {
        // Another run may hold the write lock for a batch of claims: wait for it.
        self.conn.busy_timeout(std::time::Duration::from_secs(30))?;
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        // A commit survives a killed process; a power cut may lose the last ones, which the
        // run's own journal (fsynced before each request) still holds.
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        // The write-ahead log is cut back to 4 MiB after each checkpoint.
        self.conn.pragma_update(None, "journal_size_limit", 4 << 20)?;
        self.conn.execute_batch(
            // Settled leads and claims on writes under way live apart: the claims table stays
            // a few pages (one run's writes in the air), so claiming costs little whatever the
            // size of the ledger, and settled leads are written in batches.
            "CREATE TABLE IF NOT EXISTS leads (
                service TEXT NOT NULL,
                key INTEGER NOT NULL,
                campaign_id INTEGER NOT NULL,
                phone TEXT NOT NULL,
                lead_id INTEGER,
                digest INTEGER,
                source TEXT NOT NULL,
                sheet TEXT,
                row INTEGER NOT NULL,
                front TEXT NOT NULL,
                at INTEGER NOT NULL,
                PRIMARY KEY (service, key)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS claims (
                service TEXT NOT NULL,
                key INTEGER NOT NULL,
                campaign_id INTEGER NOT NULL,
                phone TEXT NOT NULL,
                source TEXT NOT NULL,
                sheet TEXT,
                row INTEGER NOT NULL,
                front TEXT NOT NULL,
                at INTEGER NOT NULL,
                owner INTEGER NOT NULL,
                sent_key INTEGER NOT NULL,
                keyed INTEGER NOT NULL,
                commit_by INTEGER NOT NULL,
                PRIMARY KEY (service, key)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS accounts (
                service TEXT NOT NULL,
                name TEXT NOT NULL,
                listed_at INTEGER NOT NULL,
                PRIMARY KEY (service, name)
            ) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);",
        )
    }

    fn check_schema(&mut self) -> Result<(), LedgerError> {
        let found: i64 =
            busy_retry(|| self.conn.pragma_query_value(None, "user_version", |r| r.get(0)))
                .map_err(|e| sqlite(&self.path, e))?;
        if found > SCHEMA {
            return Err(LedgerError::Newer { path: self.path.display().to_string(), found });
        }
        if found < SCHEMA {
            busy_retry(|| self.conn.pragma_update(None, "user_version", SCHEMA))
                .map_err(|e| sqlite(&self.path, e))?;
        }
        Ok(())
    }

    /// What the ledger knows of the identity `key`.
    pub fn lookup(&self, key: u64) -> Result<Known, LedgerError> {
        busy_retry(|| self.lookup_in(&self.conn, key)).map_err(|e| sqlite(&self.path, e))
    }

    fn lookup_in(&self, conn: &Connection, key: u64) -> rusqlite::Result<Known> {
        let origin = |r: &rusqlite::Row, at: usize| -> rusqlite::Result<Origin> {
            Ok(Origin {
                source: r.get(at)?,
                sheet: r.get(at + 1)?,
                row: r.get::<_, i64>(at + 2)? as u64,
                front: r.get(at + 3)?,
                at: r.get::<_, i64>(at + 4)? as u64,
            })
        };
        let mut settled = conn.prepare_cached(
            "SELECT lead_id, source, sheet, row, front, at FROM leads WHERE service = ?1 AND key = ?2",
        )?;
        let sent = settled
            .query_row(params![self.service, key as i64], |r| {
                let lead_id = r.get::<_, Option<i64>>(0)?.map(|id| id as u64);
                Ok(Known::Sent { lead_id, origin: origin(r, 1)? })
            })
            .optional()?;
        if let Some(sent) = sent {
            return Ok(sent);
        }
        let mut claimed = conn.prepare_cached(
            "SELECT owner, sent_key, keyed, commit_by, source, sheet, row, front, at
             FROM claims WHERE service = ?1 AND key = ?2",
        )?;
        let held = claimed
            .query_row(params![self.service, key as i64], |r| {
                if r.get::<_, i64>(0)? == self.owner {
                    return Ok(Known::Ours);
                }
                Ok(Known::Claimed(Held {
                    sent_key: r.get::<_, i64>(1)? as u64,
                    keyed: r.get(2)?,
                    commit_by: r.get::<_, i64>(3)? as u64,
                    origin: origin(r, 4)?,
                }))
            })
            .optional()?;
        Ok(held.unwrap_or(Known::Unknown))
    }

    /// Records what runs learnt, then claims each write of `intents` in the same transaction,
    /// before any of them leaves: a write leaves only when it is `Go`.
    pub fn claim(
        &mut self,
        settled: &[Settled],
        intents: &[Intent],
    ) -> Result<Vec<Granted>, LedgerError> {
        let path = self.path.clone();
        busy_retry(|| self.claim_in(settled, intents)).map_err(|e| sqlite(&path, e))
    }

    fn claim_in(
        &mut self,
        settled: &[Settled],
        intents: &[Intent],
    ) -> rusqlite::Result<Vec<Granted>> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        record_settled(&tx, &self.service, &self.origin_of(0), settled)?;
        let mut granted = Vec::with_capacity(intents.len());
        for intent in intents {
            let answer = match self.lookup_in(&tx, intent.key)? {
                Known::Sent { lead_id, origin } => Granted::Sent { lead_id, origin },
                Known::Claimed(held) if intent.checked_at.is_none_or(|at| held.commit_by > at) => {
                    Granted::UnderWay(held)
                }
                Known::Unknown | Known::Ours | Known::Claimed(_) => {
                    self.write_claim(&tx, intent)?;
                    Granted::Go
                }
            };
            granted.push(answer);
        }
        tx.commit()?;
        Ok(granted)
    }

    fn write_claim(&self, conn: &Connection, intent: &Intent) -> rusqlite::Result<()> {
        let mut insert = conn.prepare_cached(
            "INSERT OR REPLACE INTO claims (service, key, campaign_id, phone, source, sheet, row,
                front, at, owner, sent_key, keyed, commit_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        )?;
        insert.execute(params![
            self.service,
            intent.key as i64,
            intent.campaign_id as i64,
            intent.phone,
            self.source,
            self.sheet,
            intent.row as i64,
            self.front,
            now_ms() as i64,
            self.owner,
            intent.sent_key as i64,
            intent.keyed,
            intent.commit_by as i64,
        ])?;
        Ok(())
    }

    /// Records leads learnt on the service (created, answered as there, found on the list).
    pub fn record(&mut self, settled: &[Settled]) -> Result<(), LedgerError> {
        if settled.is_empty() {
            return Ok(());
        }
        let path = self.path.clone();
        let run = || -> rusqlite::Result<()> {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            record_settled(&tx, &self.service, &self.origin_of(0), settled)?;
            tx.commit()
        };
        busy_retry(run).map_err(|e| sqlite(&path, e))
    }

    /// Gives up this run's claims of `keys`: their writes were refused or never acted on.
    pub fn release(&mut self, keys: &[u64]) -> Result<(), LedgerError> {
        let path = self.path.clone();
        let run = || -> rusqlite::Result<()> {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            {
                let mut delete = tx.prepare_cached(
                    "DELETE FROM claims WHERE service = ?1 AND key = ?2 AND owner = ?3",
                )?;
                for key in keys {
                    delete.execute(params![self.service, *key as i64, self.owner])?;
                }
            }
            tx.commit()
        };
        busy_retry(run).map_err(|e| sqlite(&path, e))
    }

    /// Moves the commit deadline of this run's claim of `key`: its write is in doubt until then.
    pub fn in_doubt(&mut self, key: u64, commit_by: u64) -> Result<(), LedgerError> {
        self.conn
            .execute(
                "UPDATE claims SET commit_by = ?1 WHERE service = ?2 AND key = ?3 AND owner = ?4",
                params![commit_by as i64, self.service, key as i64, self.owner],
            )
            .map(drop)
            .map_err(|e| sqlite(&self.path, e))
    }

    /// The identities other runs hold claims on, on this service: a run that finds any reads
    /// the lead list to settle them. Few: at most a run's concurrency and its last unrecorded
    /// outcomes for each run that died.
    pub fn claimed_by_others(&self) -> Result<std::collections::HashSet<u64>, LedgerError> {
        let run = || -> rusqlite::Result<std::collections::HashSet<u64>> {
            let mut query = self
                .conn
                .prepare_cached("SELECT key FROM claims WHERE service = ?1 AND owner != ?2")?;
            let keys =
                query.query_map(params![self.service, self.owner], |r| r.get::<_, i64>(0))?;
            keys.map(|k| k.map(|k| k as u64)).collect()
        };
        busy_retry(run).map_err(|e| sqlite(&self.path, e))
    }

    /// Whether the ledger has learnt the lead list of the account known by any of `names`: a
    /// ledger that has not (a new machine, a deleted state folder) is rebuilt from it first.
    pub fn knows_account(&self, names: &[String]) -> Result<bool, LedgerError> {
        let mut query = self
            .conn
            .prepare_cached("SELECT 1 FROM accounts WHERE service = ?1 AND name = ?2")
            .map_err(|e| sqlite(&self.path, e))?;
        for name in names {
            let known =
                query.exists(params![self.service, name]).map_err(|e| sqlite(&self.path, e))?;
            if known {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Learns the account's lead list: each lead by its identities (`leads`: key, campaign,
    /// number, lead id), kept where the ledger knows better.
    pub fn learn_list(
        &mut self,
        names: &[String],
        leads: impl Iterator<Item = (u64, u64, String, u64)>,
    ) -> Result<(), LedgerError> {
        let path = self.path.clone();
        let listed = Origin {
            source: "the service's lead list".into(),
            sheet: None,
            row: 0,
            front: "service".into(),
            at: now_ms(),
        };
        let run = || -> rusqlite::Result<()> {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            {
                let mut insert = tx.prepare_cached(
                    "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id,
                        source, sheet, row, front, at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, 0, ?7, ?8)",
                )?;
                for (key, campaign_id, phone, lead_id) in leads {
                    insert.execute(params![
                        self.service,
                        key as i64,
                        campaign_id as i64,
                        phone,
                        lead_id as i64,
                        listed.source,
                        listed.front,
                        listed.at as i64,
                    ])?;
                }
                let mut account = tx.prepare_cached(
                    "INSERT OR REPLACE INTO accounts (service, name, listed_at) VALUES (?1, ?2, ?3)",
                )?;
                for name in names {
                    account.execute(params![self.service, name, listed.at as i64])?;
                }
            }
            drop_settled_claims(&tx)?;
            tx.commit()
        };
        run().map_err(|e| sqlite(&path, e))
    }

    /// Settles the claims of other runs whose writes carried a key and could no longer commit
    /// when a lead list was asked for at `listed_at` (Unix ms): each is the lead `on_list` finds
    /// for its key, or, when there is none, a write that never arrived, whose claim goes. So a
    /// dead run's claims cost one lead list, not one for every run after it. Claims without a
    /// key are left to the rows that claim them (matched by number, `push::reconcile`).
    pub fn settle_stale(
        &mut self,
        listed_at: u64,
        on_list: impl Fn(u64) -> Option<u64>,
    ) -> Result<usize, LedgerError> {
        let path = self.path.clone();
        let run = || -> rusqlite::Result<usize> {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            let stale: Vec<(i64, i64, i64)> = {
                let mut query = tx.prepare_cached(
                    "SELECT key, owner, sent_key FROM claims
                     WHERE service = ?1 AND owner != ?2 AND keyed AND commit_by <= ?3",
                )?;
                let rows = query
                    .query_map(params![self.service, self.owner, listed_at as i64], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            for &(key, owner, sent_key) in &stale {
                if let Some(lead_id) = on_list(sent_key as u64) {
                    tx.execute(
                        "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id,
                            source, sheet, row, front, at)
                         SELECT service, key, campaign_id, phone, ?4, source, sheet, row, front, at
                         FROM claims WHERE service = ?1 AND key = ?2 AND owner = ?3",
                        params![self.service, key, owner, lead_id as i64],
                    )?;
                }
                tx.execute(
                    "DELETE FROM claims WHERE service = ?1 AND key = ?2 AND owner = ?3",
                    params![self.service, key, owner],
                )?;
            }
            tx.commit()?;
            Ok(stale.len())
        };
        busy_retry(run).map_err(|e| sqlite(&path, e))
    }

    fn origin_of(&self, row: u64) -> Origin {
        Origin {
            source: self.source.clone(),
            sheet: self.sheet.clone(),
            row,
            front: self.front.clone(),
            at: now_ms(),
        }
    }
}

fn record_settled(
    conn: &Connection,
    service: &str,
    origin: &Origin,
    settled: &[Settled],
) -> rusqlite::Result<()> {
    // A claim settled for another run keeps that run's origin: it sent the lead.
    let mut theirs = conn.prepare_cached(
        "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id, source, sheet, row,
            front, at)
         SELECT service, key, campaign_id, phone, ?3, source, sheet, row, front, at
         FROM claims WHERE service = ?1 AND key = ?2",
    )?;
    let mut ours = conn.prepare_cached(
        "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id, digest, source,
            sheet, row, front, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    let mut unclaim = conn.prepare_cached("DELETE FROM claims WHERE service = ?1 AND key = ?2")?;
    for s in settled {
        let (key, lead_id) = (s.key as i64, s.lead_id.map(|id| id as i64));
        if s.keep_origin {
            theirs.execute(params![service, key, lead_id])?;
        }
        ours.execute(params![
            service,
            key,
            s.campaign_id as i64,
            s.phone,
            lead_id,
            s.digest as i64,
            origin.source,
            origin.sheet,
            s.row as i64,
            origin.front,
            origin.at as i64,
        ])?;
        // Settled: the identity is nobody's write in the air any more.
        unclaim.execute(params![service, key])?;
    }
    Ok(())
}

/// Claims of identities the ledger knows a lead of: their writes' outcome is known.
fn drop_settled_claims(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM claims WHERE EXISTS
            (SELECT 1 FROM leads WHERE leads.service = claims.service AND leads.key = claims.key)",
        [],
    )
    .map(drop)
}

/// Runs `op` again while SQLite answers "database is locked" without waiting itself (a
/// read that must become a write, a log being recovered, a file switched to WAL by another
/// process at the same moment), for up to 30 s: two runs starting together must both go on.
fn busy_retry<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_millis(10);
    loop {
        match op() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < std::time::Duration::from_secs(30) =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(std::time::Duration::from_millis(250));
            }
            other => return other,
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    unix_ms(std::time::SystemTime::now())
}

fn unix_ms(at: std::time::SystemTime) -> u64 {
    at.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn sqlite(path: &Path, source: rusqlite::Error) -> LedgerError {
    LedgerError::Sqlite { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests;
