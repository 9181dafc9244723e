//! The few rows whose first message the reports show filled in: the first valid rows, and the
//! first row that leaves a variable the assistant needs empty, so the page shows both what a
//! good call sounds like and what a gap sounds like. Only their variables are kept, so memory
//! does not grow with the number of rows.

use crate::assistant::{Speaker, Spoken};

use super::model::{IssueCode, RowReport, RowStatus, Variables};

/// Valid rows shown; one row with a missing variable comes on top.
const VALID_SAMPLES: usize = 3;

#[derive(Debug, Default)]
pub(crate) struct Samples {
    valid: Vec<(u64, Variables)>,
    missing: Option<(u64, Variables)>,
}

impl Samples {
    pub(crate) fn add(&mut self, row: &RowReport) {
        if misses_a_variable(row) {
            if self.missing.is_none() {
                self.missing = Some((row.row, row.variables.clone()));
            }
        } else if will_be_called(row.status) && self.valid.len() < VALID_SAMPLES {
            self.valid.push((row.row, row.variables.clone()));
        }
    }

    /// The first message of `speaker` for each sample row, in sheet order.
    pub(crate) fn spoken(&self, speaker: &Speaker) -> Vec<Spoken> {
        let mut rows: Vec<&(u64, Variables)> = self.valid.iter().chain(&self.missing).collect();
        rows.sort_by_key(|(row, _)| *row);
        rows.iter().map(|(row, vars)| speaker.first_message(*row, |name| vars.get(name))).collect()
    }
}

fn misses_a_variable(row: &RowReport) -> bool {
    row.errors.iter().chain(&row.warnings).any(|i| i.code == IssueCode::MissingVariable)
}

/// A row the assistant calls (or would, in a dry run).
fn will_be_called(status: RowStatus) -> bool {
    matches!(status, RowStatus::Valid | RowStatus::Created | RowStatus::NotSent)
}
