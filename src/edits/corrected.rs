//! The corrected sheet: the rows as read, with the person's edits in them and the excluded
//! rows left out, as an XLSX to take back into the CRM. Every cell is written as text, so a
//! phone number keeps its leading zero and its `+`, and nothing is turned into a date.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use rust_xlsxwriter::{Format, Workbook, XlsxError};

use super::Edits;
use crate::source::{Source, SourceError};

/// The most rows an XLSX sheet holds, the header's included.
const XLSX_ROWS: u64 = 1_048_576;

/// Why the corrected sheet could not be written.
#[derive(Debug, thiserror::Error)]
pub enum CorrectedError {
    #[error(transparent)]
    Read(#[from] SourceError),
    #[error("cannot write the corrected sheet `{path}`: {message}", path = path.display())]
    Write { path: std::path::PathBuf, message: String },
    #[error(
        "the corrected sheet would have more than {XLSX_ROWS} rows, more than Excel holds: download the fix file instead, or split the sheet"
    )]
    TooLong,
    #[error("stopped before the corrected sheet was written")]
    Stopped,
}

/// Characters one Excel cell holds, counted as Excel counts them (UTF-16 units).
const EXCEL_CELL_UNITS: usize = 32_767;

/// A cell cut to what Excel holds (the fix file and the corrected sheet alike).
pub fn fit_to_excel(cell: &str) -> &str {
    if cell.len() <= EXCEL_CELL_UNITS {
        return cell;
    }
    let mut units = 0;
    let end = cell
        .char_indices()
        .find(|(_, c)| {
            units += c.len_utf16();
            units > EXCEL_CELL_UNITS
        })
        .map_or(cell.len(), |(i, _)| i);
    &cell[..end]
}

/// Writes `source`'s header and rows, edited, to `path`; returns the rows written. Blank rows
/// are left out as a check leaves them out.
pub fn write_corrected(
    source: Source,
    edits: &Edits,
    path: &Path,
    stop: &AtomicBool,
) -> Result<u64, CorrectedError> {
    let fail =
        |e: XlsxError| CorrectedError::Write { path: path.to_path_buf(), message: e.to_string() };
    let mut workbook = Workbook::new();
    let sheet = workbook.add_worksheet_with_constant_memory().map_err(fail)?;
    let text = Format::new().set_num_format("@");
    let bold = Format::new().set_bold().set_num_format("@");
    for (column, name) in source.headers.iter().enumerate() {
        sheet.write_string_with_format(0, column as u16, name, &bold).map_err(fail)?;
    }
    let mut written = 0u64;
    for record in source.records() {
        if stop.load(Ordering::Relaxed) {
            return Err(CorrectedError::Stopped);
        }
        let mut record = record?;
        if edits.is_excluded(record.row) || record.is_blank() {
            continue;
        }
        edits.apply(&mut record);
        written += 1;
        if written >= XLSX_ROWS {
            return Err(CorrectedError::TooLong);
        }
        let row = u32::try_from(written).map_err(|_| CorrectedError::TooLong)?;
        for (column, cell) in record.cells.iter().enumerate().take(usize::from(u16::MAX)) {
            if !cell.is_empty() {
                // Cut as the fix file cuts it: Excel refuses a longer cell, and the whole sheet.
                let cell = fit_to_excel(cell);
                sheet.write_string_with_format(row, column as u16, cell, &text).map_err(fail)?;
            }
        }
    }
    workbook.save(path).map_err(fail)?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use calamine::{Data, Reader, open_workbook_auto};

    use super::*;
    use crate::source::SourceOptions;

    /// Every cell is written as text: a number with a leading zero keeps it, and the edited
    /// cell and the excluded row are as the edits say.
    #[test]
    fn a_cell_longer_than_excel_holds_is_cut_as_the_fix_file_cuts_it() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("long.csv");
        let long = "é".repeat(40_000);
        let wide = "😀".repeat(20_000);
        std::fs::write(&csv, format!("name,notes,more\nAnna,{long},{wide}\n")).unwrap();
        let out = dir.path().join("corrected.xlsx");
        let source = Source::open(&csv, &SourceOptions::default()).unwrap();
        let written = write_corrected(source, &Edits::default(), &out, &AtomicBool::new(false));
        assert_eq!(written.unwrap(), 1, "written, not refused");
        let mut book = open_workbook_auto(&out).unwrap();
        let sheet = book.worksheet_range_at(0).unwrap().unwrap();
        let notes = sheet.get_value((1, 1)).unwrap().to_string();
        assert_eq!(notes.chars().count(), 32_767);
        assert_eq!(notes, fit_to_excel(&long), "cut where the fix file cuts it");
        let more = sheet.get_value((1, 2)).unwrap().to_string();
        assert_eq!(more.chars().count(), 16_383, "counted in UTF-16 units, as Excel counts");
        assert_eq!(fit_to_excel("short"), "short");
        assert_eq!(fit_to_excel(&"😀".repeat(20_000)).chars().count(), 16_383, "UTF-16 units");
    }

    #[test]
    fn the_corrected_sheet_keeps_cells_as_text_with_the_edits_and_without_excluded_rows() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("leads.csv");
        std::fs::write(&csv, "name,phone,zip\nAnna,0151 CALL ME,01067\nBen,+4915123456789,10115\n")
            .unwrap();
        let mut edits = Edits::default();
        edits.set_cell(2, 1, "0151 76543210", "0151 CALL ME");
        edits.exclude(3, true);
        let out = dir.path().join("corrected.xlsx");
        let source = Source::open(&csv, &SourceOptions::default()).unwrap();
        let written = write_corrected(source, &edits, &out, &AtomicBool::new(false)).unwrap();
        assert_eq!(written, 1);
        let mut book = open_workbook_auto(&out).unwrap();
        let sheet = book.worksheet_range_at(0).unwrap().unwrap();
        let rows: Vec<Vec<Data>> = sheet.rows().map(<[Data]>::to_vec).collect();
        let text = |s: &str| Data::String(s.to_string());
        assert_eq!(rows.len(), 2, "the header and Anna: {rows:?}");
        assert_eq!(rows[1], [text("Anna"), text("0151 76543210"), text("01067")]);
    }
}
