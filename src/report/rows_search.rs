//! The search index of a run's rows (`rows.sqlite.search` beside `rows.sqlite`): each row's
//! number, variables, reasons and messages, lowercased, in an FTS5 trigram index, so a search
//! that finds few rows or none answers from the index instead of reading every row. It is built
//! once the run is over, in a file of its own that readers attach only when it is complete, so
//! building it never holds a page up; until then a search reads the rows as before.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::{Connection, params};

use super::error::ReportError;

/// Rows indexed per transaction while building.
const ROWS_PER_COMMIT: usize = 50_000;
/// Shorter searches than this cannot use a trigram index: they read the rows.
const MIN_INDEXED_CHARS: usize = 3;

/// The `LIKE` pattern of a search the index answers: long enough, and without `%`, `_` or `\`
/// (an `ESCAPE` clause turns FTS5's use of the index off).
pub(super) fn indexed_pattern(search: &str) -> Option<String> {
    let wanted = search.to_lowercase();
    let plain = !wanted.contains(['%', '_', '\\']);
    (plain && wanted.chars().count() >= MIN_INDEXED_CHARS).then(|| format!("%{wanted}%"))
}

/// A page of rows found through the index, in sheet order, with the other filters.
pub(super) const PAGE_SQL: &str = "SELECT r.json FROM s.search f JOIN rows r ON r.row = f.rowid \
     WHERE f.text LIKE ?1 AND f.rowid > ?2 AND (?3 IS NULL OR r.status = ?3) \
     AND (?4 IS NULL OR EXISTS (SELECT 1 FROM reasons x WHERE x.code = ?4 AND x.row = r.row)) \
     ORDER BY f.rowid LIMIT ?5";

/// Where the index of `rows` goes.
pub fn index_path(rows: &Path) -> PathBuf {
    let mut name = rows.as_os_str().to_owned();
    name.push(".search");
    PathBuf::from(name)
}

/// Builds the index of a finished run's rows; false when `stop` ended it first (nothing is
/// left then). A new build replaces an older index whole.
pub fn build_index(rows: &Path, stop: &AtomicBool) -> Result<bool, ReportError> {
    let target = index_path(rows);
    let part = PathBuf::from(format!("{}.part", target.display()));
    let fail = |e: rusqlite::Error| write_error(&part, e);
    let _ = std::fs::remove_file(&part);
    let index = Connection::open(&part).map_err(fail)?;
    index
        .execute_batch(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
             CREATE VIRTUAL TABLE search USING fts5(text, tokenize = 'trigram', detail = 'none');
             BEGIN;",
        )
        .map_err(fail)?;
    let source = Connection::open_with_flags(rows, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| write_error(rows, e))?;
    let filled = fill(&index, &source, stop).map_err(fail)?;
    drop((index, source));
    if !filled {
        let _ = std::fs::remove_file(&part);
        return Ok(false);
    }
    std::fs::rename(&part, &target)
        .map_err(|source| ReportError::Create { path: target.clone(), source })?;
    Ok(true)
}

/// Every row of `source` into `index`; false when `stop` came first.
fn fill(index: &Connection, source: &Connection, stop: &AtomicBool) -> rusqlite::Result<bool> {
    let mut read = source.prepare("SELECT row, json FROM rows ORDER BY row")?;
    let mut rows = read.query([])?;
    let mut insert = index.prepare("INSERT INTO search (rowid, text) VALUES (?1, ?2)")?;
    let mut done = 0;
    while let Some(row) = rows.next()? {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let number: i64 = row.get(0)?;
        let json = row.get_ref(1)?.as_bytes()?;
        insert.execute(params![number, text_of(json)])?;
        done += 1;
        if done % ROWS_PER_COMMIT == 0 {
            index.execute_batch("COMMIT; BEGIN")?;
        }
    }
    index.execute_batch("COMMIT")?;
    Ok(true)
}

/// Attaches the index as `s` when it is there; true then.
pub(super) fn attach(connection: &Connection, rows: &Path) -> bool {
    let index = index_path(rows);
    index.is_file()
        && connection.execute("ATTACH DATABASE ?1 AS s", [index.display().to_string()]).is_ok()
}

/// Puts a row checked again into the index, if there is one.
pub(super) fn reindex_row(rows: &Path, row: i64, json: &[u8]) -> Result<(), ReportError> {
    let index = index_path(rows);
    if !index.is_file() {
        return Ok(());
    }
    let fail = |e: rusqlite::Error| write_error(&index, e);
    let connection = Connection::open(&index).map_err(fail)?;
    connection.execute("DELETE FROM search WHERE rowid = ?1", [row]).map_err(fail)?;
    connection
        .execute("INSERT INTO search (rowid, text) VALUES (?1, ?2)", params![row, text_of(json)])
        .map_err(fail)?;
    Ok(())
}

/// What a search looks through in a row: its number, its variables' values, its secondary
/// numbers, its reasons' codes and messages (which quote the cell that was wrong), lowercased.
pub(super) fn text_of(json: &[u8]) -> String {
    let Ok(row) = serde_json::from_slice::<serde_json::Value>(json) else { return String::new() };
    let mut parts: Vec<&str> = Vec::new();
    parts.extend(row["phone"].as_str());
    if let Some(variables) = row["variables"].as_object() {
        parts.extend(variables.values().filter_map(|v| v.as_str()));
    }
    for contact in row["secondary_contacts"].as_array().into_iter().flatten() {
        parts.extend(contact["phone"].as_str());
    }
    for issue in ["errors", "warnings"].iter().flat_map(|k| row[k].as_array().into_iter().flatten())
    {
        parts.extend(issue["code"].as_str());
        parts.extend(issue["message"].as_str());
    }
    parts.join(" ").to_lowercase()
}

fn write_error(path: &Path, e: rusqlite::Error) -> ReportError {
    ReportError::Write { path: path.to_path_buf(), source: std::io::Error::other(e) }
}
