//! An XLSX worksheet's cells, read by leadsync itself rather than by calamine's cell reader.
//!
//! Why: the worksheet is nearly all of an XLSX, and calamine's streaming reader spent five of a
//! 1M-row sheet's seven and a half seconds building events and attributes that a row of text
//! never needs. This reader tokenizes the inflated part in place (`markup`), decodes text as
//! calamine does (`text`), and takes the sheet's part, shared strings and date styles from the
//! workbook the way calamine finds them (`workbook`), so every cell reads the same. calamine
//! still opens the workbook, lists and probes its sheets, and reads XLSB, XLS and ODS.
//! The worksheet is read straight from the file, and `markup` holds it to the limits the
//! guard's scan held it to when calamine read it, so it is inflated and tokenized once: the
//! scan on a second thread cost as much again. calamine reads the rest of the workbook as
//! before, its deferred parts still scanned by `zip_guard`.

mod inflate;
mod markup;
mod text;
mod workbook;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use calamine::{CellErrorType, Dimensions, ExcelDateTime, ExcelDateTimeType};

use ssfmt::FormatOptions;

use super::Hidden;
use super::cell::Value;
use super::limits::{self, Limit};
use super::shown;
use super::xls_formats::Kind as Shown;
use markup::{Markup, Token, attributes};
use text::{read_string, unexpected_end};
use workbook::{FilterRows, Package, Styles};

/// Why a sheet could not be read: the row it happened in, when there was one, and what
/// happened; or the limit the sheet went past.
#[derive(Debug)]
pub(super) enum Failure {
    Read { row: Option<u64>, detail: String },
    Limit(Limit),
}

impl Failure {
    fn at(row: Option<u64>, e: io::Error) -> Failure {
        match e.get_ref().and_then(|inner| inner.downcast_ref::<Limit>()) {
            Some(limit) => Failure::Limit(limit.clone()),
            None => Failure::Read { row, detail: e.to_string() },
        }
    }
}

/// Reads the worksheet `sheet` of the workbook at `path`: `start` gets its declared
/// dimensions (A1:A1 when it declares none, as calamine has them), its hidden columns
/// (0-based, first and last of each range) and its tables' totals rows before any cell, then
/// `cell` gets each cell as (0-based row, 0-based column, value, whether its row is hidden and
/// why) in the part's order, until it returns false.
pub(super) fn read_sheet(
    path: &Path,
    sheet: &str,
    is_1904: bool,
    marks: &FormatOptions,
    start: impl FnOnce(Dimensions, Vec<(u32, u32)>, Vec<u32>),
    cell: impl FnMut(u32, u32, &Value<'_>, Option<Hidden>) -> bool,
) -> Result<(), Failure> {
    let no_row = |e: io::Error| Failure::at(None, e);
    let file = BufReader::new(File::open(path).map_err(no_row)?);
    let mut package = Package::open(file).map_err(no_row)?;
    let (part, filter) = package.sheet_part(sheet).map_err(no_row)?;
    // A damaged table part costs only its totals row.
    let totals = package.totals_rows(&part).unwrap_or_default();
    let strings = package.shared_strings().map_err(no_row)?;
    let styles = package.styles().map_err(no_row)?;
    let part = package.entry(&part).to_owned();
    drop(package);
    let inflated = inflate::Inflated::start(path.to_owned(), part.clone()).map_err(no_row)?;
    let xml = Markup::new(inflated, &part);
    let book = Book { strings, styles, is_1904, marks };
    let mut cells = Cells::new(xml, &book);
    cells.filter = filter;
    cells.totals = totals;
    let (dimensions, hidden_columns) = cells.dimensions().map_err(no_row)?;
    start(dimensions, hidden_columns, cells.totals.clone());
    cells.each(cell).map_err(|e| Failure::at(Some(u64::from(cells.row) + 1), e))
}

/// The workbook part of the package at `path`, found through its relationships as calamine
/// finds it; an error when the package names none.
pub(super) fn workbook_part(path: &Path) -> io::Result<String> {
    Ok(Package::open(BufReader::new(File::open(path)?))?.workbook_entry())
}

/// The workbook part of the package at `path` and the ids of its Excel 4 macro sheets'
/// relationships (the international kind too).
pub(super) fn macro_sheets(path: &Path) -> io::Result<(String, Vec<String>)> {
    let mut package = Package::open(BufReader::new(File::open(path)?))?;
    let ids = package.workbook_relationships_of(&["/xlMacrosheet", "/xlIntlMacrosheet"])?;
    Ok((package.workbook_entry(), ids))
}

/// A sheet names no more merged ranges than this; more are damage or an attack, and the rest
/// are not read.
const MAX_MERGED_RANGES: usize = 100_000;

/// The merged ranges of the worksheet `sheet` (0-based), when its part inflates to at most
/// `max_bytes`; `None` for a bigger one. A worksheet lists them after its rows, so they are
/// known before the first row only by reading the part once more: worth it for the sheets
/// people merge cells in, not for a million rows.
pub(super) fn merged_ranges(
    path: &Path,
    sheet: &str,
    max_bytes: u64,
) -> io::Result<Option<Vec<Dimensions>>> {
    let mut package = Package::open(BufReader::new(File::open(path)?))?;
    let (part, _) = package.sheet_part(sheet)?;
    if package.part_size(&part)? > max_bytes {
        return Ok(None);
    }
    let Some(mut xml) = package.part(&part)? else { return Ok(Some(Vec::new())) };
    let mut ranges = Vec::new();
    while let Some(token) = xml.next_token()? {
        if let Token::Start { name: b"mergeCell", attrs } = token {
            let range = markup::attribute(attrs, b"ref").and_then(parse_dimensions);
            ranges.extend(range.filter(|r| r.start.0 <= r.end.0 && r.start.1 <= r.end.1));
            if ranges.len() == MAX_MERGED_RANGES {
                break;
            }
        }
    }
    Ok(Some(ranges))
}

/// What the cells refer to.
struct Book<'m> {
    strings: Vec<String>,
    styles: Styles,
    is_1904: bool,
    /// The decimal mark and grouping numbers are shown with (`shown::marks`).
    marks: &'m FormatOptions,
}

struct Cells<'b, R> {
    xml: Markup<R>,
    book: &'b Book<'b>,
    /// Where the next cell without a reference goes, as calamine counts.
    row: u32,
    column: u32,
    text: String,
    run: String,
    /// A number as its format shows it.
    shown: String,
    /// The `t` of a cell whose type is unknown, for the error.
    unknown: String,
    /// The name of a child element being skipped.
    other: Vec<u8>,
    /// Whether the row being read is hidden, and why.
    hidden: Option<Hidden>,
    /// The rows the sheet's autofilter covers: a hidden one among them is filtered out.
    filter: Option<FilterRows>,
    /// The totals rows of the sheet's tables, whose cells are passed over.
    totals: Vec<u32>,
}

/// A cell's `t` attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    Shared,
    Bool,
    Error,
    Date,
    Formula,
    Inline,
    /// No `t`: a number, or text if it does not read as one.
    Unset,
    Unknown,
}

impl Kind {
    fn of(t: Option<&[u8]>) -> Kind {
        match t {
            None => Kind::Unset,
            Some(b"n") => Kind::Number,
            Some(b"s") => Kind::Shared,
            Some(b"b") => Kind::Bool,
            Some(b"e") => Kind::Error,
            Some(b"d") => Kind::Date,
            Some(b"str") => Kind::Formula,
            Some(b"inlineStr" | b"is") => Kind::Inline,
            Some(_) => Kind::Unknown,
        }
    }

    /// Values of these kinds are plain ASCII: calamine reads the first piece of text as is.
    fn is_raw(self) -> bool {
        matches!(self, Kind::Number | Kind::Shared | Kind::Bool | Kind::Error | Kind::Unset)
    }
}

/// A cell's value before it is borrowed as a `Value`.
enum Held {
    Empty,
    Text,
    Shared(usize),
    Float(f64, Option<Shown>),
    /// A number its format shows otherwise than its digits, the text in `shown`.
    Shown(f64),
    Bool(bool),
    Error(CellErrorType),
    IsoDate,
}

impl<'b, R: Read> Cells<'b, R> {
    fn new(xml: Markup<R>, book: &'b Book<'b>) -> Cells<'b, R> {
        Cells {
            xml,
            book,
            row: 0,
            column: 0,
            text: String::new(),
            run: String::new(),
            shown: String::new(),
            unknown: String::new(),
            other: Vec::new(),
            hidden: None,
            filter: None,
            totals: Vec::new(),
        }
    }

    /// Reads up to `<sheetData>`: the `<dimension>` and the hidden `<col>` ranges on the way.
    fn dimensions(&mut self) -> io::Result<(Dimensions, Vec<(u32, u32)>)> {
        let mut dimensions = Dimensions::default();
        let mut hidden = Vec::new();
        loop {
            match self.xml.next_token()? {
                None => return Err(unexpected_end(b"worksheet")),
                Some(Token::Start { name: b"dimension", attrs, .. }) => {
                    let range = markup::attribute(attrs, b"ref").unwrap_or_default();
                    dimensions = parse_dimensions(range).ok_or_else(|| {
                        invalid(format!("a damaged dimension `{}`", String::from_utf8_lossy(range)))
                    })?;
                }
                Some(Token::Start { name: b"col", attrs }) => {
                    let number = |key: &[u8]| {
                        markup::attribute(attrs, key).and_then(parse_number).map(|n| n as u32)
                    };
                    let is_hidden =
                        matches!(markup::attribute(attrs, b"hidden"), Some(b"1" | b"true"));
                    if let (true, Some(min), Some(max)) =
                        (is_hidden, number(b"min"), number(b"max"))
                    {
                        // 1-based in the file; a range past Excel's grid is cut to it.
                        hidden.push((min.saturating_sub(1), max.min(16_384).saturating_sub(1)));
                    }
                }
                Some(Token::Start { name: b"sheetData", .. }) => return Ok((dimensions, hidden)),
                Some(_) => {}
            }
        }
    }

    fn each(
        &mut self,
        mut cell: impl FnMut(u32, u32, &Value<'_>, Option<Hidden>) -> bool,
    ) -> io::Result<()> {
        loop {
            let (row, column, kind, style) = match self.xml.next_token()? {
                None => return Err(unexpected_end(b"sheetData")),
                Some(Token::Start { name: b"row", attrs }) => {
                    if let Some(r) = markup::attribute(attrs, b"r") {
                        self.row = parse_row(r).ok_or_else(|| bad_reference(r))?;
                    }
                    let hidden = markup::attribute(attrs, b"hidden");
                    self.hidden = matches!(hidden, Some(b"1" | b"true")).then(|| self.why_hidden());
                    continue;
                }
                Some(Token::End { name: b"row" }) => {
                    self.end_row();
                    continue;
                }
                Some(Token::End { name: b"sheetData" }) => return Ok(()),
                Some(Token::Start { name: b"c", attrs }) => {
                    let (mut reference, mut style, mut t) = (None, None, None);
                    for (key, value) in attributes(attrs) {
                        match key {
                            b"r" => reference = Some(value),
                            b"s" => style = Some(value),
                            b"t" => t = Some(value),
                            _ => {}
                        }
                    }
                    let (row, column) = match reference {
                        Some(r) => parse_cell(r).ok_or_else(|| bad_reference(r))?,
                        None => (self.row, self.column),
                    };
                    let style = style.map(|s| parse_number(s).unwrap_or(0));
                    let kind = Kind::of(t);
                    if let (Kind::Unknown, Some(t)) = (kind, t) {
                        self.unknown = String::from_utf8_lossy(t).into_owned();
                    }
                    (row, column, kind, style)
                }
                Some(_) => continue,
            };
            self.column = column;
            let held = match self.quick_value(kind, style)? {
                Some(held) => held,
                None => {
                    self.xml.start_cell();
                    let held = self.value(kind, style)?;
                    self.xml.end_cell();
                    held
                }
            };
            self.column += 1;
            // A table's totals row is no lead: its cells go nowhere (the Source notes it).
            if self.totals.contains(&row) {
                continue;
            }
            if !cell(row, column, &self.borrow(&held), self.hidden) {
                return Ok(());
            }
        }
    }

    fn end_row(&mut self) {
        self.row = self.row.saturating_add(1);
        self.column = 0;
        self.hidden = None;
    }

    /// A hidden row under the autofilter's header is filtered out; any other was hidden by
    /// hand.
    fn why_hidden(&self) -> Hidden {
        match self.filter {
            Some((header, last)) if header < self.row && self.row <= last => Hidden::Filtered,
            _ => Hidden::Row,
        }
    }

    /// The two shapes nearly every cell has, `<v>123</v></c>` and `<is><t>text</t></is></c>`,
    /// read straight from the buffer when they hold no entity or carriage return, which is
    /// what `value` would make of them at a third of the cost; anything else is left to it.
    fn quick_value(&mut self, kind: Kind, style: Option<usize>) -> io::Result<Option<Held>> {
        let (open, close): (&[u8], &[u8]) = match kind {
            Kind::Inline => (b"<is><t>", b"</t></is></c>"),
            kind if kind.is_raw() => (b"<v>", b"</v></c>"),
            _ => return Ok(None),
        };
        let Some(rest) = self.xml.ahead().strip_prefix(open) else { return Ok(None) };
        let Some(len) = memchr::memchr3(b'<', b'&', b'\r', rest) else { return Ok(None) };
        if !rest[len..].starts_with(close) || len as u64 > limits::MAX_CELL_BYTES {
            return Ok(None);
        }
        let Ok(text) = std::str::from_utf8(&rest[..len]) else { return Ok(None) };
        self.text.clear();
        let inline = kind == Kind::Inline;
        match inline {
            true => self.text.push_str(&text::unescape_excel(text.trim_matches(text::TRIMMED))),
            false => self.text.push_str(text),
        }
        self.xml.pass_to_end(open.len() + len + close.len());
        Ok(Some(match inline {
            true => Held::Text,
            false if len == 0 => Held::Empty,
            false => self.typed(kind, style)?,
        }))
    }

    /// The value of the cell just opened, read up to its end: each child element gives the
    /// value in turn, as in calamine (`<f>` and an inline string's `<v>` give none).
    fn value(&mut self, kind: Kind, style: Option<usize>) -> io::Result<Held> {
        let mut held = Held::Empty;
        loop {
            held = match self.xml.next_token()? {
                None => return Err(unexpected_end(b"c")),
                Some(Token::End { name: b"c" }) => return Ok(held),
                Some(Token::Start { name: b"is", .. }) => {
                    read_string(&mut self.xml, b"is", &mut self.text, &mut self.run)?;
                    Held::Text
                }
                Some(Token::Start { name: b"v", .. }) if kind != Kind::Inline => {
                    self.v(kind, style)?
                }
                Some(Token::Start { name, .. }) => {
                    self.other.clear();
                    self.other.extend_from_slice(name);
                    self.skip_other()?;
                    Held::Empty
                }
                Some(_) => continue,
            };
        }
    }

    /// A `<v>`: calamine reads number, shared-string, boolean and error values from the first
    /// piece of text as it stands, and decodes the others in full.
    fn v(&mut self, kind: Kind, style: Option<usize>) -> io::Result<Held> {
        self.text.clear();
        if kind.is_raw() {
            let mut first = true;
            loop {
                match self.xml.next_token()? {
                    None => return Err(unexpected_end(b"v")),
                    Some(Token::End { name: b"v" }) => break,
                    Some(Token::Text(raw)) if first => {
                        let raw = &raw[..memchr::memchr(b'&', raw).unwrap_or(raw.len())];
                        self.text.push_str(&String::from_utf8_lossy(raw));
                        first = false;
                    }
                    Some(_) => first = false,
                }
            }
            // No text first (an empty `<v/>`, a comment, an entity): calamine has no value.
            if self.text.is_empty() {
                return Ok(Held::Empty);
            }
        } else {
            text::read_text(&mut self.xml, b"v", &mut self.text)?;
        }
        self.typed(kind, style)
    }

    /// The text of a `<v>` as its kind says, calamine's `read_v`.
    fn typed(&mut self, kind: Kind, style: Option<usize>) -> io::Result<Held> {
        let v = self.text.as_str();
        Ok(match kind {
            Kind::Shared if v.is_empty() => Held::Empty,
            Kind::Shared => {
                let index = parse_number(v.as_bytes()).unwrap_or(0);
                if index >= self.book.strings.len() {
                    return Err(invalid("a cell's shared string is not in the table".to_owned()));
                }
                Held::Shared(index)
            }
            Kind::Bool => match v.trim() {
                "" => Held::Empty,
                b if b == "0" || b.eq_ignore_ascii_case("false") => Held::Bool(false),
                b if b == "1" || b.eq_ignore_ascii_case("true") => Held::Bool(true),
                _ => return Err(invalid(format!("`{v}` is not a boolean"))),
            },
            Kind::Date => Held::IsoDate,
            Kind::Error => {
                Held::Error(v.parse().map_err(|_| invalid(format!("`{v}` is not an error value")))?)
            }
            Kind::Formula => {
                if let std::borrow::Cow::Owned(unescaped) = text::unescape_excel(v) {
                    self.text = unescaped;
                }
                Held::Text
            }
            Kind::Number | Kind::Unset if v.is_empty() => Held::Empty,
            Kind::Number | Kind::Unset => match v.parse::<f64>() {
                Ok(number) => {
                    let shown = match style {
                        Some(id) => self.book.styles.kinds.get(id).copied(),
                        None => Some(Shown::Number),
                    };
                    let book = self.book;
                    let format = style.and_then(|id| book.styles.number_format(id));
                    match format.filter(|_| shown == Some(Shown::Number)) {
                        Some(format) if self.show(number, format) => Held::Shown(number),
                        _ => Held::Float(number, shown),
                    }
                }
                Err(_) if kind == Kind::Unset => Held::Text,
                Err(e) => return Err(invalid(format!("`{v}` is not a number: {e}"))),
            },
            Kind::Inline => Held::Empty,
            Kind::Unknown => return Err(invalid(format!("unknown cell type `{}`", self.unknown))),
        })
    }

    /// Writes `number` as `format` shows it into `shown`; false when its digits say it better.
    fn show(&mut self, number: f64, format: &shown::Shown) -> bool {
        self.shown.clear();
        shown::render(number, format, self.book.marks, &mut self.shown)
    }

    fn borrow<'a>(&'a self, held: &'a Held) -> Value<'a> {
        match held {
            Held::Empty => Value::Empty,
            Held::Text => Value::Text(&self.text),
            Held::Shared(index) => Value::Text(&self.book.strings[*index]),
            Held::Float(number, Some(Shown::Date)) => Value::DateTime(ExcelDateTime::new(
                *number,
                ExcelDateTimeType::DateTime,
                self.book.is_1904,
            )),
            Held::Float(number, Some(Shown::Duration)) => Value::DateTime(ExcelDateTime::new(
                *number,
                ExcelDateTimeType::TimeDelta,
                self.book.is_1904,
            )),
            Held::Float(number, _) => Value::Float(*number),
            Held::Shown(number) => Value::Shown { text: &self.shown, stored: *number },
            Held::Bool(b) => Value::Bool(*b),
            Held::Error(e) => Value::Error(e),
            Held::IsoDate => Value::IsoDateTime(&self.text),
        }
    }

    /// Past the end of the element just opened, named in `other`, nested ones of the same
    /// name included.
    fn skip_other(&mut self) -> io::Result<()> {
        let mut depth = 0u32;
        loop {
            match self.xml.next_token()? {
                None => return Err(unexpected_end(&self.other)),
                Some(Token::Start { name, .. }) if *name == *self.other => depth += 1,
                Some(Token::End { name }) if *name == *self.other => match depth.checked_sub(1) {
                    Some(d) => depth = d,
                    None => return Ok(()),
                },
                Some(_) => {}
            }
        }
    }
}

fn invalid(detail: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, detail)
}

fn bad_reference(r: &[u8]) -> io::Error {
    invalid(format!("a damaged cell reference `{}`", String::from_utf8_lossy(r)))
}

fn parse_number(digits: &[u8]) -> Option<usize> {
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// `B7` as 0-based (row, column); a column is optional, a row is not.
fn parse_reference(r: &[u8]) -> Option<(u32, Option<u32>)> {
    let letters = r.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let mut column: u32 = 0;
    for b in &r[..letters] {
        column =
            column.checked_mul(26)?.checked_add(u32::from(b.to_ascii_uppercase() - b'A') + 1)?;
    }
    let digits = &r[letters..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let row: u32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some((row.checked_sub(1)?, column.checked_sub(1)))
}

fn parse_cell(r: &[u8]) -> Option<(u32, u32)> {
    let (row, column) = parse_reference(r)?;
    Some((row, column?))
}

fn parse_row(r: &[u8]) -> Option<u32> {
    parse_reference(r).map(|(row, _)| row)
}

fn parse_dimensions(range: &[u8]) -> Option<Dimensions> {
    let mut ends = range.split(|b| *b == b':').map(parse_cell);
    let start = ends.next()??;
    let end = match ends.next() {
        Some(end) => end?,
        None => start,
    };
    if ends.next().is_some() {
        return None;
    }
    Some(Dimensions { start, end })
}

#[cfg(test)]
mod tests;
