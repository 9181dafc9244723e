//! The run summary for scripts (`--summary-json PATH`, `-` for stdout): one JSON object with
//! the counts per status and per error code, where the journal and reports are, how long the
//! run took, its exit code and, for a sending run, the run's identity as its journal records
//! it. `schema/summary.schema.json` is its contract.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::{Outcome, RunInfo, Summary};
use crate::journal::RunHeader;

/// The summary format version; a change that breaks readers bumps it.
pub const SUMMARY_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct RunSummary<'a> {
    pub version: u32,
    /// `import` or `sync`.
    pub command: &'a str,
    pub exit_code: u8,
    pub duration_secs: f64,
    pub source: &'a str,
    pub sheet: Option<&'a str>,
    pub dry_run: bool,
    pub interrupted: bool,
    pub started_at: &'a str,
    pub finished_at: &'a str,
    /// Rows per status.
    pub counts: &'a Summary,
    /// Rows per error code (a row counts once per distinct code).
    pub codes: BTreeMap<String, u64>,
    pub reports: &'a [PathBuf],
    pub journal: Option<PathBuf>,
    /// What identifies the run in its journal (sending runs only).
    pub identity: Option<&'a RunHeader>,
    pub push: Option<PushCounts>,
    /// What a sync planned and changed (`sync`, `import --update`): the plan's counts, and
    /// each change with the values before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<serde_json::Value>,
}

/// How the sending went.
#[derive(Debug, Serialize)]
pub struct PushCounts {
    pub sent: u64,
    pub from_journal: u64,
    pub reconciled: u64,
    pub rate_limited: u64,
    pub in_doubt: u64,
    pub sending_secs: f64,
}

impl<'a> RunSummary<'a> {
    pub fn new(command: &'a str, outcome: &'a Outcome, run: &'a RunInfo) -> RunSummary<'a> {
        let codes = outcome.top_reasons.iter().map(|(code, n)| (code_name(*code), *n)).collect();
        RunSummary {
            version: SUMMARY_VERSION,
            command,
            exit_code: 0,
            duration_secs: 0.0,
            source: &run.source,
            sheet: run.sheet.as_deref(),
            dry_run: run.dry_run,
            interrupted: run.interrupted,
            started_at: &run.started_at,
            finished_at: &run.finished_at,
            counts: &outcome.summary,
            codes,
            reports: &outcome.paths,
            journal: None,
            identity: None,
            push: None,
            sync: None,
        }
    }
}

/// An issue code as the reports name it (`invalid_phone`).
fn code_name(code: super::IssueCode) -> String {
    serde_json::to_value(code).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}
