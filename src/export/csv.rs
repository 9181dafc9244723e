//! A [`Table`] as CSV: UTF-8 with a BOM (so Excel reads umlauts and emoji right), cells
//! separated by the delimiter asked for (`;` for an Excel whose locale separates lists with it,
//! as German Excel does), every cell through the report's formula escape (a variable typed as
//! `=HYPERLINK(…)` stays text).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::error::ExportError;
use super::table::Table;
use crate::report::escape_formula;

const BOM: &[u8] = "\u{feff}".as_bytes();

pub(super) fn write(
    file: &mut File,
    table: &Table,
    path: &Path,
    delimiter: u8,
) -> Result<(), ExportError> {
    let mut out = BufWriter::with_capacity(64 * 1024, file);
    let io_error = |cause| ExportError::Write { path: path.to_path_buf(), cause };
    out.write_all(BOM).map_err(io_error)?;
    let mut writer = csv::WriterBuilder::new().delimiter(delimiter).from_writer(out);
    let header = table.columns.iter().map(|c| c.name.as_str());
    record(&mut writer, header).map_err(|e| io_error(e.into()))?;
    for row in &table.rows {
        record(&mut writer, row.iter().map(String::as_str)).map_err(|e| io_error(e.into()))?;
    }
    let mut out = writer.into_inner().map_err(|e| io_error(e.into_error()))?;
    out.flush().map_err(io_error)
}

fn record<'a, W: Write>(
    writer: &mut csv::Writer<W>,
    cells: impl Iterator<Item = &'a str>,
) -> csv::Result<()> {
    for cell in cells {
        writer.write_field(escape_formula(cell).as_bytes())?;
    }
    writer.write_record(None::<&[u8]>)
}
