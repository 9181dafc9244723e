//! What a sync changes on leads the ledger recorded: which leads a source made, what each
//! said when last written, and a change under way (written before its request leaves and
//! gone with its outcome), so a change a kill left in doubt is known and done again. Every
//! change is idempotent (an update sets the same values, a stop the same status, a delete of
//! a lead already gone is a 404), so doing one again leaves the state it would have left.

use rusqlite::{Connection, OptionalExtension, params};

use super::{Ledger, LedgerError, now_ms, sqlite};

/// A lead the ledger recorded as sent, as a sync compares it with the sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub key: u64,
    pub lead_id: Option<u64>,
    /// [`super::identity::content_digest`] of the row last written (or found on the
    /// service); `None` when not known (learnt from the lead list, or recorded by an earlier
    /// version): a sync then takes the sheet as it is as the baseline.
    pub digest: Option<u64>,
    /// Made by leadsync (not found on the service, nor learnt from its list): only such a
    /// lead is ever stopped or deleted because its row is gone.
    pub made: bool,
    /// Stopped by a sync (status `completed`): not to be stopped again.
    pub stopped: bool,
    /// [`super::identity::contacts_digest`] of the secondary numbers last seen; `None` when
    /// not known.
    pub contacts: Option<u64>,
    pub campaign_id: u64,
    pub phone: String,
}

/// The outcome of a change, as the ledger keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeDone {
    /// The lead now says what `digest` covers, with this number.
    Updated {
        digest: u64,
        phone: String,
    },
    Stopped,
    /// Gone from the service (deleted, or found missing): the identity is free again.
    Deleted,
    /// Moved (under an id column) to another campaign: its identity there is `key`.
    Moved {
        key: u64,
        campaign_id: u64,
        digest: u64,
        phone: String,
    },
    /// Not done (refused, or failed for certain): nothing changed.
    Abandoned,
}

impl Ledger {
    /// What the ledger recorded for the identity `key` on this service.
    pub fn recorded(&self, key: u64) -> Result<Option<Recorded>, LedgerError> {
        let mut query = self
            .conn
            .prepare_cached(
                "SELECT key, lead_id, digest, stopped, campaign_id, phone, made, contacts FROM leads
                 WHERE service = ?1 AND key = ?2",
            )
            .map_err(|e| sqlite(&self.path, e))?;
        query
            .query_row(params![self.service_id, key as i64], recorded_of)
            .optional()
            .map_err(|e| sqlite(&self.path, e))
    }

    /// The leads sent from any of `sources` (a file or URL as named, any sheet, any front) on
    /// this service: those a sync of that source may stop or delete when their rows are gone.
    /// Leads learnt from the lead list are never among them: leadsync did not make them.
    pub fn recorded_from(&self, sources: &[String]) -> Result<Vec<Recorded>, LedgerError> {
        let read = || -> rusqlite::Result<Vec<Recorded>> {
            let mut found = Vec::new();
            let mut query = self.conn.prepare_cached(
                "SELECT l.key, l.lead_id, l.digest, l.stopped, l.campaign_id, l.phone, l.made,
                    l.contacts
                 FROM leads l JOIN origins o ON o.id = l.origin
                 WHERE l.service = ?1 AND o.source = ?2 AND l.made = 1",
            )?;
            for source in sources {
                let rows = query.query_map(params![self.service_id, source], recorded_of)?;
                for row in rows {
                    found.push(row?);
                }
            }
            found.sort_by_key(|r| r.key);
            found.dedup_by_key(|r| r.key);
            Ok(found)
        };
        read().map_err(|e| sqlite(&self.path, e))
    }

    /// Records a change of the lead `lead_id` (identity `key`) about to leave: `kind` is
    /// `update`, `stop` or `delete`. Durable before the request, as a claim is.
    pub fn change_begins(&mut self, key: u64, kind: &str, lead_id: u64) -> Result<(), LedgerError> {
        self.in_write(|ledger, tx| {
            tx.prepare_cached(
                "INSERT OR REPLACE INTO changes (service, key, kind, lead_id, at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![ledger.service_id, key as i64, kind, lead_id as i64, now_ms() as i64])
            .map(drop)
        })
    }

    /// Records the outcome of the change of `key` begun with [`Ledger::change_begins`].
    pub fn change_done(&mut self, key: u64, done: &ChangeDone) -> Result<(), LedgerError> {
        self.in_write(|ledger, tx| {
            let (service, key) = (ledger.service_id, key as i64);
            apply_done(tx, service, key, done)?;
            tx.prepare_cached("DELETE FROM changes WHERE service = ?1 AND key = ?2")?
                .execute(params![service, key])
                .map(drop)
        })
    }

    /// Takes each `(key, digest)` as what its lead says, for leads whose content was not
    /// known (see [`Recorded::digest`]): one transaction for all.
    pub fn set_baselines(&mut self, baselines: &[(u64, u64)]) -> Result<(), LedgerError> {
        if baselines.is_empty() {
            return Ok(());
        }
        self.in_write(|ledger, tx| {
            let mut set = tx.prepare_cached(
                "UPDATE leads SET digest = ?3 WHERE service = ?1 AND key = ?2 AND digest IS NULL",
            )?;
            for (key, digest) in baselines {
                set.execute(params![ledger.service_id, *key as i64, *digest as i64])?;
            }
            Ok(())
        })
    }

    /// Takes each `(key, digest)` as the secondary numbers its lead's row has now: those not
    /// known yet, and those a sync found changed and said so (once).
    pub fn set_contacts(&mut self, contacts: &[(u64, u64)]) -> Result<(), LedgerError> {
        if contacts.is_empty() {
            return Ok(());
        }
        self.in_write(|ledger, tx| {
            let mut set = tx
                .prepare_cached("UPDATE leads SET contacts = ?3 WHERE service = ?1 AND key = ?2")?;
            for (key, digest) in contacts {
                set.execute(params![ledger.service_id, *key as i64, *digest as i64])?;
            }
            Ok(())
        })
    }

    /// Changes begun and never finished (a kill, a lost answer): each is done again by the
    /// next sync, which finds its lead still differing from the sheet.
    pub fn changes_in_doubt(&self) -> Result<u64, LedgerError> {
        let mut query = self
            .conn
            .prepare_cached("SELECT count(*) FROM changes WHERE service = ?1")
            .map_err(|e| sqlite(&self.path, e))?;
        let count: i64 =
            query.query_row([self.service_id], |r| r.get(0)).map_err(|e| sqlite(&self.path, e))?;
        Ok(count as u64)
    }
}

fn apply_done(
    conn: &Connection,
    service: i64,
    key: i64,
    done: &ChangeDone,
) -> rusqlite::Result<()> {
    match done {
        ChangeDone::Updated { digest, phone } => conn
            .prepare_cached(
                "UPDATE leads SET digest = ?3, phone = ?4, stopped = 0
                 WHERE service = ?1 AND key = ?2",
            )?
            .execute(params![service, key, *digest as i64, phone])
            .map(drop),
        ChangeDone::Stopped => conn
            .prepare_cached("UPDATE leads SET stopped = 1 WHERE service = ?1 AND key = ?2")?
            .execute(params![service, key])
            .map(drop),
        ChangeDone::Deleted => conn
            .prepare_cached("DELETE FROM leads WHERE service = ?1 AND key = ?2")?
            .execute(params![service, key])
            .map(drop),
        ChangeDone::Moved { key: to, campaign_id, digest, phone } => conn
            .prepare_cached(
                "UPDATE leads SET key = ?3, campaign_id = ?4, digest = ?5, phone = ?6, stopped = 0
                 WHERE service = ?1 AND key = ?2",
            )?
            .execute(params![service, key, *to as i64, *campaign_id as i64, *digest as i64, phone])
            .map(drop),
        ChangeDone::Abandoned => Ok(()),
    }
}

fn recorded_of(r: &rusqlite::Row) -> rusqlite::Result<Recorded> {
    Ok(Recorded {
        key: r.get::<_, i64>(0)? as u64,
        lead_id: r.get::<_, Option<i64>>(1)?.map(|id| id as u64),
        digest: r.get::<_, Option<i64>>(2)?.map(|d| d as u64),
        made: r.get::<_, i64>(6)? != 0,
        contacts: r.get::<_, Option<i64>>(7)?.map(|d| d as u64),
        stopped: r.get::<_, i64>(3)? != 0,
        campaign_id: r.get::<_, i64>(4)? as u64,
        phone: r.get(5)?,
    })
}
