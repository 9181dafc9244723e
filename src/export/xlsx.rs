//! A [`Table`] as one XLSX worksheet: a bold, frozen header row with an autofilter, columns
//! sized to their contents, phone numbers as text (formatted `@`, Excel's "number stored as
//! text" warning switched off for them), ids as numbers. Cells are written as values, never as
//! formulas, so nothing needs escaping; a cell longer than Excel's 32,767 characters is cut.

use std::fs::File;
use std::path::Path;

use rust_xlsxwriter::{ColNum, Format, IgnoreError, RowNum, Workbook, Worksheet, XlsxError};

use super::error::ExportError;
use super::table::{ColumnKind, Table};

const MAX_ROWS: usize = 1_048_576;
const MAX_COLUMNS: usize = 16_384;
/// Excel's limit, counted in UTF-16 units as Excel counts.
const MAX_CELL: usize = 32_767;
const CUT_MARK: &str = " …[cut]";
/// Rows looked at to size a column: enough to be representative, cheap on big exports.
const WIDTH_SAMPLE: usize = 1_000;

/// Writes the workbook into `file`; returns how many cells were cut. `path` names it in errors.
pub(super) fn write(
    file: &mut File,
    table: &Table,
    sheet: &str,
    path: &Path,
) -> Result<usize, ExportError> {
    let (rows, columns) = (table.rows.len() + 1, table.columns.len());
    if rows > MAX_ROWS || columns > MAX_COLUMNS {
        return Err(ExportError::TooLarge { path: path.to_path_buf(), rows, columns });
    }
    let xlsx_error = |cause| ExportError::Xlsx { path: path.to_path_buf(), cause };
    let mut workbook = Workbook::new();
    let worksheet = workbook.add_worksheet();
    worksheet.set_name(sheet).map_err(xlsx_error)?;
    let truncated = fill(worksheet, table).map_err(xlsx_error)?;
    workbook.save_to_writer(file).map_err(xlsx_error)?;
    Ok(truncated)
}

fn fill(sheet: &mut Worksheet, table: &Table) -> Result<usize, XlsxError> {
    let bold = Format::new().set_bold();
    let text = Format::new().set_num_format("@");
    for (col, column) in table.columns.iter().enumerate() {
        sheet.write_string_with_format(0, col as ColNum, &column.name, &bold)?;
    }
    let mut truncated = 0;
    for (r, row) in table.rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate().filter(|(_, cell)| !cell.is_empty()) {
            let (row, col) = (r as RowNum + 1, c as ColNum);
            match table.columns[c].kind {
                ColumnKind::Phone => sheet.write_string_with_format(row, col, cell, &text)?,
                ColumnKind::Integer if exact_integer(cell).is_some() => {
                    sheet.write_number(row, col, exact_integer(cell).unwrap_or_default())?
                }
                _ => match fit(cell) {
                    Some(cut) => {
                        truncated += 1;
                        sheet.write_string(row, col, cut)?
                    }
                    None => sheet.write_string(row, col, cell)?,
                },
            };
        }
    }
    layout(sheet, table, &text)?;
    Ok(truncated)
}

/// Widths, frozen header, autofilter, and phone columns kept as text.
fn layout(sheet: &mut Worksheet, table: &Table, text: &Format) -> Result<(), XlsxError> {
    if table.columns.is_empty() {
        return Ok(());
    }
    let last_row = table.rows.len() as RowNum;
    let last_col = (table.columns.len() - 1) as ColNum;
    for (c, column) in table.columns.iter().enumerate() {
        sheet.set_column_width(c as ColNum, width(table, c))?;
        if column.kind == ColumnKind::Phone {
            sheet.set_column_format(c as ColNum, text)?;
            let col = c as ColNum;
            sheet.ignore_error_range(
                1,
                col,
                last_row.max(1),
                col,
                IgnoreError::NumberStoredAsText,
            )?;
        }
    }
    sheet.set_freeze_panes(1, 0)?;
    sheet.autofilter(0, 0, last_row, last_col)?;
    Ok(())
}

/// Characters of the longest line among the header and a sample of cells, plus room for the
/// filter button, within bounds that keep the sheet readable.
fn width(table: &Table, column: usize) -> f64 {
    let longest_line = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let cells = table.rows.iter().take(WIDTH_SAMPLE).map(|row| longest_line(&row[column]));
    let widest = cells.chain([longest_line(&table.columns[column].name) + 2]).max().unwrap_or(0);
    let cap = match table.columns[column].kind {
        ColumnKind::LongText => 80,
        _ => 50,
    };
    (widest + 1).clamp(8, cap) as f64
}

/// A whole number a worksheet holds exactly (within ±2^53, as doubles are).
fn exact_integer(cell: &str) -> Option<f64> {
    let n: i64 = cell.parse().ok()?;
    (n.unsigned_abs() <= 1 << 53).then_some(n as f64)
}

/// `cell` cut to fit a worksheet cell, marked as cut; `None` when it fits as it is.
fn fit(cell: &str) -> Option<String> {
    if cell.len() <= MAX_CELL || cell.encode_utf16().count() <= MAX_CELL {
        return None;
    }
    let budget = MAX_CELL - CUT_MARK.encode_utf16().count();
    let mut units = 0;
    let end = cell
        .char_indices()
        .find(|(_, c)| {
            units += c.len_utf16();
            units > budget
        })
        .map_or(cell.len(), |(i, _)| i);
    Some(format!("{}{CUT_MARK}", &cell[..end]))
}

#[cfg(test)]
mod tests {
    use super::{CUT_MARK, MAX_CELL, exact_integer, fit};

    #[test]
    fn long_cells_are_cut_to_what_excel_holds() {
        assert_eq!(fit("short"), None);
        let emoji = "🚀".repeat(MAX_CELL);
        let cut = fit(&emoji).expect("too long for a cell");
        assert!(cut.ends_with(CUT_MARK));
        let units = cut.encode_utf16().count();
        assert!((MAX_CELL - 1..=MAX_CELL).contains(&units), "{units}");
    }

    #[test]
    fn only_exact_whole_numbers_become_numbers() {
        assert_eq!(exact_integer("42"), Some(42.0));
        assert_eq!(exact_integer("0042"), Some(42.0));
        assert_eq!(exact_integer("9007199254740993"), None);
        assert_eq!(exact_integer("4.5"), None);
    }
}
