//! CSV and TSV rows: encoding and delimiter decided once from the first bytes, then a streaming
//! `csv` reader that numbers records the way Excel numbers rows.
//!
//! UTF-8 files are parsed as they are, without transcoding; other encodings go through
//! `encoding_rs_io`. Records are read into one reused `ByteRecord`, validated as UTF-8 in one
//! pass and copied into the row's `StringRecord`: one allocation pair per row, memory flat
//! however many rows there are.

use std::io::{self, Cursor, Read};

use csv::{ByteRecord, StringRecord};
use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};
use encoding_rs_io::DecodeReaderBytesBuilder;

use super::delimiter;
use super::encoding::{self, TextEncoding};
use super::{CellError, Record, SourceError, SourceOptions};

/// A record longer than this is a broken file (an unclosed quote swallowing everything after
/// it), not data: Excel itself caps a cell at 32,767 characters.
pub(super) const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;
/// The most columns a row may have: Excel's own maximum, the same as for workbooks. Without it
/// a 4 MB header of 2 million empty columns costs hundreds of MiB downstream.
pub(super) const MAX_COLUMNS: usize = 16_384;
/// Large enough that the `csv` reader rarely refills, small enough to stay in cache.
const BUFFER_CAPACITY: usize = 64 * 1024;

/// What was decided about the file, and its rows.
pub(super) struct CsvSource {
    pub encoding: &'static Encoding,
    /// Said when the encoding was guessed: which one, and how to override it.
    pub encoding_note: Option<String>,
    pub delimiter: u8,
    pub rows: CsvRows,
}

/// Opens the text file whose first bytes are `prefix` (`whole` when that is all of it).
pub(super) fn open(
    location: &str,
    file: impl Read + Send + 'static,
    prefix: Vec<u8>,
    whole: bool,
    opts: &SourceOptions,
) -> Result<CsvSource, SourceError> {
    let region = opts.region.as_deref();
    let enc = encoding::detect(location, &prefix, whole, opts.encoding.as_deref(), region)?;
    let encoding_note = enc.guessed.then(|| encoding::guess_note(enc.encoding, region));
    let text = enc.encoding.decode_without_bom_handling(&prefix[enc.bom_len..]).0;
    let sep = delimiter::sep_line(&text);
    let body = &text[sep.map_or(0, |(_, len)| len)..];
    let delimiter = match opts.delimiter {
        Some(d) => check_delimiter(location, d)?,
        None => sep.map(|(d, _)| d).or_else(|| delimiter::sniff(body, whole)).unwrap_or(b','),
    };
    let ending = line_ending(body);
    let skip = enc.bom_len + sep.map_or(0, |(_, len)| len * code_unit(enc.encoding));
    let input = input(file, prefix, skip, &enc, ending);
    let rows = CsvRows::new(location, input, delimiter, ending, fallback(&enc));
    Ok(CsvSource { encoding: enc.encoding, encoding_note, delimiter, rows })
}

fn check_delimiter(location: &str, d: u8) -> Result<u8, SourceError> {
    if d.is_ascii() && !matches!(d, b'"' | b'\r' | b'\n') {
        return Ok(d);
    }
    Err(SourceError::InvalidOption {
        location: location.to_owned(),
        option: "delimiter",
        value: (d as char).escape_default().to_string(),
        advice: "use an ASCII character other than a quote or a newline, e.g. `,` `;` `|` or a tab",
    })
}

fn code_unit(encoding: &'static Encoding) -> usize {
    if encoding == UTF_16LE || encoding == UTF_16BE { 2 } else { 1 }
}

/// When a file looked like UTF-8 only because its first 64 KiB were ASCII, a later invalid
/// byte most likely comes from Excel's Windows-1252; otherwise invalid bytes become U+FFFD.
fn fallback(enc: &TextEncoding) -> Option<&'static Encoding> {
    (enc.encoding == UTF_8 && enc.ascii_prefix).then_some(WINDOWS_1252)
}

/// The bytes the `csv` reader sees: the prefix already read (past BOM and `sep=` line), the
/// rest of the file, transcoded to UTF-8 unless it is UTF-8, then one final line ending so the
/// last record is terminated like the others (the line arithmetic relies on it).
fn input(
    file: impl Read + Send + 'static,
    mut prefix: Vec<u8>,
    skip: usize,
    enc: &TextEncoding,
    ending: LineEnding,
) -> Box<dyn Read + Send> {
    prefix.drain(..skip.min(prefix.len()));
    let raw = Cursor::new(prefix).chain(file);
    let eol: &'static [u8] = match ending {
        LineEnding::Crlf => b"\r\n",
        LineEnding::Lf | LineEnding::Cr => b"\n",
    };
    if enc.encoding == UTF_8 {
        return Box::new(raw.chain(eol));
    }
    let decoded = DecodeReaderBytesBuilder::new().encoding(Some(enc.encoding)).build(raw);
    Box::new(decoded.chain(eol))
}

/// How lines end, from the first line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LineEnding {
    Lf,
    Crlf,
    Cr,
}

fn line_ending(text: &str) -> LineEnding {
    let bytes = text.as_bytes();
    match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
        Some(i) if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') => LineEnding::Crlf,
        Some(i) if bytes[i] == b'\r' && i + 1 < bytes.len() => LineEnding::Cr,
        _ => LineEnding::Lf,
    }
}

/// The streaming records of one CSV file.
pub(super) struct CsvRows {
    location: String,
    reader: csv::Reader<Budget<Box<dyn Read + Send>>>,
    lines: LineCounter,
    fallback: Option<&'static Encoding>,
    /// The record being read, reused so that reading allocates nothing once warm.
    raw: ByteRecord,
    done: bool,
}

impl CsvRows {
    fn new(
        location: &str,
        input: Box<dyn Read + Send>,
        delimiter: u8,
        ending: LineEnding,
        fallback: Option<&'static Encoding>,
    ) -> CsvRows {
        let reader = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(BUFFER_CAPACITY)
            .from_reader(Budget::new(input, MAX_RECORD_BYTES));
        CsvRows {
            location: location.to_owned(),
            reader,
            lines: LineCounter::new(ending),
            fallback,
            raw: ByteRecord::new(),
            done: false,
        }
    }

    fn read(&mut self) -> Result<Option<Record>, SourceError> {
        match self.reader.read_byte_record(&mut self.raw) {
            Ok(true) => {}
            Ok(false) => return Ok(None),
            Err(e) => return Err(self.error(e)),
        }
        self.reader.get_mut().reset();
        let row = self.lines.row(&self.raw, self.reader.position().line());
        if self.raw.len() > MAX_COLUMNS {
            return Err(SourceError::TooManyColumns {
                location: self.location.clone(),
                row,
                columns: self.raw.len(),
                limit: MAX_COLUMNS,
            });
        }
        let cells = utf8_cells(&self.raw).unwrap_or_else(|| self.decode_invalid());
        let cell_errors = error_literals(&cells);
        Ok(Some(Record { row, cells, cell_errors, stored_numbers: Vec::new(), hidden: None }))
    }

    /// A record with invalid UTF-8: through the fallback decoder, else with U+FFFD.
    fn decode_invalid(&self) -> StringRecord {
        let Some(encoding) = self.fallback else {
            return StringRecord::from_byte_record_lossy(self.raw.clone());
        };
        let mut cells = StringRecord::with_capacity(self.raw.as_slice().len() * 2, self.raw.len());
        for field in &self.raw {
            cells.push_field(&encoding.decode_without_bom_handling(field).0);
        }
        cells
    }

    fn error(&self, error: csv::Error) -> SourceError {
        let row = self.lines.last_row + 1;
        let location = self.location.clone();
        match error.into_kind() {
            csv::ErrorKind::Io(e) if Budget::<()>::is_exceeded(&e) => SourceError::RowTooLong {
                location,
                row,
                limit_mib: MAX_RECORD_BYTES / (1024 * 1024),
            },
            csv::ErrorKind::Io(e) => SourceError::Io { location, error: e },
            other => SourceError::Csv { location, row, detail: format!("{other:?}") },
        }
    }
}

impl Iterator for CsvRows {
    type Item = Result<Record, SourceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let result = self.read();
        self.done = !matches!(result, Ok(Some(_)));
        result.transpose()
    }
}

/// The record's cells when it is valid UTF-8. One pass over the whole record is much cheaper
/// than `StringRecord::from_byte_record`'s check of every field; each field must still start
/// and end on a character boundary, which a slice of the checked text verifies.
fn utf8_cells(raw: &ByteRecord) -> Option<StringRecord> {
    let text = std::str::from_utf8(raw.as_slice()).ok()?;
    let mut cells = StringRecord::with_capacity(text.len(), raw.len());
    let mut start = 0;
    for field in raw {
        let end = start + field.len();
        cells.push_field(text.get(start..end)?);
        start = end;
    }
    Some(cells)
}

/// The texts Excel writes for formula errors; a CSV exported from a sheet carries them as text.
pub(super) const ERROR_LITERALS: [&str; 8] =
    ["#N/A", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#NULL!", "#DATA!"];

pub(super) fn error_literals(cells: &StringRecord) -> Vec<CellError> {
    if !cells.as_slice().contains('#') {
        return Vec::new();
    }
    let is_error = |c: &str| c.starts_with('#') && ERROR_LITERALS.contains(&c);
    cells
        .iter()
        .enumerate()
        .filter(|(_, c)| is_error(c))
        .map(|(column, c)| CellError { column, value: c.to_owned() })
        .collect()
}

/// Turns the `csv` reader's line count into Excel row numbers: one row per record, blank lines
/// counted, newlines inside quoted fields not.
///
/// `csv` skips blank lines and counts every `\n` it consumes. With LF endings a read consumes
/// the blank lines before a record, the record's inner newlines and its own `\n`; with CRLF
/// endings it stops at the `\r`, so the `\n` is consumed by the next read instead.
struct LineCounter {
    ending: LineEnding,
    /// The reader's line after the previous record.
    last_line: u64,
    /// Newlines inside quoted fields so far: lines that are not rows.
    folded: u64,
    last_row: u64,
}

impl LineCounter {
    fn new(ending: LineEnding) -> LineCounter {
        LineCounter { ending, last_line: 1, folded: 0, last_row: 0 }
    }

    fn row(&mut self, raw: &ByteRecord, line_after: u64) -> u64 {
        let row = match self.ending {
            LineEnding::Cr => self.last_row + 1,
            LineEnding::Lf | LineEnding::Crlf => self.row_from_lines(raw, line_after),
        };
        // Mixed line endings can confuse the arithmetic; rows must still increase.
        let row = row.max(self.last_row + 1);
        self.last_row = row;
        self.last_line = line_after;
        row
    }

    fn row_from_lines(&mut self, raw: &ByteRecord, line_after: u64) -> u64 {
        let own = u64::from(self.ending == LineEnding::Lf);
        let previous = u64::from(self.ending == LineEnding::Crlf && self.last_row > 0);
        let consumed = line_after.saturating_sub(self.last_line);
        // The common case, one line per record, needs no scan of the record's bytes.
        let inner = if consumed > own + previous { count_newlines(raw.as_slice()) } else { 0 };
        let lines_before = (line_after - 1).saturating_sub(inner + own);
        let row = (lines_before + 1).saturating_sub(self.folded);
        self.folded += inner;
        row
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Fails a read once more than `limit` bytes have passed since the last `reset`, so a file
/// without record boundaries cannot grow one record without bound.
struct Budget<R> {
    inner: R,
    used: u64,
    limit: u64,
}

#[derive(Debug, thiserror::Error)]
#[error("record exceeds the size limit")]
struct BudgetExceeded;

impl<R> Budget<R> {
    fn new(inner: R, limit: u64) -> Budget<R> {
        Budget { inner, used: 0, limit }
    }

    fn reset(&mut self) {
        self.used = 0;
    }

    fn is_exceeded(error: &io::Error) -> bool {
        error.get_ref().is_some_and(|e| e.is::<BudgetExceeded>())
    }
}

impl<R: Read> Read for Budget<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.used > self.limit {
            return Err(io::Error::other(BudgetExceeded));
        }
        let n = self.inner.read(buf)?;
        self.used += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(text: &[u8], ending: LineEnding) -> Vec<(u64, Vec<String>)> {
        let eol: &[u8] = if ending == LineEnding::Crlf { b"\r\n" } else { b"\n" };
        let input: Box<dyn Read + Send> = Box::new(Cursor::new(text.to_vec()).chain(eol));
        CsvRows::new("t.csv", input, b',', ending, None)
            .map(|r| {
                let r = r.unwrap();
                (r.row, r.cells.iter().map(str::to_owned).collect())
            })
            .collect()
    }

    fn row_numbers(text: &[u8], ending: LineEnding) -> Vec<u64> {
        rows_of(text, ending).into_iter().map(|(r, _)| r).collect()
    }

    #[test]
    fn rows_count_blank_lines_but_not_quoted_newlines() {
        let text = b"h1,h2\n\na,\"x\ny\nz\"\nb,2\n\n\nc,3";
        assert_eq!(row_numbers(text, LineEnding::Lf), vec![1, 3, 4, 7]);
        let crlf = b"h1,h2\r\n\r\na,\"x\r\ny\r\nz\"\r\nb,2\r\n\r\n\r\nc,3\r\n";
        assert_eq!(row_numbers(crlf, LineEnding::Crlf), vec![1, 3, 4, 7]);
    }

    #[test]
    fn old_mac_line_endings_number_records_in_order() {
        assert_eq!(row_numbers(b"a\rb\rc", LineEnding::Cr), vec![1, 2, 3]);
    }

    #[test]
    fn line_ending_is_read_from_the_first_line() {
        assert_eq!(line_ending("a,b\r\nc"), LineEnding::Crlf);
        assert_eq!(line_ending("a,b\nc"), LineEnding::Lf);
        assert_eq!(line_ending("a,b\rc"), LineEnding::Cr);
        assert_eq!(line_ending("a,b"), LineEnding::Lf);
    }

    #[test]
    fn a_record_without_end_is_an_error_not_a_memory_explosion() {
        let huge = vec![b'x'; 200_000];
        let input: Box<dyn Read + Send> = Box::new(Cursor::new(huge));
        let mut rows = CsvRows::new("t.csv", input, b',', LineEnding::Lf, None);
        rows.reader.get_mut().limit = 50_000;
        let err = rows.next().unwrap().unwrap_err();
        assert!(matches!(err, SourceError::RowTooLong { row: 1, .. }), "{err}");
        assert!(rows.next().is_none());
    }

    #[test]
    fn invalid_utf8_after_an_ascii_prefix_is_read_as_windows_1252() {
        let input: Box<dyn Read + Send> = Box::new(Cursor::new(b"a,K\xF6ln\n".to_vec()));
        let mut rows = CsvRows::new("t.csv", input, b',', LineEnding::Lf, Some(WINDOWS_1252));
        assert_eq!(&rows.next().unwrap().unwrap().cells[1], "Köln");
    }

    #[test]
    fn a_character_split_across_fields_is_not_valid_utf8() {
        let split = ByteRecord::from(vec![&b"\xC3"[..], &b"\xA4"[..]]);
        assert!(utf8_cells(&split).is_none());
        let fine = ByteRecord::from(vec!["Jürgen", "", "Köln"]);
        assert_eq!(utf8_cells(&fine).unwrap(), vec!["Jürgen", "", "Köln"]);
    }

    #[test]
    fn error_texts_are_flagged() {
        let cells = StringRecord::from(vec!["x", "#N/A", "#hashtag", "#DIV/0!"]);
        let errors = error_literals(&cells);
        assert_eq!(errors.len(), 2);
        assert_eq!((errors[0].column, errors[0].value.as_str()), (1, "#N/A"));
    }
}
