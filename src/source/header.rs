//! Which row holds the column names, and what they are.
//!
//! Exports often put a title ("Leads March 2024", "exported by CRM on ...") above the table.
//! Such a row has one or two filled cells where the rows below have several, so the header is
//! the first non-blank row that is not that much narrower than the rows that follow it.

use super::Record;

/// The index in `rows` of the header row, or `None` when every row is blank.
pub(super) fn sniff(rows: &[Record]) -> Option<usize> {
    let filled: Vec<(usize, usize)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i, filled(r)))
        .filter(|&(_, n)| n > 0)
        .collect();
    let mut at = 0;
    while at + 1 < filled.len() && is_title(filled[at].1, &filled[at + 1..]) {
        at += 1;
    }
    filled.get(at).map(|&(i, _)| i)
}

/// A row of one or two cells above rows typically at least twice as wide.
fn is_title(width: usize, below: &[(usize, usize)]) -> bool {
    let typical = typical_width(below);
    width <= 2 && typical >= 2 && typical >= 2 * width
}

/// The most common width of the rows below; the wider one on a tie.
fn typical_width(rows: &[(usize, usize)]) -> usize {
    let count = |w: usize| rows.iter().filter(|&&(_, n)| n == w).count();
    rows.iter()
        .map(|&(_, w)| (count(w), w))
        .max()
        .map_or(0, |(_, w)| w)
}

fn filled(record: &Record) -> usize {
    record.cells.iter().filter(|c| !clean(c).is_empty()).count()
}

/// The column names: trimmed, without byte-order marks, trailing empty columns dropped (Excel
/// exports write `a;b;c;;;` when a column was once used).
pub(super) fn names(record: &Record) -> Vec<String> {
    let mut names: Vec<String> = record.cells.iter().map(|c| clean(c).to_owned()).collect();
    while names.last().is_some_and(String::is_empty) {
        names.pop();
    }
    names
}

fn clean(cell: &str) -> &str {
    cell.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(widths: &[&[&str]]) -> Vec<Record> {
        widths
            .iter()
            .enumerate()
            .map(|(i, cells)| Record {
                row: i as u64 + 1,
                cells: ::csv::StringRecord::from(cells.to_vec()),
                cell_errors: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn first_non_blank_row_is_the_header() {
        let r = rows(&[&["", ""], &["Name", "Phone"], &["a", "1"]]);
        assert_eq!(sniff(&r), Some(1));
    }

    #[test]
    fn title_rows_above_a_wider_table_are_skipped() {
        let r = rows(&[
            &["Leads March 2024"],
            &["exported", "2024-03-01"],
            &[""],
            &["Name", "Phone", "City", "Notes"],
            &["a", "1", "x", ""],
            &["b", "2", "y", "z"],
        ]);
        assert_eq!(sniff(&r), Some(3));
        let narrow = rows(&[&["Leads"], &["Name", "Phone"], &["a", "1"], &["b", "2"]]);
        assert_eq!(sniff(&narrow), Some(1));
    }

    #[test]
    fn single_column_files_keep_their_first_row() {
        let r = rows(&[&["Phone"], &["+49151"], &["+49152"]]);
        assert_eq!(sniff(&r), Some(0));
        assert_eq!(sniff(&rows(&[&[""], &[" "]])), None);
    }

    #[test]
    fn names_are_trimmed_and_lose_bom_and_trailing_empties() {
        let r = rows(&[&["\u{feff}Name ", " Phone", "", ""]]);
        assert_eq!(names(&r[0]), vec!["Name", "Phone"]);
    }
}
