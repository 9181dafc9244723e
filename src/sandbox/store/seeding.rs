//! Loading a seed: users, campaigns and assistants are upserted by id, in one transaction, so a
//! seed can be applied to an existing database again and again. A record already in the database
//! keeps the fields the seed leaves out; a new one gets the defaults. A user's tokens are
//! replaced by the seed's. Ownership never moves: a seed that would hand one tenant's campaign
//! to another is refused, since leads point at it; a token of a user the seed does not name
//! stays that user's.

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
            let mut statement = tx.prepare("SELECT token, user_id FROM user_tokens")?;
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
    release_tokens(tx, seed)?;
    for user in &seed.users {
        upsert_user(tx, user.id, &user.tokens)?.map_err(conflict)?;
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

/// Takes every token from the users the seed names, so that it can hand them out afresh, even
/// swapped between two users. `users.token` is unique, so it holds a placeholder meanwhile: a
/// control character keeps it from ever matching a seed token or an `Authorization` header.
fn release_tokens(tx: &Transaction<'_>, seed: &Seed) -> Result<(), SandboxError> {
    for user in &seed.users {
        tx.execute("DELETE FROM user_tokens WHERE user_id = ?1", [user.id])?;
        let placeholder = format!("\u{1}released-{}", user.id);
        tx.execute("UPDATE users SET token = ?2 WHERE id = ?1", params![user.id, placeholder])?;
    }
    Ok(())
}

/// Gives user `id` (its old tokens released) exactly `tokens`, the first as its main token: a
/// reseed replaces a user's tokens. `Ok(Err(problem))` when one of them already belongs to another user.
fn upsert_user(
    tx: &Transaction<'_>,
    id: i64,
    tokens: &[String],
) -> Result<Result<(), String>, SandboxError> {
    let Some(main) = tokens.first() else {
        return Ok(Err(format!("user {id} has no token; give it `token` or `tokens` in the seed")));
    };
    for (index, token) in tokens.iter().enumerate() {
        let holder: Option<i64> = tx
            .query_row(
                "SELECT user_id FROM user_tokens WHERE token = ?1 AND user_id != ?2",
                params![token, id],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(holder) = holder {
            return Ok(Err(format!(
                "token {} of user {id} already belongs to user {holder}, who is not in the seed; give user {id} another token, or add user {holder} to the seed with tokens of its own",
                index + 1
            )));
        }
    }
    tx.execute(
        "INSERT INTO users (id, token) VALUES (?1, ?2)
         ON CONFLICT(id) DO UPDATE SET token = excluded.token",
        params![id, main],
    )?;
    for token in tokens {
        tx.execute("INSERT INTO user_tokens (token, user_id) VALUES (?1, ?2)", params![token, id])?;
    }
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
