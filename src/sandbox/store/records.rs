//! Assistant and campaign rows <-> wire records, by column name.
//!
//! Assistants have sixty fields; writing each one three times (struct, INSERT, SELECT) invites
//! drift, so rows map through the record's JSON form instead. Each record type has a template (a
//! fully populated default record) whose keys are the columns, in wire order, and whose value
//! types say how SQLite's storage classes read back: a `bool` template value turns 0/1 into
//! `false`/`true`, an object or array template value parses JSON text. The typed
//! deserialization at the end checks every row against the spec's types.

use std::sync::LazyLock;

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Params, Row, Transaction};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::sandbox::defaults;
use crate::sandbox::error::SandboxError;
use crate::sandbox::wire::{Assistant, Campaign};

/// A wire record stored one field per column in `TABLE`.
pub(crate) trait Record: Serialize + DeserializeOwned + Send + 'static {
    const TABLE: &'static str;
    fn template() -> &'static Map<String, Value>;
}

impl Record for Assistant {
    const TABLE: &'static str = "assistants";
    fn template() -> &'static Map<String, Value> {
        static TEMPLATE: LazyLock<Map<String, Value>> =
            LazyLock::new(|| to_map(&defaults::assistant(0, 0)));
        &TEMPLATE
    }
}

impl Record for Campaign {
    const TABLE: &'static str = "campaigns";
    fn template() -> &'static Map<String, Value> {
        static TEMPLATE: LazyLock<Map<String, Value>> =
            LazyLock::new(|| to_map(&defaults::campaign(0)));
        &TEMPLATE
    }
}

pub(crate) fn to_map<R: Serialize>(record: &R) -> Map<String, Value> {
    match serde_json::to_value(record) {
        Ok(Value::Object(map)) => map,
        _ => unreachable!("wire records serialize to JSON objects"),
    }
}

/// The records of `R::TABLE` matching `filter` (an SQL condition over `params`), ordered by id.
pub(crate) fn select<R: Record>(
    tx: &Transaction<'_>,
    filter: &str,
    params: impl Params,
) -> Result<Vec<R>, SandboxError> {
    select_window(tx, filter, "", params)
}

/// Like [`select`], with `window` (a `LIMIT ... OFFSET ...` clause) after the ordering.
pub(crate) fn select_window<R: Record>(
    tx: &Transaction<'_>,
    filter: &str,
    window: &str,
    params: impl Params,
) -> Result<Vec<R>, SandboxError> {
    let columns = column_list(R::template().keys());
    let table = R::TABLE;
    let sql = format!("SELECT {columns} FROM {table} WHERE {filter} ORDER BY id {window}");
    let mut statement = tx.prepare_cached(&sql)?;
    let mut rows = statement.query(params)?;
    let mut records = Vec::new();
    while let Some(row) = rows.next()? {
        records.push(read_row::<R>(row)?);
    }
    Ok(records)
}

fn read_row<R: Record>(row: &Row<'_>) -> Result<R, SandboxError> {
    let mut map = Map::new();
    for (index, (column, template)) in R::template().iter().enumerate() {
        map.insert(column.clone(), from_sql(row.get_ref(index)?, template));
    }
    let id = map.get("id").and_then(Value::as_i64).unwrap_or_default();
    serde_json::from_value(Value::Object(map)).map_err(|e| SandboxError::CorruptRow {
        table: R::TABLE,
        id,
        problem: e.to_string(),
    })
}

fn from_sql(value: ValueRef<'_>, template: &Value) -> Value {
    match (value, template) {
        (ValueRef::Null, _) => Value::Null,
        (ValueRef::Integer(flag), Value::Bool(_)) => Value::Bool(flag != 0),
        (ValueRef::Integer(number), _) => Value::from(number),
        (ValueRef::Real(number), _) => Value::from(number),
        (ValueRef::Text(text), Value::Object(_) | Value::Array(_)) => {
            serde_json::from_slice(text).unwrap_or_else(|_| lossy(text))
        }
        (ValueRef::Text(text), _) => lossy(text),
        (ValueRef::Blob(_), _) => Value::Null,
    }
}

/// Bad text falls through as a string so the typed check reports the row instead of a panic.
fn lossy(text: &[u8]) -> Value {
    Value::String(String::from_utf8_lossy(text).into_owned())
}

/// Inserts `record` owned by `owner`, or updates every given column of the row with its id.
pub(crate) fn upsert(
    tx: &Transaction<'_>,
    table: &'static str,
    owner: i64,
    record: &Map<String, Value>,
) -> Result<(), SandboxError> {
    let mut values: Vec<(&str, SqlValue)> = vec![("user_id", SqlValue::Integer(owner))];
    let fields = record.iter().filter(|(column, _)| *column != "user_id");
    values.extend(fields.map(|(column, value)| (column.as_str(), to_sql(value))));
    let names: Vec<&str> = values.iter().map(|(column, _)| *column).collect();
    let placeholders = (1..=names.len()).map(|i| format!("?{i}")).collect::<Vec<_>>();
    let updates = names.iter().filter(|column| **column != "id");
    let updates: Vec<String> = updates.map(|c| format!("\"{c}\" = excluded.\"{c}\"")).collect();
    let sql = format!(
        "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT(id) DO UPDATE SET {}",
        column_list(names.iter().copied()),
        placeholders.join(", "),
        updates.join(", ")
    );
    let params = values.into_iter().map(|(_, value)| value);
    tx.prepare_cached(&sql)?.execute(rusqlite::params_from_iter(params))?;
    Ok(())
}

fn to_sql(value: &Value) -> SqlValue {
    match value {
        Value::Null => SqlValue::Null,
        Value::Bool(flag) => SqlValue::Integer(i64::from(*flag)),
        Value::Number(n) => n
            .as_i64()
            .map_or_else(|| SqlValue::Real(n.as_f64().unwrap_or_default()), SqlValue::Integer),
        Value::String(text) => SqlValue::Text(text.clone()),
        Value::Array(_) | Value::Object(_) => SqlValue::Text(value.to_string()),
    }
}

/// Quoted, because some field names (`type`, `record`) read like SQL words.
fn column_list<S: AsRef<str>>(columns: impl Iterator<Item = S>) -> String {
    let quoted: Vec<String> = columns.map(|c| format!("\"{}\"", c.as_ref())).collect();
    quoted.join(", ")
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::{Record, select, to_map, upsert};
    use crate::sandbox::defaults;
    use crate::sandbox::wire::{Assistant, Campaign};

    fn columns(conn: &Connection, table: &str) -> Vec<String> {
        let mut statement = conn.prepare(&format!("PRAGMA table_info({table})")).unwrap();
        let names = statement.query_map([], |row| row.get::<_, String>(1)).unwrap();
        names.map(Result::unwrap).filter(|name| name != "user_id").collect()
    }

    fn connection() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(include_str!("schema.sql")).unwrap();
        conn.execute("INSERT INTO users (id, token) VALUES (7, 't')", []).unwrap();
        conn
    }

    /// The schema is written by hand for readability; this keeps it in step with the wire types.
    #[test]
    fn schema_columns_are_the_wire_fields_in_order() {
        let conn = connection();
        let assistant: Vec<String> = Assistant::template().keys().cloned().collect();
        let assistant: Vec<String> = assistant.into_iter().filter(|k| k != "user_id").collect();
        assert_eq!(columns(&conn, "assistants"), assistant);
        let campaign: Vec<String> = Campaign::template().keys().cloned().collect();
        assert_eq!(columns(&conn, "campaigns"), campaign);
    }

    #[test]
    fn records_round_trip_through_their_rows() {
        let mut conn = connection();
        let tx = conn.transaction().unwrap();
        let mut assistant = defaults::assistant(3, 7);
        assistant.llm_temperature = "0.70".into();
        assistant.deleted_at = Some("2024-01-01T00:00:00.000000Z".into());
        upsert(&tx, Assistant::TABLE, 7, &to_map(&assistant)).unwrap();
        let campaign = defaults::campaign(4);
        upsert(&tx, Campaign::TABLE, 7, &to_map(&campaign)).unwrap();
        assert_eq!(select::<Assistant>(&tx, "user_id = ?1", [7]).unwrap(), [assistant]);
        assert_eq!(select::<Campaign>(&tx, "user_id = ?1", [7]).unwrap(), [campaign]);
    }
}
