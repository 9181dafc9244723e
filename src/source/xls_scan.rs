//! The pre-flight of an XLS file before calamine opens it, which is where damaged XLS files
//! used to abort the process (calamine issues #174, #444, #550, #714).
//!
//! calamine follows the compound file's sector chains without noticing a cycle (copying
//! until a declared length of up to 4 GiB is reached, or forever), reserves a sheet's cells
//! from its `Dimensions` record, loads every sheet whole into a dense range as wide and tall
//! as its farthest cells (a cell at IV65536 makes 16.7M cells), and keeps the shared-strings
//! table plus a copy of each string per cell. This module walks the same chains and records
//! and refuses, as damaged or over `MAX_LOADED_BYTES`, what would make those allocations
//! unbounded. What it cannot follow (a short header, a missing stream) is left to calamine,
//! whose errors are clean for those.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::limits::{Limit, MAX_LOADED_BYTES, MAX_SHARED_STRINGS_BYTES, string_cost};
use super::{Format, SourceError, xls_formats, xls_old_formulas};

const ENDOFCHAIN: u32 = 0xFFFF_FFFE;
const UTF_16_CODEPAGE: u16 = 1200;
const WINDOWS_1252: u16 = 1252;
const RESERVED_SECTORS: u32 = 0xFFFF_FFFA;
const DIFSECT: u32 = 0xFFFF_FFFC;
/// `calamine::Cell<Data>` (40 bytes), a cell in a loaded range (`Data`, 32) and in the formula
/// range (`String`, 24).
const CELL_RECORD_BYTES: u64 = 40;
const RANGE_CELL_BYTES: u64 = 32;
const FORMULA_CELL_BYTES: u64 = 24;

/// How calamine should decode the workbook's text, decided from its BOF and CodePage records.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Text {
    /// The code page to decode with instead of the one the file names.
    pub codepage: Option<u16>,
    /// What the person should know about it.
    pub note: Option<String>,
}

/// What calamine should be given: how to decode text, and a corrected copy of the file when
/// its BIFF5 number formats would be misread (see `xls_formats`) or its formula cells are of
/// the Excel 3/4 type (see `xls_old_formulas`).
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub text: Text,
    pub copy: Option<File>,
}

/// Checks the XLS at `path`; `Ok` means calamine may open it, as `Plan` says.
pub(super) fn check(path: &Path, location: &str) -> Result<Plan, SourceError> {
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| SourceError::io(location, e))?;
    let corrupt = |detail: &str| SourceError::Corrupt {
        location: location.to_owned(),
        format: Format::Xls,
        detail: detail.to_owned(),
    };
    let stream = match workbook_stream(&bytes) {
        Ok(Some(stream)) => stream,
        Ok(None) => return Ok(Plan::default()),
        Err(detail) => return Err(corrupt(detail)),
    };
    // An encrypted workbook's records hold ciphertext, which would be sized as nonsense.
    if is_encrypted(&stream.bytes) {
        return Err(SourceError::PasswordProtected { location: location.to_owned() });
    }
    let needed = Biff::new(&stream.bytes).needed().map_err(|limit| limit.error(location))?;
    if needed > MAX_LOADED_BYTES {
        return Err(Limit::Loaded { needed }.error(location));
    }
    let mut fixes = xls_formats::fixes(globals(&stream.bytes));
    fixes.extend(xls_old_formulas::fixes(every_record(&stream.bytes)));
    let copy = match fixes.is_empty() {
        true => None,
        false => {
            Some(fixed_copy(bytes, &stream, &fixes).map_err(|e| SourceError::io(location, e))?)
        }
    };
    Ok(Plan { text: text(&stream.bytes), copy })
}

/// The workbook globals' records with the stream offset of their data, up to the first EOF.
fn globals(stream: &[u8]) -> impl Iterator<Item = (u16, usize, &[u8])> {
    every_record(stream).take_while(|(typ, ..)| *typ != 0x000A)
}

/// Every record of the stream, sheets included, with the stream offset of its data.
fn every_record(stream: &[u8]) -> impl Iterator<Item = (u16, usize, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let (typ, data, _) = split_record(stream.get(at..)?)?;
        let item = (typ, at + 4, data);
        at += 4 + data.len();
        Some(item)
    })
}

/// The file with the stream's bytes changed, in an anonymous temporary file.
fn fixed_copy(mut bytes: Vec<u8>, stream: &Stream, fixes: &[(usize, u8)]) -> io::Result<File> {
    for &(at, byte) in fixes {
        if let Some(slot) = stream.locate(at).and_then(|at| bytes.get_mut(at)) {
            *slot = byte;
        }
    }
    let mut file = tempfile::tempfile()?;
    file.write_all(&bytes)?;
    file.seek(SeekFrom::Start(0))?;
    Ok(file)
}

/// BIFF8 (Excel 97 and later) stores every string as UTF-16 or its compressed Latin-1 form,
/// whatever code page the file names: calamine decodes them with that code page, so a BIFF8
/// file naming Windows-1252 read as `F\0o\0r\0m\0` and one naming a code page calamine does
/// not know (Quattro Pro writes 8001) was refused. Such files are decoded as UTF-16. Older
/// files (BIFF5) do store text in their code page: an unknown one falls back to Windows-1252,
/// which the person is told.
fn text(stream: &[u8]) -> Text {
    let mut globals = records(stream).take_while(|r| r.typ != 0x000A);
    let Some(bof) = globals.next().filter(|r| r.typ == 0x0809) else { return Text::default() };
    let biff8 = bof.pieces[0].get(..2).is_some_and(|v| u16_at(v, 0) == 0x0600);
    let codepage =
        globals.find(|r| r.typ == 0x0042 && r.pieces[0].len() >= 2).map(|r| u16_at(r.pieces[0], 0));
    match codepage {
        Some(page) if biff8 && page != UTF_16_CODEPAGE => {
            Text { codepage: Some(UTF_16_CODEPAGE), note: None }
        }
        Some(page) if !biff8 && codepage::to_encoding(page).is_none() => Text {
            codepage: Some(WINDOWS_1252),
            note: Some(format!(
                "the workbook names code page {page}, which leadsync does not know: its text was \
                 read as Windows-1252 (Western European); check names with accents, or save the \
                 workbook as .xlsx in Excel or LibreOffice"
            )),
        },
        _ => Text::default(),
    }
}

/// The compound file as calamine reads it: sector size, FAT and directory.
struct Cfb<'a> {
    bytes: &'a [u8],
    sector: usize,
    /// calamine's bound on sector numbers: the file length in sectors.
    max_id: u32,
    fat: Vec<u32>,
}

/// The workbook stream and where each of its pieces (sectors, or 64-byte mini sectors) lies in
/// the file, so a byte of the stream can be changed in the file.
struct Stream {
    bytes: Vec<u8>,
    piece: usize,
    /// The file offset of each piece, in stream order.
    offsets: Vec<usize>,
}

impl Stream {
    /// The file offset of the stream's byte `at`.
    fn locate(&self, at: usize) -> Option<usize> {
        self.offsets.get(at / self.piece).map(|start| start + at % self.piece)
    }
}

/// The `Workbook` (or `Book`) stream, `None` when the file is not a compound file calamine
/// would read, an error naming the damage that would make calamine's reading unbounded.
fn workbook_stream(bytes: &[u8]) -> Result<Option<Stream>, &'static str> {
    let Some(header) = bytes.get(..512) else { return Ok(None) };
    let sector = match u16_at(header, 30) {
        9 => 512,
        12 => 4096,
        _ => return Ok(None),
    };
    let max_id = u32::try_from(bytes.len() / sector).unwrap_or(u32::MAX);
    let mut cfb = Cfb { bytes, sector, max_id, fat: Vec::new() };
    cfb.fat = cfb.read_fat(header)?;
    let directory = cfb.chain(u32_at(header, 48), usize::MAX, &mut Vec::new())?;
    let entries: Vec<&[u8]> = directory.chunks_exact(128).collect();
    let Some(root) = entries.first() else { return Ok(None) };
    let found = entries.iter().find(|e| name_is(e, "Workbook") || name_is(e, "Book"));
    let Some(entry) = found else { return Ok(None) };
    let (start, len) = (u32_at(entry, 116), u32_at(entry, 120) as usize);
    let mut offsets = Vec::new();
    if len >= 4096 {
        let bytes = cfb.chain(start, len, &mut offsets)?;
        return Ok(Some(Stream { bytes, piece: sector, offsets }));
    }
    // A small stream lives in 64-byte mini sectors inside the root entry's stream.
    let mini_fat_len = u32_at(header, 64) as usize;
    if mini_fat_len == 0 {
        return Ok(None);
    }
    let mut root_offsets = Vec::new();
    let mini_stream =
        cfb.chain(u32_at(root, 116), u32_at(root, 120) as usize, &mut root_offsets)?;
    let mini_fat_len = mini_fat_len.saturating_mul(sector);
    let mini_fat_bytes = cfb.chain(u32_at(header, 60), mini_fat_len, &mut Vec::new())?;
    let mini_fat: Vec<u32> = mini_fat_bytes.chunks_exact(4).map(|c| u32_at(c, 0)).collect();
    let bytes = mini_chain(&mini_stream, &mini_fat, start, len, &mut offsets);
    // A mini sector's offset is in the mini stream, itself a chain of whole sectors.
    let root = Stream { bytes: Vec::new(), piece: sector, offsets: root_offsets };
    let offsets = offsets.into_iter().filter_map(|at| root.locate(at)).collect();
    Ok(Some(Stream { bytes, piece: 64, offsets }))
}

impl Cfb<'_> {
    fn sector(&self, id: u32) -> Option<&[u8]> {
        if id > self.max_id {
            return None;
        }
        // Sector 0 follows the header, which takes one sector.
        let start = (id as usize + 1) * self.sector;
        self.bytes.get(start.min(self.bytes.len())..(start + self.sector).min(self.bytes.len()))
    }

    /// The FAT from the header's DIFAT and the DIFAT chain. Each FAT sector read adds a
    /// sector's worth of entries, so a DIFAT naming more sectors than the file has (the same
    /// one over and over) would make calamine's FAT larger than the file many times over.
    fn read_fat(&self, header: &[u8]) -> Result<Vec<u32>, &'static str> {
        let mut difat: Vec<u32> = header[76..512].chunks_exact(4).map(|c| u32_at(c, 0)).collect();
        let mut id = u32_at(header, 68);
        let mut steps = 0u64;
        while id < RESERVED_SECTORS {
            steps += 1;
            if steps > u64::from(self.max_id) + 1 {
                return Ok(Vec::new());
            }
            let Some(sector) = self.sector(id) else { return Ok(Vec::new()) };
            difat.extend(sector.chunks_exact(4).map(|c| u32_at(c, 0)));
            id = difat.pop().unwrap_or(ENDOFCHAIN);
        }
        let fat_sectors: Vec<u32> = difat.into_iter().filter(|id| *id < DIFSECT).collect();
        if fat_sectors.len() > self.max_id as usize + 1 {
            return Err("its allocation table names more sectors than the file has");
        }
        let mut fat = Vec::new();
        for id in fat_sectors {
            match self.sector(id) {
                Some(sector) => fat.extend(sector.chunks_exact(4).map(|c| u32_at(c, 0))),
                None => break,
            }
        }
        Ok(fat)
    }

    /// Follows a chain as calamine does, up to `len` bytes; a chain that comes back on itself
    /// before either is the damage calamine would loop on.
    /// The file offset of each sector read is added to `offsets`.
    fn chain(
        &self,
        mut id: u32,
        len: usize,
        offsets: &mut Vec<usize>,
    ) -> Result<Vec<u8>, &'static str> {
        let mut out = Vec::new();
        let mut steps = 0u64;
        while id != ENDOFCHAIN && out.len() < len {
            steps += 1;
            if steps > u64::from(self.max_id) + 1 {
                return Err("a sector chain loops back on itself");
            }
            let Some(sector) = self.sector(id) else { break };
            out.extend_from_slice(&sector[..sector.len().min(len - out.len())]);
            offsets.push((id as usize + 1) * self.sector);
            match self.fat.get(id as usize) {
                Some(next) => id = *next,
                None => break,
            }
        }
        Ok(out)
    }
}

/// A small stream from the mini stream; calamine bounds these by their length (< 4096). The
/// mini-stream offset of each mini sector read is added to `offsets`.
fn mini_chain(
    mini_stream: &[u8],
    mini_fat: &[u32],
    mut id: u32,
    len: usize,
    offsets: &mut Vec<usize>,
) -> Vec<u8> {
    let mut out = Vec::new();
    while id != ENDOFCHAIN && out.len() < len {
        let start = id as usize * 64;
        let Some(sector) = mini_stream.get(start..(start + 64).min(mini_stream.len())) else {
            break;
        };
        out.extend_from_slice(&sector[..sector.len().min(len - out.len())]);
        offsets.push(start);
        match mini_fat.get(id as usize) {
            Some(next) => id = *next,
            None => break,
        }
    }
    out
}

fn name_is(entry: &[u8], wanted: &str) -> bool {
    let units: Vec<u16> = entry[..64].chunks_exact(2).map(|c| u16_at(c, 0)).collect();
    let name = String::from_utf16_lossy(&units);
    name.trim_end_matches('\0').eq_ignore_ascii_case(wanted)
}

/// One BIFF record with the CONTINUE records that follow it, as calamine's `RecordIter`.
struct Record<'a> {
    typ: u16,
    pieces: Vec<&'a [u8]>,
}

fn records(stream: &[u8]) -> impl Iterator<Item = Record<'_>> {
    let mut rest = stream;
    std::iter::from_fn(move || {
        let (typ, data, next) = split_record(rest)?;
        rest = next;
        let mut pieces = vec![data];
        while let Some((0x003C, data, next)) = split_record(rest) {
            pieces.push(data);
            rest = next;
        }
        Some(Record { typ, pieces })
    })
}

fn split_record(stream: &[u8]) -> Option<(u16, &[u8], &[u8])> {
    let len = usize::from(u16_at(stream.get(..4)?, 2));
    let data = stream.get(4..4 + len)?;
    Some((u16_at(stream, 0), data, &stream[4 + len..]))
}

/// A `FilePass` record in the workbook globals: the records after it are encrypted (their
/// headers stay plain), as Excel writes a workbook with a password to open.
fn is_encrypted(stream: &[u8]) -> bool {
    records(stream)
        .take_while(|record| record.typ != 0x000A)
        .any(|record| record.typ == 0x002F && record.pieces[0].len() >= 2)
}

/// The workbook stream's records, tallied as calamine's `parse_workbook` will hold them.
struct Biff<'a> {
    stream: &'a [u8],
}

impl<'a> Biff<'a> {
    fn new(stream: &'a [u8]) -> Biff<'a> {
        Biff { stream }
    }

    /// The bytes calamine will hold for the shared strings and all sheets.
    fn needed(&self) -> Result<u64, Limit> {
        let mut strings: Vec<u64> = Vec::new();
        let mut sheets: Vec<usize> = Vec::new();
        for record in records(self.stream) {
            match record.typ {
                0x00FC => strings = shared_strings(&record.pieces),
                0x0085 if record.pieces[0].len() >= 4 => {
                    sheets.push(u32_at(record.pieces[0], 0) as usize);
                }
                0x000A => break,
                _ => {}
            }
        }
        let table: u64 = strings.iter().map(|&len| string_cost(len)).sum();
        if table > MAX_SHARED_STRINGS_BYTES {
            return Err(Limit::SharedStrings { needed: table });
        }
        // Every BoundSheet is loaded, even several naming one substream.
        let mut costs: HashMap<usize, u64> = HashMap::new();
        let mut needed = table;
        for pos in sheets {
            let cost = match costs.get(&pos) {
                Some(cost) => *cost,
                None => {
                    let sheet = self.stream.get(pos..).map_or(0, |s| sheet_cost(s, &strings));
                    *costs.entry(pos).or_insert(sheet)
                }
            };
            needed = needed.saturating_add(cost);
        }
        Ok(needed)
    }
}

/// The UTF-8 lengths (upper bounds) of the SST's strings. Character data that runs into a
/// CONTINUE record starts there with a new flags byte, as in calamine's `read_dbcs`.
fn shared_strings(pieces: &[&[u8]]) -> Vec<u64> {
    let mut cursor = Cursor { pieces, piece: 0, at: 8 };
    let mut lens = Vec::new();
    while let Some(len) = cursor.string() {
        lens.push(len);
    }
    lens
}

struct Cursor<'a> {
    pieces: &'a [&'a [u8]],
    piece: usize,
    at: usize,
}

impl Cursor<'_> {
    fn left(&self) -> usize {
        self.pieces.get(self.piece).map_or(0, |p| p.len().saturating_sub(self.at))
    }

    /// Moves to the next piece when this one is used up; false at the end.
    fn ready(&mut self) -> bool {
        while self.left() == 0 {
            if self.piece + 1 >= self.pieces.len() {
                return false;
            }
            self.piece += 1;
            self.at = 0;
        }
        true
    }

    fn bytes(&mut self, mut n: usize) -> Option<u64> {
        let mut value = 0u64;
        let mut shift = 0;
        while n > 0 {
            if !self.ready() {
                return None;
            }
            let b = self.pieces[self.piece][self.at];
            value |= u64::from(b) << shift;
            shift += 8;
            self.at += 1;
            n -= 1;
        }
        Some(value)
    }

    fn skip(&mut self, mut n: usize) -> Option<()> {
        while n > 0 {
            if !self.ready() {
                return None;
            }
            let step = n.min(self.left());
            self.at += step;
            n -= step;
        }
        Some(())
    }

    /// One XLUnicodeRichExtendedString: its UTF-8 length at most.
    fn string(&mut self) -> Option<u64> {
        let cch = self.bytes(2)? as usize;
        let flags = self.bytes(1)?;
        let runs = if flags & 0x8 != 0 { self.bytes(2)? as usize } else { 0 };
        let ext = if flags & 0x4 != 0 { self.bytes(4)? as usize } else { 0 };
        let (mut high, mut left, mut utf8) = (flags & 1 != 0, cch, 0u64);
        while left > 0 {
            if self.left() == 0 {
                if !self.ready() {
                    return None;
                }
                high = self.bytes(1)? & 1 != 0;
                continue;
            }
            let width = if high { 2 } else { 1 };
            let take = left.min(self.left() / width).max(1);
            self.skip(take * width)?;
            left -= take;
            utf8 += take as u64 * if high { 3 } else { 2 };
        }
        self.skip(runs * 4)?;
        self.skip(ext)?;
        Some(utf8)
    }
}

/// A sheet substream's cost in calamine: its cell records, the reservation its `Dimensions`
/// record asks for, the dense value and formula ranges, and a copy of each string.
fn sheet_cost(stream: &[u8], strings: &[u64]) -> u64 {
    let mut cells = Area::default();
    let mut formulas = Area::default();
    let (mut records_n, mut reserved, mut text) = (0u64, 0u64, 0u64);
    let (mut depth, mut seen_bof) = (0u32, false);
    // A String record holds the value of the Formula record before it.
    let mut formula_at = (0, 0);
    for record in records(stream) {
        let data = record.pieces[0];
        if depth > 0 {
            match record.typ {
                0x0809 => depth += 1,
                0x000A => depth -= 1,
                _ => {}
            }
            continue;
        }
        let at = |i: usize| data.get(i..i + 2).map_or(0, |b| u32::from(u16_at(b, 0)));
        match record.typ {
            0x0809 if seen_bof => depth += 1,
            0x0809 => seen_bof = true,
            0x000A => break,
            0x0200 => reserved = reserved.max(dimensions_reserve(data).saturating_add(records_n)),
            0x0203 | 0x0204 | 0x00D6 | 0x0205 | 0x027E | 0x00FD | 0x0006 | 0x0207 => {
                records_n += 1;
                if record.typ == 0x0006 {
                    formula_at = (at(0), at(2));
                }
                let (row, col) = if record.typ == 0x0207 { formula_at } else { (at(0), at(2)) };
                cells.add(row, col);
                text += match record.typ {
                    0x00FD => strings.get(at(6) as usize).map_or(0, |&len| string_cost(len) - 24),
                    0x0204 | 0x00D6 | 0x0207 => string_cost(data.len() as u64 * 3 / 2) - 24,
                    _ => 0,
                };
                if record.typ == 0x0006 {
                    formulas.add(at(0), at(2));
                    text += string_cost(data.len() as u64 * 4) - 24;
                }
            }
            0x00BD if data.len() >= 6 => {
                let (first, last) = (at(2), at(data.len() - 2));
                records_n += u64::from(last.saturating_sub(first) + 1);
                cells.add(at(0), first);
                cells.add(at(0), last);
            }
            _ => {}
        }
    }
    reserved.max(records_n).saturating_mul(CELL_RECORD_BYTES)
        + cells.count().saturating_mul(RANGE_CELL_BYTES)
        + formulas.count().saturating_mul(FORMULA_CELL_BYTES)
        + text
}

/// The cells calamine reserves for a `Dimensions` record, with its arithmetic (u32 that
/// wraps); a request too large for `Vec` panics, which is caught, so it counts as nothing.
fn dimensions_reserve(data: &[u8]) -> u64 {
    let (first_row, last_row, mut first_col, last_col) = match data.len() {
        10 => (
            u32::from(u16_at(data, 0)),
            u32::from(u16_at(data, 2)),
            u16_at(data, 4),
            u16_at(data, 6),
        ),
        14 | 16 => (u32_at(data, 0), u32_at(data, 4), u16_at(data, 8), u16_at(data, 10)),
        _ => return 0,
    };
    if 0xFF < first_col || last_col < first_col {
        first_col = 0;
    }
    let (first_col, last_col) = (u32::from(first_col), u32::from(last_col));
    let (end_row, end_col) = match last_row >= 1 && last_col >= 1 {
        true => (last_row - 1, last_col - 1),
        false => (first_row, first_col),
    };
    let rows = end_row.wrapping_sub(first_row).wrapping_add(1) as u64;
    let cols = end_col.wrapping_sub(first_col).wrapping_add(1) as u64;
    let n = rows.saturating_mul(cols);
    match n.checked_mul(CELL_RECORD_BYTES) {
        Some(bytes) if bytes <= isize::MAX as u64 => n,
        _ => 0,
    }
}

/// The bounding box of cell positions: calamine's dense range covers it whole.
#[derive(Default)]
struct Area {
    rows: Option<(u32, u32)>,
    cols: Option<(u32, u32)>,
}

impl Area {
    fn add(&mut self, row: u32, col: u32) {
        let widen = |span: Option<(u32, u32)>, v: u32| {
            Some(span.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))))
        };
        self.rows = widen(self.rows, row);
        self.cols = widen(self.cols, col);
    }

    fn count(&self) -> u64 {
        match (self.rows, self.cols) {
            (Some((r0, r1)), Some((c0, c1))) => u64::from(r1 - r0 + 1) * u64::from(c1 - c0 + 1),
            _ => 0,
        }
    }
}

fn u16_at(buf: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([buf[at], buf[at + 1]])
}

fn u32_at(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(typ: u16, data: &[u8]) -> Vec<u8> {
        let mut out = typ.to_le_bytes().to_vec();
        out.extend((data.len() as u16).to_le_bytes());
        out.extend(data);
        out
    }

    fn number(row: u16, col: u16) -> Vec<u8> {
        let mut data = row.to_le_bytes().to_vec();
        data.extend(col.to_le_bytes());
        data.extend([0; 10]);
        record(0x0203, &data)
    }

    #[test]
    fn two_far_cells_cost_the_whole_area() {
        let mut sheet = record(0x0809, &[0; 16]);
        sheet.extend(number(0, 0));
        sheet.extend(number(65_535, 255));
        sheet.extend(record(0x000A, &[]));
        let cost = sheet_cost(&sheet, &[]);
        assert_eq!(cost, 2 * CELL_RECORD_BYTES + 65_536 * 256 * RANGE_CELL_BYTES);
        assert!(cost > MAX_LOADED_BYTES);
    }

    #[test]
    fn a_dimensions_record_reserves_rows_times_columns() {
        let mut data = 0u32.to_le_bytes().to_vec();
        data.extend(1_000_000u32.to_le_bytes());
        data.extend([0, 0, 0, 1, 0, 0]);
        assert_eq!(dimensions_reserve(&data), 1_000_000 * 256);
    }

    #[test]
    fn shared_strings_continue_with_a_new_flags_byte() {
        // cstTotal, cstUnique, then "abc" compressed split over a CONTINUE as UTF-16 "d".
        let first: &[u8] = &[0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, b'a', b'b', b'c'];
        let cont: &[u8] = &[1, b'd', 0, 1, 0, 0, b'e'];
        assert_eq!(shared_strings(&[first, cont]), vec![3 * 2 + 3, 2]);
    }

    #[test]
    fn biff8_text_is_utf16_and_an_unknown_biff5_code_page_falls_back() {
        let workbook = |version: u16, page: u16| {
            let mut bof = version.to_le_bytes().to_vec();
            bof.extend([0x05, 0, 0, 0, 0, 0]);
            let mut stream = record(0x0809, &bof);
            stream.extend(record(0x0042, &page.to_le_bytes()));
            stream.extend(record(0x000A, &[]));
            text(&stream)
        };
        assert_eq!(workbook(0x0600, 1200), Text::default());
        assert_eq!(workbook(0x0600, 1252).codepage, Some(1200));
        assert_eq!(workbook(0x0600, 8001), Text { codepage: Some(1200), note: None });
        assert_eq!(workbook(0x0500, 1251), Text::default());
        let quattro = workbook(0x0500, 8001);
        assert_eq!(quattro.codepage, Some(1252));
        assert!(quattro.note.unwrap().contains("code page 8001"));
    }

    /// Every byte of the workbook stream is found in the file where `locate` says.
    fn assert_located(bytes: &[u8], piece: usize) {
        let stream = workbook_stream(bytes).unwrap().unwrap();
        assert_eq!(stream.piece, piece);
        assert!(!stream.bytes.is_empty());
        for (at, byte) in stream.bytes.iter().enumerate() {
            assert_eq!(bytes[stream.locate(at).unwrap()], *byte, "stream byte {at}");
        }
    }

    #[test]
    fn every_byte_of_a_stream_is_located_in_the_file() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/leads.xls");
        assert_located(&std::fs::read(path).unwrap(), 512);
        // A 200-byte Workbook in mini sectors 2, 0, 3, 1 of the root's one-sector mini stream:
        // FAT in sector 0, directory in 1, mini FAT in 2, mini stream in 3.
        let mut file = vec![0u8; 512 * 5];
        file[..8].copy_from_slice(OLE_HEADER_MAGIC);
        file[30] = 9;
        for (at, value) in [(44, 1u32), (48, 1), (56, 4096), (60, 2), (64, 1), (68, ENDOFCHAIN)] {
            file[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
        file[76..512].fill(0xFF);
        file[76..80].copy_from_slice(&0u32.to_le_bytes());
        let fat = [0xFFFF_FFFD, ENDOFCHAIN, ENDOFCHAIN, ENDOFCHAIN];
        let mini_fat = [3, ENDOFCHAIN, 0, 1];
        for (i, v) in fat.iter().chain(&[0xFFFF_FFFF; 124]).enumerate() {
            file[512 + 4 * i..516 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        for (i, v) in mini_fat.iter().chain(&[0xFFFF_FFFF; 124]).enumerate() {
            file[1536 + 4 * i..1540 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        let entry = |e: &mut [u8], name: &str, typ: u8, start: u32, size: u32| {
            let units: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
            e[..units.len()].copy_from_slice(&units);
            e[64..66].copy_from_slice(&(units.len() as u16 + 2).to_le_bytes());
            e[66] = typ;
            e[116..120].copy_from_slice(&start.to_le_bytes());
            e[120..124].copy_from_slice(&size.to_le_bytes());
        };
        entry(&mut file[1024..1152], "Root Entry", 5, 3, 512);
        entry(&mut file[1152..1280], "Workbook", 2, 2, 200);
        for (i, b) in file[2048..2560].iter_mut().enumerate() {
            *b = (i * 7 % 251) as u8;
        }
        assert_located(&file, 64);
    }

    const OLE_HEADER_MAGIC: &[u8] = &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

    #[test]
    fn a_looping_chain_is_damage() {
        let bytes = vec![0u8; 512 * 3];
        let cfb = Cfb { bytes: &bytes, sector: 512, max_id: 3, fat: vec![1, 0] };
        let looping = cfb.chain(0, usize::MAX, &mut Vec::new());
        assert_eq!(looping, Err("a sector chain loops back on itself"));
    }
}
