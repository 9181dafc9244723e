//! A few rows checked alone, exactly as a run of the same options checks them (the mapping,
//! the assistant, the guards, the campaigns, the person's edits): what a front shows of one row
//! after a cell was changed, without checking the whole sheet again. Duplicates are the one
//! thing a row alone cannot show; the next whole check finds them. And the corrected sheet: the
//! rows with their edits, to download.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::{
    Checkers, ImportOptions, PipelineError, Prepared, check_edited, merged_mapping, prepare,
};
use crate::client::Client;
use crate::edits::write_corrected;
use crate::report::RowReport;
use crate::source::Source;

/// One row: its cells as the file holds them and as edited, and its verdict.
#[derive(Debug, Clone)]
pub struct CheckedRow {
    pub headers: Vec<String>,
    /// The cells as read from the file.
    pub original: Vec<String>,
    /// The cells with the edits put in: what was checked.
    pub cells: Vec<String>,
    /// Its verdict (`report.is_excluded()` when the edits leave it out).
    pub report: RowReport,
}

/// Checks the rows numbered `rows` (the numbers the sheet shows) as `opts` would, reading the
/// sheet up to the last of them; rows that are blank or past the end are left out.
pub async fn check_rows(
    opts: &ImportOptions,
    client: Option<&Client>,
    rows: &[u64],
) -> Result<Vec<CheckedRow>, PipelineError> {
    let Prepared { source, headers, plan, assistant, guards, campaigns, .. } =
        prepare(opts, client).await?;
    let checkers = Checkers {
        guards: Arc::new(guards),
        plan: Arc::new(plan),
        headers: headers.clone().into(),
        campaigns: Arc::new(campaigns),
        assistant,
        keep_cells: true,
        workers: 1,
        max_rows: None,
        row_limit: None,
        edits: opts.edits.clone(),
    };
    let wanted: BTreeSet<u64> = rows.iter().copied().collect();
    tokio::task::spawn_blocking(move || read_and_check(source, &checkers, &wanted, headers))
        .await
        .expect("checking rows does not panic")
}

fn read_and_check(
    source: Source,
    checkers: &Checkers,
    wanted: &BTreeSet<u64>,
    headers: Vec<String>,
) -> Result<Vec<CheckedRow>, PipelineError> {
    let Some(&last) = wanted.last() else { return Ok(Vec::new()) };
    let checker = checkers.build()?;
    let mut found = Vec::new();
    for record in source.records() {
        let mut record = record?;
        if record.row > last {
            break;
        }
        if !wanted.contains(&record.row) || record.is_blank() {
            continue;
        }
        let original: Vec<String> = record.cells.iter().map(str::to_string).collect();
        // As the run checks it: edited, then excluded or checked.
        let Some(checked) = check_edited(&checker, &checkers.edits, &mut record) else { continue };
        found.push(CheckedRow {
            headers: headers.clone(),
            original,
            cells: record.cells.iter().map(str::to_string).collect(),
            report: checked.report,
        });
    }
    Ok(found)
}

/// Writes the sheet `opts` reads, with its edits, to the XLSX `path`; returns the rows
/// written. `stop` ends it early (the server is shutting down).
pub async fn write_corrected_sheet(
    opts: &ImportOptions,
    path: &Path,
    stop: Arc<AtomicBool>,
) -> Result<u64, PipelineError> {
    let mapping = merged_mapping(opts)?;
    let options = super::source_options(opts, mapping.as_ref())?;
    let source = Source::open_named(&opts.path, &opts.location, &options)?;
    let (edits, path) = (opts.edits.clone(), path.to_path_buf());
    tokio::task::spawn_blocking(move || write_corrected(source, &edits, &path, &stop))
        .await
        .expect("writing the corrected sheet does not panic")
        .map_err(|e| PipelineError::Corrected(Box::new(e)))
}
