//! Merged cells as a person reads them: a value merged down a column (a company over three
//! contacts) belongs to each row it covers, and a header merged across columns (`Kontakt` over
//! `Vorname | Nachname`) names each column under it, joined with the sub-header row below it
//! (`Kontakt Vorname`). A workbook stores the value once, in the range's first cell.
//!
//! The ranges come from the XLSX reader before the first row (`xlsx::merged_ranges`); the
//! reading thread fills values down (`DownFill`), the header is put together where it is found
//! (`two_row_header`).

use calamine::Dimensions;

use super::Record;

/// A merged range (0-based rows and columns) as the reader keeps it.
pub(super) type Range = Dimensions;

/// Values merged down a column, filled into each row the range covers below its first.
#[derive(Default)]
pub(super) struct DownFill {
    /// Ranges over more than one row, by their first row.
    ranges: Vec<Range>,
    /// The next range of `ranges` not yet begun.
    next: usize,
    /// Ranges begun and not yet ended, with the value of their first cell.
    open: Vec<(Range, String)>,
}

impl DownFill {
    pub(super) fn new(ranges: &[Range]) -> DownFill {
        let mut ranges: Vec<Range> =
            ranges.iter().copied().filter(|r| r.end.0 > r.start.0).collect();
        ranges.sort_by_key(|r| r.start);
        DownFill { ranges, next: 0, open: Vec::new() }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The values to put in row `row` (0-based) as (column, text); `cell` gives the row's own
    /// cells by column, for the ranges that begin in it.
    pub(super) fn for_row<'a>(
        &mut self,
        row: u32,
        cell: impl Fn(u32) -> Option<&'a str>,
    ) -> Vec<(u32, String)> {
        self.open.retain(|(range, _)| range.end.0 >= row);
        let fills: Vec<(u32, String)> = self
            .open
            .iter()
            .filter(|(range, value)| range.start.0 < row && !value.is_empty())
            .map(|(range, value)| (range.start.1, value.clone()))
            .collect();
        while let Some(range) = self.ranges.get(self.next).filter(|r| r.start.0 <= row) {
            let value = match range.start.0 == row {
                true => cell(range.start.1).unwrap_or_default().to_owned(),
                false => String::new(), // its first row had no cells: nothing to fill
            };
            self.open.push((*range, value));
            self.next += 1;
        }
        fills
    }
}

/// The header of a table whose column names take two rows, `top` over `sub` (0-based rows
/// one apart), when a range merged across columns in `top` says so: each column named by
/// the cell merged over it and its own sub-header, joined with a space. A name merged down
/// over both rows (`Telefon`) is that name alone. `None` when nothing merges across `top`.
pub(super) fn two_row_header(top: &Record, sub: &Record, ranges: &[Range]) -> Option<Record> {
    let (top_row, sub_row) = (u32::try_from(top.row.checked_sub(1)?).ok()?, sub.row);
    if sub_row != top.row + 1 {
        return None;
    }
    let across = |r: &&Range| r.start.0 <= top_row && top_row <= r.end.0 && r.end.1 > r.start.1;
    if !ranges.iter().any(|r| across(&r) && r.start.0 == top_row) {
        return None;
    }
    // A title merged over the table (`Leads März 2024` across A1:F1) is one cell; column
    // groups are at least two names (`Kontakt`, `Adresse`, or a group and a name merged down).
    if top.cells.iter().filter(|cell| !cell.trim().is_empty()).count() < 2 {
        return None;
    }
    // Ranges in one row do not overlap: at most one a column, whatever a damaged file lists.
    let in_top: Vec<&Range> =
        ranges.iter().filter(|r| r.start.0 <= top_row && top_row <= r.end.0).collect();
    let width = top.cells.len().max(sub.cells.len());
    let names: Vec<String> = (0..width)
        .map(|c| {
            let column = c as u32;
            let covering = in_top.iter().find(|r| r.start.1 <= column && column <= r.end.1);
            let anchor = covering.map_or(c, |r| r.start.1 as usize);
            let over = top.cells.get(anchor).unwrap_or("").trim();
            let under = sub.cells.get(c).unwrap_or("").trim();
            let down_over_both = covering.is_some_and(|r| r.end.0 > top_row);
            match (over, under) {
                (over, _) if down_over_both => over.to_owned(),
                ("", under) => under.to_owned(),
                (over, "") => over.to_owned(),
                (over, under) => format!("{over} {under}"),
            }
        })
        .collect();
    Some(Record { row: sub.row, cells: csv::StringRecord::from(names), ..Record::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(first: (u32, u32), last: (u32, u32)) -> Range {
        Dimensions { start: first, end: last }
    }

    fn record(row: u64, cells: &[&str]) -> Record {
        Record { row, cells: csv::StringRecord::from(cells.to_vec()), ..Record::default() }
    }

    #[test]
    fn a_header_merged_across_names_each_column_under_it() {
        // Kontakt over A:B, Adresse over C:D, Telefon merged down over rows 1 and 2.
        let ranges = [range((0, 0), (0, 1)), range((0, 2), (0, 3)), range((0, 4), (1, 4))];
        let top = record(1, &["Kontakt", "", "Adresse", "", "Telefon"]);
        let sub = record(2, &["Vorname", "Nachname", "Straße", "Ort", "Telefon"]);
        let header = two_row_header(&top, &sub, &ranges).unwrap();
        let expected =
            ["Kontakt Vorname", "Kontakt Nachname", "Adresse Straße", "Adresse Ort", "Telefon"];
        assert_eq!(header.cells, csv::StringRecord::from(expected.to_vec()));
        assert_eq!(header.row, 2, "the data begins below the sub-header");
        // Nothing merged across the top row: one header row, as always.
        assert!(two_row_header(&top, &sub, &[range((0, 4), (1, 4))]).is_none());
        // A title merged across the table is no column group.
        let title = record(1, &["Leads März 2024", "", "", "", ""]);
        assert!(two_row_header(&title, &sub, &[range((0, 0), (0, 4))]).is_none());
    }

    #[test]
    fn a_value_merged_down_fills_each_row_it_covers() {
        // Firma in B2:B4 (0-based rows 1-3), a block C2:D3 filling its first column.
        let mut fill = DownFill::new(&[range((1, 1), (3, 1)), range((1, 2), (2, 3))]);
        let first = ["Anna", "Acme GmbH", "Köln"];
        assert_eq!(fill.for_row(0, |_| None), vec![]);
        assert_eq!(fill.for_row(1, |c| first.get(c as usize).copied()), vec![]);
        let filled =
            |v: &[(u32, &str)]| v.iter().map(|(c, t)| (*c, t.to_string())).collect::<Vec<_>>();
        assert_eq!(fill.for_row(2, |_| None), filled(&[(1, "Acme GmbH"), (2, "Köln")]));
        assert_eq!(fill.for_row(3, |_| None), filled(&[(1, "Acme GmbH")]));
        assert_eq!(fill.for_row(4, |_| None), vec![]);
    }
}
