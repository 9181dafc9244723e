//! Reports: the row/summary model and its writers (json, csv, html, terminal).
//!
//! Writers stream: each row is handed over once, in sheet order (a push puts its answers back in
//! that order first, see `push::order`), and memory does not grow with the number of rows.
//! `--report PATH` picks the writer from the extension. Every file is written under a temporary
//! name beside its target and renamed into place at `finish` (see `staged`).
//!
//! `Reports` is what the pipeline holds: it fans each row out to every writer and keeps the
//! counts the terminal summary needs, so the CLI never re-reads a report.

mod csv;
mod error;
mod html;
mod json;
mod json_row;
pub mod problems;
pub mod model;
pub mod rows_db;
pub mod rows_search;
mod run_summary;
mod samples;
mod staged;
mod terminal;
mod xlsx;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::row::{Lang, intern};
pub use error::ReportError;
pub use html::Esc;
pub use model::{
    ContactReport, Issue, IssueCode, RowReport, RowStatus, RunInfo, Summary, Variables,
};
pub use run_summary::{PushCounts, RunSummary};
pub use terminal::{first_message_line, terminal_summary, terminal_summary_in};

/// The CSV formula-injection escape, shared with the lead and notification exports.
pub(crate) use csv::escape_formula;

/// One report file being written. Rows arrive in source order; `finish` completes the file.
pub trait ReportWriter: Send {
    fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError>;
    fn finish(self: Box<Self>, summary: &Summary, run: &RunInfo) -> Result<(), ReportError>;
}

/// The report formats, chosen by the file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Json,
    Csv,
    Html,
    /// The fix file for Excel.
    Xlsx,
    /// Every row in SQLite, to page through (`rows_db`).
    Sqlite,
}

impl ReportFormat {
    /// The format for `path`'s extension (case-insensitive); an unknown one is an error that
    /// names it and the choices.
    pub fn from_path(path: &Path) -> Result<ReportFormat, ReportError> {
        let Some(extension) = path.extension() else {
            return Err(ReportError::MissingExtension { path: path.to_path_buf() });
        };
        let extension = extension.to_string_lossy();
        match extension.to_ascii_lowercase().as_str() {
            "json" => Ok(ReportFormat::Json),
            "csv" => Ok(ReportFormat::Csv),
            "html" | "htm" => Ok(ReportFormat::Html),
            "xlsx" => Ok(ReportFormat::Xlsx),
            "sqlite" => Ok(ReportFormat::Sqlite),
            _ => Err(ReportError::UnknownFormat {
                path: path.to_path_buf(),
                extension: extension.into_owned(),
            }),
        }
    }
}

/// What the writers need to know beyond the source's column headers: its shape, and the
/// language of the people who read the reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceShape {
    /// The source's CSV delimiter (`,` for a workbook): the CSV report uses it too, so that it
    /// opens in the Excel the source came from.
    pub delimiter: u8,
    /// The column of the main phone number, for the HTML report's "phone as typed".
    pub phone_column: Option<usize>,
    /// The language of the HTML report and the fix file for Excel. The JSON, CSV and SQLite
    /// reports are for programs and stay English (the SQLite one keeps what a page needs to
    /// say each message in its own language).
    pub lang: Lang,
}

impl Default for SourceShape {
    fn default() -> SourceShape {
        SourceShape { delimiter: b',', phone_column: None, lang: Lang::En }
    }
}

/// Creates the writer for `path`'s format. `run_headers` are the source's column headers, which
/// the CSV report repeats first so that it re-imports with the same mapping.
pub fn create_writer(
    path: &Path,
    run_headers: &[String],
    shape: SourceShape,
) -> Result<Box<dyn ReportWriter>, ReportError> {
    Ok(match ReportFormat::from_path(path)? {
        ReportFormat::Json => Box::new(json::JsonWriter::create(path)?),
        ReportFormat::Csv => Box::new(csv::CsvWriter::create(path, run_headers, shape.delimiter)?),
        ReportFormat::Html => {
            Box::new(html::HtmlWriter::create(path, run_headers, shape.phone_column, shape.lang)?)
        }
        ReportFormat::Xlsx => Box::new(xlsx::XlsxWriter::create(path, run_headers, shape.lang)?),
        ReportFormat::Sqlite => Box::new(rows_db::RowsDbWriter::create(path)?),
    })
}

/// What a finished run reports back to the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub summary: Summary,
    /// Every rejection reason seen, most frequent first (ties in `IssueCode` order). A row counts
    /// once per distinct code among its errors.
    pub top_reasons: Vec<(IssueCode, u64)>,
    /// The reports written, in the order they were asked for.
    pub paths: Vec<PathBuf>,
    /// The digests of the rows that need a person, sorted (see `problems`).
    pub problems: Vec<u64>,
    /// The assistant's first message filled in for a few rows (empty without an assistant).
    pub first_messages: Vec<crate::assistant::Spoken>,
}

/// Fans rows out to every writer and keeps the tallies the terminal summary needs.
pub struct Reports {
    writers: Vec<Box<dyn ReportWriter>>,
    paths: Vec<PathBuf>,
    summary: Summary,
    reasons: BTreeMap<IssueCode, u64>,
    problems: Vec<u64>,
    samples: samples::Samples,
}

impl Reports {
    /// Checks every path's format, then creates every file, so that a typo in the last
    /// `--report` fails before any row is read. Files already created are removed on failure.
    pub fn create(
        paths: &[PathBuf],
        headers: &[String],
        shape: SourceShape,
    ) -> Result<Reports, ReportError> {
        for (i, path) in paths.iter().enumerate() {
            ReportFormat::from_path(path)?;
            if paths[..i].contains(path) {
                return Err(ReportError::DuplicatePath { path: path.clone() });
            }
        }
        let writers = paths
            .iter()
            .map(|path| create_writer(path, headers, shape))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Reports {
            writers,
            paths: paths.to_vec(),
            summary: Summary::default(),
            reasons: BTreeMap::new(),
            problems: Vec::new(),
            samples: samples::Samples::default(),
        })
    }

    pub fn write_row(&mut self, row: &RowReport) -> Result<(), ReportError> {
        self.summary.count(row);
        self.problems.extend(problems::digest(row));
        self.samples.add(row);
        for code in distinct_codes(&row.errors) {
            *self.reasons.entry(code).or_default() += 1;
        }
        self.writers.iter_mut().try_for_each(|writer| writer.write_row(row))
    }

    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Where a scratch file of rows may go: the folder of the first report (the one the user
    /// chose for them, which is not always a RAM-backed `/tmp`); `None` without a report.
    pub fn scratch_dir(&self) -> Option<PathBuf> {
        let first = self.paths.first()?;
        Some(match first.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        })
    }

    /// Finishes every writer even when one fails, so one full disk does not cost the other
    /// reports; the first failure is returned.
    pub fn finish(self, run: &RunInfo) -> Result<Outcome, ReportError> {
        let mut first_error = None;
        for writer in self.writers {
            if let Err(err) = writer.finish(&self.summary, run) {
                first_error.get_or_insert(err);
            }
        }
        if let Some(err) = first_error {
            return Err(err);
        }
        let mut problems = self.problems;
        problems.sort_unstable();
        let top_reasons = ranked(&self.reasons);
        let first_messages =
            run.assistant.as_ref().map(|s| self.samples.spoken(s)).unwrap_or_default();
        Ok(Outcome {
            summary: self.summary,
            top_reasons,
            paths: self.paths,
            problems,
            first_messages,
        })
    }
}

/// The codes among `issues`, each once, so one row with two phone errors counts once.
pub(crate) fn distinct_codes(issues: &[Issue]) -> impl Iterator<Item = IssueCode> + '_ {
    issues
        .iter()
        .enumerate()
        .filter(|(i, issue)| !issues[..*i].iter().any(|earlier| earlier.code == issue.code))
        .map(|(_, issue)| issue.code)
}

/// The counts and reasons of a finished run after one of its rows was replaced by the same
/// row checked again (an edit on the Check page): `old` taken back, `new` counted.
pub fn recount(
    summary: &Summary,
    top_reasons: &[(IssueCode, u64)],
    old: &RowReport,
    new: &RowReport,
) -> (Summary, Vec<(IssueCode, u64)>) {
    let mut summary = summary.clone();
    summary.uncount(old);
    summary.count(new);
    let mut tally: BTreeMap<IssueCode, u64> = top_reasons.iter().copied().collect();
    for code in distinct_codes(&old.errors) {
        if let Some(n) = tally.get_mut(&code) {
            *n = n.saturating_sub(1);
        }
    }
    for code in distinct_codes(&new.errors) {
        *tally.entry(code).or_default() += 1;
    }
    tally.retain(|_, n| *n > 0);
    (summary, ranked(&tally))
}

/// Most frequent first; ties keep `IssueCode` order so the output is stable.
pub(crate) fn ranked(tally: &BTreeMap<IssueCode, u64>) -> Vec<(IssueCode, u64)> {
    let mut ranked: Vec<_> = tally.iter().map(|(code, n)| (*code, *n)).collect();
    ranked.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    ranked
}

/// The status as the JSON contract spells it, for the CSV column.
pub(crate) fn status_str(status: RowStatus) -> &'static str {
    status.as_str()
}

/// `1234567` → `1,234,567`, for the human-facing reports.
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
pub(crate) mod testdata;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::testdata::{headers, rows, run_info};
    use super::{IssueCode, ReportError, ReportFormat, Reports, SourceShape, thousands};

    #[test]
    fn format_comes_from_the_extension() {
        assert_eq!(ReportFormat::from_path(Path::new("a/r.JSON")).unwrap(), ReportFormat::Json);
        assert_eq!(ReportFormat::from_path(Path::new("r.csv")).unwrap(), ReportFormat::Csv);
        assert_eq!(ReportFormat::from_path(Path::new("r.htm")).unwrap(), ReportFormat::Html);
        assert_eq!(ReportFormat::from_path(Path::new("fix.XLSX")).unwrap(), ReportFormat::Xlsx);
        let err = ReportFormat::from_path(Path::new("r.pdf")).unwrap_err().to_string();
        assert!(err.contains("`pdf`") && err.contains(".json, .csv, .html or .xlsx"), "{err}");
        let err = ReportFormat::from_path(Path::new("report")).unwrap_err();
        assert!(matches!(err, ReportError::MissingExtension { .. }));
    }

    #[test]
    fn a_bad_path_fails_before_any_file_is_left_behind() {
        let dir = tempfile::tempdir().unwrap();
        let paths = [dir.path().join("r.json"), dir.path().join("r.txt")];
        assert!(matches!(
            Reports::create(&paths, &headers(), SourceShape::default()),
            Err(ReportError::UnknownFormat { .. })
        ));
        let paths = [dir.path().join("r.json"), dir.path().join("missing/r.csv")];
        assert!(matches!(
            Reports::create(&paths, &headers(), SourceShape::default()),
            Err(ReportError::Create { .. })
        ));
        let paths = [dir.path().join("r.csv"), dir.path().join("r.csv")];
        assert!(matches!(
            Reports::create(&paths, &headers(), SourceShape::default()),
            Err(ReportError::DuplicatePath { .. })
        ));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn fans_out_counts_and_ranks_reasons() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> =
            ["r.json", "r.csv", "r.html"].iter().map(|n| dir.path().join(n)).collect();
        let mut reports = Reports::create(&paths, &headers(), SourceShape::default()).unwrap();
        for row in rows() {
            reports.write_row(&row).unwrap();
        }
        assert_eq!(reports.summary().rows, rows().len() as u64);
        let outcome = reports.finish(&run_info()).unwrap();
        assert!(paths.iter().all(|p| p.exists()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3, "temporary files remain");
        assert_eq!(outcome.top_reasons[0], (IssueCode::InvalidPhone, 2));
        assert_eq!(outcome.paths, paths);
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
