//! XLSB formula cells whose cached value is an error (`BrtFmlaError`), which calamine 0.38's
//! streaming XLSB reader skips: a row holding only `#REF!` or `#VALUE!` vanished and the rows
//! below could be taken for the header. XLSX, XLS and ODS return these cells as errors.
//!
//! The workaround reads the sheet's part a second time, alongside calamine, and yields only
//! those cells, in file order; `merge` slots them between calamine's cells by position. It runs
//! only when the pre-flight saw such a record, so other workbooks inflate their sheet once.
//! Remove it when calamine returns `BrtFmlaError` cells (its `XlsbCellsReader::next_cell`
//! ignores record type 0x000B).

use std::collections::HashMap;
use std::io::{self, BufReader, Read};

use calamine::{Cell, CellErrorType, DataRef};
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};

const BRT_ROW_HDR: u16 = 0x0000;
const BRT_FMLA_ERROR: u16 = 0x000B;
const BRT_BUNDLE_SH: u16 = 0x009C;
const BRT_END_SHEET_DATA: u16 = 0x0092;
/// Bytes of a record kept to read the fields used here: column, style, error code.
const HEAD: usize = 9;

/// True when `sheet` of the XLSB at `path` holds a formula error cell.
pub(super) fn any_in(path: &std::path::Path, sheet: &str) -> bool {
    let Ok(file) = std::fs::File::open(path) else { return false };
    let Ok(mut zip) = zip::ZipArchive::new(BufReader::new(file)) else { return false };
    let Some(part) = sheet_part(&mut zip, sheet) else { return false };
    let Ok(part) = zip.by_name(&part) else { return false };
    FormulaErrors::new(BufReader::new(part)).next_error().is_some()
}

/// The zip path of the part that holds `sheet`, as calamine finds it: the workbook's
/// `BrtBundleSh` record names a relationship, whose target is under `xl/`.
pub(super) fn sheet_part<R: Read + io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    sheet: &str,
) -> Option<String> {
    let targets = relationship_targets(zip)?;
    let workbook = zip.by_name("xl/workbook.bin").ok()?;
    let mut records = RecordReader::new(BufReader::new(workbook));
    let mut data = Vec::new();
    while let Some(typ) = records.next_type() {
        if typ != BRT_BUNDLE_SH {
            records.skip().ok()?;
            continue;
        }
        records.read_all(&mut data, 64 * 1024).ok()?;
        let (rel_id, at) = wide_str(&data, 8)?;
        let (name, _) = wide_str(&data, at)?;
        if name == sheet {
            return targets.get(&rel_id).map(|target| format!("xl/{target}"));
        }
    }
    None
}

fn relationship_targets<R: Read + io::Seek>(
    zip: &mut zip::ZipArchive<R>,
) -> Option<HashMap<String, String>> {
    let rels = zip.by_name("xl/_rels/workbook.bin.rels").ok()?;
    let mut xml = Reader::from_reader(BufReader::new(rels.take(16 * 1024 * 1024)));
    let (mut buf, mut targets) = (Vec::new(), HashMap::new());
    loop {
        match xml.read_event_into(&mut buf).ok()? {
            Event::Start(e) | Event::Empty(e) if e.local_name().into_inner() == "Relationship" => {
                let value = |key: &str| {
                    let attr = e.try_get_attribute(key).ok()??;
                    attr.normalized_value(XmlVersion::Implicit1_0).ok().map(|v| v.into_owned())
                };
                if let (Some(id), Some(target)) = (value("Id"), value("Target")) {
                    targets.insert(id, target);
                }
            }
            Event::Eof => return Some(targets),
            _ => {}
        }
        buf.clear();
    }
}

/// An `XLWideString` at `at`: a u32 count of UTF-16 units, then the units; and where it ends.
fn wide_str(data: &[u8], at: usize) -> Option<(String, usize)> {
    let len = u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize;
    let end = at + 4 + len.checked_mul(2)?;
    let units: Vec<u16> =
        data.get(at + 4..end)?.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    Some((String::from_utf16_lossy(&units), end))
}

/// The `BrtFmlaError` cells of one sheet part, in file order.
pub(super) struct FormulaErrors<R: Read> {
    records: RecordReader<R>,
    row: u32,
    done: bool,
}

impl<R: Read> FormulaErrors<R> {
    pub(super) fn new(part: R) -> FormulaErrors<R> {
        FormulaErrors { records: RecordReader::new(part), row: 0, done: false }
    }

    /// The next error cell; `None` at the end of the sheet data or of a damaged part, where
    /// calamine reports the damage itself.
    fn next_error(&mut self) -> Option<((u32, u32), CellErrorType)> {
        let mut head = Vec::with_capacity(HEAD);
        while !self.done {
            let Some(typ) = self.records.next_type() else { break };
            if typ == BRT_END_SHEET_DATA {
                break;
            }
            if typ != BRT_ROW_HDR && typ != BRT_FMLA_ERROR {
                if self.records.skip().is_err() {
                    break;
                }
                continue;
            }
            if self.records.read_all(&mut head, HEAD).is_err() || head.len() < 4 {
                break;
            }
            let first = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            match typ {
                BRT_ROW_HDR => self.row = first,
                _ => {
                    if let Some(error) = head.get(8).and_then(|&code| error_type(code)) {
                        return Some(((self.row, first), error));
                    }
                }
            }
        }
        self.done = true;
        None
    }
}

/// The error codes of MS-XLSB 2.5.97.2 (`BErr`), as calamine maps them for plain error cells.
fn error_type(code: u8) -> Option<CellErrorType> {
    Some(match code {
        0x00 => CellErrorType::Null,
        0x07 => CellErrorType::Div0,
        0x0F => CellErrorType::Value,
        0x17 => CellErrorType::Ref,
        0x1D => CellErrorType::Name,
        0x24 => CellErrorType::Num,
        0x2A => CellErrorType::NA,
        0x2B => CellErrorType::GettingData,
        _ => return None,
    })
}

/// calamine's cells with the formula errors slotted in by position (row, then column).
pub(super) fn merge<'a, R: Read>(
    mut next: impl FnMut() -> Result<Option<Cell<DataRef<'a>>>, String>,
    errors: &mut FormulaErrors<R>,
) -> impl FnMut() -> Result<Option<Cell<DataRef<'a>>>, String> {
    let mut cell: Option<Cell<DataRef<'a>>> = None;
    let mut cell_done = false;
    let mut error = errors.next_error();
    move || {
        if cell.is_none() && !cell_done {
            cell = next()?;
            cell_done = cell.is_none();
        }
        let error_first = match (&cell, &error) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(c), Some((at, _))) => *at < c.get_position(),
        };
        if error_first {
            let (at, value) = error.take().expect("checked above");
            error = errors.next_error();
            return Ok(Some(Cell::new(at, DataRef::Error(value))));
        }
        Ok(cell.take())
    }
}

/// XLSB records as calamine reads them: a type of one or two bytes and a length of up to four,
/// seven bits each.
struct RecordReader<R: Read> {
    r: R,
    /// Bytes of the current record not yet read.
    left: u64,
}

impl<R: Read> RecordReader<R> {
    fn new(r: R) -> RecordReader<R> {
        RecordReader { r, left: 0 }
    }

    fn byte(&mut self) -> Option<u8> {
        let mut b = [0u8];
        self.r.read_exact(&mut b).ok().map(|()| b[0])
    }

    /// Skips what is left of the current record and reads the next one's type and length.
    fn next_type(&mut self) -> Option<u16> {
        self.skip().ok()?;
        let b = self.byte()?;
        let typ = match b & 0x80 {
            0 => u16::from(b),
            _ => u16::from(b & 0x7F) | (u16::from(self.byte()? & 0x7F) << 7),
        };
        let mut len = 0u64;
        for i in 0..4 {
            let b = self.byte()?;
            len |= u64::from(b & 0x7F) << (7 * i);
            if b & 0x80 == 0 {
                break;
            }
        }
        self.left = len;
        Some(typ)
    }

    fn skip(&mut self) -> io::Result<()> {
        let left = std::mem::take(&mut self.left);
        let skipped = io::copy(&mut (&mut self.r).take(left), &mut io::sink())?;
        match skipped == left {
            true => Ok(()),
            false => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    }

    /// Reads up to `max` bytes of the current record into `out`, skipping the rest.
    fn read_all(&mut self, out: &mut Vec<u8>, max: usize) -> io::Result<()> {
        out.clear();
        let want = self.left.min(max as u64);
        (&mut self.r).take(want).read_to_end(out)?;
        self.left -= out.len() as u64;
        self.skip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(typ: u8, data: &[u8]) -> Vec<u8> {
        let mut out = vec![typ, data.len() as u8];
        out.extend(data);
        out
    }

    fn fmla_error(col: u32, code: u8) -> Vec<u8> {
        let mut data = col.to_le_bytes().to_vec();
        data.extend([0, 0, 0, 0, code, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        record(0x0B, &data)
    }

    #[test]
    fn formula_errors_are_found_in_rows_and_merged_by_position() {
        let mut part = record(0x00, &3u32.to_le_bytes());
        part.extend(fmla_error(1, 0x17));
        part.extend(record(0x05, &[0; 16]));
        part.extend(record(0x00, &4u32.to_le_bytes()));
        part.extend(fmla_error(0, 0x0F));
        part.extend(fmla_error(2, 0x99));
        let mut errors = FormulaErrors::new(&part[..]);
        let theirs = [Cell::new((3, 0), DataRef::Int(1)), Cell::new((3, 2), DataRef::Int(2))];
        let mut theirs = theirs.into_iter();
        let mut next = merge(|| Ok(theirs.next()), &mut errors);
        let mut got = Vec::new();
        while let Some(cell) = next().unwrap() {
            got.push((cell.get_position(), cell.get_value().clone()));
        }
        let expected = vec![
            ((3, 0), DataRef::Int(1)),
            ((3, 1), DataRef::Error(CellErrorType::Ref)),
            ((3, 2), DataRef::Int(2)),
            ((4, 0), DataRef::Error(CellErrorType::Value)),
        ];
        assert_eq!(got, expected, "an unknown error code is left out");
    }
}
