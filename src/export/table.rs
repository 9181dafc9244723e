//! The one shape both exports take before a writer sees them: named columns that say what their
//! cells are, and rows of text cells.

use std::collections::HashSet;

/// What a column's cells are, which decides how a workbook stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Text,
    /// Always stored as text, so `+49…` never becomes `4.9E+12` and leading zeros survive.
    Phone,
    /// Whole numbers (ids, counts), stored as numbers so they sort as numbers.
    Integer,
    /// Transcripts and raw JSON: wider columns.
    LongText,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub kind: ColumnKind,
}

impl Column {
    pub fn new(name: impl Into<String>, kind: ColumnKind) -> Column {
        Column { name: name.into(), kind }
    }
}

/// Columns and rows; every row has one cell per column, an empty string for none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The cells of the column named `name`, for tests and callers that look one up.
    pub fn column(&self, name: &str) -> Option<Vec<&str>> {
        let index = self.columns.iter().position(|c| c.name == name)?;
        Some(self.rows.iter().map(|row| row[index].as_str()).collect())
    }
}

/// A column name for each variable key: the key itself, or `variable_KEY` when a fixed column
/// already has that name (compared case-insensitively, as a spreadsheet user would).
pub(super) fn variable_columns<'a>(
    fixed: &[Column],
    keys: impl IntoIterator<Item = &'a String>,
) -> Vec<String> {
    let taken: HashSet<String> = fixed.iter().map(|c| c.name.to_lowercase()).collect();
    keys.into_iter()
        .map(|key| match taken.contains(&key.to_lowercase()) {
            true => format!("variable_{key}"),
            false => key.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Column, ColumnKind, variable_columns};

    #[test]
    fn variables_named_like_a_fixed_column_are_prefixed() {
        let fixed =
            [Column::new("status", ColumnKind::Text), Column::new("id", ColumnKind::Integer)];
        let keys = ["Status".to_string(), "email".to_string()];
        assert_eq!(variable_columns(&fixed, &keys), ["variable_Status", "email"]);
    }
}
