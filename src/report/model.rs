//! The report model: the run's `Summary` over the rows (whose model, `RowReport`, is the
//! ground floor's: `crate::row`). The JSON shape is the public contract, checked against
//! `schema/report.schema.json`.

use serde::Serialize;

pub use crate::row::{ContactReport, Issue, IssueCode, RowReport, RowStatus, Variables};

/// Counts over all rows. The JSON names are the public contract.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub rows: u64,
    pub valid: u64,
    pub rejected: u64,
    pub duplicates: u64,
    pub created: u64,
    pub skipped_existing: u64,
    /// Skipped because they must not be called: on a suppression list, or without consent.
    pub do_not_call: u64,
    pub failed: u64,
    /// Read but not sent because the run was stopped; written only when there are any, so a
    /// run that was not stopped reports what it always did.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_sent: u64,
    /// Left out by the person's edits (the Check page's "exclude", `--edits`); written only
    /// when there are any.
    #[serde(skip_serializing_if = "is_zero")]
    pub excluded: u64,
    /// Skipped because the workbook hides them (by hand or by its autofilter); written only
    /// when there are any.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Summary {
    pub fn count(&mut self, row: &RowReport) {
        self.rows += 1;
        *self.of_status(row) += 1;
    }

    /// Takes back a row `count` counted: the row replaced by the same row checked again.
    pub fn uncount(&mut self, row: &RowReport) {
        self.rows = self.rows.saturating_sub(1);
        let field = self.of_status(row);
        *field = field.saturating_sub(1);
    }

    /// The count a row of this status (and reason, for skipped rows) goes to.
    fn of_status(&mut self, row: &RowReport) -> &mut u64 {
        match row.status {
            RowStatus::Valid => &mut self.valid,
            RowStatus::Created => &mut self.created,
            RowStatus::Rejected => &mut self.rejected,
            RowStatus::Duplicate => &mut self.duplicates,
            RowStatus::Skipped if row.is_do_not_call() => &mut self.do_not_call,
            RowStatus::Skipped if row.is_excluded() => &mut self.excluded,
            RowStatus::Skipped if row.is_hidden() => &mut self.hidden,
            RowStatus::Skipped => &mut self.skipped_existing,
            RowStatus::Failed => &mut self.failed,
            RowStatus::NotSent => &mut self.not_sent,
        }
    }

    /// Rows that need a person's attention: the run "finished with problems" (exit 3).
    pub fn has_problems(&self) -> bool {
        self.rejected + self.duplicates + self.failed > 0
    }
}

/// Facts about the run that every report states beside the counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunInfo {
    /// The file or URL read.
    pub source: String,
    /// The sheet read, for workbooks.
    pub sheet: Option<String>,
    /// True for `--dry-run`: nothing was sent.
    pub dry_run: bool,
    /// Ctrl-C stopped the run: the rows and counts cover only the rows handled before it, not
    /// the whole file. Every writer says so, so a partial report is never taken for a whole one.
    pub interrupted: bool,
    /// Reading got to the end of the source (an interrupted run may have read it all).
    #[serde(skip)]
    pub read_whole: bool,
    /// False with `--offline`: campaigns were not checked against the service.
    pub campaigns_checked: bool,
    /// Entirely blank rows, skipped without a report row.
    pub blank_rows: u64,
    /// The source's column headers, in order.
    pub headers: Vec<String>,
    /// How the file was read, where the person should know: rows skipped above the header,
    /// an encoding guessed, a code page replaced. Left out of the JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reading_notes: Vec<String>,
    pub started_at: String,
    pub finished_at: String,
    /// The assistant the rows were checked against (`assistant = …`): the HTML report and the
    /// terminal with `-v` show its first message filled in for a few rows.
    #[serde(skip)]
    pub assistant: Option<crate::assistant::Speaker>,
}
