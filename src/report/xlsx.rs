//! The fix file for people who live in Excel (`--report fix.xlsx`): the original columns, every
//! cell written as text (a phone number never becomes a number, a leading zero never goes),
//! then leadsync's columns. Rejected rows are filled red and duplicates amber; the header is
//! bold, frozen and has an autofilter. A second sheet, "Summary", holds the counts and the
//! reasons. Fix the rows in Excel and import the same file again with the same mapping.
//!
//! The rows sheet is written in rust_xlsxwriter's constant-memory mode (rows go to a temporary
//! file as they come), so memory does not grow with the number of rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rust_xlsxwriter::{ColNum, Format, RowNum, Workbook, XlsxError};

use super::csv::{OWN_COLUMNS, messages};
use super::error::ReportError;
use super::model::{IssueCode, RowReport, RowStatus, RunInfo, Summary};
use super::staged::Staged;
use super::{ReportWriter, status_str};

/// Excel's limits: rows per sheet, and characters per cell (counted as Excel counts, in UTF-16).
const MAX_ROWS: RowNum = 1_048_576;
const MAX_CELL: usize = 32_767;
const RED: u32 = 0xFFC7CE;
const AMBER: u32 = 0xFFEB9C;

pub(crate) struct XlsxWriter {
    path: PathBuf,
    workbook: Workbook,
    /// Source columns; rows are padded or cut to it so leadsync's columns line up.
    width: usize,
    next_row: RowNum,
    reasons: BTreeMap<IssueCode, u64>,
    formats: Formats,
}

struct Formats {
    text: Format,
    rejected: Format,
    duplicate: Format,
}

impl XlsxWriter {
    pub(crate) fn create(path: &Path, headers: &[String]) -> Result<XlsxWriter, ReportError> {
        let mut workbook = Workbook::new();
        let error = xlsx_error(path);
        let sheet = workbook.add_worksheet_with_constant_memory().map_err(&error)?;
        sheet.set_name("Leads").map_err(&error)?;
        let bold = Format::new().set_bold();
        let own = OWN_COLUMNS.iter().copied();
        for (col, name) in headers.iter().map(String::as_str).chain(own).enumerate() {
            sheet.write_string_with_format(0, col as ColNum, name, &bold).map_err(&error)?;
        }
        sheet.set_freeze_panes(1, 0).map_err(&error)?;
        let text = Format::new().set_num_format("@");
        let formats = Formats {
            rejected: text.clone().set_background_color(RED),
            duplicate: text.clone().set_background_color(AMBER),
            text,
        };
        Ok(XlsxWriter {
            path: path.to_path_buf(),
            workbook,
            width: headers.len(),
            next_row: 1,
            reasons: BTreeMap::new(),
            formats,
        })
    }

    fn cells<'a>(&self, row: &'a RowReport) -> Vec<std::borrow::Cow<'a, str>> {
        let source = (0..self.width).map(|i| row.source_cells.get(i).map_or("", String::as_str));
        let mut cells: Vec<std::borrow::Cow<'a, str>> = source.map(Into::into).collect();
        cells.push(row.row.to_string().into());
        cells.push(status_str(row.status).into());
        cells.push(row.phone.as_deref().unwrap_or_default().into());
        cells.push(messages(&row.errors).into());
        cells.push(messages(&row.warnings).into());
        cells.push(row.lead_id.map(|id| id.to_string()).unwrap_or_default().into());
        cells
    }
}

impl ReportWriter for XlsxWriter {
    fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError> {
        for issue in &row.errors {
            *self.reasons.entry(issue.code).or_default() += 1;
        }
        if self.next_row >= MAX_ROWS {
            return Err(ReportError::Write {
                path: self.path.clone(),
                source: std::io::Error::other("more rows than an Excel sheet holds (1,048,576)"),
            });
        }
        let format = match row.status {
            RowStatus::Rejected => &self.formats.rejected,
            RowStatus::Duplicate => &self.formats.duplicate,
            _ => &self.formats.text,
        };
        let cells = self.cells(row);
        let error = xlsx_error(&self.path);
        let sheet = self.workbook.worksheet_from_index(0).map_err(&error)?;
        for (col, cell) in cells.iter().enumerate() {
            let cell = fit(cell);
            sheet
                .write_string_with_format(self.next_row, col as ColNum, cell, format)
                .map_err(&error)?;
        }
        self.next_row += 1;
        Ok(())
    }

    fn finish(mut self: Box<Self>, summary: &Summary, run: &RunInfo) -> Result<(), ReportError> {
        let error = xlsx_error(&self.path);
        let last_col = (self.width + OWN_COLUMNS.len() - 1) as ColNum;
        let last_row = self.next_row - 1;
        let rows = self.workbook.worksheet_from_index(0).map_err(&error)?;
        rows.autofilter(0, 0, last_row, last_col).map_err(&error)?;
        let reasons = std::mem::take(&mut self.reasons);
        let sheet = self.workbook.add_worksheet();
        sheet.set_name("Summary").map_err(&error)?;
        let bold = Format::new().set_bold();
        let mut lines: Vec<(String, String)> = vec![
            ("source".into(), run.source.clone()),
            ("sheet".into(), run.sheet.clone().unwrap_or_default()),
            ("interrupted".into(), run.interrupted.to_string()),
            ("rows".into(), summary.rows.to_string()),
            ("valid".into(), summary.valid.to_string()),
            ("created".into(), summary.created.to_string()),
            ("rejected".into(), summary.rejected.to_string()),
            ("duplicates".into(), summary.duplicates.to_string()),
            ("skipped".into(), summary.skipped_existing.to_string()),
            ("do not call".into(), summary.do_not_call.to_string()),
            ("failed".into(), summary.failed.to_string()),
        ];
        if summary.excluded > 0 {
            lines.push(("excluded by you".into(), summary.excluded.to_string()));
        }
        if summary.not_sent > 0 {
            lines.push(("not sent yet (run again to send)".into(), summary.not_sent.to_string()));
        }
        lines.push((String::new(), String::new()));
        lines.push(("reason".into(), "rows".into()));
        let mut reasons: Vec<_> = reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for (code, n) in reasons {
            lines.push((format!("{}: {}", code.as_str(), code.fix()), n.to_string()));
        }
        for (r, (label, value)) in lines.iter().enumerate() {
            sheet.write_string_with_format(r as RowNum, 0, fit(label), &bold).map_err(&error)?;
            // Counts are numbers, so a person can sum and chart them.
            let count =
                value.parse::<u32>().ok().filter(|_| !matches!(label.as_str(), "source" | "sheet"));
            match count {
                Some(n) => sheet.write_number(r as RowNum, 1, n).map_err(&error)?,
                None => sheet.write_string(r as RowNum, 1, fit(value)).map_err(&error)?,
            };
        }
        sheet.set_column_width(0, 60).map_err(&error)?;
        let bytes = self.workbook.save_to_buffer().map_err(&error)?;
        let mut out = Staged::create(&self.path, "part")?;
        out.put(bytes)?;
        out.persist()
    }
}

/// A cell cut to what Excel holds.
fn fit(cell: &str) -> &str {
    if cell.len() <= MAX_CELL {
        return cell;
    }
    let mut units = 0;
    let end = cell
        .char_indices()
        .find(|(_, c)| {
            units += c.len_utf16();
            units > MAX_CELL
        })
        .map_or(cell.len(), |(i, _)| i);
    &cell[..end]
}

fn xlsx_error(path: &Path) -> impl Fn(XlsxError) -> ReportError + '_ {
    move |cause| ReportError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(cause),
    }
}
