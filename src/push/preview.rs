//! What `--skip-existing` would skip, shown by a dry run: each valid row whose lead is on the
//! service already (by its own key, else as `--skip-existing` finds it) is reported as
//! skipped, so "561 valid" no longer stands for 561 rows that a real run would not send.

use super::key::RowKeys;
use super::reconcile::{LeadIndex, RowId};
use crate::row::{Issue, IssueCode, RowReport, RowStatus, Said};

/// Judges rows in file order against the service's lead list, read once.
pub struct SkipPreview {
    index: LeadIndex,
    keys: RowKeys,
    lead_key: bool,
    allow_duplicates: bool,
}

impl SkipPreview {
    pub fn new(index: LeadIndex, lead_key: bool, allow_duplicates: bool) -> SkipPreview {
        SkipPreview { index, keys: RowKeys::new(allow_duplicates), lead_key, allow_duplicates }
    }

    /// Marks `row` skipped when a real run would skip it. Every row with a number and a
    /// campaign is counted for the keys, as a real run counts them.
    pub fn judge(&mut self, row: &mut RowReport) {
        let Some(key) = self.keys.next(row) else { return };
        if row.status != RowStatus::Valid {
            return;
        }
        let id = if self.lead_key { RowId::Keyed(key) } else { RowId::Content };
        let found = self.index.existing(
            row.campaign_id.unwrap_or_default(),
            row.phone.as_deref().unwrap_or_default(),
            id,
            self.allow_duplicates,
            self.index.max_id(),
        );
        if let Some(lead) = found {
            row.status = RowStatus::Skipped;
            let said = Said::AlreadyALead { lead };
            row.warnings.push(Issue::said(
                IssueCode::AlreadyExists,
                Some("phone_number".into()),
                said,
            ));
        }
    }
}
