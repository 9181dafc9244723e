//! `webhook export`: the stored notifications, one row each, in the order they arrived.
//!
//! Columns: when and as what it arrived, the conversation and assistant, the customer, when it
//! ended, the transcript as `role: content` lines, every extracted variable as its own column
//! (union of keys, first seen first), and last the payload exactly as it was sent, so nothing
//! the reading of the payload missed is lost.

use std::path::Path;

use indexmap::IndexSet;
use serde_json::Value;

use super::error::ExportError;
use super::table::{Column, ColumnKind, Table, variable_columns};
use super::{Format, Written, write_table};
use crate::events::{Event, StoredEvent, journal_path, read_journal};

/// Exports the journal at `input` (a file, or a directory holding `events.jsonl`) to `path`;
/// `delimiter` separates a CSV's cells.
pub fn export_events(input: &Path, path: &Path, delimiter: u8) -> Result<Written, ExportError> {
    Format::from_path(path)?;
    let contents = read_journal(&journal_path(input))?;
    let table = events_table(&contents.events);
    let mut written = write_table(path, &table, "Conversations", delimiter)?;
    written.skipped_lines = contents.skipped_lines;
    Ok(written)
}

/// The stored notifications as a table (see the module documentation for the columns).
pub fn events_table(stored: &[StoredEvent]) -> Table {
    let events: Vec<Event> = stored.iter().map(|s| Event::from_payload(&payload(s))).collect();
    let keys: IndexSet<&String> = events.iter().flat_map(|e| e.variables.keys()).collect();
    let mut columns = leading_columns();
    let names = variable_columns(&columns, keys.iter().copied());
    columns.extend(names.into_iter().map(|name| Column::new(name, ColumnKind::Text)));
    columns.push(Column::new("raw_json", ColumnKind::LongText));
    let rows = stored.iter().zip(&events).map(|(s, e)| row(s, e, &keys));
    Table { columns, rows: rows.collect() }
}

fn payload(stored: &StoredEvent) -> Value {
    serde_json::from_str(stored.payload.get()).unwrap_or(Value::Null)
}

fn leading_columns() -> Vec<Column> {
    use ColumnKind::{LongText, Phone, Text};
    let leading = [
        ("received_at", Text),
        ("kind", Text),
        ("conversation_id", Text),
        ("assistant_id", Text),
        ("customer_name", Text),
        ("customer_phone", Phone),
        ("customer_email", Text),
        ("ended_at", Text),
        ("transcript", LongText),
    ];
    leading.into_iter().map(|(name, kind)| Column::new(name, kind)).collect()
}

fn row(stored: &StoredEvent, event: &Event, keys: &IndexSet<&String>) -> Vec<String> {
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let mut row = vec![
        stored.received_at.clone(),
        stored.kind.clone(),
        text(&event.conversation_id),
        text(&event.assistant_id),
        text(&event.customer.name),
        text(&event.customer.phone),
        text(&event.customer.email),
        text(&event.ended_at),
        event.transcript_text(),
    ];
    row.extend(keys.iter().map(|key| event.variables.get(*key).cloned().unwrap_or_default()));
    row.push(stored.payload.get().to_string());
    row
}

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use super::events_table;
    use crate::events::StoredEvent;

    fn stored(kind: &str, payload: &str) -> StoredEvent {
        StoredEvent {
            received_at: "2026-01-02T10:00:00.000Z".into(),
            kind: kind.into(),
            key: "k".into(),
            payload: RawValue::from_string(payload.into()).unwrap(),
        }
    }

    #[test]
    fn one_row_per_notification_with_variables_as_columns_and_the_raw_json_last() {
        let table = events_table(&[
            stored(
                "conversation-ended",
                r#"{"conversation_id":"c1","transcript":[{"role":"user","content":"hi"}],"variables":{"kind":"x","b":"1"}}"#,
            ),
            stored("post-call", r#"[1, 2]"#),
        ]);
        let names: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names[8..], ["transcript", "variable_kind", "b", "raw_json"]);
        assert_eq!(table.column("conversation_id").unwrap(), ["c1", ""]);
        assert_eq!(table.column("transcript").unwrap(), ["user: hi", ""]);
        assert_eq!(table.column("variable_kind").unwrap(), ["x", ""]);
        assert_eq!(table.column("raw_json").unwrap()[1], "[1, 2]");
        assert_eq!(table.column("kind").unwrap(), ["conversation-ended", "post-call"]);
    }
}
