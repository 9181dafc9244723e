//! The `.html` report: one self-contained page for the people who decide whether to start the
//! campaign. Inline CSS and SVG only (no scripts, fonts or images, so it opens offline, in mail
//! and on paper): the counts as tiles, why rows were rejected and how to fix it, what the
//! assistant will say (with `assistant = …`: its first message filled in for a few rows), leads
//! per campaign and per country, and the rows to fix.
//!
//! The counts belong at the top but are known only at the end, so the table of rows to fix is
//! streamed to a scratch file and the page is assembled at `finish`; the charts are small
//! bounded tallies. The table stops at [`TABLE_CAP`] rows; the CSV and JSON reports hold every row.

mod charts;
mod labels;
mod page;
mod tally;

use std::collections::HashSet;
use std::fmt;
use std::io::Write;
use std::path::Path;

use super::error::ReportError;
use super::model::{IssueCode, RowReport, RowStatus, RunInfo, Summary};
use super::samples::Samples;
use super::staged::Staged;
use super::{ReportWriter, distinct_codes};
use crate::row::Lang;
use tally::Tally;

/// Rows shown in the table; beyond it the page says how many more there are.
pub(crate) const TABLE_CAP: u64 = 5_000;

pub(crate) struct HtmlWriter {
    out: Staged,
    table: Staged,
    headers: Vec<String>,
    /// The main phone number's column, for the phone as typed.
    phone_column: Option<usize>,
    tally: Tally,
    /// The rows whose first message the page fills in, when there is an assistant.
    samples: Samples,
    lang: Lang,
}

impl HtmlWriter {
    pub(crate) fn create(
        path: &Path,
        headers: &[String],
        phone_column: Option<usize>,
        lang: Lang,
    ) -> Result<HtmlWriter, ReportError> {
        Ok(HtmlWriter {
            out: Staged::create(path, "part")?,
            table: Staged::create(path, "rows")?,
            headers: headers.to_vec(),
            phone_column,
            tally: Tally::default(),
            samples: Samples::default(),
            lang,
        })
    }
}

impl ReportWriter for HtmlWriter {
    fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError> {
        self.tally.add(row);
        self.samples.add(row);
        if !needs_fixing(row.status) {
            return Ok(());
        }
        if self.tally.shown >= TABLE_CAP {
            self.tally.hidden += 1;
            return Ok(());
        }
        self.tally.shown += 1;
        let phone = typed_phone(row, &self.headers, self.phone_column);
        write_table_row(&mut self.table, row, phone, self.lang)
            .map_err(ReportError::write(self.out.target()))
    }

    fn finish(self: Box<Self>, summary: &Summary, run: &RunInfo) -> Result<(), ReportError> {
        let HtmlWriter { mut out, table, tally, samples, lang, .. } = *self;
        let spoken = run.assistant.as_ref().map(|speaker| (speaker, samples.spoken(speaker)));
        let page = page::Page { summary, run, tally: &tally, spoken, lang };
        page.head(&mut out).map_err(ReportError::write(out.target()))?;
        out.append(table)?;
        page.tail(&mut out).map_err(ReportError::write(out.target()))?;
        out.persist()
    }
}

/// The statuses that land in the table: someone has to act on these rows.
fn needs_fixing(status: RowStatus) -> bool {
    matches!(status, RowStatus::Rejected | RowStatus::Duplicate | RowStatus::Failed)
}

/// The phone as the person typed it: the source cell of the column a phone issue names (a
/// secondary contact's, say), else of the main phone column, else the normalized number when
/// the row's cells were not kept. A duplicate's number parsed, and the person looks for what
/// they typed, not for its E.164 form.
fn typed_phone<'a>(
    row: &'a RowReport,
    headers: &[String],
    phone_column: Option<usize>,
) -> Option<&'a str> {
    let phone_codes = [
        IssueCode::MissingPhone,
        IssueCode::InvalidPhone,
        IssueCode::DuplicateInFile,
        IssueCode::AlreadyExists,
    ];
    let named = row
        .errors
        .iter()
        .chain(&row.warnings)
        .filter(|issue| phone_codes.contains(&issue.code))
        .find_map(|issue| {
            let field = issue.field.as_deref()?;
            headers.iter().position(|header| header.trim() == field)
        });
    match named.or(phone_column).and_then(|i| row.source_cells.get(i)) {
        Some(cell) => Some(cell.as_str()),
        None => row.phone.as_deref(),
    }
}

/// Variables that hold a person's whole name, in the order they are preferred.
const FULL_NAMES: [&str; 5] = ["customer_name", "name", "full_name", "fullname", "kunde"];
/// Variables that hold a first and a last name, joined when there is no whole one.
const FIRST_NAMES: [&str; 5] = ["first_name", "firstname", "vorname", "given_name", "prenom"];
const LAST_NAMES: [&str; 5] = ["last_name", "lastname", "nachname", "surname", "family_name"];

/// Who the row is about, so that a person finds it in the sheet by more than its number: the
/// row's whole-name variable, else its first and last name joined (names compared
/// case-insensitively, as mappings spell them either way).
fn row_name(row: &RowReport) -> String {
    let find = |names: &[&str]| {
        row.variables
            .iter()
            .find(|(key, value)| {
                !value.trim().is_empty() && names.iter().any(|n| key.eq_ignore_ascii_case(n))
            })
            .map(|(_, value)| value.trim())
    };
    if let Some(full) = find(&FULL_NAMES) {
        return full.to_string();
    }
    let parts: Vec<&str> = [find(&FIRST_NAMES), find(&LAST_NAMES)].into_iter().flatten().collect();
    parts.join(" ")
}

fn write_table_row(
    out: &mut impl Write,
    row: &RowReport,
    phone: Option<&str>,
    lang: Lang,
) -> std::io::Result<()> {
    let status = labels::status(row.status, lang);
    write!(out, "<tr><td class=\"num\">{}</td>", row.row)?;
    write!(
        out,
        "<td><span class=\"pill s-{}\">{status}</span></td>",
        super::status_str(row.status)
    )?;
    write!(out, "<td class=\"name\">{}</td>", Esc(&row_name(row)))?;
    match phone {
        Some(phone) if !phone.trim().is_empty() => {
            write!(out, "<td class=\"phone\">{}</td>", Esc(phone))?
        }
        _ => {
            let empty = if lang == Lang::De { "leer" } else { "empty" };
            write!(out, "<td class=\"phone empty\">{empty}</td>")?
        }
    }
    out.write_all(b"<td>")?;
    for (i, issue) in row.errors.iter().enumerate() {
        let br = if i > 0 { "<br>" } else { "" };
        write!(out, "{br}{}", Message(&issue.message_in(lang)))?;
    }
    out.write_all(b"</td><td class=\"fix\">")?;
    let mut seen = HashSet::new();
    let fixes = distinct_codes(&row.errors).filter(|code| seen.insert(code.todo(lang)));
    for (i, code) in fixes.enumerate() {
        let br = if i > 0 { "<br>" } else { "" };
        write!(out, "{br}{}", Esc(code.todo(lang)))?;
    }
    out.write_all(b"</td></tr>\n")
}

/// Displays text with the five HTML-significant characters escaped, without allocating: enough
/// for element content and quoted attribute values (the HTML report and the UI's pages).
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..i])?;
            f.write_str(match rest.as_bytes()[i] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[i + 1..];
        }
        f.write_str(rest)
    }
}

/// An issue message, escaped, with its `backticked` values set as code, as the terminal
/// convention marks them. Unpaired backticks are left as typed.
pub(crate) struct Message<'a>(pub &'a str);

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.matches('`').count() % 2 == 1 {
            return Esc(self.0).fmt(f);
        }
        for (i, part) in self.0.split('`').enumerate() {
            match i % 2 {
                0 => Esc(part).fmt(f)?,
                _ => write!(f, "<code>{}</code>", Esc(part))?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
