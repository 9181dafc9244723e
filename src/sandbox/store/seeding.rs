//! Loading a seed: users, campaigns and assistants are upserted by id, in one transaction, so a
//! seed can be applied to an existing database again and again. A record already in the database
//! keeps the fields the seed leaves out; a new one gets the defaults. Ownership never moves: a
//! seed that would hand one tenant's campaign to another is refused, since leads point at it.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};
use serde_json::Value;

use super::Store;
use super::records::{Record, select, to_map, upsert};
use crate::sandbox::defaults;
use crate::sandbox::error::SandboxError;
use crate::sandbox::seed::{Seed, SeedRecord};
use crate::sandbox::time::record_now;

impl Store {
    pub(crate) async fn has_users(&self) -> Result<bool, SandboxError> {
        self.run("counting users", |tx| {
            let count: i64 = tx.query_row("SELECT COUNT(*) FROM users", [], |row| row.get(0))?;
            Ok(count > 0)
        })
        .await
    }

    /// Every token and the user it identifies.
    pub(crate) async fn tokens(&self) -> Result<HashMap<String, i64>, SandboxError> {
        self.run("reading tokens", |tx| {
            let mut statement = tx.prepare("SELECT token, id FROM users")?;
            let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .await
    }

    pub(crate) async fn apply_seed(&self, seed: Seed) -> Result<(), SandboxError> {
        self.run("loading the seed", move |tx| apply(tx, &seed)).await
    }
}

fn apply(tx: &Transaction<'_>, seed: &Seed) -> Result<(), SandboxError> {
    let conflict =
        |problem: String| SandboxError::SeedConflict { seed: seed.name.clone(), problem };
    for user in &seed.users {
        upsert_user(tx, user.id, &user.token)?.map_err(conflict)?;
    }
    for user in &seed.users {
        for record in &user.campaigns {
            let fresh = || defaults::campaign(record.id);
            upsert_record(tx, user.id, record, fresh)?.map_err(conflict)?;
        }
        for record in &user.assistants {
            let fresh = || defaults::assistant(record.id, user.id);
            upsert_record(tx, user.id, record, fresh)?.map_err(conflict)?;
        }
    }
    Ok(())
}

/// `Ok(Err(problem))` when the token already belongs to another user.
fn upsert_user(
    tx: &Transaction<'_>,
    id: i64,
    token: &str,
) -> Result<Result<(), String>, SandboxError> {
    let holder: Option<i64> = tx
        .query_row(
            "SELECT id FROM users WHERE token = ?1 AND id != ?2",
            params![token, id],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(holder) = holder {
        return Ok(Err(format!(
            "the token of user {id} already belongs to user {holder}; give user {holder} another token in the seed"
        )));
    }
    tx.execute(
        "INSERT INTO users (id, token) VALUES (?1, ?2)
         ON CONFLICT(id) DO UPDATE SET token = excluded.token",
        params![id, token],
    )?;
    Ok(Ok(()))
}

fn upsert_record<R: Record>(
    tx: &Transaction<'_>,
    owner: i64,
    record: &SeedRecord,
    fresh: impl FnOnce() -> R,
) -> Result<Result<(), String>, SandboxError> {
    let sql = format!("SELECT user_id FROM {} WHERE id = ?1", R::TABLE);
    let current: Option<i64> = tx.query_row(&sql, [record.id], |row| row.get(0)).optional()?;
    let mut merged = match current {
        Some(holder) if holder != owner => {
            let (table, id) = (R::TABLE, record.id);
            return Ok(Err(format!(
                "{table} id {id} belongs to user {holder} in the database, the seed gives it to user {owner}; use another id"
            )));
        }
        Some(_) => existing::<R>(tx, record.id)?,
        None => to_map(&fresh()),
    };
    merged.extend(record.fields.clone());
    let merged: R = match serde_json::from_value(Value::Object(merged)) {
        Ok(merged) => merged,
        Err(e) => return Ok(Err(format!("{} id {}: {e}", R::TABLE, record.id))),
    };
    upsert(tx, R::TABLE, owner, &to_map(&merged))?;
    Ok(Ok(()))
}

/// The stored record, stamped updated now unless the seed says when.
fn existing<R: Record>(
    tx: &Transaction<'_>,
    id: i64,
) -> Result<serde_json::Map<String, Value>, SandboxError> {
    let stored = select::<R>(tx, "id = ?1", [id])?;
    let mut map = stored.first().map(to_map).unwrap_or_default();
    map.insert("updated_at".into(), Value::String(record_now()));
    Ok(map)
}
