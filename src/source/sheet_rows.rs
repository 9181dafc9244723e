//! A sheet's rows, produced on a thread of its own that owns the workbook.
//!
//! calamine's streaming cell readers borrow the workbook, and a thread is the safe way to hand
//! such a pair to an iterator that must be `Send` and `'static`; it also lets XML parsing
//! overlap with whatever the caller does with the rows. Cells are grouped into records with
//! one text buffer per row, and records travel in small batches over a bounded channel, so
//! memory stays flat for XLSX and XLSB. XLS and ODS have no streaming reader in calamine and
//! arrive as a loaded range. calamine panics on some damaged files: the thread catches that
//! and reports it as a `SourceError`.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::{thread, vec};

use calamine::{Cell, Data, DataRef, Dimensions, Range, Reader, Sheets};
use csv::StringRecord;

use super::cell::{self, Value};
use super::csv::error_literals;
use super::merged::DownFill;
use super::sheet::{Book, Layout, PANIC_DETAIL, SheetLayout};
use super::xlsb_errors;
use super::xlsx;
use super::zip_guard::Guard;
use super::{Extent, Hidden, Record, SourceError, StoredNumber};

type Batch = Result<Vec<Record>, SourceError>;

const BATCH_ROWS: usize = 256;
/// An XLSX worksheet part inflating to at most this is read once more for its merged cells
/// before its rows: about 35,000 rows of an eight-column lead list, for at most some 40 ms
/// (inflating is most of it: 47 MiB cost 0.11 s). A bigger one is read without them, so a
/// million-row sheet costs what it did.
const MERGE_SCAN_BYTES: u64 = 16 << 20;
/// Batches in flight: with `BATCH_ROWS` this bounds the rows held between the threads.
const CHANNEL_BATCHES: usize = 4;
/// Excel's grid is 16,384 columns wide (A to XFD); a cell beyond it comes from a damaged file,
/// and honouring it would pad a row with billions of empty cells.
const MAX_COLUMNS: u32 = 16_384;

/// The rows of one sheet, produced on another thread.
pub(super) struct SheetRows {
    rx: Receiver<Batch>,
    current: vec::IntoIter<Record>,
    done: bool,
}

impl SheetRows {
    /// Starts reading the sheet `read` names.
    pub(super) fn spawn(
        book: Book,
        location: &str,
        read: Read,
        extent: Arc<Extent>,
    ) -> Result<SheetRows, SourceError> {
        let (tx, rx) = sync_channel(CHANNEL_BATCHES);
        let location_owned = location.to_owned();
        thread::Builder::new()
            .name("leadsync-sheet".to_owned())
            .spawn(move || produce(book, location_owned, read, tx, &extent))
            .map_err(|e| SourceError::io(location, e))?;
        Ok(SheetRows { rx, current: Vec::new().into_iter(), done: false })
    }
}

impl Iterator for SheetRows {
    type Item = Result<Record, SourceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(record) = self.current.next() {
                return Some(Ok(record));
            }
            if self.done {
                return None;
            }
            match self.rx.recv() {
                Ok(Ok(batch)) => self.current = batch.into_iter(),
                Ok(Err(e)) => {
                    self.done = true;
                    return Some(Err(e));
                }
                Err(_) => self.done = true,
            }
        }
    }
}

/// What the producer thread reads.
pub(super) struct Read {
    pub sheet: String,
    /// The sheet's range when probing already loaded it.
    pub loaded: Option<Range<Data>>,
    /// The workbook's path when it is an XLSB with formula error cells.
    pub formula_errors: Option<PathBuf>,
    /// The parts scanned as they are read, whose refusal replaces calamine's read error.
    pub guard: Arc<Guard>,
    /// The workbook's file, which an XLSX worksheet is read from by `xlsx`.
    pub path: PathBuf,
    /// The decimal mark and grouping of the run's region, for numbers shown as formatted.
    pub marks: ssfmt::FormatOptions,
    /// Where the sheet's hidden columns go once read.
    pub layout: SheetLayout,
}

/// The producer thread: reads the sheet, sends batches, ends with the error if there is one.
fn produce(mut book: Book, location: String, read: Read, tx: SyncSender<Batch>, extent: &Extent) {
    let mut out = Batches::new(tx);
    let Read { sheet, loaded, formula_errors, guard, path, marks, layout } = read;
    // Who reads the sheet: leadsync's own reader an XLSX worksheet, calamine the rest.
    let read = super::caught::catch(|| match (&book, &loaded) {
        (Sheets::Xlsx(wb), None) => {
            let is_1904 = wb.has_1904_epoch();
            let shape = Shape { is_1904, marks: &marks, layout: &layout };
            stream_xlsx(&path, &sheet, shape, &mut out, extent, &guard)
        }
        _ => {
            let errors = formula_errors.as_deref();
            read_by_calamine(&mut book, &sheet, loaded, errors, &mut out, extent)
        }
    });
    let failure = match read {
        Ok(Ok(())) => None,
        Ok(Err(failure)) => Some(failure),
        Err(_) => Some((None, PANIC_DETAIL.to_owned())),
    };
    out.flush();
    if let Some((row, detail)) = failure {
        let error = guard.refusal(&location);
        let error = error.unwrap_or(SourceError::SheetRead { location, sheet, row, detail });
        let _ = out.tx.send(Err(error));
    }
}

/// A read failure: the row it happened at, if known, and calamine's description.
type Failure = (Option<u64>, String);

/// A sheet calamine reads: streamed (XLSB) or loaded whole (XLS, ODS, a sheet loaded by the
/// probe).
fn read_by_calamine(
    book: &mut Book,
    sheet: &str,
    loaded: Option<Range<Data>>,
    formula_errors: Option<&Path>,
    out: &mut Batches,
    extent: &Extent,
) -> Result<(), Failure> {
    let no_row = |e: String| (None, e);
    match (book, loaded) {
        (_, Some(range)) => {
            extent.set_total(range.end().map_or(0, |(row, _)| u64::from(row) + 1));
            send_range(&range, out)
        }
        (Sheets::Xlsb(wb), None) => {
            let mut cells = wb.worksheet_cells_reader(sheet).map_err(|e| no_row(e.to_string()))?;
            extent.set_total(last_row(cells.dimensions()));
            let offset = first_column(cells.dimensions());
            let next = || cells.next_cell().map_err(|e| e.to_string());
            match formula_errors {
                Some(path) => stream_with_formula_errors(path, sheet, next, offset, out),
                None => stream(next, offset, out),
            }
        }
        (book, None) => {
            let range = book.worksheet_range(sheet).map_err(|e| no_row(e.to_string()))?;
            extent.set_total(range.end().map_or(0, |(row, _)| u64::from(row) + 1));
            send_range(&range, out)
        }
    }
}

/// An XLSX worksheet's cells, read by `xlsx` from the workbook at `path`, grouped into
/// records; a limit it goes past is the guard's refusal. Columns count from A, whatever the
/// sheet's `<dimension>` says: writers get it wrong (`B1:C3` over data in column A), and a
/// column left of it would be lost without a word.
fn stream_xlsx(
    path: &Path,
    sheet: &str,
    shape: Shape<'_>,
    out: &mut Batches,
    extent: &Extent,
    guard: &Guard,
) -> Result<(), Failure> {
    // Merged cells are listed after the rows: looked for first, in a sheet small enough.
    let merged = xlsx::merged_ranges(path, sheet, MERGE_SCAN_BYTES).ok().flatten();
    let merged = merged.unwrap_or_default();
    let mut row = RowBuilder::new(0);
    row.fill = DownFill::new(&merged);
    let mut open = true;
    let start = |dimensions: Dimensions, hidden_columns: Vec<(u32, u32)>, totals_rows| {
        extent.set_total(last_row(dimensions));
        let _ = shape.layout.set(Layout { hidden_columns, merged, totals_rows });
    };
    let cell = |r: u32, c: u32, value: &Value<'_>, hidden: Option<Hidden>| {
        open = row.add(r, c, value, out);
        row.hidden = hidden;
        open
    };
    let (is_1904, marks) = (shape.is_1904, shape.marks);
    xlsx::read_sheet(path, sheet, is_1904, marks, start, cell).map_err(|e| guard.keep(e))?;
    if open {
        out.push(row.take());
    }
    Ok(())
}

/// What an XLSX worksheet's cells are read with, and where its layout goes.
struct Shape<'a> {
    is_1904: bool,
    marks: &'a ssfmt::FormatOptions,
    layout: &'a SheetLayout,
}

/// XLSB cells with the formula errors calamine skips (see `xlsb_errors`), read from a second
/// handle on the workbook at `path`; without the part, calamine's cells alone.
fn stream_with_formula_errors<'a>(
    path: &Path,
    sheet: &str,
    next: impl FnMut() -> Result<Option<Cell<DataRef<'a>>>, String>,
    offset: u32,
    out: &mut Batches,
) -> Result<(), Failure> {
    let zip = File::open(path).ok().and_then(|f| zip::ZipArchive::new(BufReader::new(f)).ok());
    let Some(mut zip) = zip else { return stream(next, offset, out) };
    let Some(name) = xlsb_errors::sheet_part(&mut zip, sheet) else {
        return stream(next, offset, out);
    };
    let Ok(part) = zip.by_name(&name) else { return stream(next, offset, out) };
    let mut errors = xlsb_errors::FormulaErrors::new(BufReader::new(part));
    stream(xlsb_errors::merge(next, &mut errors), offset, out)
}

/// The last row the sheet says it uses, as Excel numbers it: the total for the progress.
fn last_row(dimensions: Dimensions) -> u64 {
    u64::from(dimensions.end.0) + 1
}

/// Cells start at the sheet's first used column, as in calamine's ranges. A missing
/// `<dimension>` reads as A1:A1, which keeps column A; a damaged one off the grid is ignored.
fn first_column(dimensions: Dimensions) -> u32 {
    match dimensions.start.1 {
        column if column < MAX_COLUMNS => column,
        _ => 0,
    }
}

/// Groups streamed cells (in row order, as the formats store them) into records.
fn stream<'a>(
    mut next: impl FnMut() -> Result<Option<Cell<DataRef<'a>>>, String>,
    offset: u32,
    out: &mut Batches,
) -> Result<(), Failure> {
    let mut row = RowBuilder::new(offset);
    loop {
        let cell = match next() {
            Ok(Some(cell)) => cell,
            Ok(None) => break,
            Err(e) => return Err((Some(row.excel_row()), e)),
        };
        let (r, c) = cell.get_position();
        if !row.add(r, c, &Value::from(cell.get_value()), out) {
            return Ok(());
        }
    }
    out.push(row.take());
    Ok(())
}

fn send_range(range: &Range<Data>, out: &mut Batches) -> Result<(), Failure> {
    let Some((first_row, first_col)) = range.start() else {
        return Ok(());
    };
    let mut row = RowBuilder::new(first_col);
    for (i, cells) in range.rows().enumerate() {
        row.index = first_row.saturating_add(i as u32);
        for (j, value) in cells.iter().enumerate() {
            row.push(first_col.saturating_add(j as u32), &Value::from(value));
        }
        if !out.push(row.take()) {
            break;
        }
    }
    Ok(())
}

/// One row's cells, appended to a single text buffer so a cell costs no allocation of its own.
struct RowBuilder {
    /// 0-based sheet row.
    index: u32,
    offset: u32,
    text: String,
    /// Column (relative to `offset`), start and end of each cell's text in `text`, and the
    /// number stored when a format shows it otherwise.
    spans: Vec<(u32, usize, usize, Option<f64>)>,
    /// Whether the row is hidden in the workbook, and why.
    hidden: Option<Hidden>,
    /// Values merged down a column, put into the rows they cover.
    fill: DownFill,
}

impl RowBuilder {
    fn new(offset: u32) -> RowBuilder {
        RowBuilder {
            index: 0,
            offset,
            text: String::new(),
            spans: Vec::new(),
            hidden: None,
            fill: DownFill::default(),
        }
    }

    fn excel_row(&self) -> u64 {
        u64::from(self.index) + 1
    }

    /// Adds the cell at (`r`, `c`), sending the row before it when the cell starts a new row;
    /// false once nobody takes the rows any more.
    fn add(&mut self, r: u32, c: u32, value: &Value<'_>, out: &mut Batches) -> bool {
        if r != self.index && !out.push(self.take()) {
            return false;
        }
        self.index = r;
        self.push(c, value);
        true
    }

    fn push(&mut self, column: u32, value: &Value<'_>) {
        if column >= MAX_COLUMNS {
            return;
        }
        let Some(column) = column.checked_sub(self.offset) else {
            return;
        };
        let start = self.text.len();
        if cell::write(value, &mut self.text) {
            let stored = match value {
                Value::Shown { stored, .. } => Some(*stored),
                _ => None,
            };
            self.spans.push((column, start, self.text.len(), stored));
        }
    }

    /// The record for the cells pushed so far, `None` for a row without any value.
    fn take(&mut self) -> Option<Record> {
        self.fill_down();
        if self.spans.is_empty() {
            return None;
        }
        if !self.spans.is_sorted_by_key(|s| s.0) {
            self.spans.sort_by_key(|s| s.0);
        }
        let width = self.spans.last().map_or(0, |s| s.0 as usize + 1);
        let mut cells = StringRecord::with_capacity(self.text.len(), width);
        let mut stored_numbers = Vec::new();
        for &(column, start, end, stored) in &self.spans {
            while cells.len() < column as usize {
                cells.push_field("");
            }
            if cells.len() == column as usize {
                cells.push_field(&self.text[start..end]);
                if let Some(number) = stored {
                    stored_numbers.push(stored_number(column as usize, number));
                }
            }
        }
        self.text.clear();
        self.spans.clear();
        let cell_errors = error_literals(&cells);
        let hidden = self.hidden.take();
        Some(Record { row: self.excel_row(), cells, cell_errors, stored_numbers, hidden })
    }
}

fn stored_number(column: usize, number: f64) -> StoredNumber {
    let mut digits = String::new();
    cell::write_number(number, &mut digits);
    StoredNumber { column, digits }
}

impl RowBuilder {
    /// Puts the values merged down from rows above into this row's empty cells.
    fn fill_down(&mut self) {
        if self.fill.is_empty() {
            return;
        }
        let (text, spans, offset) = (&self.text, &self.spans, self.offset);
        let cell = |column: u32| {
            let span = spans.iter().find(|s| s.0.checked_add(offset) == Some(column));
            span.map(|&(_, start, end, _)| &text[start..end])
        };
        for (column, value) in self.fill.for_row(self.index, cell) {
            let Some(column) = column.checked_sub(self.offset) else { continue };
            if self.spans.iter().all(|s| s.0 != column) {
                let start = self.text.len();
                self.text.push_str(&value);
                self.spans.push((column, start, self.text.len(), None));
            }
        }
    }
}

/// Collects records into batches for the channel; notices when the reader has gone away.
struct Batches {
    tx: SyncSender<Batch>,
    batch: Vec<Record>,
    open: bool,
}

impl Batches {
    fn new(tx: SyncSender<Batch>) -> Batches {
        Batches { tx, batch: Vec::with_capacity(BATCH_ROWS), open: true }
    }

    /// Queues `record` (if any); false once nobody is listening, so reading can stop.
    fn push(&mut self, record: Option<Record>) -> bool {
        if let Some(record) = record {
            self.batch.push(record);
            if self.batch.len() == BATCH_ROWS {
                self.flush();
            }
        }
        self.open
    }

    fn flush(&mut self) {
        if self.batch.is_empty() || !self.open {
            return;
        }
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH_ROWS));
        self.open = self.tx.send(Ok(batch)).is_ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_fill_gaps_and_ignore_cells_off_the_grid() {
        let mut row = RowBuilder::new(1);
        row.index = 4;
        row.push(3, &Value::Text("c"));
        row.push(1, &Value::Int(7));
        row.push(0, &Value::Text("left of the first column"));
        row.push(2_147_483_647, &Value::Text("damaged"));
        let record = row.take().unwrap();
        assert_eq!(record.row, 5);
        assert_eq!(record.cells, vec!["7", "", "c"]);
        assert!(row.take().is_none(), "a taken row starts empty");
    }

    #[test]
    fn a_damaged_dimension_keeps_column_a() {
        assert_eq!(first_column(Dimensions::new((0, 2), (9, 5))), 2);
        assert_eq!(first_column(Dimensions::new((0, u32::MAX - 1), (0, u32::MAX))), 0);
    }
}
