//! The rows of a run in SQLite (`--report rows.sqlite`), and the pages read back from it: where
//! the rows of a check live so that a front can show any page of them, filtered by status or
//! reason and searched, without holding the sheet. `leadsync ui` pages its row table from here.
//!
//! A row is stored as the JSON report's row (`json_row`), each issue with its message as a
//! value (`"said"`, see [`crate::row::Said`]) so a page says it in its own language, beside
//! the status a page is filtered on; a search looks through that JSON. A file written before
//! `said` was stored reads the same, its messages in English ([`stored_issues`]). Reasons get a table of their own
//! keyed by (code, row), so a page of one reason is an index range, not a scan. Pages are keyed
//! by row number ("rows after N"), never by offset, so page 5,000 costs what page 1 does.

use std::path::{Path, PathBuf};

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, params};

use super::error::ReportError;
use super::model::{RowReport, RowStatus, RunInfo, Summary};
use super::{ReportWriter, json_row, rows_search, status_str};

/// Rows per transaction at most, and the longest a row waits for one: a reader (the page of a
/// send under way) sees the rows so far at this step, and a crash loses at most these (the
/// report is redone by the next run anyway).
const ROWS_PER_COMMIT: u64 = 20_000;
const COMMIT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);
/// How long a reader waits for a commit under way.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

const SCHEMA: &str = "
    PRAGMA page_size = 16384;
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    CREATE TABLE rows (
        row INTEGER PRIMARY KEY,
        status TEXT NOT NULL,
        json TEXT NOT NULL
    );
    CREATE TABLE reasons (
        code TEXT NOT NULL,
        row INTEGER NOT NULL,
        PRIMARY KEY (code, row)
    ) WITHOUT ROWID;
    CREATE TABLE run (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE counts (status TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
";

/// Writes every row as it comes; the summary at `finish`. The rows are made into JSON here and
/// stored by a thread of their own, so the run's one writing thread hands a row on and goes on:
/// stored in line, SQLite's work made a check of a million rows half again as long.
pub(super) struct RowsDbWriter {
    path: PathBuf,
    batch: Batch,
    /// When the last batch was handed on: a send's rows come slowly, and its page shows them
    /// as they are stored.
    handed: std::time::Instant,
    to_db: Option<SyncSender<ToDb>>,
    db: Option<std::thread::JoinHandle<rusqlite::Result<()>>>,
}

/// Rows handed on together: each row's JSON (always UTF-8: `json_row` writes only `str`s) and
/// its reasons' codes in one buffer each, so a row costs no allocation of its own.
#[derive(Default)]
struct Batch {
    rows: Vec<Held>,
    json: Vec<u8>,
    codes: Vec<&'static str>,
}

/// A row as stored: its number, its status, and where its JSON and codes are in the batch.
struct Held {
    row: i64,
    status: &'static str,
    json: std::ops::Range<usize>,
    codes: std::ops::Range<usize>,
}

enum ToDb {
    Rows(Batch),
    Finish { summary: String, run: String },
}

/// Rows (or reasons) one INSERT statement stores.
const ROWS_PER_INSERT: usize = 32;

/// `head` and `n` copies of `values`, comma-separated: one statement for `n` rows.
fn many(head: &str, values: &str, n: usize) -> String {
    let mut sql = String::with_capacity(head.len() + n * (values.len() + 1));
    sql.push_str(head);
    for i in 0..n {
        if i > 0 {
            sql.push(',');
        }
        sql.push_str(values);
    }
    sql
}

/// `items` handed to `insert` [`ROWS_PER_INSERT`] at a time, and the rest one by one: two
/// statement shapes in the statement cache rather than one for every length of a batch's rest.
fn in_statements<T>(
    items: &[T],
    mut insert: impl FnMut(&[T]) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut full = items.chunks_exact(ROWS_PER_INSERT);
    for chunk in &mut full {
        insert(chunk)?;
    }
    full.remainder().iter().try_for_each(|item| insert(std::slice::from_ref(item)))
}

/// Rows handed to the database thread at once, and batches in flight to it.
const ROWS_PER_BATCH: usize = 256;
const BATCHES_QUEUED: usize = 16;
/// The longest a row waits to be handed on.
const HAND_ON_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

impl RowsDbWriter {
    /// Creates the file anew (an older one of the same name is replaced).
    pub(super) fn create(path: &Path) -> Result<RowsDbWriter, ReportError> {
        let fail = |e: rusqlite::Error| database_error(path, e);
        for stale in [path.to_path_buf(), wal(path, "-wal"), wal(path, "-shm")] {
            match std::fs::remove_file(&stale) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(ReportError::Create { path: stale, source }),
            }
        }
        let connection = Connection::open(path).map_err(fail)?;
        connection.execute_batch(SCHEMA).map_err(fail)?;
        connection.execute_batch("BEGIN").map_err(fail)?;
        let (to_db, rows) = sync_channel(BATCHES_QUEUED);
        let db = Db::new(connection);
        let thread = std::thread::Builder::new()
            .name("rows-db".into())
            .spawn(move || db.store(rows))
            .map_err(|source| ReportError::Create { path: path.to_path_buf(), source })?;
        Ok(RowsDbWriter {
            path: path.to_path_buf(),
            batch: Batch::default(),
            handed: std::time::Instant::now(),
            to_db: Some(to_db),
            db: Some(thread),
        })
    }

    /// Hands the batch on; when the thread has stopped, its error is the one to report.
    fn hand_on(&mut self, message: ToDb) -> Result<(), ReportError> {
        let sent = self.to_db.as_ref().is_some_and(|tx| tx.send(message).is_ok());
        match sent {
            true => Ok(()),
            false => Err(self.stopped_db()),
        }
    }

    fn stopped_db(&mut self) -> ReportError {
        self.to_db = None;
        let ended = self.db.take().map(std::thread::JoinHandle::join);
        match ended {
            Some(Ok(Err(e))) => database_error(&self.path, e),
            _ => database_error(&self.path, rusqlite::Error::InvalidQuery),
        }
    }
}

/// The database thread's side: the connection, the rows so far, and when it last committed.
struct Db {
    connection: Connection,
    written: u64,
    committed: std::time::Instant,
    /// Rows per status so far, stored with each commit: the page of a run under way reads
    /// these few lines, where counting the rows would read them all while they are written.
    tally: std::collections::BTreeMap<&'static str, u64>,
}

impl Db {
    fn new(connection: Connection) -> Db {
        Db {
            connection,
            written: 0,
            committed: std::time::Instant::now(),
            tally: std::collections::BTreeMap::new(),
        }
    }

    /// Stores what comes until `Finish`; a sender gone without it leaves the rows so far.
    fn store(mut self, rows: Receiver<ToDb>) -> rusqlite::Result<()> {
        for message in rows {
            match message {
                ToDb::Rows(batch) => self.insert(&batch)?,
                ToDb::Finish { summary, run } => return self.finish(&summary, &run),
            }
        }
        self.commit("COMMIT")
    }

    /// Stores the tally and ends the transaction; `then` begins the next.
    fn commit(&mut self, then: &str) -> rusqlite::Result<()> {
        let mut put =
            self.connection.prepare_cached("INSERT OR REPLACE INTO counts VALUES (?1, ?2)")?;
        for (status, n) in &self.tally {
            put.execute(params![status, *n as i64])?;
        }
        drop(put);
        self.connection.execute_batch(then)?;
        self.committed = std::time::Instant::now();
        Ok(())
    }

    fn insert(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        // Rows and reasons go in many to a statement: a statement per row cost SQLite more in
        // running the statement than in storing the row.
        in_statements(&batch.rows, |rows| self.insert_rows(rows, batch))?;
        let reasons: Vec<(&str, i64)> = batch
            .rows
            .iter()
            .flat_map(|held| batch.codes[held.codes.clone()].iter().map(|code| (*code, held.row)))
            .collect();
        in_statements(&reasons, |pairs| self.insert_reasons(pairs))?;
        for held in &batch.rows {
            *self.tally.entry(held.status).or_default() += 1;
        }
        let before = self.written;
        self.written += batch.rows.len() as u64;
        let crossed = before / ROWS_PER_COMMIT != self.written / ROWS_PER_COMMIT;
        if crossed || self.committed.elapsed() > COMMIT_EVERY {
            self.commit("COMMIT; BEGIN")?;
        }
        Ok(())
    }

    fn insert_rows(&self, rows: &[Held], batch: &Batch) -> rusqlite::Result<()> {
        let sql = many(
            "INSERT OR REPLACE INTO rows (row, status, json) VALUES ",
            "(?, ?, ?)",
            rows.len(),
        );
        let mut insert = self.connection.prepare_cached(&sql)?;
        let mut at = 1;
        for held in rows {
            // Text as it is: `json_row` writes only `str`s, so checking it again is waste.
            let json = ToSqlOutput::Borrowed(ValueRef::Text(&batch.json[held.json.clone()]));
            insert.raw_bind_parameter(at, held.row)?;
            insert.raw_bind_parameter(at + 1, held.status)?;
            insert.raw_bind_parameter(at + 2, json)?;
            at += 3;
        }
        insert.raw_execute().map(drop)
    }

    fn insert_reasons(&self, pairs: &[(&str, i64)]) -> rusqlite::Result<()> {
        let sql = many("INSERT OR IGNORE INTO reasons VALUES ", "(?, ?)", pairs.len());
        let mut insert = self.connection.prepare_cached(&sql)?;
        for (i, (code, row)) in pairs.iter().enumerate() {
            insert.raw_bind_parameter(2 * i + 1, *code)?;
            insert.raw_bind_parameter(2 * i + 2, *row)?;
        }
        insert.raw_execute().map(drop)
    }

    fn finish(&mut self, summary: &str, run: &str) -> rusqlite::Result<()> {
        let mut put = self.connection.prepare("INSERT OR REPLACE INTO run VALUES (?1, ?2)")?;
        put.execute(params!["summary", summary])?;
        put.execute(params!["run", run])?;
        drop(put);
        self.commit("COMMIT")
    }
}

impl ReportWriter for RowsDbWriter {
    fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError> {
        let batch = &mut self.batch;
        let (json_from, codes_from) = (batch.json.len(), batch.codes.len());
        json_row::write_stored_row(&mut batch.json, row);
        batch.codes.extend(row.errors.iter().chain(&row.warnings).map(|i| i.code.as_str()));
        batch.rows.push(Held {
            row: row.row as i64,
            status: status_str(row.status),
            json: json_from..batch.json.len(),
            codes: codes_from..batch.codes.len(),
        });
        if batch.rows.len() >= ROWS_PER_BATCH || self.handed.elapsed() > HAND_ON_EVERY {
            self.handed = std::time::Instant::now();
            let batch = std::mem::take(&mut self.batch);
            self.hand_on(ToDb::Rows(batch))?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>, summary: &Summary, run: &RunInfo) -> Result<(), ReportError> {
        let batch = std::mem::take(&mut self.batch);
        self.hand_on(ToDb::Rows(batch))?;
        let summary = serde_json::to_string(summary).unwrap_or_default();
        let run = serde_json::to_string(run).unwrap_or_default();
        self.hand_on(ToDb::Finish { summary, run })?;
        self.to_db = None;
        match self.db.take().map(std::thread::JoinHandle::join) {
            Some(Ok(Ok(()))) => Ok(()),
            Some(Ok(Err(e))) => Err(database_error(&self.path, e)),
            _ => Err(database_error(&self.path, rusqlite::Error::InvalidQuery)),
        }
    }
}

fn wal(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn database_error(path: &Path, e: rusqlite::Error) -> ReportError {
    ReportError::Write { path: path.to_path_buf(), source: std::io::Error::other(e) }
}

/// Which rows a page shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFilter {
    /// `valid`, `rejected`, … as the JSON report spells it; `None`: every status.
    pub status: Option<RowStatus>,
    /// An issue code (an error or a warning); `None`: any.
    pub reason: Option<String>,
    /// Text the row must contain (its number, variables and messages, which quote the cell
    /// that was wrong), in any case of ASCII letters (SQLite's `lower` leaves `Ü` as it is).
    pub search: Option<String>,
    /// Rows after this row number.
    pub after: u64,
}

/// One page of rows: each as the JSON report writes it, and whether more follow.
#[derive(Debug)]
pub struct RowPage {
    pub rows: Vec<serde_json::Value>,
    pub more: bool,
    /// A search read without the index stops after [`SEARCH_BUDGET`] with fewer rows than
    /// asked for: the last row it read, where the next page goes on. `None`: it got to the end
    /// of what it looked for.
    pub searched_to: Option<u64>,
}

impl RowPage {
    /// Where the next page starts (its `after`) when there is one: past the last row shown,
    /// or past where a search stopped for its time budget.
    pub fn next_after(&self) -> Option<u64> {
        let last = || self.rows.last().and_then(|r| r["row"].as_u64()).unwrap_or(0);
        self.more.then(|| self.searched_to.unwrap_or_else(last))
    }
}

/// How long a search without the index reads rows for one page; the page then says how far it
/// got and offers to go on, so no page waits on a million rows.
pub const SEARCH_BUDGET: std::time::Duration = std::time::Duration::from_millis(60);
/// Rows read at a time by a search without the index, between looks at the clock.
const SEARCH_WINDOW: i64 = 20_000;

/// A run's rows, read back.
pub struct RowsDb {
    connection: Connection,
    path: PathBuf,
    /// The search index is attached (`rows_search`).
    indexed: bool,
}

impl RowsDb {
    /// Opens a file a `--report FILE.sqlite` wrote (or is writing: the rows so far).
    pub fn open(path: &Path) -> Result<RowsDb, ReportError> {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let connection =
            Connection::open_with_flags(path, flags).map_err(|e| database_error(path, e))?;
        // A writer holds the file for the moment of a commit: wait for it rather than fail.
        connection.busy_timeout(BUSY_WAIT).map_err(|e| database_error(path, e))?;
        let indexed = rows_search::attach(&connection, path);
        Ok(RowsDb { connection, path: path.to_path_buf(), indexed })
    }

    /// Up to `size` rows that pass `filter`, in sheet order.
    pub fn page(&self, filter: &RowFilter, size: usize) -> Result<RowPage, ReportError> {
        self.page_within(filter, size, SEARCH_BUDGET)
    }

    /// `page`, with a search that the index cannot answer stopping after `budget`.
    fn page_within(
        &self,
        filter: &RowFilter,
        size: usize,
        budget: std::time::Duration,
    ) -> Result<RowPage, ReportError> {
        let fail = |e: rusqlite::Error| database_error(&self.path, e);
        let status = filter.status.map(status_str);
        let indexed = filter.search.as_deref().filter(|_| self.indexed);
        if let Some(pattern) = indexed.and_then(rows_search::indexed_pattern) {
            let mut statement =
                self.connection.prepare_cached(rows_search::PAGE_SQL).map_err(fail)?;
            let after = filter.after.min(i64::MAX as u64) as i64;
            let wanted = size as i64 + 1;
            let texts = statement
                .query_map(params![pattern, after, status, filter.reason, wanted], |r| {
                    r.get::<_, String>(0)
                })
                .map_err(fail)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(fail)?;
            return Ok(page_of(&texts, size));
        }
        let search = filter.search.as_deref().map(|s| format!("%{}%", like_escaped(s)));
        let sql = match filter.reason {
            Some(_) => {
                "SELECT r.json FROM reasons x JOIN rows r ON r.row = x.row \
                 WHERE x.code = ?1 AND x.row > ?2 AND x.row <= ?6 AND (?3 IS NULL OR r.status = ?3) \
                 AND (?4 IS NULL OR lower(r.json) LIKE ?4 ESCAPE '\\') ORDER BY x.row LIMIT ?5"
            }
            None => {
                "SELECT json FROM rows WHERE ?1 IS NULL AND row > ?2 AND row <= ?6 \
                 AND (?3 IS NULL OR status = ?3) AND (?4 IS NULL OR lower(json) LIKE ?4 ESCAPE '\\') \
                 ORDER BY row LIMIT ?5"
            }
        };
        let mut statement = self.connection.prepare_cached(sql).map_err(fail)?;
        let wanted = size + 1;
        let mut after = filter.after.min(i64::MAX as u64) as i64;
        // Without a search every row passes quickly: one read to the end. A search reads in
        // windows and stops at the budget.
        let (window, last) = match search {
            Some(_) => (SEARCH_WINDOW, self.last_row()?),
            None => (i64::MAX, i64::MAX),
        };
        let started = std::time::Instant::now();
        let mut texts = Vec::new();
        loop {
            let to = after.saturating_add(window);
            let found = statement
                .query_map(
                    params![
                        filter.reason,
                        after,
                        status,
                        search,
                        (wanted - texts.len()) as i64,
                        to
                    ],
                    |r| r.get::<_, String>(0),
                )
                .map_err(fail)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(fail)?;
            texts.extend(found);
            if texts.len() >= wanted || to >= last {
                return Ok(page_of(&texts, size));
            }
            after = to;
            if started.elapsed() >= budget {
                let mut page = page_of(&texts, size);
                page.more = true;
                page.searched_to = Some(to as u64);
                return Ok(page);
            }
        }
    }

    /// The highest row number stored, 0 for none.
    fn last_row(&self) -> Result<i64, ReportError> {
        self.connection
            .query_row("SELECT coalesce(max(row), 0) FROM rows", [], |r| r.get::<_, i64>(0))
            .map_err(|e| database_error(&self.path, e))
    }

    /// How many rows are stored so far.
    pub fn count(&self) -> Result<u64, ReportError> {
        self.connection
            .query_row("SELECT coalesce(sum(n), 0) FROM counts", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as u64)
            .map_err(|e| database_error(&self.path, e))
    }

    /// How many rows of each status are stored so far, as the JSON report spells the status.
    pub fn counts(&self) -> Result<Vec<(String, u64)>, ReportError> {
        let fail = |e: rusqlite::Error| database_error(&self.path, e);
        let mut statement = self
            .connection
            .prepare_cached("SELECT status, n FROM counts ORDER BY status")
            .map_err(fail)?;
        let counts = statement
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?.max(0) as u64)))
            .map_err(fail)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        Ok(counts)
    }

    /// The numbers of every row with the reason `code` (an error or a warning), in sheet order.
    pub fn rows_with(&self, code: &str) -> Result<Vec<u64>, ReportError> {
        let fail = |e: rusqlite::Error| database_error(&self.path, e);
        let mut statement = self
            .connection
            .prepare_cached("SELECT row FROM reasons WHERE code = ?1 ORDER BY row")
            .map_err(fail)?;
        let rows = statement
            .query_map([code], |r| r.get::<_, i64>(0))
            .map_err(fail)?
            .map(|row| row.map(|n| n.max(0) as u64))
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        Ok(rows)
    }

    /// The sheet's column names, once the run is finished.
    pub fn headers(&self) -> Result<Vec<String>, ReportError> {
        let text: Option<String> = self
            .connection
            .query_row("SELECT value FROM run WHERE key = 'run'", [], |r| r.get(0))
            .optional()
            .map_err(|e| database_error(&self.path, e))?;
        let run: Option<serde_json::Value> = text.and_then(|t| serde_json::from_str(&t).ok());
        let headers =
            run.as_ref().and_then(|r| r["headers"].as_array()).cloned().unwrap_or_default();
        Ok(headers.iter().map(|h| h.as_str().unwrap_or_default().to_string()).collect())
    }

    /// The run's summary as the JSON report writes it, once the run is finished.
    pub fn summary(&self) -> Result<Option<serde_json::Value>, ReportError> {
        let text: Option<String> = self
            .connection
            .query_row("SELECT value FROM run WHERE key = 'summary'", [], |r| r.get(0))
            .optional()
            .map_err(|e| database_error(&self.path, e))?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }
}

/// Puts `row` (the same row checked again, after an edit) in place of the stored one: its JSON,
/// its reasons and the counts. Returns the row it replaced, as far as the counts go (its status
/// and its errors), or `None` when the row was not stored.
pub fn replace_row(path: &Path, row: &RowReport) -> Result<Option<RowReport>, ReportError> {
    let fail = |e: rusqlite::Error| database_error(path, e);
    let mut connection = Connection::open(path).map_err(fail)?;
    connection.busy_timeout(BUSY_WAIT).map_err(fail)?;
    let transaction = connection.transaction().map_err(fail)?;
    let id = row.row as i64;
    let old: Option<String> = transaction
        .query_row("SELECT json FROM rows WHERE row = ?1", [id], |r| r.get(0))
        .optional()
        .map_err(fail)?;
    let old = old.and_then(|json| stored_verdict(row.row, &json));
    if let Some(old) = &old {
        transaction
            .execute(
                "UPDATE counts SET n = max(n - 1, 0) WHERE status = ?1",
                [status_str(old.status)],
            )
            .map_err(fail)?;
    }
    let mut json = Vec::new();
    json_row::write_stored_row(&mut json, row);
    let json = String::from_utf8(json).unwrap_or_default();
    transaction
        .execute(
            "INSERT OR REPLACE INTO rows (row, status, json) VALUES (?1, ?2, ?3)",
            params![id, status_str(row.status), json],
        )
        .map_err(fail)?;
    transaction.execute("DELETE FROM reasons WHERE row = ?1", [id]).map_err(fail)?;
    for issue in row.errors.iter().chain(&row.warnings) {
        transaction
            .execute(
                "INSERT OR IGNORE INTO reasons VALUES (?1, ?2)",
                params![issue.code.as_str(), id],
            )
            .map_err(fail)?;
    }
    transaction
        .execute(
            "INSERT INTO counts VALUES (?1, 1) ON CONFLICT (status) DO UPDATE SET n = n + 1",
            [status_str(row.status)],
        )
        .map_err(fail)?;
    transaction.commit().map_err(fail)?;
    rows_search::reindex_row(path, id, json.as_bytes())?;
    Ok(old)
}

/// A stored row's status and errors, read back from its JSON.
fn stored_verdict(row: u64, json: &str) -> Option<RowReport> {
    #[derive(serde::Deserialize)]
    struct Stored {
        status: RowStatus,
        #[serde(default)]
        errors: Vec<crate::row::Issue>,
    }
    let stored: Stored = serde_json::from_str(json).ok()?;
    Some(RowReport { errors: stored.errors, ..RowReport::blank(row, stored.status) })
}

/// A stored row's errors or warnings (`list`: `"errors"`, `"warnings"`) as issues, to say
/// their messages in a page's language with [`Issue::message_in`](crate::row::Issue::message_in).
/// An issue stored without `said` (by an older leadsync) says its English message.
pub fn stored_issues(row: &serde_json::Value, list: &str) -> Vec<crate::row::Issue> {
    let issues = row.get(list).and_then(serde_json::Value::as_array);
    let read = |issue: &serde_json::Value| serde_json::from_value(issue.clone()).ok();
    issues.map(|all| all.iter().filter_map(read).collect()).unwrap_or_default()
}

/// The first `size` of the rows found, and whether more were.
fn page_of(texts: &[String], size: usize) -> RowPage {
    let more = texts.len() > size;
    let rows = texts.iter().take(size).filter_map(|text| serde_json::from_str(text).ok()).collect();
    RowPage { rows, more, searched_to: None }
}

/// `%` and `_` mean themselves in a search.
fn like_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{RowFilter, RowsDb, RowsDbWriter};
    use crate::report::model::{Issue, IssueCode, RowReport, RowStatus, RunInfo, Summary};
    use crate::report::{ReportWriter, intern};

    fn row(n: u64, status: RowStatus, phone: &str, name: &str) -> RowReport {
        let mut row = RowReport {
            phone: Some(phone.to_string()).filter(|p| !p.is_empty()),
            campaign_id: Some(1),
            ..RowReport::blank(n, status)
        };
        row.variables.insert(intern("name"), name.to_string());
        if status == RowStatus::Rejected {
            row.errors.push(Issue::new(
                IssueCode::InvalidPhone,
                Some("phone".to_string()),
                "not a number",
            ));
        }
        row
    }

    /// A rows database being written in a folder of its own (kept while the first is).
    fn new_rows_db() -> (tempfile::TempDir, std::path::PathBuf, Box<dyn ReportWriter>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.sqlite");
        let writer = Box::new(RowsDbWriter::create(&path).unwrap());
        (dir, path, writer)
    }

    #[test]
    fn pages_come_back_in_sheet_order_filtered_and_searched() {
        let (_dir, path, mut writer) = new_rows_db();
        let mut summary = Summary::default();
        for n in 2..=101 {
            let status = if n % 10 == 0 { RowStatus::Rejected } else { RowStatus::Valid };
            let r = row(n, status, &format!("+4915100000{n:03}"), &format!("Name {n}"));
            summary.count(&r);
            writer.write_row(&r).unwrap();
        }
        writer.finish(&summary, &RunInfo::default()).unwrap();

        let db = RowsDb::open(&path).unwrap();
        assert_eq!(db.count().unwrap(), 100);
        let counts = db.counts().unwrap();
        assert_eq!(counts, [("rejected".to_string(), 10), ("valid".to_string(), 90)]);
        assert_eq!(db.summary().unwrap().unwrap()["rejected"], 10);
        let first = db.page(&RowFilter::default(), 25).unwrap();
        let numbers: Vec<u64> = first.rows.iter().map(|r| r["row"].as_u64().unwrap()).collect();
        assert_eq!(numbers, (2..27).collect::<Vec<_>>());
        assert!(first.more);
        let last = db.page(&RowFilter { after: 90, ..Default::default() }, 25).unwrap();
        assert_eq!(last.rows.len(), 11);
        assert!(!last.more);

        let rejected = RowFilter { status: Some(RowStatus::Rejected), ..Default::default() };
        let page = db.page(&rejected, 5).unwrap();
        let numbers: Vec<u64> = page.rows.iter().map(|r| r["row"].as_u64().unwrap()).collect();
        assert_eq!(numbers, [10, 20, 30, 40, 50]);
        let reason =
            RowFilter { reason: Some("invalid_phone".into()), after: 50, ..Default::default() };
        let page = db.page(&reason, 50).unwrap();
        assert_eq!(page.rows.len(), 5);
        assert_eq!(page.rows[0]["errors"][0]["code"], "invalid_phone");

        let search = RowFilter { search: Some("NAME 7".into()), ..Default::default() };
        let found: Vec<u64> =
            db.page(&search, 50).unwrap().rows.iter().map(|r| r["row"].as_u64().unwrap()).collect();
        assert_eq!(found, [7, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79]);
        let literal = RowFilter { search: Some("name_%".into()), ..Default::default() };
        assert!(db.page(&literal, 5).unwrap().rows.is_empty(), "% and _ are literal");
    }

    /// A page says a stored message in its own language; a row stored without `said` (by a
    /// leadsync before it) says its English.
    #[test]
    fn stored_messages_are_said_in_the_pages_language() {
        use crate::row::{Lang, Said};
        let (_dir, path, mut writer) = new_rows_db();
        let mut said = row(2, RowStatus::Rejected, "", "Ada");
        let problem = crate::phone::PhoneProblem::TooShort;
        let invalid = Said::InvalidPhone { typed: "0151".into(), problem };
        said.errors = vec![Issue::said(IssueCode::InvalidPhone, None, invalid)];
        writer.write_row(&said).unwrap();
        writer.write_row(&row(3, RowStatus::Rejected, "", "Bob")).unwrap();
        writer.finish(&Summary::default(), &RunInfo::default()).unwrap();
        let page = RowsDb::open(&path).unwrap().page(&RowFilter::default(), 10).unwrap();
        let messages: Vec<String> = page
            .rows
            .iter()
            .flat_map(|r| super::stored_issues(r, "errors"))
            .map(|issue| issue.message_in(Lang::De))
            .collect();
        assert_eq!(
            messages,
            [
                "„0151“ ist keine gültige Telefonnummer: zu kurz für eine Telefonnummer",
                "not a number"
            ]
        );
        assert_eq!(page.rows[0]["errors"][0]["message"], said.errors[0].message);
    }

    /// Rows and reasons are stored many to a statement: every one arrives, whether it fell in
    /// a full statement or in the rest of a batch.
    #[test]
    fn every_row_and_reason_is_stored_across_full_statements_and_their_rest() {
        let (_dir, path, mut writer) = new_rows_db();
        let mut summary = Summary::default();
        for n in 2..=1001 {
            let mut r = row(n, RowStatus::Rejected, "", &format!("Name {n}"));
            r.warnings.push(Issue::new(IssueCode::DuplicateInFile, None, "seen before"));
            summary.count(&r);
            writer.write_row(&r).unwrap();
        }
        writer.finish(&summary, &RunInfo::default()).unwrap();
        let db = RowsDb::open(&path).unwrap();
        assert_eq!(db.count().unwrap(), 1000);
        let every: Vec<u64> = (2..=1001).collect();
        assert_eq!(db.rows_with("invalid_phone").unwrap(), every);
        assert_eq!(db.rows_with("duplicate_in_file").unwrap(), every);
        let page = db.page(&RowFilter { after: 990, ..Default::default() }, 50).unwrap();
        let names: Vec<&str> =
            page.rows.iter().map(|r| r["variables"]["name"].as_str().unwrap()).collect();
        assert_eq!(names, (991..=1001).map(|n| format!("Name {n}")).collect::<Vec<_>>());
    }

    /// The index answers exactly what reading every row answers, for every kind of filter,
    /// and a row replaced after an edit is found by its new text, not its old.
    #[test]
    fn a_search_answers_the_same_from_the_index() {
        let (_dir, path, mut writer) = new_rows_db();
        for n in 2..=301 {
            let status = if n % 10 == 0 { RowStatus::Rejected } else { RowStatus::Valid };
            let name =
                if n % 7 == 0 { format!("Jürgen Müller {n}") } else { format!("Name {n}") };
            writer.write_row(&row(n, status, &format!("+4915100000{n:03}"), &name)).unwrap();
        }
        writer.finish(&Summary::default(), &RunInfo::default()).unwrap();
        let filters = [
            RowFilter { search: Some("müller".into()), ..Default::default() },
            RowFilter { search: Some("MÜLLER 2".into()), after: 30, ..Default::default() },
            RowFilter {
                search: Some("müller".into()),
                status: Some(RowStatus::Rejected),
                ..Default::default()
            },
            RowFilter {
                search: Some("not a".into()),
                reason: Some("invalid_phone".into()),
                ..Default::default()
            },
            RowFilter { search: Some("zzzz-not-there".into()), ..Default::default() },
            RowFilter { search: Some("+4915100000123".into()), ..Default::default() },
        ];
        let numbers = |db: &RowsDb, filter: &RowFilter| -> Vec<u64> {
            db.page(filter, 20).unwrap().rows.iter().map(|r| r["row"].as_u64().unwrap()).collect()
        };
        let scanned: Vec<Vec<u64>> =
            filters.iter().map(|f| numbers(&RowsDb::open(&path).unwrap(), f)).collect();
        assert!(!scanned[0].is_empty() && !scanned[2].is_empty() && !scanned[3].is_empty());
        assert!(scanned[4].is_empty());
        let stop = std::sync::atomic::AtomicBool::new(false);
        assert!(crate::report::rows_search::build_index(&path, &stop).unwrap());
        let db = RowsDb::open(&path).unwrap();
        assert!(db.indexed);
        for (filter, expected) in filters.iter().zip(&scanned) {
            assert_eq!(&numbers(&db, filter), expected, "{filter:?}");
        }

        let mut edited = row(14, RowStatus::Valid, "+4915100000014", "Zoë Quast");
        edited.row = 14;
        super::replace_row(&path, &edited).unwrap();
        let db = RowsDb::open(&path).unwrap();
        let zoe = RowFilter { search: Some("zoë quast".into()), ..Default::default() };
        assert_eq!(numbers(&db, &zoe), [14]);
        let old = RowFilter { search: Some("müller 14".into()), ..Default::default() };
        assert!(!numbers(&db, &old).contains(&14), "the old text is gone from the index");
    }

    /// A search without the index reads in windows under a time budget: followed page by page
    /// (each next page from where the last one got), it finds every matching row, in order,
    /// across windows, however far apart the rows are, also when a page stops with no row.
    #[test]
    fn a_search_without_the_index_goes_on_page_by_page_to_every_match() {
        let (_dir, path, mut writer) = new_rows_db();
        let numbers: Vec<u64> = (1..=120).map(|n| n * 1_013).collect();
        for &n in &numbers {
            let name = if n % 40 == 0 { format!("Quast {n}") } else { format!("Name {n}") };
            writer.write_row(&row(n, RowStatus::Valid, "+4915100000001", &name)).unwrap();
        }
        writer.finish(&Summary::default(), &RunInfo::default()).unwrap();
        let db = RowsDb::open(&path).unwrap();
        assert!(!db.indexed);
        let expected: Vec<u64> = numbers.iter().copied().filter(|n| n % 40 == 0).collect();
        // With the real budget the windows are read through; with none, every page stops after
        // its first window and says where, which the next page must go on from.
        for budget in [super::SEARCH_BUDGET, std::time::Duration::ZERO] {
            let mut filter = RowFilter { search: Some("quast".into()), ..Default::default() };
            let (mut found, mut stopped) = (Vec::new(), 0);
            loop {
                let page = db.page_within(&filter, 7, budget).unwrap();
                found.extend(page.rows.iter().map(|r| r["row"].as_u64().unwrap()));
                stopped += usize::from(page.searched_to.is_some());
                let Some(next) = page.next_after() else { break };
                assert!(next > filter.after, "each page goes on past the last");
                filter.after = next;
            }
            assert_eq!(found, expected, "budget {budget:?}");
            if budget.is_zero() {
                // Matches at rows 40,520, 81,040 and 121,560, so some windows find nothing;
                // windows of 20,000: six stops before the last window.
                assert_eq!(stopped, 6, "the budget stopped the search at each window");
            }
        }
    }
}
