//! The pre-flight of a zip workbook (XLSX, XLSM, XLSB, ODS) before calamine opens it.
//!
//! The zip crate already stops an entry at its declared uncompressed size, so the central
//! directory's sizes bound every part calamine can read; they are checked first, for free.
//! Then every part is inflated once, in 64 KiB pieces, and measured: XML parts with
//! `xml_scan` (a cell's text, each tag or text run, the shared-strings table, and for ODS the
//! cells that calamine's loaded sheets will hold after repeats), XLSB parts record by record.
//! Every part is scanned, not only the ones a well-formed workbook names, because calamine
//! follows the file's own relationships to find its sheets; an XLSX's worksheets are held to
//! the limits as they are read instead (by `xlsx`, or by `zip_guard` when calamine reads one),
//! which reading them twice cost.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;
use std::sync::Arc;

use zip::CompressionMethod;

use super::limits::{self, Limit, MAX_PART_BYTES, MAX_PARTS, MAX_TOTAL_BYTES};
use super::ods_tally::OdsTally;
use super::xlsb_scan::Records;
use super::xml_scan::{Scanner, Sink, attribute, count, local_name};
use super::zip_guard::{Deferred, Guard};
use super::{Format, SourceError};

const CHUNK: usize = 64 * 1024;
const OLE_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0];

/// What the scan learnt that changes how the workbook is read.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// XLSB formula cells holding an error, which calamine skips (see `xlsb_errors`).
    pub xlsb_formula_errors: bool,
    /// The parts left to scan while calamine reads them.
    pub guard: Arc<Guard>,
}

/// Checks the workbook at `path` against every limit; `Ok` means calamine may open it.
pub(super) fn check(path: &Path, location: &str, format: Format) -> Result<Findings, SourceError> {
    let corrupt = |detail: String| SourceError::Corrupt {
        location: location.to_owned(),
        format,
        detail: format!("damaged zip container: {detail}"),
    };
    let file = File::open(path).map_err(|e| SourceError::io(location, e))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| corrupt(e.to_string()))?;
    declared_sizes(&mut zip).map_err(|limit| limit.error(location))?;
    let mut tally = Tally::default();
    let mut deferred = Vec::new();
    for index in 0..zip.len() {
        if let Some(part) = deferrable(&mut zip, index, format) {
            deferred.push(part);
            continue;
        }
        let mut entry = match zip.by_index(index) {
            Ok(entry) => entry,
            // An entry calamine cannot open either is reported by calamine, in its words.
            Err(_) => continue,
        };
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        match scan_part(&mut entry, &name, format, &mut tally) {
            Ok(()) => {}
            Err(Failure::Limit(limit)) => return Err(limit.error(location)),
            Err(Failure::Read(e)) => return Err(corrupt(format!("part `{name}`: {e}"))),
        }
    }
    tally.verdict().map_err(|limit| limit.error(location))?;
    Ok(Findings {
        xlsb_formula_errors: tally.formula_errors > 0,
        guard: Arc::new(Guard::new(path.to_owned(), deferred, tally.kept_elements)),
    })
}

/// An XLSX worksheet, which is read as a stream and so is held to the limits as it is read
/// (by `xlsx` or, through `zip_guard`, by calamine), not before: a part named
/// `xl/worksheets/*.xml`, deflated or stored. A crafted workbook can make calamine read such a
/// part as its workbook, which the scan as it reads also bounds; the parts calamine reads at
/// open for their tallies (shared strings, styles) are never deferred, whatever their folder.
fn deferrable<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    index: usize,
    format: Format,
) -> Option<Deferred> {
    if !matches!(format, Format::Xlsx | Format::Xlsm) {
        return None;
    }
    let entry = zip.by_index_raw(index).ok()?;
    let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
    let file = name.to_ascii_lowercase().strip_prefix("xl/worksheets/")?.to_owned();
    let worksheet = file.ends_with(".xml")
        && !file.contains(['/', '\\'])
        && !matches!(file.as_str(), "sharedstrings.xml" | "styles.xml");
    let stored = match entry.compression() {
        CompressionMethod::Stored => true,
        CompressionMethod::Deflated => false,
        _ => return None,
    };
    let start = entry.data_start()?;
    let end = start.checked_add(entry.compressed_size())?;
    worksheet.then_some(Deferred { name, start, end, stored, size: entry.size() })
}

/// The sizes the central directory declares, which the zip crate enforces while inflating.
fn declared_sizes<R: Read + std::io::Seek>(zip: &mut zip::ZipArchive<R>) -> Result<(), Limit> {
    if zip.len() > MAX_PARTS {
        return Err(Limit::Parts { found: zip.len() });
    }
    let mut total = 0u64;
    for index in 0..zip.len() {
        let Ok(entry) = zip.by_index_raw(index) else { continue };
        if entry.size() > MAX_PART_BYTES {
            return Err(Limit::PartSize {
                part: String::from_utf8_lossy(entry.name_raw()).into_owned(),
            });
        }
        total = total.saturating_add(entry.size());
    }
    if total > MAX_TOTAL_BYTES {
        return Err(Limit::TotalSize);
    }
    Ok(())
}

enum Failure {
    Limit(Limit),
    Read(std::io::Error),
}

impl From<Limit> for Failure {
    fn from(limit: Limit) -> Failure {
        Failure::Limit(limit)
    }
}

/// What the parts add up to across the workbook.
#[derive(Default)]
struct Tally {
    /// Memory calamine's shared-strings table will take.
    shared_strings: u64,
    ods: OdsTally,
    /// Elements calamine keeps one value for when it opens the workbook.
    kept_elements: u64,
    /// XLSB formula cells holding an error.
    formula_errors: u64,
}

impl Tally {
    fn verdict(&self) -> Result<(), Limit> {
        if self.shared_strings > limits::MAX_SHARED_STRINGS_BYTES {
            return Err(Limit::SharedStrings { needed: self.shared_strings });
        }
        if self.kept_elements > limits::MAX_KEPT_ELEMENTS {
            return Err(Limit::Elements { found: self.kept_elements });
        }
        let loaded = self.ods.needed();
        if loaded > limits::MAX_LOADED_BYTES {
            return Err(Limit::Loaded { needed: loaded });
        }
        Ok(())
    }
}

fn scan_part(
    entry: &mut impl Read,
    name: &str,
    format: Format,
    tally: &mut Tally,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let first = read_some(entry, &mut buf)?;
    if first == 0 || buf.starts_with(OLE_MAGIC) {
        // An embedded OLE file (vbaProject.bin) is never read as a sheet.
        return drain(entry, &mut buf);
    }
    let lower = name.to_ascii_lowercase();
    if format == Format::Xlsb && lower.ends_with(".bin") {
        if lower.contains("printersettings") {
            return drain(entry, &mut buf);
        }
        let shared = lower.ends_with("sharedstrings.bin");
        let mut records = Records::new(name, shared);
        let mut n = first;
        while n > 0 {
            records.feed(&buf[..n])?;
            n = read_some(entry, &mut buf)?;
        }
        tally.shared_strings += records.shared_strings_cost();
        tally.formula_errors += records.formula_errors();
        return Ok(());
    }
    let kind = match lower.as_str() {
        _ if lower.ends_with("sharedstrings.xml") => PartKind::SharedStrings,
        "content.xml" if format == Format::Ods => PartKind::OdsContent,
        _ => PartKind::Other,
    };
    let mut scanner = Scanner::new(name);
    let mut cells = CellCount::default();
    let mut sink = PartSink::new(name, kind, &mut cells);
    if kind == PartKind::OdsContent {
        sink.ods = Some(&mut tally.ods);
    }
    let mut n = first;
    while n > 0 {
        scanner.feed(&buf[..n], &mut sink)?;
        n = read_some(entry, &mut buf)?;
    }
    sink.close()?;
    tally.shared_strings += sink.shared_strings;
    tally.kept_elements += cells.kept;
    Ok(())
}

fn read_some(entry: &mut impl Read, buf: &mut [u8]) -> Result<usize, Failure> {
    loop {
        match entry.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Failure::Read(e)),
        }
    }
}

/// Inflates the rest of a part without looking at it, so a lying size or CRC still shows.
fn drain(entry: &mut impl Read, buf: &mut [u8]) -> Result<(), Failure> {
    while read_some(entry, buf)? > 0 {}
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PartKind {
    SharedStrings,
    OdsContent,
    Other,
}

/// Elements whose text calamine joins into one cell value: an XLSX cell (inline strings
/// included) or shared string, an ODS cell.
fn is_cell(local: &[u8]) -> bool {
    matches!(local, b"c" | b"si" | b"table-cell" | b"covered-table-cell")
}

/// Elements calamine keeps a value for at open, in whichever part they are: sheets and
/// defined names (workbook), relationships, styles and number formats, ODS styles and names.
/// Worksheets never hold these, so counting them everywhere needs no guess at part roles.
fn is_kept(local: &[u8]) -> bool {
    matches!(
        local,
        b"sheet"
            | b"definedName"
            | b"Relationship"
            | b"xf"
            | b"numFmt"
            | b"font"
            | b"fill"
            | b"border"
            | b"dxf"
            | b"cellStyle"
            | b"style"
            | b"table-properties"
            | b"named-range"
            | b"named-expression"
    )
}

/// What one part's scan carries from chunk to chunk.
#[derive(Debug, Default)]
pub(super) struct CellCount {
    /// Open cell elements, and the text joined in the outermost one.
    cell_depth: u32,
    cell_text: u64,
    /// Text since the last start tag: runs that comments or entities split are one value.
    element_text: u64,
    /// Elements calamine keeps a value for (see `is_kept`).
    pub kept: u64,
}

/// Per-part tallies fed by the scanner.
pub(super) struct PartSink<'a> {
    part: &'a str,
    kind: PartKind,
    cells: &'a mut CellCount,
    shared_strings: u64,
    /// The ODS tally, for `content.xml`.
    ods: Option<&'a mut OdsTally>,
}

impl<'a> PartSink<'a> {
    pub(super) fn new(part: &'a str, kind: PartKind, cells: &'a mut CellCount) -> PartSink<'a> {
        PartSink { part, kind, cells, shared_strings: 0, ods: None }
    }

    fn add_text(&mut self, len: u64) -> Result<(), Limit> {
        let cells = &mut *self.cells;
        cells.element_text = cells.element_text.saturating_add(len);
        if cells.cell_depth > 0 {
            cells.cell_text = cells.cell_text.saturating_add(len);
        }
        if cells.cell_text > limits::MAX_CELL_BYTES || cells.element_text > limits::MAX_CELL_BYTES {
            return Err(Limit::Cell { part: self.part.to_owned() });
        }
        Ok(())
    }

    /// A part that ends inside a cell still counts that cell.
    pub(super) fn close(&mut self) -> Result<(), Limit> {
        if self.cells.cell_depth > 0 {
            self.cells.cell_depth = 1;
            self.end(b"c")?;
        }
        Ok(())
    }
}

impl Sink for PartSink<'_> {
    fn start(&mut self, tag: &[u8]) -> Result<(), Limit> {
        let local = local_name(tag);
        self.cells.element_text = 0;
        self.cells.kept += u64::from(is_kept(local));
        if is_cell(local) {
            if self.cells.cell_depth == 0 {
                self.cells.cell_text = 0;
            }
            self.cells.cell_depth += 1;
        }
        if self.kind == PartKind::SharedStrings && local == b"sst" {
            // calamine reserves a slot per declared unique string before reading any.
            let declared = count(attribute(tag, b"uniqueCount"));
            self.shared_strings += declared.saturating_mul(limits::string_cost(0));
        }
        if let Some(ods) = self.ods.as_deref_mut() {
            // `<text:s text:c="N"/>` stands for N spaces, which calamine writes out.
            if let Some(spaces) = ods.start(local, tag) {
                self.add_text(spaces)?;
            }
        }
        Ok(())
    }

    fn end(&mut self, local: &[u8]) -> Result<(), Limit> {
        if let Some(ods) = self.ods.as_deref_mut()
            && !is_cell(local)
        {
            ods.end(local);
        }
        if !is_cell(local) || self.cells.cell_depth == 0 {
            return Ok(());
        }
        self.cells.cell_depth -= 1;
        if self.cells.cell_depth > 0 {
            return Ok(());
        }
        match (self.kind, self.ods.as_deref_mut()) {
            (PartKind::SharedStrings, _) => {
                self.shared_strings += limits::string_cost(self.cells.cell_text);
            }
            (PartKind::OdsContent, Some(ods)) => ods.end_cell(self.cells.cell_text),
            _ => {}
        }
        Ok(())
    }

    fn text(&mut self, len: u64) -> Result<(), Limit> {
        self.add_text(len)
    }
}
