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

mod changes;
pub mod identity;
mod upgrade;

pub use changes::{ChangeDone, Recorded};

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

/// The ledger's file in the state folder.
pub const FILE: &str = "ledger.sqlite";
/// The schema this build writes and reads.
/// Schema 2 keeps rows short (services and origins by number, settled leads in the order
/// they came with an index by key): a 200k-row push writes a third of schema 1's pages.
/// Schema 3 adds what a sync changes: a lead stopped by leadsync, changes under way, and a
/// digest of the lead's content alone (earlier digests covered the request, so they go).
const SCHEMA: i64 = 3;

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
    /// [`identity::content_digest`] of the row sent (or found on the service).
    pub digest: u64,
    /// Made by this run's write (not found already on the service).
    pub made: bool,
    /// [`identity::contacts_digest`] of the row's secondary numbers.
    pub contacts: u64,
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
    /// The service's number in this file (`services`).
    service_id: i64,
    /// This run's claims carry it; random per run.
    owner: i64,
    /// Where this run sends from (`origins`).
    origin_id: i64,
    /// This run's claims: identity → their place (`seq`) in the claims table.
    mine: RefCell<HashMap<u64, i64>>,
    next_seq: std::cell::Cell<i64>,
    /// Other runs' claims, read again only when another connection has written.
    others: RefCell<Others>,
}

/// Other runs' claims as last read. Claims sit in the order they were made (by owner and
/// sequence), so a batch of claims writes the last page or two instead of a page for each
/// identity; finding one by identity is this map's job.
#[derive(Default)]
struct Others {
    /// `PRAGMA data_version` when read: unchanged, nobody else has written since.
    version: Option<i64>,
    by_key: HashMap<u64, TheirClaim>,
}

/// A claim of another run, alive or dead.
#[derive(Debug, Clone, Copy)]
struct TheirClaim {
    owner: i64,
    seq: i64,
    sent_key: i64,
    keyed: bool,
    commit_by: i64,
    origin: i64,
    row: i64,
    at: i64,
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
        let mut ledger = Ledger {
            conn,
            path,
            service: service.to_string(),
            service_id: 0,
            owner,
            origin_id: 0,
            mine: RefCell::default(),
            next_seq: std::cell::Cell::new(0),
            others: RefCell::new(Others::default()),
        };
        busy_retry(|| ledger.configure()).map_err(|e| sqlite(&ledger.path, e))?;
        ledger.prepare_schema()?;
        (ledger.service_id, ledger.origin_id) = ledger.in_write(|_, tx| {
            let origin = origin_id(tx, &run.source, run.sheet.as_deref(), &run.front)?;
            Ok((service_id(tx, service)?, origin))
        })?;
        ledger.adopt_journals(state_dir)?;
        Ok(ledger)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&mut self) -> rusqlite::Result<()> {
        // Another run may hold the write lock for a batch of claims: wait for it.
        self.conn.busy_timeout(std::time::Duration::from_secs(30))?;
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        // A commit survives a killed process; a power cut may lose the last ones, which the
        // run's own journal (fsynced before each request) still holds.
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        // The write-ahead log is cut back to 4 MiB after each checkpoint.
        self.conn.pragma_update(None, "journal_size_limit", 4 << 20)?;
        // A push rewrites the same few pages (claims, the last leads, the index) batch after
        // batch: checkpoints every 32 MiB of log instead of 4 copy each of them once, not
        // eight times, and a cache of 32 MiB keeps the index of a million leads in memory.
        self.conn.pragma_update(None, "wal_autocheckpoint", 8192)?;
        self.conn.pragma_update(None, "cache_size", -32768)
    }

    /// Creates the tables, or brings a file of an earlier schema to this one, in one
    /// transaction: two runs starting together never both do it.
    fn prepare_schema(&mut self) -> Result<(), LedgerError> {
        let run = || -> rusqlite::Result<i64> {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            let found: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            if found > SCHEMA {
                return Ok(found);
            }
            if found == 1 {
                tx.execute_batch(
                    "ALTER TABLE leads RENAME TO leads_v1;
                    ALTER TABLE claims RENAME TO claims_v1;",
                )?;
            }
            if found == 2 {
                tx.execute_batch(FROM_SCHEMA_2)?;
            }
            tx.execute_batch(TABLES)?;
            if found == 1 {
                tx.execute_batch(FROM_SCHEMA_1)?;
            }
            tx.pragma_update(None, "user_version", SCHEMA)?;
            tx.commit()?;
            Ok(SCHEMA)
        };
        let found = busy_retry(run).map_err(|e| sqlite(&self.path, e))?;
        if found > SCHEMA {
            return Err(LedgerError::Newer { path: self.path.display().to_string(), found });
        }
        Ok(())
    }

    /// What the ledger knows of the identity `key`.
    pub fn lookup(&self, key: u64) -> Result<Known, LedgerError> {
        busy_retry(|| self.lookup_in(&self.conn, key)).map_err(|e| sqlite(&self.path, e))
    }

    fn lookup_in(&self, conn: &Connection, key: u64) -> rusqlite::Result<Known> {
        match self.settled_of(conn, key)? {
            Some(sent) => Ok(sent),
            None => {
                self.read_others(conn)?;
                self.claim_of(conn, key)
            }
        }
    }

    /// The lead the ledger has settled for `key`, if any.
    fn settled_of(&self, conn: &Connection, key: u64) -> rusqlite::Result<Option<Known>> {
        // No join here: SQLite re-prepares a join of these tables at each new binding, which
        // cost a push more than the rest of the ledger; the origin is read only when found.
        let mut settled = conn.prepare_cached(
            "SELECT lead_id, origin, row, at FROM leads WHERE service = ?1 AND key = ?2",
        )?;
        let sent = settled
            .query_row(params![self.service_id, key as i64], |r| {
                let lead_id = r.get::<_, Option<i64>>(0)?.map(|id| id as u64);
                Ok((lead_id, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, i64>(3)?))
            })
            .optional()?;
        let Some((lead_id, origin, row, at)) = sent else { return Ok(None) };
        Ok(Some(Known::Sent { lead_id, origin: origin_at(conn, origin, row, at)? }))
    }

    /// Whether `key` is claimed, by another run (as last read) or by this one.
    fn claim_of(&self, conn: &Connection, key: u64) -> rusqlite::Result<Known> {
        if let Some(theirs) = self.others.borrow().by_key.get(&key) {
            return Ok(Known::Claimed(theirs.held(conn)?));
        }
        Ok(if self.mine.borrow().contains_key(&key) { Known::Ours } else { Known::Unknown })
    }

    /// Reads the other runs' claims again if another connection wrote since the last read.
    fn read_others(&self, conn: &Connection) -> rusqlite::Result<()> {
        let version: i64 =
            conn.prepare_cached("PRAGMA data_version")?.query_row([], |r| r.get(0))?;
        let mut others = self.others.borrow_mut();
        if others.version == Some(version) {
            return Ok(());
        }
        let mut query = conn.prepare_cached(
            "SELECT owner, seq, key, sent_key, keyed, commit_by, origin, row, at FROM claims
             WHERE service = ?1 AND owner != ?2",
        )?;
        let rows = query.query_map(params![self.service_id, self.owner], |r| {
            let claim = TheirClaim {
                owner: r.get(0)?,
                seq: r.get(1)?,
                sent_key: r.get(3)?,
                keyed: r.get(4)?,
                commit_by: r.get(5)?,
                origin: r.get(6)?,
                row: r.get(7)?,
                at: r.get(8)?,
            };
            Ok((r.get::<_, i64>(2)? as u64, claim))
        })?;
        others.by_key = rows.collect::<rusqlite::Result<_>>()?;
        others.version = Some(version);
        Ok(())
    }

    /// Forgets what was read of the claims (after a failed transaction or a bulk change): the
    /// next use reads them again.
    fn reread_claims(&mut self) {
        *self.others.get_mut() = Others::default();
        let mut query = match self
            .conn
            .prepare_cached("SELECT key, seq FROM claims WHERE owner = ?1 AND service = ?2")
        {
            Ok(query) => query,
            Err(_) => return,
        };
        let rows = query.query_map(params![self.owner, self.service_id], |r| {
            Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)?))
        });
        if let Ok(rows) = rows {
            *self.mine.get_mut() = rows.filter_map(Result::ok).collect();
        }
    }

    /// Runs `work` in a write transaction (`BEGIN IMMEDIATE`), again while the file is busy;
    /// on an error nothing of it stays, and what this run thought it held is read again.
    fn in_write<T>(
        &mut self,
        mut work: impl FnMut(&Self, &Connection) -> rusqlite::Result<T>,
    ) -> Result<T, LedgerError> {
        let path = self.path.clone();
        busy_retry(|| self.write_once(&mut work)).map_err(|e| sqlite(&path, e))
    }

    /// [`Ledger::in_write`] without the retry, for work that cannot be done twice.
    fn write_once<T>(
        &mut self,
        work: impl FnOnce(&Self, &Connection) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let done =
            work(self, &self.conn).and_then(|t| self.conn.execute_batch("COMMIT").map(|()| t));
        if done.is_err() {
            self.abandon();
        }
        done
    }

    /// Runs `look` (a run of lookups) in one read transaction: they share one snapshot and its
    /// locks instead of taking them once each.
    pub fn in_one_read<T>(&self, look: impl FnOnce(&Self) -> T) -> T {
        let began = self.conn.execute_batch("BEGIN DEFERRED").is_ok();
        let seen = look(self);
        if began {
            // A read has nothing to lose: should the end fail, the next statement ends it.
            let _ = self.conn.execute_batch("COMMIT");
        }
        seen
    }

    /// Records what runs learnt, then claims each write of `intents` in the same transaction,
    /// before any of them leaves: a write leaves only when it is `Go`.
    pub fn claim(
        &mut self,
        settled: &[Settled],
        intents: &[Intent],
    ) -> Result<Vec<Granted>, LedgerError> {
        let claimed = self.claim_then(settled, intents, |_| Ok::<_, LedgerError>(()))?;
        Ok(claimed.0)
    }

    /// [`Ledger::claim`], running `before_commit` with the answers before the claims commit:
    /// what it starts (the journal's fsync of the attempts) runs beside the commit. An error
    /// from it leaves no claim behind.
    pub fn claim_then<S, E: From<LedgerError>>(
        &mut self,
        settled: &[Settled],
        intents: &[Intent],
        before_commit: impl FnOnce(&[Granted]) -> Result<S, E>,
    ) -> Result<(Vec<Granted>, S), E> {
        let path = self.path.clone();
        let granted = busy_retry(|| {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            let granted = self.claim_in(settled, intents);
            if granted.is_err() {
                self.abandon();
            }
            granted
        });
        let granted = granted.map_err(|e| sqlite(&path, e))?;
        let staged = match before_commit(&granted) {
            Ok(staged) => staged,
            Err(e) => {
                self.abandon();
                return Err(e);
            }
        };
        if let Err(e) = self.conn.execute_batch("COMMIT") {
            self.abandon();
            return Err(sqlite(&path, e).into());
        }
        Ok((granted, staged))
    }

    /// Rolls back the open transaction and forgets what this run thought it held.
    fn abandon(&mut self) {
        // Nothing to undo when the transaction never began or already ended.
        let _ = self.conn.execute_batch("ROLLBACK");
        self.reread_claims();
    }

    /// Claims `intents` in the transaction already begun.
    fn claim_in(&self, settled: &[Settled], intents: &[Intent]) -> rusqlite::Result<Vec<Granted>> {
        let tx = &self.conn;
        self.read_others(tx)?;
        self.record_settled(tx, settled)?;
        let mut granted = Vec::with_capacity(intents.len());
        for intent in intents {
            // The other runs' claims were read once above, for the whole batch.
            let known = match self.settled_of(tx, intent.key)? {
                Some(sent) => sent,
                None => self.claim_of(tx, intent.key)?,
            };
            let answer = match known {
                Known::Sent { lead_id, origin } => Granted::Sent { lead_id, origin },
                Known::Claimed(held) if intent.checked_at.is_none_or(|at| held.commit_by > at) => {
                    Granted::UnderWay(held)
                }
                Known::Unknown | Known::Ours | Known::Claimed(_) => {
                    self.take_over(tx, intent.key)?;
                    self.write_claim(tx, intent)?;
                    Granted::Go
                }
            };
            granted.push(answer);
        }
        Ok(granted)
    }

    /// Removes another run's claim of `key`, if any: it could no longer commit when a lead
    /// list without it was read.
    fn take_over(&self, conn: &Connection, key: u64) -> rusqlite::Result<()> {
        let Some(theirs) = self.others.borrow_mut().by_key.remove(&key) else { return Ok(()) };
        delete_claim(conn, theirs.owner, theirs.seq)
    }

    /// Writes this run's claim of `intent`: in place when it holds one already, else after
    /// its last.
    fn write_claim(&self, conn: &Connection, intent: &Intent) -> rusqlite::Result<()> {
        let held = self.mine.borrow().get(&intent.key).copied();
        if let Some(seq) = held {
            let mut update = conn.prepare_cached(
                "UPDATE claims SET sent_key = ?3, keyed = ?4, commit_by = ?5, row = ?6, at = ?7
                 WHERE owner = ?1 AND seq = ?2",
            )?;
            let changed = update.execute(params![
                self.owner,
                seq,
                intent.sent_key as i64,
                intent.keyed,
                intent.commit_by as i64,
                intent.row as i64,
                now_ms() as i64,
            ])?;
            if changed == 1 {
                return Ok(());
            }
        }
        let seq = self.next_seq.get() + 1;
        self.next_seq.set(seq);
        let mut insert = conn.prepare_cached(
            "INSERT INTO claims (owner, seq, service, key, campaign_id, phone, origin, row, at,
                sent_key, keyed, commit_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?;
        insert.execute(params![
            self.owner,
            seq,
            self.service_id,
            intent.key as i64,
            intent.campaign_id as i64,
            intent.phone,
            self.origin_id,
            intent.row as i64,
            now_ms() as i64,
            intent.sent_key as i64,
            intent.keyed,
            intent.commit_by as i64,
        ])?;
        self.mine.borrow_mut().insert(intent.key, seq);
        Ok(())
    }

    /// Writes leads learnt into `leads`; their claims, this run's or another's, go.
    fn record_settled(&self, conn: &Connection, settled: &[Settled]) -> rusqlite::Result<()> {
        let at = now_ms() as i64;
        let mut insert = conn.prepare_cached(
            "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id, digest,
                origin, row, at, made, contacts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?;
        for s in settled {
            let lead_id = s.lead_id.map(|id| id as i64);
            let theirs = self.others.borrow_mut().by_key.remove(&s.key);
            // A claim settled for another run keeps that run's origin: it sent the lead.
            let (origin, row, at, digest, contacts) = match theirs {
                Some(c) if s.keep_origin => (c.origin, c.row, c.at, None, None),
                _ => {
                    let (digest, contacts) = (Some(s.digest as i64), Some(s.contacts as i64));
                    (self.origin_id, s.row as i64, at, digest, contacts)
                }
            };
            insert.execute(params![
                self.service_id,
                s.key as i64,
                s.campaign_id as i64,
                s.phone,
                lead_id,
                digest,
                origin,
                row,
                at,
                s.made,
                contacts,
            ])?;
            // Settled: the identity is nobody's write in the air any more.
            if let Some(theirs) = theirs {
                delete_claim(conn, theirs.owner, theirs.seq)?;
            }
            let mine = self.mine.borrow_mut().remove(&s.key);
            if let Some(seq) = mine {
                delete_claim(conn, self.owner, seq)?;
            }
        }
        Ok(())
    }

    /// Records leads learnt on the service (created, answered as there, found on the list).
    pub fn record(&mut self, settled: &[Settled]) -> Result<(), LedgerError> {
        if settled.is_empty() {
            return Ok(());
        }
        self.in_write(|ledger, tx| {
            ledger.read_others(tx)?;
            ledger.record_settled(tx, settled)
        })
    }

    /// Gives up this run's claims of `keys`: their writes were refused or never acted on.
    pub fn release(&mut self, keys: &[u64]) -> Result<(), LedgerError> {
        let seqs: Vec<i64> =
            keys.iter().filter_map(|key| self.mine.get_mut().remove(key)).collect();
        self.in_write(|ledger, tx| {
            seqs.iter().try_for_each(|&seq| delete_claim(tx, ledger.owner, seq))
        })
    }

    /// Moves the commit deadline of this run's claim of `key`: its write is in doubt until then.
    pub fn in_doubt(&mut self, key: u64, commit_by: u64) -> Result<(), LedgerError> {
        let Some(&seq) = self.mine.get_mut().get(&key) else { return Ok(()) };
        self.conn
            .prepare_cached("UPDATE claims SET commit_by = ?1 WHERE owner = ?2 AND seq = ?3")
            .and_then(|mut update| update.execute(params![commit_by as i64, self.owner, seq]))
            .map(drop)
            .map_err(|e| sqlite(&self.path, e))
    }

    /// The identities other runs hold claims on, on this service: a run that finds any reads
    /// the lead list to settle them. Few: for each other run, its writes in the air and the
    /// outcomes it has not recorded yet (at most `LEARNT_BATCH` of the collector).
    pub fn claimed_by_others(&self) -> Result<HashSet<u64>, LedgerError> {
        busy_retry(|| self.read_others(&self.conn)).map_err(|e| sqlite(&self.path, e))?;
        Ok(self.others.borrow().by_key.keys().copied().collect())
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
        let listed_at = now_ms() as i64;
        // Once: the leads are read as they are learnt, so the work cannot be run again.
        let learnt = self.write_once(|ledger, tx| {
            {
                let listed = origin_id(tx, "the service's lead list", None, "service")?;
                let mut insert = tx.prepare_cached(
                    "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id,
                        origin, row, at, made)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, 0)",
                )?;
                for (key, campaign_id, phone, lead_id) in leads {
                    insert.execute(params![
                        ledger.service_id,
                        key as i64,
                        campaign_id as i64,
                        phone,
                        lead_id as i64,
                        listed,
                        listed_at,
                    ])?;
                }
                let mut account = tx.prepare_cached(
                    "INSERT OR REPLACE INTO accounts (service, name, listed_at) VALUES (?1, ?2, ?3)",
                )?;
                for name in names {
                    account.execute(params![ledger.service, name, listed_at])?;
                }
            }
            drop_settled_claims(tx)
        });
        // Claims of any run, this one's too, may have gone with the settled ones.
        self.reread_claims();
        learnt.map_err(|e| sqlite(&self.path, e))
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
        self.in_write(|ledger, tx| {
            ledger.read_others(tx)?;
            let stale: Vec<(u64, TheirClaim)> = (ledger.others.borrow().by_key.iter())
                .filter(|(_, c)| c.keyed && c.commit_by <= listed_at as i64)
                .map(|(key, c)| (*key, *c))
                .collect();
            for (key, claim) in &stale {
                if let Some(lead_id) = on_list(claim.sent_key as u64) {
                    tx.execute(
                        "INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id,
                            origin, row, at)
                         SELECT service, key, campaign_id, phone, ?3, origin, row, at
                         FROM claims WHERE owner = ?1 AND seq = ?2",
                        params![claim.owner, claim.seq, lead_id as i64],
                    )?;
                }
                delete_claim(tx, claim.owner, claim.seq)?;
                ledger.others.borrow_mut().by_key.remove(key);
            }
            Ok(stale.len())
        })
    }
}

/// Removes one claim.
fn delete_claim(conn: &Connection, owner: i64, seq: i64) -> rusqlite::Result<()> {
    let mut delete = conn.prepare_cached("DELETE FROM claims WHERE owner = ?1 AND seq = ?2")?;
    delete.execute(params![owner, seq]).map(drop)
}

impl TheirClaim {
    fn held(&self, conn: &Connection) -> rusqlite::Result<Held> {
        Ok(Held {
            sent_key: self.sent_key as u64,
            keyed: self.keyed,
            commit_by: self.commit_by as u64,
            origin: origin_at(conn, self.origin, self.row, self.at)?,
        })
    }
}

/// The tables of this schema. Settled leads keep the order they came in (a rowid table), with
/// an index by identity: a batch of outcomes fills the last pages and touches each page of the
/// index once. Claims keep the order they were made in, by owner: a claim writes the last page.
/// Services and origins are numbers here, rows stay short.
const TABLES: &str = "
    CREATE TABLE IF NOT EXISTS services (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE);
    CREATE TABLE IF NOT EXISTS origins (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        sheet TEXT NOT NULL,
        front TEXT NOT NULL,
        UNIQUE (source, sheet, front)
    );
    CREATE TABLE IF NOT EXISTS leads (
        service INTEGER NOT NULL,
        key INTEGER NOT NULL,
        campaign_id INTEGER NOT NULL,
        phone TEXT NOT NULL,
        lead_id INTEGER,
        digest INTEGER,
        origin INTEGER NOT NULL,
        row INTEGER NOT NULL,
        at INTEGER NOT NULL,
        stopped INTEGER NOT NULL DEFAULT 0,
        made INTEGER NOT NULL DEFAULT 1,
        contacts INTEGER
    );
    CREATE UNIQUE INDEX IF NOT EXISTS leads_by_key ON leads (service, key);
    CREATE TABLE IF NOT EXISTS changes (
        service INTEGER NOT NULL,
        key INTEGER NOT NULL,
        kind TEXT NOT NULL,
        lead_id INTEGER NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (service, key)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS claims (
        owner INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        service INTEGER NOT NULL,
        key INTEGER NOT NULL,
        campaign_id INTEGER NOT NULL,
        phone TEXT NOT NULL,
        origin INTEGER NOT NULL,
        row INTEGER NOT NULL,
        at INTEGER NOT NULL,
        sent_key INTEGER NOT NULL,
        keyed INTEGER NOT NULL,
        commit_by INTEGER NOT NULL,
        PRIMARY KEY (owner, seq)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS accounts (
        service TEXT NOT NULL,
        name TEXT NOT NULL,
        listed_at INTEGER NOT NULL,
        PRIMARY KEY (service, name)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);";

/// Schema 1's leads and claims (renamed `*_v1`), moved into this schema's tables.
const FROM_SCHEMA_1: &str = "
    INSERT OR IGNORE INTO services (url)
        SELECT service FROM leads_v1 UNION SELECT service FROM claims_v1;
    INSERT OR IGNORE INTO origins (source, sheet, front)
        SELECT source, coalesce(sheet, ''), front FROM leads_v1
        UNION SELECT source, coalesce(sheet, ''), front FROM claims_v1;
    INSERT OR IGNORE INTO leads (service, key, campaign_id, phone, lead_id, digest, origin,
            row, at)
        SELECT s.id, l.key, l.campaign_id, l.phone, l.lead_id, NULL, o.id, l.row, l.at
        FROM leads_v1 l JOIN services s ON s.url = l.service
        JOIN origins o ON o.source = l.source AND o.sheet = coalesce(l.sheet, '')
            AND o.front = l.front;
    INSERT INTO claims
        SELECT c.owner, row_number() OVER (ORDER BY c.service, c.key), s.id, c.key,
            c.campaign_id, c.phone, o.id, c.row, c.at, c.sent_key, c.keyed, c.commit_by
        FROM claims_v1 c JOIN services s ON s.url = c.service
        JOIN origins o ON o.source = c.source AND o.sheet = coalesce(c.sheet, '')
            AND o.front = c.front;
    DROP TABLE leads_v1;
    DROP TABLE claims_v1;";

/// Schema 2's leads gain the columns a sync needs: stopped, and made by leadsync (all but
/// those learnt from the lead list). Their digests covered the whole request (flags and key
/// included), not the lead's content, so they go: the next sync takes the sheet as it is then.
const FROM_SCHEMA_2: &str = "
    ALTER TABLE leads ADD COLUMN stopped INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE leads ADD COLUMN made INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE leads ADD COLUMN contacts INTEGER;
    UPDATE leads SET made = 0 WHERE origin IN (SELECT id FROM origins WHERE front = 'service');
    UPDATE leads SET digest = NULL;";

/// The origin numbered `id` in this file, for `row` at `at` (Unix ms).
fn origin_at(conn: &Connection, id: i64, row: i64, at: i64) -> rusqlite::Result<Origin> {
    let mut query =
        conn.prepare_cached("SELECT source, NULLIF(sheet, ''), front FROM origins WHERE id = ?1")?;
    query.query_row([id], |r| {
        Ok(Origin {
            source: r.get(0)?,
            sheet: r.get(1)?,
            row: row as u64,
            front: r.get(2)?,
            at: at as u64,
        })
    })
}

/// The number `url` has in this file, given on first use.
pub(super) fn service_id(conn: &Connection, url: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached("INSERT OR IGNORE INTO services (url) VALUES (?1)")?.execute([url])?;
    conn.prepare_cached("SELECT id FROM services WHERE url = ?1")?.query_row([url], |r| r.get(0))
}

/// The number an origin has in this file, given on first use; a CSV's sheet is stored as ''.
pub(super) fn origin_id(
    conn: &Connection,
    source: &str,
    sheet: Option<&str>,
    front: &str,
) -> rusqlite::Result<i64> {
    let sheet = sheet.unwrap_or("");
    conn.prepare_cached(
        "INSERT OR IGNORE INTO origins (source, sheet, front) VALUES (?1, ?2, ?3)",
    )?
    .execute(params![source, sheet, front])?;
    conn.prepare_cached("SELECT id FROM origins WHERE source = ?1 AND sheet = ?2 AND front = ?3")?
        .query_row(params![source, sheet, front], |r| r.get(0))
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
