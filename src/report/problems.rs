//! The rows a run could not take, remembered as digests, so that a later `sync` of the same
//! sheet can tell new problems from the same rejected rows as last time: a cron job should
//! not alert every ten minutes for a row nobody has fixed yet.
//!
//! A problem row's digest covers what makes it that problem: its number as read, its campaign,
//! its variables and its error codes. It does not cover the row's position, so rows added
//! above it do not make it new, while a corrected row that fails in another way is new.

use std::path::Path;

use crate::row::{RowReport, RowStatus};

/// The digest of a row that needs a person, or `None` for a row that does not.
pub fn digest(row: &RowReport) -> Option<u64> {
    if !matches!(row.status, RowStatus::Rejected | RowStatus::Duplicate | RowStatus::Failed) {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(row.phone.as_deref().unwrap_or_default().as_bytes());
    hasher.update(&row.campaign_id.unwrap_or_default().to_le_bytes());
    let mut variables: Vec<(&str, &str)> = row.variables.iter().collect();
    variables.sort_unstable();
    for (name, value) in variables {
        hasher.update(name.as_bytes()).update(b"=").update(value.as_bytes()).update(b"\n");
    }
    for issue in &row.errors {
        hasher.update(issue.code.as_str().as_bytes()).update(b";");
    }
    Some(u64::from_le_bytes(hasher.finalize().as_bytes()[..8].try_into().expect("8 bytes")))
}

/// Compares this run's problem digests (sorted) with the ones stored at `path` by the last run,
/// then stores this run's. Returns how many of this run's problems are new. A missing or
/// unreadable file counts every problem as new.
pub fn new_since_last_run(path: &Path, problems: &[u64]) -> std::io::Result<usize> {
    let before: Vec<u64> = std::fs::read_to_string(path)
        .map(|text| text.lines().filter_map(|l| u64::from_str_radix(l, 16).ok()).collect())
        .unwrap_or_default();
    let new = problems.iter().filter(|d| before.binary_search(d).is_err()).count();
    let text: String = problems.iter().map(|d| format!("{d:016x}\n")).collect();
    let aside = path.with_extension("problems.new");
    std::fs::write(&aside, text)?;
    std::fs::rename(&aside, path)?;
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{Issue, IssueCode};

    fn rejected(phone: &str, code: IssueCode) -> RowReport {
        let mut row = crate::report::testdata::rows().remove(0);
        row.status = RowStatus::Rejected;
        row.phone = Some(phone.into());
        row.errors = vec![Issue::new(code, None, "x")];
        row
    }

    #[test]
    fn only_problems_not_seen_last_time_are_new() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.problems");
        let a = digest(&rejected("12", IssueCode::InvalidPhone)).unwrap();
        let mut moved = rejected("12", IssueCode::InvalidPhone);
        moved.row = 40;
        assert_eq!(digest(&moved), Some(a), "the row's position does not count");
        let b = digest(&rejected("12", IssueCode::MissingCampaign)).unwrap();
        assert_ne!(a, b, "another problem is another digest");
        let mut first = vec![a];
        first.sort_unstable();
        assert_eq!(new_since_last_run(&path, &first).unwrap(), 1, "nothing stored yet");
        assert_eq!(new_since_last_run(&path, &first).unwrap(), 0, "the same as last time");
        let mut second = vec![a, b];
        second.sort_unstable();
        assert_eq!(new_since_last_run(&path, &second).unwrap(), 1);
        let mut created = rejected("12", IssueCode::InvalidPhone);
        created.status = RowStatus::Created;
        assert_eq!(digest(&created), None);
    }
}
