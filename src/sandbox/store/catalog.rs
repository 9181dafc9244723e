//! Reads of a user's assistants and campaigns, and the conversation-ended webhook setting.
//! Every query is scoped by `user_id`: another tenant's rows are indistinguishable from rows
//! that do not exist.

use rusqlite::{Transaction, params};

use super::records::{Record, select, select_window};
use super::{Listed, Store, Window};
use crate::sandbox::error::SandboxError;
use crate::sandbox::time::record_now;
use crate::sandbox::wire::{Assistant, AssistantSummary, Campaign};

/// Assistants a user can see: their own, not soft-deleted.
const VISIBLE: &str = "user_id = ?1 AND deleted_at IS NULL";

impl Store {
    /// A window of the user's assistants: the paginated list is always paged.
    pub(crate) async fn assistants_page(
        &self,
        user: i64,
        window: Window,
    ) -> Result<Listed<Assistant>, SandboxError> {
        self.run("listing assistants", move |tx| listed(tx, VISIBLE, user, Some(window))).await
    }

    /// The user's outbound assistants as summaries: all of them, or a window.
    pub(crate) async fn outbound_assistants(
        &self,
        user: i64,
        window: Option<Window>,
    ) -> Result<Listed<AssistantSummary>, SandboxError> {
        self.run("listing outbound assistants", move |tx| {
            let filter = format!("{VISIBLE} AND type = 'outbound'");
            let found: Listed<Assistant> = listed(tx, &filter, user, window)?;
            let items = found.items.into_iter().map(AssistantSummary::from).collect();
            Ok(Listed { items, total: found.total })
        })
        .await
    }

    /// The user's campaigns: all of them, or a window.
    pub(crate) async fn campaigns(
        &self,
        user: i64,
        window: Option<Window>,
    ) -> Result<Listed<Campaign>, SandboxError> {
        self.run("listing campaigns", move |tx| listed(tx, "user_id = ?1", user, window)).await
    }

    /// Points the assistant's conversation-ended notifications at `url`, replacing any earlier
    /// URL. `false` when the user has no such (undeleted) assistant.
    pub(crate) async fn enable_conversation_webhook(
        &self,
        user: i64,
        assistant: i64,
        url: String,
    ) -> Result<bool, SandboxError> {
        self.run("enabling a conversation-ended webhook", move |tx| {
            let now = record_now();
            let touched = tx
                .prepare_cached(&format!(
                    "UPDATE assistants SET updated_at = ?3 WHERE id = ?2 AND {VISIBLE}"
                ))?
                .execute(params![user, assistant, now])?;
            if touched == 0 {
                return Ok(false);
            }
            tx.prepare_cached(
                "INSERT INTO conversation_webhooks (assistant_id, url, enabled_at)
                 VALUES (?1, ?2, ?3)
                 ON CONFLICT(assistant_id) DO UPDATE SET url = excluded.url,
                     enabled_at = excluded.enabled_at",
            )?
            .execute(params![assistant, url, now])?;
            Ok(true)
        })
        .await
    }

    /// Where an assistant's conversation-ended notifications go, if enabled. Only tests read
    /// it: the sandbox holds no chats, so it never has a conversation end to notify about.
    #[cfg(test)]
    pub(crate) async fn conversation_webhook(
        &self,
        assistant: i64,
    ) -> Result<Option<String>, SandboxError> {
        self.run("reading a conversation-ended webhook", move |tx| {
            use rusqlite::OptionalExtension;
            let sql = "SELECT url FROM conversation_webhooks WHERE assistant_id = ?1";
            Ok(tx.prepare_cached(sql)?.query_row([assistant], |row| row.get(0)).optional()?)
        })
        .await
    }
}

/// The records of `R::TABLE` matching `filter` (an SQL condition on the user as `?1`): all of
/// them, or a window and the count of all.
fn listed<R: Record>(
    tx: &Transaction<'_>,
    filter: &str,
    user: i64,
    window: Option<Window>,
) -> Result<Listed<R>, SandboxError> {
    let Some(Window { offset, limit }) = window else {
        return Ok(Listed::whole(select(tx, filter, [user])?));
    };
    let count = format!("SELECT COUNT(*) FROM {} WHERE {filter}", R::TABLE);
    let total = tx.prepare_cached(&count)?.query_row([user], |row| row.get(0))?;
    let items = select_window(tx, filter, "LIMIT ?2 OFFSET ?3", params![user, limit, offset])?;
    Ok(Listed { items, total })
}
