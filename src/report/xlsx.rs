//! The fix file for people who live in Excel (`--report fix.xlsx`): the original columns, every
//! cell written as text (a phone number never becomes a number, a leading zero never goes),
//! then leadsync's columns. Rejected rows are filled red and duplicates amber; the header is
//! bold, frozen and has an autofilter. A second sheet, "Summary", holds the counts and the
//! reasons. Fix the rows in Excel and import the same file again with the same mapping.
//!
//! The file speaks the reader's language (`SourceShape::lang`): headers, statuses, messages and
//! the summary. leadsync's own headers keep their `leadsync_` prefix in any language, which is
//! how an import of the fix file knows them (`mapping::is_report_column`).
//!
//! The rows sheet is written in rust_xlsxwriter's constant-memory mode (rows go to a temporary
//! file as they come), so memory does not grow with the number of rows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rust_xlsxwriter::{ColNum, Format, RowNum, Workbook, XlsxError};

use super::csv::OWN_COLUMNS;
use super::error::ReportError;
use super::model::{Issue, IssueCode, RowReport, RowStatus, RunInfo, Summary};
use super::staged::Staged;
use super::{ReportWriter, status_str};
use crate::edits::fit_to_excel;
use crate::row::Lang;

/// leadsync's columns in German, in the order of `OWN_COLUMNS`.
const OWN_COLUMNS_DE: [&str; 6] = [
    "leadsync_zeile",
    "leadsync_status",
    "leadsync_nummer",
    "leadsync_fehler",
    "leadsync_warnungen",
    "leadsync_lead_id",
];

/// Excel's limit of rows per sheet (its limit per cell: `edits::fit_to_excel`).
const MAX_ROWS: RowNum = 1_048_576;
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
    lang: Lang,
}

struct Formats {
    text: Format,
    rejected: Format,
    duplicate: Format,
}

impl XlsxWriter {
    pub(crate) fn create(
        path: &Path,
        headers: &[String],
        lang: Lang,
    ) -> Result<XlsxWriter, ReportError> {
        let mut workbook = Workbook::new();
        let error = xlsx_error(path);
        let sheet = workbook.add_worksheet_with_constant_memory().map_err(&error)?;
        sheet.set_name("Leads").map_err(&error)?;
        let bold = Format::new().set_bold();
        let own = match lang {
            Lang::En => OWN_COLUMNS.iter().copied(),
            Lang::De => OWN_COLUMNS_DE.iter().copied(),
        };
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
            lang,
        })
    }

    fn cells<'a>(&self, row: &'a RowReport) -> Vec<std::borrow::Cow<'a, str>> {
        let source = (0..self.width).map(|i| row.source_cells.get(i).map_or("", String::as_str));
        let mut cells: Vec<std::borrow::Cow<'a, str>> = source.map(Into::into).collect();
        cells.push(row.row.to_string().into());
        cells.push(self.status(row.status).into());
        cells.push(row.phone.as_deref().unwrap_or_default().into());
        cells.push(messages(&row.errors, self.lang).into());
        cells.push(messages(&row.warnings, self.lang).into());
        cells.push(row.lead_id.map(|id| id.to_string()).unwrap_or_default().into());
        cells
    }

    /// The status as the JSON report spells it in English (as before the catalog), in words
    /// in German.
    fn status(&self, status: RowStatus) -> &'static str {
        match self.lang {
            Lang::En => status_str(status),
            Lang::De => status.word(Lang::De),
        }
    }
}

/// A row's messages in `lang`, in one cell.
fn messages(issues: &[Issue], lang: Lang) -> String {
    issues.iter().map(|issue| issue.message_in(lang)).collect::<Vec<_>>().join("; ")
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
            let cell = fit_to_excel(cell);
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
        let lang = self.lang;
        let mut reasons: Vec<_> = reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let lines = summary_lines(summary, run, &reasons, lang);
        let sheet = self.workbook.add_worksheet();
        sheet
            .set_name(if lang == Lang::De { "Zusammenfassung" } else { "Summary" })
            .map_err(&error)?;
        let bold = Format::new().set_bold();
        let texts = [summary_label("source", lang), summary_label("sheet", lang)];
        for (r, (label, value)) in lines.iter().enumerate() {
            sheet
                .write_string_with_format(r as RowNum, 0, fit_to_excel(label), &bold)
                .map_err(&error)?;
            // Counts are numbers, so a person can sum and chart them.
            let count = value.parse::<u32>().ok().filter(|_| !texts.contains(&label.as_str()));
            match count {
                Some(n) => sheet.write_number(r as RowNum, 1, n).map_err(&error)?,
                None => sheet.write_string(r as RowNum, 1, fit_to_excel(value)).map_err(&error)?,
            };
        }
        sheet.set_column_width(0, 60).map_err(&error)?;
        let bytes = self.workbook.save_to_buffer().map_err(&error)?;
        let mut out = Staged::create(&self.path, "part")?;
        out.put(bytes)?;
        out.persist()
    }
}

/// The Summary sheet's lines: the run, the counts, then each reason with its hint.
fn summary_lines(
    summary: &Summary,
    run: &RunInfo,
    reasons: &[(IssueCode, u64)],
    lang: Lang,
) -> Vec<(String, String)> {
    let line = |key: &str, value: String| (summary_label(key, lang).to_string(), value);
    let mut lines: Vec<(String, String)> = vec![
        line("source", run.source.clone()),
        line("sheet", run.sheet.clone().unwrap_or_default()),
        line("interrupted", run.interrupted.to_string()),
        line("rows", summary.rows.to_string()),
        line("valid", summary.valid.to_string()),
        line("created", summary.created.to_string()),
        line("rejected", summary.rejected.to_string()),
        line("duplicates", summary.duplicates.to_string()),
        line("skipped", summary.skipped_existing.to_string()),
        line("do not call", summary.do_not_call.to_string()),
        line("failed", summary.failed.to_string()),
    ];
    if lang == Lang::De {
        lines[2].1 = if run.interrupted { "ja" } else { "nein" }.to_string();
    }
    if summary.excluded > 0 {
        lines.push(line("excluded by you", summary.excluded.to_string()));
    }
    if summary.hidden > 0 {
        lines.push(line("hidden in the workbook", summary.hidden.to_string()));
    }
    if summary.not_sent > 0 {
        lines.push(line("not sent yet (run again to send)", summary.not_sent.to_string()));
    }
    lines.push((String::new(), String::new()));
    lines.push(line("reason", summary_label("rows", lang).to_string()));
    for (code, n) in reasons {
        lines.push((format!("{}: {}", code.as_str(), code.todo(lang)), n.to_string()));
    }
    lines
}

/// A Summary sheet label (its English) in `lang`.
fn summary_label(english: &str, lang: Lang) -> &str {
    match english {
        _ if lang == Lang::En => english,
        "source" => "Quelle",
        "sheet" => "Tabellenblatt",
        "interrupted" => "abgebrochen",
        "rows" => "Zeilen",
        "valid" => "gültig",
        "created" => "angelegt",
        "rejected" => "abgelehnt",
        "duplicates" => "doppelt",
        "skipped" => "übersprungen",
        "do not call" => "nicht anrufen",
        "failed" => "fehlgeschlagen",
        "excluded by you" => "von Ihnen ausgeschlossen",
        "hidden in the workbook" => "in der Arbeitsmappe ausgeblendet",
        "not sent yet (run again to send)" => "noch nicht gesendet (zum Senden erneut ausführen)",
        "reason" => "Grund",
        other => other,
    }
}

fn xlsx_error(path: &Path) -> impl Fn(XlsxError) -> ReportError + '_ {
    move |cause| ReportError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::other(cause),
    }
}
