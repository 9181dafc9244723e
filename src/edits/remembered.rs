//! Fixes remembered from one sheet for the next: when a person corrects a cell (`0151 CALL ME`
//! in `Telefon` becomes `0151 76543210`), the same wrong cell in the same column of a later
//! export is the same mistake, and the fix she made is offered again instead of asked for
//! again. Kept per state folder as a small JSON file; a fix is known by its column's name and
//! the cell as it was, never by a row number (rows move between exports).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Fixes kept at most: the oldest go first. A person fixes cells by hand, one at a time.
const MAX_FIXES: usize = 10_000;
/// The longest cell text a fix is kept for (as long as an edit may be).
const MAX_TEXT_CHARS: usize = super::MAX_CELL_CHARS;

/// One correction: in the column named `column`, `was` became `now`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub column: String,
    pub was: String,
    pub now: String,
}

/// A remembered fix that fits a cell of this sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub row: u64,
    /// 0-based, as the edits count columns.
    pub column: usize,
    pub fix: Fix,
}

/// The remembered fixes, in the order made.
#[derive(Debug, Clone, Default)]
pub struct Remembered {
    path: PathBuf,
    fixes: Vec<Fix>,
}

impl Remembered {
    /// The fixes kept at `path`; none when there is no such file or it cannot be read (a lost
    /// memory costs a person a second correction, never a wrong one).
    pub fn load(path: &Path) -> Remembered {
        let fixes = std::fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Remembered { path: path.to_path_buf(), fixes }
    }

    pub fn is_empty(&self) -> bool {
        self.fixes.is_empty()
    }

    /// Remembers that `was` became `now` in `column`; a later fix of the same cell replaces an
    /// earlier one, and setting a cell back to what it was forgets the fix.
    pub fn remember(&mut self, column: &str, was: &str, now: &str) {
        let key = column_key(column);
        self.fixes.retain(|f| !(column_key(&f.column) == key && f.was == was));
        let too_long = was.chars().count() > MAX_TEXT_CHARS || now.chars().count() > MAX_TEXT_CHARS;
        if was == now || was.trim().is_empty() || too_long {
            return;
        }
        self.fixes.push(Fix {
            column: column.trim().to_string(),
            was: was.into(),
            now: now.into(),
        });
        let over = self.fixes.len().saturating_sub(MAX_FIXES);
        self.fixes.drain(..over);
    }

    /// Writes the fixes, readable by the user alone (cells hold people's numbers and names).
    pub fn save(&self) -> std::io::Result<()> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut temp = tempfile::NamedTempFile::new_in(dir)?;
        serde_json::to_writer(temp.as_file_mut(), &self.fixes)?;
        temp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }

    /// The fixes that fit `rows` (row number and cells as read) of a sheet with `headers`: a
    /// cell that holds exactly what a fix's cell held, in a column of the fix's name.
    pub fn offers<'a>(
        &self,
        headers: &[String],
        rows: impl IntoIterator<Item = (u64, &'a [String])>,
    ) -> Vec<Offer> {
        let keys: Vec<String> = headers.iter().map(|h| column_key(h)).collect();
        let mut offers = Vec::new();
        for (row, cells) in rows {
            for (column, cell) in cells.iter().enumerate() {
                let Some(key) = keys.get(column) else { continue };
                let found = self
                    .fixes
                    .iter()
                    .rev()
                    .find(|f| f.was == *cell && column_key(&f.column) == *key);
                if let Some(fix) = found {
                    offers.push(Offer { row, column, fix: fix.clone() });
                }
            }
        }
        offers
    }
}

/// Column names compared as a person reads them: without case or surrounding space.
fn column_key(name: &str) -> String {
    name.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_fix_is_offered_again_for_the_same_cell_in_a_column_of_the_same_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fixes.json");
        let mut memory = Remembered::load(&path);
        memory.remember("Telefon", "0151 CALL ME", "0151 76543210");
        memory.save().unwrap();

        let memory = Remembered::load(&path);
        let headers = cells(&["Name", " telefon "]);
        let (a, b, c) = (
            cells(&["Sophie", "0151 CALL ME"]),
            cells(&["Jan", "0151 76543210"]),
            cells(&["0151 CALL ME", "030 123"]),
        );
        let offers =
            memory.offers(&headers, [(4, a.as_slice()), (9, b.as_slice()), (12, c.as_slice())]);
        assert_eq!(offers.len(), 1, "only the same cell in the same column: {offers:?}");
        assert_eq!((offers[0].row, offers[0].column), (4, 1));
        assert_eq!(offers[0].fix.now, "0151 76543210");
    }

    #[test]
    fn a_later_fix_replaces_an_earlier_one_and_undoing_forgets_it() {
        let mut memory = Remembered::default();
        memory.remember("Telefon", "x", "1");
        memory.remember("Telefon", "x", "2");
        let row = cells(&["x"]);
        let offers = memory.offers(&cells(&["Telefon"]), [(2, row.as_slice())]);
        assert_eq!(offers[0].fix.now, "2");
        memory.remember("Telefon", "x", "x");
        assert!(memory.is_empty());
    }

    #[test]
    fn an_unreadable_memory_is_an_empty_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fixes.json");
        std::fs::write(&path, "not json").unwrap();
        assert!(Remembered::load(&path).is_empty());
    }
}
