//! The first stage: rows in. Owns everything between a path or URL and a stream of `Record`s
//! with a header: what the file really is (by content, not extension), its encoding and
//! delimiter, which sheet and which row holds the column names, and cell values as a person
//! sees them in Excel.
//!
//! ```text
//!  path ──► detect ──► csv (encoding, delimiter, Excel row numbers)  ──┐
//!             │                                                        ├─► header ──► Records
//!             └──────► sheet ──► sheet_rows (calamine, own thread) ───┘
//! ```
//!
//! `fetch` turns a URL into a local file first. Nothing here panics or aborts on bad input:
//! damaged files are `SourceError`s that say what to do, and `zip_scan` / `xls_scan` hold a
//! workbook to the `limits` before calamine allocates anything for it (an XLSX's worksheets
//! as calamine reads them, through `zip_guard`).

pub mod caught;
mod cell;
mod cfb;
mod csv;
mod default_key;
mod delimiter;
mod detect;
mod encoding;
mod error;
mod extent;
mod fetch;
mod header;
mod kind;
mod limits;
mod macro_sheets;
mod merged;
mod ods_guard;
mod ods_tally;
mod shown;
mod xls_formats;
mod xls_old_formulas;
mod xlsx;
mod sheet;
mod sheet_rows;
mod xls_scan;
mod xlsb_errors;
mod xlsb_scan;
mod xml_scan;
mod zip_guard;
mod zip_scan;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

pub use error::SourceError;
pub use extent::{Counted, Extent, Unit};
pub use fetch::{MAX_DOWNLOAD_BYTES, fetch, fetch_with_limit};
pub use kind::{CellKind, NO_WORDS, YES_WORDS, is_yes_no, kind_of};

/// How to read a file; the default sniffs everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceOptions {
    /// The CSV delimiter, e.g. `b';'`.
    pub delimiter: Option<u8>,
    /// A WHATWG encoding label such as `windows-1252` or `utf-16le`.
    pub encoding: Option<String>,
    /// The workbook sheet to read; default: the first sheet with data.
    pub sheet: Option<SheetSelector>,
    /// The 1-based row that holds the column names.
    pub header_row: Option<u64>,
    /// The region the file comes from (`DE`, `GB`): a hint for guessing a legacy encoding.
    pub region: Option<String>,
}

/// A sheet by name or by the 1-based position of its tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SheetSelector {
    /// An exact name wins; failing that the name ignoring case, then a number as a position.
    Name(String),
    Index(usize),
}

/// Parses what a person typed. Names are resolved against the workbook when it is opened,
/// where an exact sheet name wins over reading the text as a number.
impl FromStr for SheetSelector {
    type Err = Infallible;

    fn from_str(s: &str) -> Result<SheetSelector, Infallible> {
        Ok(SheetSelector::Name(s.to_owned()))
    }
}

impl fmt::Display for SheetSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SheetSelector::Name(name) => f.write_str(name),
            SheetSelector::Index(n) => write!(f, "{n}"),
        }
    }
}

/// What a file is, decided from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Csv,
    Tsv,
    Xlsx,
    Xlsm,
    Xlsb,
    Xls,
    Ods,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Csv => "CSV",
            Format::Tsv => "TSV",
            Format::Xlsx => "XLSX",
            Format::Xlsm => "XLSM",
            Format::Xlsb => "XLSB",
            Format::Xls => "XLS",
            Format::Ods => "ODS",
        })
    }
}

/// One row of the file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The row number Excel shows: the header is row 1 unless titles or blank rows precede it.
    pub row: u64,
    /// The cells, at least as many as there are headers (short rows are padded with "").
    pub cells: ::csv::StringRecord,
    /// Cells holding a spreadsheet error (`#N/A`, `#DIV/0!`); their text stays in `cells`.
    pub cell_errors: Vec<CellError>,
    /// Numbers whose cell format shows them otherwise than their digits (`01067` for 1067):
    /// `cells` has what a person sees, this the digits stored, which a phone is read from.
    pub stored_numbers: Vec<StoredNumber>,
    /// Set when the row is hidden in the workbook: by hand, or by an autofilter.
    pub hidden: Option<Hidden>,
}

/// Why a person does not see a row in Excel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// Hidden by hand (Format > Hide rows).
    Row,
    /// Hidden by the sheet's autofilter: it does not match what the person filtered for.
    Filtered,
}

impl Record {
    /// The digits stored in the cell at `column` when its format shows them otherwise.
    pub fn stored_number(&self, column: usize) -> Option<&str> {
        self.stored_numbers.iter().find(|s| s.column == column).map(|s| s.digits.as_str())
    }

    /// True when no cell holds anything but whitespace.
    pub fn is_blank(&self) -> bool {
        self.cells.iter().all(|c| c.trim().is_empty())
    }
}

/// A number cell shown otherwise than its digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredNumber {
    /// 0-based index into `Record::cells`.
    pub column: usize,
    /// The number as stored, written as typed: `1067`, `4915112345678`.
    pub digits: String,
}

/// A cell whose value is a spreadsheet error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellError {
    /// 0-based index into `Record::cells` (and `Source::headers`).
    pub column: usize,
    /// The error as Excel shows it, e.g. `#N/A`.
    pub value: String,
}

/// An opened file: what it is, its column names, and its rows still to read.
pub struct Source {
    /// The path (or URL) for messages.
    pub location: String,
    pub format: Format,
    /// Trimmed column names, trailing empty ones dropped.
    pub headers: Vec<String>,
    /// The row number of the header.
    pub header_row: u64,
    /// The sheet read, for workbooks.
    pub sheet: Option<String>,
    /// The 1-based tab position of that sheet.
    pub sheet_position: Option<usize>,
    /// Every sheet of the workbook in tab order, to choose another from (empty for CSV/TSV).
    pub sheets: Vec<String>,
    /// The text encoding, for CSV/TSV (e.g. `UTF-8`, `windows-1252`, `UTF-16LE`).
    pub encoding: Option<&'static str>,
    /// The delimiter, for CSV/TSV.
    pub delimiter: Option<u8>,
    /// How far reading has got, for the progress display.
    pub extent: std::sync::Arc<Extent>,
    /// What the person should know about how the file was read, one sentence each: rows
    /// skipped above the header, an encoding guessed or a code page replaced.
    pub notes: Vec<String>,
    /// Rows read while looking for the header that come after it (or the error that stopped
    /// the look-ahead), handed out before the rest.
    pending: VecDeque<Result<Record, SourceError>>,
    rows: Rows,
    /// The sheet's hidden columns and merged cells, once its reader has seen them (XLSX).
    layout: Option<sheet::SheetLayout>,
    /// The decrypted copy of a workbook encrypted with Excel's default key, read from until
    /// the rows are (`default_key`).
    decrypted: Option<tempfile::TempPath>,
}

/// Bytes read to decide format, encoding and delimiter.
const PREFIX_BYTES: usize = 64 * 1024;
/// Non-blank rows read ahead to tell a title row from the header.
const LOOKAHEAD_ROWS: usize = 12;
/// A bound on the rows held while looking ahead, blank ones included.
const LOOKAHEAD_RECORDS: usize = 1000;
/// Data rows handed to the mapping inference at most, of those already read ahead.
const SAMPLE_ROWS: usize = 50;

impl Source {
    /// Opens `path`, decides what it is, and reads up to the header.
    pub fn open(path: &Path, opts: &SourceOptions) -> Result<Source, SourceError> {
        Source::open_named(path, &path.display().to_string(), opts)
    }

    /// `open`, naming the file `location` in messages: the URL of a file `fetch` downloaded.
    pub fn open_named(
        path: &Path,
        location: &str,
        opts: &SourceOptions,
    ) -> Result<Source, SourceError> {
        let location = location.to_owned();
        let mut file = File::open(path).map_err(|e| SourceError::io(&location, e))?;
        let (prefix, whole) = read_prefix(&mut file, &location)?;
        if prefix.is_empty() {
            return Err(SourceError::Empty { location });
        }
        let format = match detect::kind(&location, &prefix)? {
            detect::Kind::Text => return Source::open_text(location, file, prefix, whole, opts),
            detect::Kind::Zip => detect::zip_format(path, &location)?,
            detect::Kind::Ole => match detect::ole_format(path, &location) {
                Err(SourceError::PasswordProtected { location }) => {
                    return Source::open_with_default_key(path, location, opts);
                }
                found => found?,
            },
        };
        drop(file);
        // calamine allocates from what the file declares, and an allocation failure aborts:
        // the limits are checked before it opens the file.
        let (hints, note) = match format {
            Format::Xls => {
                let plan = xls_scan::check(path, &location)?;
                let hints = sheet::Hints {
                    xls_codepage: plan.text.codepage,
                    copy: plan.copy,
                    ..Default::default()
                };
                (hints, plan.text.note)
            }
            _ => {
                let found = zip_scan::check(path, &location, format)?;
                let copy = match format {
                    Format::Xlsx | Format::Xlsm => macro_sheets::without_macro_sheets(path)
                        .map_err(|e| SourceError::io(&location, e))?,
                    _ => None,
                };
                let hints = sheet::Hints {
                    xlsb_formula_errors: found.xlsb_formula_errors,
                    guard: Some(found.guard),
                    copy,
                    ..Default::default()
                };
                (hints, None)
            }
        };
        let mut source = Source::open_workbook(path, location, format, hints, opts)?;
        source.notes.splice(0..0, note);
        Ok(source)
    }

    /// A workbook encrypted with Excel's default key, read from a decrypted copy that the
    /// source keeps until it is dropped; any other encrypted file is password-protected.
    fn open_with_default_key(
        path: &Path,
        location: String,
        opts: &SourceOptions,
    ) -> Result<Source, SourceError> {
        let Some(plain) = default_key::decrypt(path) else {
            return Err(SourceError::PasswordProtected { location });
        };
        let mut source = Source::open_named(&plain, &location, opts)?;
        source.decrypted = Some(plain);
        Ok(source)
    }

    fn open_workbook(
        path: &Path,
        location: String,
        format: Format,
        hints: sheet::Hints,
        opts: &SourceOptions,
    ) -> Result<Source, SourceError> {
        let extent = Extent::new(Unit::Rows, 0);
        let selector = opts.sheet.as_ref();
        let region = opts.region.as_deref();
        let opened = sheet::open(path, &location, format, selector, hints, region, extent.clone())?;
        let source = Source {
            location,
            format,
            headers: Vec::new(),
            header_row: 0,
            sheet: Some(opened.sheet),
            sheet_position: Some(opened.position),
            sheets: opened.names,
            encoding: None,
            delimiter: None,
            extent,
            notes: Vec::new(),
            pending: VecDeque::new(),
            rows: Rows::Sheet(opened.rows),
            layout: Some(opened.layout),
            decrypted: None,
        };
        source.with_header(opts.header_row)
    }

    fn open_text(
        location: String,
        file: File,
        prefix: Vec<u8>,
        whole: bool,
        opts: &SourceOptions,
    ) -> Result<Source, SourceError> {
        let size = file.metadata().map_or(0, |m| m.len());
        let extent = Extent::new(Unit::Bytes, size);
        extent.advance(prefix.len() as u64);
        // A whole file's last line may lack its newline.
        let unterminated = whole && !prefix.ends_with(b"\n");
        let lines = prefix.iter().filter(|&&b| b == b'\n').count() as u64;
        extent.set_lines_from_sample(lines + u64::from(unterminated), prefix.len() as u64);
        let file = Counted::new(file, extent.clone());
        let opened = csv::open(&location, file, prefix, whole, opts)?;
        let format = if opened.delimiter == b'\t' { Format::Tsv } else { Format::Csv };
        let source = Source {
            location,
            format,
            headers: Vec::new(),
            header_row: 0,
            sheet: None,
            sheet_position: None,
            sheets: Vec::new(),
            encoding: Some(opened.encoding.name()),
            delimiter: Some(opened.delimiter),
            extent,
            notes: opened.encoding_note.into_iter().collect(),
            pending: VecDeque::new(),
            rows: Rows::Csv(opened.rows),
            layout: None,
            decrypted: None,
        };
        source.with_header(opts.header_row)
    }

    /// Reads up to and including the header row: the one asked for, or the sniffed one.
    fn with_header(mut self, header_row: Option<u64>) -> Result<Source, SourceError> {
        let (header, above, first_filled) = match header_row {
            Some(n) => (self.read_to_row(n)?, None, None),
            None => self.sniff_header()?,
        };
        let header = match self.two_row_header(&header, above.as_ref())? {
            Some((combined, top_row)) => {
                let rows = format!("{top_row}\u{2013}{}", combined.row);
                self.notes.extend(header::skipped_note(first_filled, top_row));
                self.notes.push(format!("header on rows {rows}: cells merged across columns"));
                combined
            }
            None => {
                self.notes.extend(header::skipped_note(first_filled, header.row));
                header
            }
        };
        self.notes.extend(self.totals_note());
        self.headers = header::names(&header);
        self.header_row = header.row;
        self.extent.set_header_row(header.row);
        Ok(self)
    }

    fn read_to_row(&mut self, wanted: u64) -> Result<Record, SourceError> {
        if wanted == 0 {
            return Err(SourceError::InvalidOption {
                location: self.location.clone(),
                option: "header row",
                value: "0".to_owned(),
                advice: "rows are numbered from 1, as in Excel",
            });
        }
        let mut last_row = 0;
        for record in self.rows.by_ref() {
            let record = record?;
            if record.row < wanted {
                last_row = record.row;
                continue;
            }
            if record.row == wanted && !record.is_blank() {
                return Ok(record);
            }
            return Err(SourceError::HeaderRowBlank {
                location: self.location.clone(),
                sheet: self.sheet.clone(),
                header_row: wanted,
            });
        }
        Err(SourceError::HeaderRowMissing {
            location: self.location.clone(),
            sheet: self.sheet.clone(),
            header_row: wanted,
            last_row,
        })
    }

    /// `row 12 skipped: the totals row of a table`, for the tables' totals rows the reader
    /// passed over.
    fn totals_note(&self) -> Option<String> {
        let layout = self.layout.as_ref().and_then(|l| l.get())?;
        let rows: Vec<String> = layout.totals_rows.iter().map(|r| (r + 1).to_string()).collect();
        match rows.as_slice() {
            [] => None,
            [one] => Some(format!("row {one} skipped: the totals row of a table")),
            many => Some(format!("rows {} skipped: the totals rows of tables", many.join(", "))),
        }
    }

    /// The header of two rows a merged cell makes (`merged`): the row found and the one
    /// below it, or the row above it and the row found (the look-ahead takes a merged top
    /// row, narrower than its sub-header, for a title). Its top row with it.
    fn two_row_header(
        &mut self,
        header: &Record,
        above: Option<&Record>,
    ) -> Result<Option<(Record, u64)>, SourceError> {
        let merged = self.layout.as_ref().and_then(|l| l.get()).map(|l| l.merged.as_slice());
        let Some(ranges) = merged.filter(|m| !m.is_empty()) else { return Ok(None) };
        if let Some(combined) = above.and_then(|top| merged::two_row_header(top, header, ranges)) {
            return Ok(Some((combined, header.row - 1)));
        }
        let next = match self.pending.front() {
            Some(Ok(next)) => Some(next.clone()),
            Some(Err(_)) => None,
            None => match self.rows.next().transpose()? {
                Some(next) => {
                    self.pending.push_front(Ok(next.clone()));
                    Some(next)
                }
                None => None,
            },
        };
        let combined = next.and_then(|sub| merged::two_row_header(header, &sub, ranges));
        if combined.is_some() {
            self.pending.pop_front();
        }
        Ok(combined.map(|c| (c, header.row)))
    }

    /// The header row the look-ahead finds, the non-blank row right above it (if it was
    /// skipped), and the first row with data.
    fn sniff_header(&mut self) -> Result<(Record, Option<Record>, Option<u64>), SourceError> {
        let mut seen: Vec<Record> = Vec::new();
        let (mut non_blank, mut stopped_by) = (0, None);
        while non_blank < LOOKAHEAD_ROWS && seen.len() < LOOKAHEAD_RECORDS {
            match self.rows.next() {
                // Blank rows above everything can never be the header nor data.
                Some(Ok(record)) if record.is_blank() && non_blank == 0 => {}
                Some(Ok(record)) => {
                    non_blank += usize::from(!record.is_blank());
                    seen.push(record);
                }
                Some(Err(e)) => {
                    stopped_by = Some(e);
                    break;
                }
                None => break,
            }
        }
        let Some(at) = header::sniff(&seen) else {
            return Err(stopped_by.unwrap_or_else(|| SourceError::NoData {
                location: self.location.clone(),
                sheet: self.sheet.clone(),
            }));
        };
        let first_filled = seen.iter().find(|r| !r.is_blank()).map(|r| r.row);
        let mut rest = seen.split_off(at);
        let header = rest.remove(0);
        let above = seen.pop().filter(|r| r.row + 1 == header.row && !r.is_blank());
        self.pending = rest.into_iter().map(Ok).chain(stopped_by.map(Err)).collect();
        Ok((header, above, first_filled))
    }

    /// The first data rows below the header, each its cells by column index: the rows read
    /// while looking for the header, so nothing more of the file is read for them (and there
    /// are none when the header row was given). The mapping inference reads values from them
    /// (`mapping::infer_from`).
    pub fn samples(&self) -> Vec<Vec<String>> {
        let read = self.pending.iter().filter_map(|item| item.as_ref().ok());
        read.filter(|record| !record.is_blank())
            .take(SAMPLE_ROWS)
            .map(|record| record.cells.iter().map(str::to_owned).collect())
            .collect()
    }

    /// The rows after the header, in file order, streaming.
    pub fn records(self) -> Records {
        Records {
            pending: self.pending,
            rows: self.rows,
            width: self.headers.len(),
            extent: self.extent,
            _decrypted: self.decrypted,
        }
    }
}

impl Source {
    /// The columns (indexes into `headers`) the workbook hides: a person does not see them.
    /// Known once the header is found, which reads past where a sheet declares them.
    pub fn hidden_columns(&self) -> Vec<usize> {
        let ranges = self.layout.as_ref().and_then(|l| l.get()).map(|l| &l.hidden_columns);
        let width = self.headers.len();
        let columns = ranges.into_iter().flatten().flat_map(|&(first, last)| {
            (first as usize)..=(last as usize).min(width.saturating_sub(1))
        });
        let mut columns: Vec<usize> = columns.filter(|&c| c < width).collect();
        columns.sort_unstable();
        columns.dedup();
        columns
    }
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("location", &self.location)
            .field("format", &self.format)
            .field("headers", &self.headers)
            .field("header_row", &self.header_row)
            .field("sheet", &self.sheet)
            .field("encoding", &self.encoding)
            .field("delimiter", &self.delimiter.map(char::from))
            .field("notes", &self.notes)
            .finish_non_exhaustive()
    }
}

/// Reads up to `PREFIX_BYTES`; the flag says the file ended within them.
fn read_prefix(file: &mut File, location: &str) -> Result<(Vec<u8>, bool), SourceError> {
    let mut prefix = Vec::with_capacity(PREFIX_BYTES);
    file.by_ref()
        .take(PREFIX_BYTES as u64)
        .read_to_end(&mut prefix)
        .map_err(|e| SourceError::io(location, e))?;
    let whole = prefix.len() < PREFIX_BYTES;
    Ok((prefix, whole))
}

/// The record stream of either kind of file.
enum Rows {
    Csv(csv::CsvRows),
    Sheet(sheet_rows::SheetRows),
}

impl Iterator for Rows {
    type Item = Result<Record, SourceError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Rows::Csv(rows) => rows.next(),
            Rows::Sheet(rows) => rows.next(),
        }
    }
}

/// The data rows of a `Source`, each padded to the number of headers.
pub struct Records {
    pending: VecDeque<Result<Record, SourceError>>,
    rows: Rows,
    width: usize,
    extent: std::sync::Arc<Extent>,
    /// Kept until the rows are read (`Source::decrypted`).
    _decrypted: Option<tempfile::TempPath>,
}

impl Iterator for Records {
    type Item = Result<Record, SourceError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = match self.pending.pop_front() {
            Some(item) => item,
            None => self.rows.next()?,
        };
        Some(item.map(|mut record| {
            if self.extent.unit == Unit::Rows {
                self.extent.reached_row(record.row);
            }
            while record.cells.len() < self.width {
                record.cells.push_field("");
            }
            record
        }))
    }
}

/// True when `location` is an http(s) URL rather than a path.
pub fn is_url(location: &str) -> bool {
    let lower = location.get(..8).unwrap_or(location).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

#[cfg(test)]
mod fidelity_tests;
#[cfg(test)]
mod tests;
