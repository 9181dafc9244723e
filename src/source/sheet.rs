//! Workbook rows through calamine: XLSX, XLSM, XLSB, XLS and ODS.
//!
//! The workbook is opened and the sheet chosen on the caller's thread, so a damaged or
//! protected file fails in `Source::open`. The rows are then produced on a thread of their own
//! that owns the workbook: calamine's streaming cell reader borrows the workbook, and a thread
//! is the safe way to hand such a pair to an iterator that must be `Send` and `'static`. It also
//! lets XML parsing overlap with whatever the caller does with the rows. A bounded channel of
//! small batches keeps memory flat for XLSX and XLSB; XLS and ODS have no streaming reader in
//! calamine and are loaded whole (XLS stops at 65,536 rows anyway).

use std::fs::File;
use std::io::BufReader;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::{thread, vec};

use calamine::{
    Cell, Data, DataRef, Dimensions, Ods, Range, Reader, SheetType, SheetVisible, Sheets, Xls,
    XlsError, Xlsb, Xlsx,
};
use csv::StringRecord;

use super::cell::{self, Value};
use super::csv::error_literals;
use super::{Format, Record, SheetSelector, SourceError};

type Book = Sheets<BufReader<File>>;
type Batch = Result<Vec<Record>, SourceError>;

const BATCH_ROWS: usize = 256;
/// Batches in flight: with `BATCH_ROWS` this bounds the rows held between the threads.
const CHANNEL_BATCHES: usize = 4;
const PANIC_DETAIL: &str = "the reader failed on malformed data";
/// Excel's grid is 16,384 columns wide (A to XFD); a cell beyond it comes from a damaged file,
/// and honouring it would pad a row with billions of empty cells.
const MAX_COLUMNS: u32 = 16_384;

/// The chosen sheet and its rows.
pub(super) struct SheetSource {
    pub sheet: String,
    pub rows: SheetRows,
}

/// Opens the workbook at `path`, picks the sheet and starts reading it.
pub(super) fn open(
    path: &Path,
    location: &str,
    format: Format,
    selector: Option<&SheetSelector>,
) -> Result<SheetSource, SourceError> {
    let mut book = open_book(path, location, format)?;
    let (sheet, loaded) = match selector {
        Some(selector) => (resolve(&book, location, selector)?, None),
        None => first_sheet_with_data(&mut book, location)?,
    };
    let rows = SheetRows::spawn(book, location, &sheet, loaded)?;
    Ok(SheetSource { sheet, rows })
}

fn open_book(path: &Path, location: &str, format: Format) -> Result<Book, SourceError> {
    let file = File::open(path).map_err(|e| SourceError::io(location, e))?;
    let reader = BufReader::new(file);
    let opened = catch_unwind(AssertUnwindSafe(|| match format {
        Format::Xls => Xls::new(reader)
            .map(Sheets::Xls)
            .map_err(calamine::Error::Xls),
        Format::Xlsb => Xlsb::new(reader)
            .map(Sheets::Xlsb)
            .map_err(calamine::Error::Xlsb),
        Format::Ods => Ods::new(reader)
            .map(Sheets::Ods)
            .map_err(calamine::Error::Ods),
        Format::Xlsx | Format::Xlsm | Format::Csv | Format::Tsv => Xlsx::new(reader)
            .map(Sheets::Xlsx)
            .map_err(calamine::Error::Xlsx),
    }));
    let corrupt = |detail: String| SourceError::Corrupt {
        location: location.to_owned(),
        format,
        detail,
    };
    match opened {
        Ok(Ok(book)) => Ok(book),
        Ok(Err(calamine::Error::Xls(XlsError::Password))) => Err(SourceError::PasswordProtected {
            location: location.to_owned(),
        }),
        Ok(Err(e)) => Err(corrupt(e.to_string())),
        Err(_) => Err(corrupt(PANIC_DETAIL.to_owned())),
    }
}

/// An exact name first, then the name ignoring case and surrounding spaces, then a number as
/// the 1-based position of the sheet's tab.
fn resolve(book: &Book, location: &str, selector: &SheetSelector) -> Result<String, SourceError> {
    let names = book.sheet_names();
    let by_position = |n: usize| n.checked_sub(1).and_then(|i| names.get(i));
    let found = match selector {
        SheetSelector::Index(n) => by_position(*n),
        SheetSelector::Name(wanted) => names
            .iter()
            .find(|name| *name == wanted)
            .or_else(|| {
                let wanted = wanted.trim().to_lowercase();
                names
                    .iter()
                    .find(|name| name.trim().to_lowercase() == wanted)
            })
            .or_else(|| wanted.trim().parse().ok().and_then(by_position)),
    };
    found.cloned().ok_or_else(|| SourceError::SheetNotFound {
        location: location.to_owned(),
        wanted: selector.to_string(),
        available: names.clone(),
    })
}

/// The first worksheet with a non-empty cell, visible sheets before hidden ones. XLS and ODS
/// sheets are loaded to be probed, so the chosen one is handed on instead of loaded twice.
fn first_sheet_with_data(
    book: &mut Book,
    location: &str,
) -> Result<(String, Option<Range<Data>>), SourceError> {
    let sheets = book.sheets_metadata().to_vec();
    let worksheets = sheets.iter().filter(|s| s.typ == SheetType::WorkSheet);
    let (visible, hidden): (Vec<_>, Vec<_>) =
        worksheets.partition(|s| s.visible == SheetVisible::Visible);
    for sheet in visible.into_iter().chain(hidden) {
        let probed = catch_unwind(AssertUnwindSafe(|| probe(book, &sheet.name)));
        let read_error = |detail: String| SourceError::SheetRead {
            location: location.to_owned(),
            sheet: sheet.name.clone(),
            row: None,
            detail,
        };
        match probed {
            Ok(Ok(Probe::Empty)) => continue,
            Ok(Ok(Probe::Data(loaded))) => return Ok((sheet.name.clone(), loaded)),
            Ok(Err(detail)) => return Err(read_error(detail)),
            Err(_) => return Err(read_error(PANIC_DETAIL.to_owned())),
        }
    }
    Err(SourceError::NoData {
        location: location.to_owned(),
        sheet: None,
    })
}

enum Probe {
    Empty,
    Data(Option<Range<Data>>),
}

fn probe(book: &mut Book, name: &str) -> Result<Probe, String> {
    let has_data = match book {
        Sheets::Xlsx(wb) => {
            let mut cells = wb.worksheet_cells_reader(name).map_err(|e| e.to_string())?;
            first_value(|| cells.next_cell().map_err(|e| e.to_string()))?
        }
        Sheets::Xlsb(wb) => {
            let mut cells = wb.worksheet_cells_reader(name).map_err(|e| e.to_string())?;
            first_value(|| cells.next_cell().map_err(|e| e.to_string()))?
        }
        Sheets::Xls(_) | Sheets::Ods(_) => {
            let range = book.worksheet_range(name).map_err(|e| e.to_string())?;
            let has_data = range.used_cells().next().is_some();
            return Ok(if has_data {
                Probe::Data(Some(range))
            } else {
                Probe::Empty
            });
        }
    };
    Ok(if has_data {
        Probe::Data(None)
    } else {
        Probe::Empty
    })
}

fn first_value<'a>(
    mut next: impl FnMut() -> Result<Option<Cell<DataRef<'a>>>, String>,
) -> Result<bool, String> {
    while let Some(cell) = next()? {
        if !matches!(cell.get_value(), DataRef::Empty) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The rows of one sheet, produced on another thread.
pub(super) struct SheetRows {
    rx: Receiver<Batch>,
    current: vec::IntoIter<Record>,
    done: bool,
}

impl SheetRows {
    fn spawn(
        book: Book,
        location: &str,
        sheet: &str,
        loaded: Option<Range<Data>>,
    ) -> Result<SheetRows, SourceError> {
        let (tx, rx) = sync_channel(CHANNEL_BATCHES);
        let (location_owned, sheet_owned) = (location.to_owned(), sheet.to_owned());
        thread::Builder::new()
            .name("leadsync-sheet".to_owned())
            .spawn(move || produce(book, location_owned, sheet_owned, loaded, tx))
            .map_err(|e| SourceError::io(location, e))?;
        Ok(SheetRows {
            rx,
            current: Vec::new().into_iter(),
            done: false,
        })
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

/// The producer thread: reads the sheet, sends batches, ends with the error if there is one.
fn produce(
    mut book: Book,
    location: String,
    sheet: String,
    loaded: Option<Range<Data>>,
    tx: SyncSender<Batch>,
) {
    let mut out = Batches::new(tx);
    let read = catch_unwind(AssertUnwindSafe(|| {
        read_sheet(&mut book, &sheet, loaded, &mut out)
    }));
    let failure = match read {
        Ok(Ok(())) => None,
        Ok(Err(failure)) => Some(failure),
        Err(_) => Some((None, PANIC_DETAIL.to_owned())),
    };
    out.flush();
    if let Some((row, detail)) = failure {
        let error = SourceError::SheetRead {
            location,
            sheet,
            row,
            detail,
        };
        let _ = out.tx.send(Err(error));
    }
}

/// A read failure: the row it happened at, if known, and calamine's description.
type Failure = (Option<u64>, String);

fn read_sheet(
    book: &mut Book,
    sheet: &str,
    loaded: Option<Range<Data>>,
    out: &mut Batches,
) -> Result<(), Failure> {
    let no_row = |e: String| (None, e);
    match (book, loaded) {
        (_, Some(range)) => send_range(&range, out),
        (Sheets::Xlsx(wb), None) => {
            let mut cells = wb
                .worksheet_cells_reader(sheet)
                .map_err(|e| no_row(e.to_string()))?;
            let offset = first_column(cells.dimensions());
            stream(|| cells.next_cell().map_err(|e| e.to_string()), offset, out)
        }
        (Sheets::Xlsb(wb), None) => {
            let mut cells = wb
                .worksheet_cells_reader(sheet)
                .map_err(|e| no_row(e.to_string()))?;
            let offset = first_column(cells.dimensions());
            stream(|| cells.next_cell().map_err(|e| e.to_string()), offset, out)
        }
        (book, None) => {
            let range = book
                .worksheet_range(sheet)
                .map_err(|e| no_row(e.to_string()))?;
            send_range(&range, out)
        }
    }
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
        if r != row.index && !out.push(row.take()) {
            return Ok(());
        }
        row.index = r;
        row.push(c, &Value::from(cell.get_value()));
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
    /// Column (relative to `offset`), start and end of each cell's text in `text`.
    spans: Vec<(u32, usize, usize)>,
}

impl RowBuilder {
    fn new(offset: u32) -> RowBuilder {
        RowBuilder {
            index: 0,
            offset,
            text: String::new(),
            spans: Vec::new(),
        }
    }

    fn excel_row(&self) -> u64 {
        u64::from(self.index) + 1
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
            self.spans.push((column, start, self.text.len()));
        }
    }

    /// The record for the cells pushed so far, `None` for a row without any value.
    fn take(&mut self) -> Option<Record> {
        if self.spans.is_empty() {
            return None;
        }
        if !self.spans.is_sorted_by_key(|s| s.0) {
            self.spans.sort_by_key(|s| s.0);
        }
        let width = self.spans.last().map_or(0, |s| s.0 as usize + 1);
        let mut cells = StringRecord::with_capacity(self.text.len(), width);
        for &(column, start, end) in &self.spans {
            while cells.len() < column as usize {
                cells.push_field("");
            }
            if cells.len() == column as usize {
                cells.push_field(&self.text[start..end]);
            }
        }
        self.text.clear();
        self.spans.clear();
        let cell_errors = error_literals(&cells);
        Some(Record {
            row: self.excel_row(),
            cells,
            cell_errors,
        })
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
        Batches {
            tx,
            batch: Vec::with_capacity(BATCH_ROWS),
            open: true,
        }
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
        assert_eq!(
            first_column(Dimensions::new((0, u32::MAX - 1), (0, u32::MAX))),
            0
        );
    }
}
