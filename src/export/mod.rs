//! Leads and notifications back out, as CSV or XLSX, for people who work in a spreadsheet.
//!
//! ```text
//!  client.list_leads() ─► leads::table ──┐
//!                                        ├─► Table ─► csv | xlsx ─► temp file ─► rename
//!  journal (events.jsonl) ─► events::table ┘          (by extension)  (beside the target)
//! ```
//!
//! Both exports build one [`Table`] (named, typed columns and text cells), and one writer per
//! format turns it into a file. The file appears under its name only when complete: it is
//! written beside the target under a temporary name, synced, and renamed into place.

mod csv;
mod error;
mod events;
mod leads;
mod table;
mod xlsx;

use std::fs::File;
use std::path::Path;

pub use error::ExportError;
pub use events::{events_table, export_events};
pub use leads::{export_leads, leads_table};
pub use table::{Column, ColumnKind, Table};

/// The export formats, chosen by the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// UTF-8 with a BOM, formula-escaped cells.
    Csv,
    /// One worksheet: bold frozen header, autofilter, phone numbers as text.
    Xlsx,
}

impl Format {
    /// The format for `path`'s extension (case-insensitive), or an error listing the choices.
    pub fn from_path(path: &Path) -> Result<Format, ExportError> {
        let Some(extension) = path.extension() else {
            return Err(ExportError::MissingExtension { path: path.to_path_buf() });
        };
        let extension = extension.to_string_lossy();
        match extension.to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "xlsx" => Ok(Format::Xlsx),
            _ => Err(ExportError::UnknownFormat {
                path: path.to_path_buf(),
                extension: extension.into_owned(),
            }),
        }
    }
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    pub rows: usize,
    pub columns: usize,
    /// XLSX cells cut to the 32,767 characters a cell holds (the CSV keeps them whole).
    pub truncated_cells: usize,
    /// Journal lines that were not notifications and were left out.
    pub skipped_lines: Vec<u64>,
}

impl Written {
    /// What the person running the export should know about what is not in the file as-is.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.truncated_cells > 0 {
            warnings.push(format!(
                "{} cells were longer than the 32,767 characters a workbook cell holds and were \
                 cut; export to .csv to keep them whole",
                self.truncated_cells
            ));
        }
        if let Some(first) = self.skipped_lines.first() {
            warnings.push(format!(
                "{} lines of the journal are not notifications and were left out (the first is \
                 line {first})",
                self.skipped_lines.len()
            ));
        }
        warnings
    }
}

/// Writes `table` to `path` in the format its extension names; `sheet` names the worksheet,
/// `delimiter` separates a CSV's cells (a workbook has none).
pub fn write_table(
    path: &Path,
    table: &Table,
    sheet: &str,
    delimiter: u8,
) -> Result<Written, ExportError> {
    let format = Format::from_path(path)?;
    let truncated_cells = match format {
        Format::Csv => {
            write_atomically(path, |file| csv::write(file, table, path, delimiter).map(|()| 0))
        }
        Format::Xlsx => write_atomically(path, |file| xlsx::write(file, table, sheet, path)),
    }?;
    let (rows, columns) = (table.rows.len(), table.columns.len());
    Ok(Written { rows, columns, truncated_cells, skipped_lines: Vec::new() })
}

/// Runs `write` on a temporary file beside `path`, then syncs it and renames it to `path`. On
/// any failure the temporary file is removed and `path` is left as it was.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<usize, ExportError>,
) -> Result<usize, ExportError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // tempfile's private 0600 would outlive the rename; a file the user asked for gets the
    // usual mode under their umask, as any other file they create.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder
        .tempfile_in(dir)
        .map_err(|cause| ExportError::Create { path: path.to_path_buf(), cause })?;
    let written = write(temp.as_file_mut())?;
    temp.as_file()
        .sync_all()
        .map_err(|cause| ExportError::Write { path: path.to_path_buf(), cause })?;
    temp.persist(path)
        .map_err(|e| ExportError::Finish { path: path.to_path_buf(), cause: e.error })?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{ExportError, Format, write_atomically};

    #[test]
    fn the_extension_picks_the_format() {
        assert_eq!(Format::from_path(Path::new("a/b.CSV")).unwrap(), Format::Csv);
        assert_eq!(Format::from_path(Path::new("b.xlsx")).unwrap(), Format::Xlsx);
        let err = Format::from_path(Path::new("b.xls")).unwrap_err().to_string();
        assert!(err.contains("`xls`") && err.contains(".csv or .xlsx"), "{err}");
        let err = Format::from_path(Path::new("b")).unwrap_err().to_string();
        assert!(err.contains("no extension") && err.contains(".csv or .xlsx"), "{err}");
    }

    #[test]
    fn a_failed_write_leaves_the_target_alone_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, "old").unwrap();
        let failed = write_atomically(&target, |_| {
            Err(ExportError::Write { path: target.clone(), cause: std::io::Error::other("disk") })
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        write_atomically(&target, |file| {
            std::io::Write::write_all(file, b"new").unwrap();
            Ok(0)
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
