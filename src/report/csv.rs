//! The `.csv` report: the source's columns, unchanged and first, then `leadsync_*` columns,
//! so a person can fix rows in Excel and import the file again with the same mapping.
//!
//! UTF-8 with a BOM, because Excel otherwise opens UTF-8 as the local code page and mangles
//! umlauts; cells are separated by the source's own delimiter (`;` for a `;` source), because
//! Excel splits a CSV by the list separator of its locale, and a German Excel opens a
//! comma-separated file as one column. A source without one (a workbook) gets `,`. Every cell a spreadsheet would run as a formula gets a leading `'` (see
//! [`escape_formula`]): the file is opened by people, and a cell is user-typed data.

use std::borrow::Cow;
use std::path::Path;

use super::error::ReportError;
use super::model::{Issue, RowReport, RunInfo, Summary};
use super::staged::Staged;
use super::{ReportWriter, status_str};

const BOM: &str = "\u{feff}";
/// The columns leadsync adds after the source's, in the CSV and XLSX fix files.
pub(super) const OWN_COLUMNS: [&str; 6] = [
    "leadsync_row",
    "leadsync_status",
    "leadsync_phone",
    "leadsync_errors",
    "leadsync_warnings",
    "leadsync_lead_id",
];

pub(crate) struct CsvWriter {
    csv: csv::Writer<Staged>,
    /// The number of source columns; every row is padded or cut to it so the `leadsync_*`
    /// columns always line up under their headers.
    width: usize,
}

impl CsvWriter {
    pub(crate) fn create(
        path: &Path,
        headers: &[String],
        delimiter: u8,
    ) -> Result<CsvWriter, ReportError> {
        let mut out = Staged::create(path, "part")?;
        out.put(BOM)?;
        let csv = csv::WriterBuilder::new().delimiter(delimiter).from_writer(out);
        let mut writer = CsvWriter { csv, width: headers.len() };
        let header = headers.iter().map(String::as_str).chain(OWN_COLUMNS);
        writer.record(header)?;
        Ok(writer)
    }

    fn record<'a>(&mut self, cells: impl IntoIterator<Item = &'a str>) -> Result<(), ReportError> {
        let write = || -> csv::Result<()> {
            for cell in cells {
                self.csv.write_field(escape_formula(cell).as_bytes())?;
            }
            self.csv.write_record(None::<&[u8]>)
        };
        write().map_err(|err| self.error(err))
    }

    fn error(&self, err: csv::Error) -> ReportError {
        ReportError::Write { path: self.csv.get_ref().target().to_path_buf(), source: err.into() }
    }
}

impl ReportWriter for CsvWriter {
    fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError> {
        let source = (0..self.width).map(|i| row.source_cells.get(i).map_or("", String::as_str));
        let number = row.row.to_string();
        let lead_id = row.lead_id.map(|id| id.to_string()).unwrap_or_default();
        let (errors, warnings) = (messages(&row.errors), messages(&row.warnings));
        let own = [
            number.as_str(),
            status_str(row.status),
            row.phone.as_deref().unwrap_or(""),
            &errors,
            &warnings,
            &lead_id,
        ];
        self.record(source.chain(own))
    }

    fn finish(self: Box<Self>, _: &Summary, _: &RunInfo) -> Result<(), ReportError> {
        let CsvWriter { csv, .. } = *self;
        let target = csv.get_ref().target().to_path_buf();
        let out = csv
            .into_inner()
            .map_err(|err| ReportError::Write { path: target, source: err.into_error() })?;
        out.persist()
    }
}

/// A row's issue messages in one cell.
pub(super) fn messages(issues: &[Issue]) -> String {
    issues.iter().map(|issue| issue.message.as_str()).collect::<Vec<_>>().join("; ")
}

/// Prefixes `'` to a cell that Excel, LibreOffice or Sheets would evaluate as a formula
/// (OWASP "CSV injection"): one starting with `=`, `@`, tab or carriage return, or with `+` or
/// `-` unless it is a plain number (`-12.5`), an E.164 number (`+4915112345678`) or a phone
/// number as people type it (`+49 (0)69 1234-56`), which are data people expect to see
/// unchanged.
pub(crate) fn escape_formula(cell: &str) -> Cow<'_, str> {
    let risky = match cell.as_bytes().first() {
        Some(b'=' | b'@' | b'\t' | b'\r') => true,
        Some(b'+' | b'-') => !is_plain_number(cell) && !is_e164(cell) && !is_typed_phone(cell),
        _ => false,
    };
    if risky { Cow::Owned(format!("'{cell}")) } else { Cow::Borrowed(cell) }
}

/// `-12`, `+3.5`, `-.5`: a sign, digits and at most one decimal point.
fn is_plain_number(cell: &str) -> bool {
    let unsigned = &cell[1..];
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    !(whole.is_empty() && fraction.is_empty()) && digits(whole) && digits(fraction)
}

/// `+49 (0)69 1234-56`, `+1 (555) 123-4567`, `+43 1/234.56`: a `+`, then only digits, spaces,
/// `(`, `)`, `-`, `/` and `.`, at least three digits among them.
///
/// Not escaping these is safe: what makes a cell dangerous is a function (`HYPERLINK`,
/// `WEBSERVICE`), a cell or sheet reference, or DDE (`cmd|' /C calc'!A0`), and every one of
/// them needs a letter, `|`, `!`, `"` or `'`, none of which such a cell holds. At worst a
/// spreadsheet reads it as arithmetic (`+1-2`) and shows a number, which harms no one. Escaping
/// them did harm: the `'` stays in the file, so the phone number of a fix file that is imported
/// again, or of an export that is read by another tool, starts with a quote.
fn is_typed_phone(cell: &str) -> bool {
    let Some(rest) = cell.strip_prefix('+') else { return false };
    let allowed = |c: char| c.is_ascii_digit() || matches!(c, ' ' | '(' | ')' | '-' | '/' | '.');
    rest.chars().all(allowed) && rest.chars().filter(char::is_ascii_digit).count() >= 3
}

fn is_e164(cell: &str) -> bool {
    let digits = &cell.as_bytes()[1..];
    cell.starts_with('+')
        && (2..=15).contains(&digits.len())
        && digits[0] != b'0'
        && digits.iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::super::ReportWriter;
    use super::super::model::Summary;
    use super::super::testdata::{headers, rows, run_info};
    use super::{CsvWriter, escape_formula};

    #[test]
    fn formulas_are_escaped() {
        let cells = [
            "=1+1",
            "@SUM(A1)",
            "-1+2",
            "-2+3",
            "\t=x",
            "\r",
            "-",
            "+",
            "+.",
            "-1e5",
            "+cmd|' /C calc'!A0",
            "=HYPERLINK(\"http://x\")",
            "@SUM(1+1)*cmd|' /C calc'!A0",
            "+1+A1",
            "+49 (0)69 1234\t=x",
            "+49 69 SUM(1)",
            "-49 (0)69 1234",
        ];
        for cell in cells {
            assert_eq!(escape_formula(cell), format!("'{cell}"), "{cell:?} was not escaped");
        }
    }

    #[test]
    fn data_stays_as_typed() {
        let cells = [
            "+4915112345678",
            "-12.5",
            "+3",
            "-.5",
            "plain text",
            "",
            "Müller",
            "a=b",
            "0151 1",
            "+49 (0)69 1234567",
            "+1 (555) 123-4567",
            "+43 1/234.56",
        ];
        for cell in cells {
            assert_eq!(escape_formula(cell), cell, "{cell:?} was changed");
        }
    }

    fn report(headers: &[String]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.csv");
        let mut writer = Box::new(CsvWriter::create(&path, headers, b',').unwrap());
        rows().iter().for_each(|row| writer.write_row(row).unwrap());
        writer.finish(&Summary::default(), &run_info()).unwrap();
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn source_columns_come_first_then_leadsync_columns() {
        let text = report(&headers());
        let text = text.strip_prefix('\u{feff}').expect("the file starts with a BOM");
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<_> = reader.headers().unwrap().iter().map(String::from).collect();
        assert_eq!(header[..4], headers()[..]);
        assert_eq!(header[4..], super::OWN_COLUMNS);
        let records: Vec<_> = reader.records().map(Result::unwrap).collect();
        assert_eq!(records.len(), rows().len());
        let first = &records[0];
        assert_eq!(&first[0], "Jürgen Müller");
        assert_eq!((&first[4], &first[5], &first[6]), ("2", "valid", "+4915112345678"));
        let rejected = &records[1];
        assert_eq!(&rejected[3], "'=HYPERLINK(\"http://x\")");
        assert_eq!(&rejected[7], "`12345` is too short to be a phone number");
        assert_eq!(&records[8][9], "9010", "lead id of the created row");
        assert_eq!(&records[9][3], "'-1+2");
        assert_eq!(&records[9][8], "extension `12` was dropped");
    }

    #[test]
    fn rows_are_padded_or_cut_to_the_header() {
        let narrow = ["Name".to_string(), "Phone".to_string()];
        let text = report(&narrow);
        let mut reader = csv::Reader::from_reader(text.trim_start_matches('\u{feff}').as_bytes());
        assert!(reader.records().all(|r| r.unwrap().len() == 2 + 6));
    }
}
