//! Reads of a user's assistants and campaigns, and the conversation-ended webhook setting.
//! Every query is scoped by `user_id`: another tenant's rows are indistinguishable from rows
//! that do not exist.

use rusqlite::params;

use super::Store;
use super::records::{select, select_window};
use crate::sandbox::error::SandboxError;
use crate::sandbox::time::record_now;
use crate::sandbox::wire::{Assistant, AssistantSummary, Campaign};

/// Assistants a user can see: their own, not soft-deleted.
const VISIBLE: &str = "user_id = ?1 AND deleted_at IS NULL";

/// One page of a user's assistants and how many there are in all.
pub(crate) struct AssistantPage {
    pub assistants: Vec<Assistant>,
    pub total: i64,
}

impl Store {
    pub(crate) async fn assistants_page(
        &self,
        user: i64,
        offset: i64,
        limit: i64,
    ) -> Result<AssistantPage, SandboxError> {
        self.run("listing assistants", move |tx| {
            let count = format!("SELECT COUNT(*) FROM assistants WHERE {VISIBLE}");
            let total = tx.prepare_cached(&count)?.query_row([user], |row| row.get(0))?;
            let window = "LIMIT ?2 OFFSET ?3";
            let assistants = select_window(tx, VISIBLE, window, params![user, limit, offset])?;
            Ok(AssistantPage { assistants, total })
        })
        .await
    }

    pub(crate) async fn outbound_assistants(
        &self,
        user: i64,
    ) -> Result<Vec<AssistantSummary>, SandboxError> {
        self.run("listing outbound assistants", move |tx| {
            let filter = format!("{VISIBLE} AND type = 'outbound'");
            let assistants: Vec<Assistant> = select(tx, &filter, [user])?;
            Ok(assistants.into_iter().map(AssistantSummary::from).collect())
        })
        .await
    }

    pub(crate) async fn campaigns(&self, user: i64) -> Result<Vec<Campaign>, SandboxError> {
        self.run("listing campaigns", move |tx| select(tx, "user_id = ?1", [user])).await
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
