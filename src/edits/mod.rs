//! Edits: the changes a person makes to a sheet's rows without touching the file: cells
//! replaced and rows excluded, by the row number the sheet shows. The browser makes them on
//! the Check page; `import --edits FILE` takes the same file, so a run with edits resumes from
//! the command line as from the browser. They are applied as each row is read, before any check,
//! so every check, report and lead sees the edited row, and they are part of the run's identity
//! (`digest`): the journal of a run with edits is resumed only with the same edits.

mod corrected;
mod remembered;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::source::Record;

pub use corrected::{CorrectedError, fit_to_excel, write_corrected};
pub use remembered::{Fix, Offer, Remembered};

/// The longest a cell typed in the browser may be: longer text is no phone number or name.
pub const MAX_CELL_CHARS: usize = 4_096;

/// The edits of one sheet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edits {
    /// Cells replaced: row number → 0-based column → the new text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cells: BTreeMap<u64, BTreeMap<usize, String>>,
    /// Rows left out: read, reported as excluded, never sent.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub excluded: BTreeSet<u64>,
}

/// Why an edits file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum EditsError {
    #[error("cannot read the edits file `{path}`", path = path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "the edits file `{path}` is not leadsync's edits: it holds {{\"cells\": {{\"ROW\": {{\"COLUMN\": \"TEXT\"}}}}, \"excluded\": [ROW, …]}} with columns counted from 0",
        path = path.display()
    )]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("cannot write the edits file `{path}`: {source}", path = path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl Edits {
    /// No edit at all: the run is the file's.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty() && self.excluded.is_empty()
    }

    pub fn load(path: &Path) -> Result<Edits, EditsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| EditsError::Read { path: path.to_path_buf(), source })?;
        serde_json::from_str(&text)
            .map_err(|source| EditsError::Parse { path: path.to_path_buf(), source })
    }

    /// Written whole to a temporary file and renamed, so a reader never sees half of it.
    pub fn save(&self, path: &Path) -> Result<(), EditsError> {
        let fail = |source| EditsError::Write { path: path.to_path_buf(), source };
        let text = serde_json::to_vec_pretty(self).map_err(std::io::Error::other).map_err(fail)?;
        let temporary = path.with_extension("json.part");
        std::fs::write(&temporary, text).map_err(fail)?;
        std::fs::rename(&temporary, path).map_err(fail)
    }

    /// Sets one cell to `text`, or drops the edit when `text` is what the file holds.
    pub fn set_cell(&mut self, row: u64, column: usize, text: &str, original: &str) {
        let text: String = text.chars().take(MAX_CELL_CHARS).collect();
        let row_cells = self.cells.entry(row).or_default();
        if text == original {
            row_cells.remove(&column);
        } else {
            row_cells.insert(column, text);
        }
        if row_cells.is_empty() {
            self.cells.remove(&row);
        }
    }

    pub fn exclude(&mut self, row: u64, excluded: bool) {
        match excluded {
            true => self.excluded.insert(row),
            false => self.excluded.remove(&row),
        };
    }

    pub fn is_excluded(&self, row: u64) -> bool {
        self.excluded.contains(&row)
    }

    /// The edited text of a cell, if it was edited.
    pub fn cell(&self, row: u64, column: usize) -> Option<&str> {
        self.cells.get(&row)?.get(&column).map(String::as_str)
    }

    /// Puts the edited cells into `record`. An edited cell is the person's text, so a
    /// spreadsheet error or a stored number that was in it is gone.
    pub fn apply(&self, record: &mut Record) {
        let Some(edited) = self.cells.get(&record.row) else { return };
        let mut cells: Vec<String> = record.cells.iter().map(str::to_string).collect();
        for (&column, text) in edited {
            if column >= cells.len() {
                cells.resize(column + 1, String::new());
            }
            cells[column] = text.clone();
        }
        record.cells = csv::StringRecord::from(cells);
        record.cell_errors.retain(|e| !edited.contains_key(&e.column));
        record.stored_numbers.retain(|s| !edited.contains_key(&s.column));
    }

    /// What tells this run apart from the file's own: empty for no edits, so a run without
    /// edits keeps the identity it always had.
    pub fn digest(&self) -> String {
        if self.is_empty() {
            return String::new();
        }
        let text = serde_json::to_vec(self).expect("edits serialize");
        blake3::hash(&text).to_hex().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{CellError, StoredNumber};

    fn record(row: u64, cells: &[&str]) -> Record {
        Record { row, cells: csv::StringRecord::from(cells.to_vec()), ..Record::default() }
    }

    #[test]
    fn an_edit_replaces_its_cell_of_its_row_only() {
        let mut edits = Edits::default();
        edits.set_cell(3, 1, "+49 151 1234567", "0151 12");
        let mut third = record(3, &["Anna", "0151 12", "DE"]);
        let mut fourth = record(4, &["Ben", "0151 12", "DE"]);
        edits.apply(&mut third);
        edits.apply(&mut fourth);
        assert_eq!(&third.cells[1], "+49 151 1234567");
        assert_eq!(&third.cells[0], "Anna");
        assert_eq!(&fourth.cells[1], "0151 12");
    }

    #[test]
    fn setting_a_cell_back_to_the_files_text_drops_the_edit() {
        let mut edits = Edits::default();
        edits.set_cell(3, 1, "new", "old");
        assert!(!edits.is_empty());
        edits.set_cell(3, 1, "old", "old");
        assert!(edits.is_empty(), "{edits:?}");
        assert_eq!(edits.digest(), "");
    }

    #[test]
    fn an_edited_cell_holds_no_spreadsheet_error_or_stored_number_any_more() {
        let mut edits = Edits::default();
        edits.set_cell(2, 0, "Anna", "#N/A");
        edits.set_cell(2, 1, "0151 2345678", "1.512.345.678,00");
        let mut row = record(2, &["#N/A", "1.512.345.678,00", "01067"]);
        row.cell_errors.push(CellError { column: 0, value: "#N/A".into() });
        for (column, digits) in [(1, "1512345678"), (2, "1067")] {
            row.stored_numbers.push(StoredNumber { column, digits: digits.into() });
        }
        edits.apply(&mut row);
        assert!(row.cell_errors.is_empty());
        assert_eq!(row.stored_number(1), None, "the person's text is the phone now");
        assert_eq!(row.stored_number(2), Some("1067"), "an unedited cell keeps its digits");
    }

    #[test]
    fn the_digest_changes_with_every_edit() {
        let mut edits = Edits::default();
        edits.exclude(7, true);
        let one = edits.digest();
        edits.set_cell(3, 0, "x", "");
        assert_ne!(one, edits.digest());
        assert_ne!(one, "");
    }

    #[test]
    fn a_saved_file_loads_as_it_was_and_a_stranger_field_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("edits.json");
        let mut edits = Edits::default();
        edits.set_cell(3, 1, "+4915112345678", "");
        edits.exclude(9, true);
        edits.save(&path).unwrap();
        assert_eq!(Edits::load(&path).unwrap(), edits);
        std::fs::write(&path, r#"{"rows": {}}"#).unwrap();
        let error = Edits::load(&path).unwrap_err();
        let said = format!("{error}: {}", std::error::Error::source(&error).unwrap());
        assert!(said.contains("edits.json") && said.contains("unknown field `rows`"), "{said}");
    }

    #[test]
    fn a_cell_is_kept_to_its_longest() {
        let mut edits = Edits::default();
        edits.set_cell(2, 0, &"x".repeat(MAX_CELL_CHARS + 10), "");
        assert_eq!(edits.cell(2, 0).unwrap().len(), MAX_CELL_CHARS);
    }
}
