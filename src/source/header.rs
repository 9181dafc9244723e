//! Which row holds the column names, and what they are.
//!
//! Exports often put a title ("Leads March 2024") and an export line ("Exportiert am:
//! 25.11.2024") above the table. The header is the row that best heads the columns below it:
//! its cells are words (not numbers, dates, phone numbers or yes/no), mostly different, over
//! the columns the rows below use, and each column below holds values of a steady kind. A row
//! of a label and a date or number (`Exported on | 2024-11-25`, `Stand: 11/2024`) is never
//! the header. Only rows narrower than the chosen header, or such export lines, are skipped
//! above it: a row as wide as the header could be data, and data is never dropped on a guess.
//!
//! When no row is made of words (a sheet of numbers, say), the older rule decides: the first
//! non-blank row that is not much narrower than the rows that follow it, or narrower and set
//! off from them by a blank row. A row with more filled cells than the chosen header is never
//! skipped.

use std::collections::HashSet;

use super::Record;
use super::kind::{CellKind, kind_of};

/// The index in `rows` of the header row, or `None` when every row is blank.
pub(super) fn sniff(rows: &[Record]) -> Option<usize> {
    // Blank rows (up to a thousand in the look-ahead) are dropped before any cell is judged.
    let lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_blank())
        .map(|(index, r)| Line::new(index, r))
        .filter(|l| l.width > 0)
        .collect();
    let at = best_heading(&lines).or_else(|| first_of_the_table(&lines))?;
    lines.get(at).map(|line| line.index)
}

/// What the person is told when rows above the header were skipped: `header on row 8; rows
/// 1–7 skipped`, with how to choose another row. `None` when the header is the first row with
/// data.
pub(super) fn skipped_note(first_filled_row: Option<u64>, header_row: u64) -> Option<String> {
    first_filled_row.filter(|&row| row < header_row)?;
    let skipped = match header_row - 1 {
        1 => "row 1 skipped".to_owned(),
        last => format!("rows 1\u{2013}{last} skipped"),
    };
    Some(format!(
        "header on row {header_row}; {skipped} as titles (pass `--header-row` or set \
         `header_row` in the mapping to choose another row)"
    ))
}

/// A non-blank row: its index in the look-ahead, its row number, its filled cells and the kind
/// of each cell.
struct Line<'r> {
    index: usize,
    row: u64,
    width: usize,
    kinds: Vec<CellKind>,
    /// Cells that could name a column: words, each the first of its text in the row.
    names: Vec<bool>,
    record: &'r Record,
}

impl<'r> Line<'r> {
    fn new(index: usize, record: &'r Record) -> Line<'r> {
        let kinds: Vec<CellKind> = record.cells.iter().map(kind_of).collect();
        let mut seen = HashSet::new();
        let names = record
            .cells
            .iter()
            .zip(&kinds)
            .map(|(cell, kind)| *kind == CellKind::Text && seen.insert(clean(cell).to_lowercase()))
            .collect();
        let width = kinds.iter().filter(|k| **k != CellKind::Empty).count();
        Line { index, row: record.row, width, kinds, names, record }
    }

    fn kind(&self, column: usize) -> CellKind {
        self.kinds.get(column).copied().unwrap_or(CellKind::Empty)
    }

    /// Every filled cell is a word of its own: nothing in the row looks like a value.
    fn is_all_names(&self) -> bool {
        self.names.iter().filter(|n| **n).count() == self.width
    }

    /// `Exportiert am: | 25.11.2024 08:14`, `Export date | 2024-11-25`, `Stand: 11/2024`: a
    /// label and a date or number, which says when the table was made and never names columns.
    fn is_export_line(&self) -> bool {
        let filled: Vec<&str> =
            self.record.cells.iter().map(clean).filter(|c| !c.is_empty()).collect();
        match filled.as_slice() {
            [one] => one.split_once(':').is_some_and(|(label, value)| {
                kind_of(label) == CellKind::Text && is_value(kind_of(value))
            }),
            [label, values @ ..] if values.len() <= 2 => {
                is_export_label(label) && values.iter().all(|v| is_value(kind_of(v)))
            }
            _ => false,
        }
    }
}

fn is_value(kind: CellKind) -> bool {
    matches!(kind, CellKind::Date | CellKind::Number)
}

/// A label ending in a colon, or one that names an export or a date in one of the six
/// languages (`Exportiert am`, `Exported on`, `Stand`, `Datum`, `Fecha`, `Data`).
fn is_export_label(label: &str) -> bool {
    const WORDS: &[&str] = &[
        "export",
        "stand",
        "date",
        "datum",
        "erstellt",
        "created",
        "generated",
        "generiert",
        "printed",
        "gedruckt",
        "as of",
        "fecha",
        "data",
        "généré",
        "aangemaakt",
        "creato",
    ];
    let key = label.to_lowercase();
    kind_of(label) == CellKind::Text
        && (key.ends_with(':') || WORDS.iter().any(|w| key.contains(w)))
}

/// The row, among those not export lines, that best heads the columns below it, when it is
/// clearly a header; `None` leaves the choice to [`first_of_the_table`]. Ties go to the
/// earlier row, so a sheet of words keeps its first row.
fn best_heading(lines: &[Line]) -> Option<usize> {
    let mut best: Option<(f64, usize)> = None;
    for (at, line) in lines.iter().enumerate().filter(|(_, l)| !l.is_export_line()) {
        let score = heading_score(line, &lines[at + 1..]);
        if score > best.map_or(0.0, |(s, _)| s + 1e-9) {
            best = Some((score, at));
        }
    }
    let (_, at) = best?;
    let header = &lines[at];
    let mut skipped = lines[..at].iter().filter(|l| !l.is_export_line()).peekable();
    let skips_fairly = skipped.peek().is_none()
        || (header.is_all_names() && skipped.all(|l| l.width < header.width));
    skips_fairly.then_some(at)
}

/// How well `head` names the columns the rows `below` use, from 0 to 2 per column: a word
/// over a column counts 1, and as much again as the values below it are of one kind (half as
/// much when that kind is words too, since names under a name say less than numbers do).
fn heading_score(head: &Line, below: &[Line]) -> f64 {
    let columns = below.iter().map(|l| l.kinds.len()).chain([head.kinds.len()]).max().unwrap_or(0);
    let (mut total, mut counted) = (0.0, 0);
    for column in 0..columns {
        let used = below.iter().any(|l| l.kind(column) != CellKind::Empty);
        let named = head.names.get(column).copied().unwrap_or(false);
        if !used && head.kind(column) == CellKind::Empty {
            continue;
        }
        counted += 1;
        if named {
            total += 1.0 + steadiness(column, below);
        }
    }
    if counted == 0 { 0.0 } else { total / f64::from(counted) }
}

/// The share of the filled cells of `column` below that are of its most common kind, halved
/// when that kind is words; 0 when none is filled.
fn steadiness(column: usize, below: &[Line]) -> f64 {
    let kinds: Vec<CellKind> =
        below.iter().map(|l| l.kind(column)).filter(|k| *k != CellKind::Empty).collect();
    let count = |kind: CellKind| kinds.iter().filter(|k| **k == kind).count();
    let Some((most, kind)) = kinds.iter().map(|&k| (count(k), k)).max_by_key(|(n, _)| *n) else {
        return 0.0;
    };
    let share = most as f64 / kinds.len() as f64;
    if kind == CellKind::Text { share / 2.0 } else { share }
}

/// The older rule, by widths alone: titles are skipped, then the first of the widest rows up
/// to the chosen one is the header, so nothing skipped is wider than it.
fn first_of_the_table(lines: &[Line]) -> Option<usize> {
    let mut at = 0;
    while at + 1 < lines.len() && is_title(&lines[at], &lines[at + 1..]) {
        at += 1;
    }
    let widest = lines.iter().take(at + 1).map(|line| line.width).max()?;
    lines.iter().position(|line| line.width == widest)
}

/// A row of one or two cells above rows typically at least twice as wide, or typically wider
/// and after a blank row (which CSV files show only as a gap in the row numbers).
fn is_title(line: &Line, below: &[Line]) -> bool {
    let typical = typical_width(below);
    let blank_follows = below.first().is_some_and(|next| next.row > line.row + 1);
    let narrow = typical >= 2 * line.width || (typical > line.width && blank_follows);
    line.width <= 2 && typical >= 2 && narrow
}

/// The most common width of the rows below; the narrower one on a tie, so that a tie never
/// turns a header into a title.
fn typical_width(lines: &[Line]) -> usize {
    let count = |w: usize| lines.iter().filter(|l| l.width == w).count();
    lines.iter().map(|l| (count(l.width), std::cmp::Reverse(l.width))).max().map_or(0, |(_, w)| w.0)
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
                ..Record::default()
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
        let set_off =
            rows(&[&["Generated by", "CRM"], &[""], &["Name", "Phone", "City"], &["a", "1", "x"]]);
        assert_eq!(sniff(&set_off), Some(2));
        let header_of_two = rows(&[&["Name", "Phone"], &["a", "1", "x"], &["b", "2", "y"]]);
        assert_eq!(sniff(&header_of_two), Some(0));
    }

    #[test]
    fn no_skipped_row_is_wider_than_the_header() {
        // Every pattern of up to six rows of 0 to 4 cells.
        for pattern in 0..5u32.pow(6) {
            let widths: Vec<usize> = (0..6).map(|i| (pattern / 5u32.pow(i) % 5) as usize).collect();
            let cells: Vec<Vec<&str>> = widths.iter().map(|&w| vec!["x"; w.max(1)]).collect();
            let cells: Vec<Vec<&str>> = cells
                .into_iter()
                .zip(&widths)
                .map(|(c, &w)| if w == 0 { vec![""] } else { c })
                .collect();
            let refs: Vec<&[&str]> = cells.iter().map(Vec::as_slice).collect();
            let r = rows(&refs);
            let Some(at) = sniff(&r) else { continue };
            let skipped = widths[..at].iter().max().copied().unwrap_or(0);
            assert!(skipped <= widths[at], "{widths:?}: header {at}");
        }
    }

    /// The export that was misread: a title, an export line of label and date, then the
    /// header, over rows where Firma and Mobil are often empty.
    const CRM_HEADER: [&str; 9] = [
        "Kunden-Nr",
        "Vorname",
        "Nachname",
        "Firma",
        "Telefon",
        "Mobil",
        "Einwilligung Telefon",
        "Kampagne",
        "Land",
    ];

    fn crm_export(above: &[&[&str]], data: &[&[&str]]) -> Vec<Record> {
        let mut all: Vec<&[&str]> = above.to_vec();
        all.push(&CRM_HEADER);
        all.extend_from_slice(data);
        rows(&all)
    }

    #[test]
    fn a_title_and_an_export_line_above_the_header_are_skipped() {
        let data: [&[&str]; 4] = [
            &["1001", "Anna", "Schmidt", "", "+49 30 1234567", "", "ja", "Frühjahr 2025", "DE"],
            &[
                "1002",
                "Ben",
                "Huber",
                "Huber KG",
                "",
                "+43 664 1234567",
                "nein",
                "Frühjahr 2025",
                "AT",
            ],
            &["1003", "Carla", "Meier", "", "+41 44 6681800", "", "ja", "Bestand", "CH"],
            &["1004", "Dirk", "Wolf", "", "", "0151 23456789", "", "Bestand", "DE"],
        ];
        for date_line in [
            &["Exportiert am:", "25.11.2024 08:14"][..],
            &["Exportiert am:", "25.11.2024", "08:14"],
            &["Stand: 25.11.2024"],
            &["Datum", "25.11.2024"],
        ] {
            let r = crm_export(&[&["CRM-Export Kunden"], date_line], &data);
            assert_eq!(sniff(&r), Some(2), "{date_line:?}");
        }
    }

    #[test]
    fn sparse_rows_below_still_show_the_header() {
        // Each row fills two or three of nine columns: no width is typical of the table.
        let data: [&[&str]; 5] = [
            &["1001", "", "Schmidt", "", "+49 30 1234567", "", "", "", ""],
            &["1002", "", "", "", "", "+43 664 1234567", "", "", "AT"],
            &["", "", "Meier", "", "+41 44 6681800", "", "ja", "", ""],
            &["1004", "", "", "", "", "0151 23456789", "", "", ""],
            &["", "Eva", "", "", "+49 40 7654321", "", "", "", ""],
        ];
        let r = crm_export(&[&["CRM-Export Kunden"], &["Exportiert am:", "25.11.2024"]], &data);
        assert_eq!(sniff(&r), Some(2));
        let r = crm_export(&[&["Export date:", "2024-11-25"]], &data);
        assert_eq!(sniff(&r), Some(1));
    }

    #[test]
    fn an_english_exported_on_line_is_never_the_header() {
        let r = rows(&[
            &["Exported on", "2024-11-25"],
            &["Name", "Phone"],
            &["Ada", "+44 20 7946 0958"],
            &["Bob", "+44 20 7946 0959"],
        ]);
        assert_eq!(sniff(&r), Some(1));
        let r = rows(&[
            &["Customer list"],
            &["Export date", "11/2024"],
            &["Name", "Phone", "Opted in"],
            &["Ada", "+44 20 7946 0958", "yes"],
        ]);
        assert_eq!(sniff(&r), Some(2));
    }

    #[test]
    fn an_ordinary_sheet_keeps_its_first_row() {
        let r = rows(&[
            &["Name", "Phone", "City", "Opt-in"],
            &["Anna", "+49 30 12345678", "Berlin", "ja"],
            &["Ben", "+43 664 1234567", "Wien", "nein"],
            &["Cem", "+41 44 6681800", "Zürich", ""],
        ]);
        assert_eq!(sniff(&r), Some(0));
        // A sheet of words only: every row heads its columns as well as the first does.
        let words = rows(&[&["Name", "City"], &["Anna", "Berlin"], &["Ben", "Wien"]]);
        assert_eq!(sniff(&words), Some(0));
    }

    #[test]
    fn a_year_as_a_column_name_keeps_the_first_row() {
        let r = rows(&[
            &["Kunde", "Telefon", "2023", "2024"],
            &["Anna", "+49 30 12345678", "1200", "1500"],
            &["Ben", "+43 664 1234567", "800", "950"],
        ]);
        assert_eq!(sniff(&r), Some(0));
        let title = rows(&[
            &["Umsatz 2024"],
            &["Kunde", "Telefon", "2024"],
            &["Anna", "+49 30 12345678", "1500"],
            &["Ben", "+43 664 1234567", "950"],
        ]);
        assert_eq!(sniff(&title), Some(1));
    }

    #[test]
    fn a_row_as_wide_as_the_header_is_never_skipped() {
        // Two rows of words: the first might be data, and data is never dropped on a guess.
        let r = rows(&[&["Report", "Q3"], &["Name", "Phone"], &["Anna", "+49 30 12345678"]]);
        assert_eq!(sniff(&r), Some(0));
    }

    #[test]
    fn skipped_rows_are_named() {
        let note = skipped_note(Some(1), 8).unwrap();
        assert!(note.starts_with("header on row 8; rows 1\u{2013}7 skipped"), "{note}");
        assert!(skipped_note(Some(1), 2).unwrap().contains("; row 1 skipped"));
        assert_eq!(skipped_note(Some(3), 3), None);
        assert_eq!(skipped_note(None, 3), None);
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
