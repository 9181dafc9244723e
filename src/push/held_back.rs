//! Rows an earlier run sent that this run may not send: a guard now turns them away (a
//! suppression list added, a country dropped), or they no longer pass a check. What was sent
//! is never forgotten: a row that run created is reported as created, with the reason as a
//! warning (the lead is on the service, and only a person can take it off); a row it left in
//! doubt is settled from the lead list like any other, waiting for its commit deadline when it
//! must, but never sent again; only once its write can no longer commit is it dropped.

use super::collector::{CollectError, Collector, apply_final};
use super::doubt::{Doubt, Verdict};
use super::reconcile::RowId;
use crate::journal::{Entry, Final, RowState, fp_text};
use crate::ledger::Known;
use crate::row::{Issue, RowReport, RowStatus};

impl Collector {
    /// A row that is not sent this run, with its content fingerprint and key when it has a
    /// number and a campaign.
    pub(super) fn held_back(
        &mut self,
        mut row: RowReport,
        identity: Option<(u64, u64)>,
    ) -> Result<(), CollectError> {
        let key = identity.map(|(_, key)| key);
        match self.plan.recovered.rows.get(row.row) {
            Some(RowState::Done { status: Final::Created, lead_id, .. }) if guarded(&row) => {
                self.plan.recovered.rows.remove(row.row);
                self.summary.from_journal += 1;
                created_before_guard(&mut row, lead_id);
                self.report(row)
            }
            Some(RowState::InDoubt { fp, commit_by }) => {
                self.plan.recovered.rows.remove(row.row);
                let doubt = self.earlier_doubt(row, fp, key.unwrap_or_default(), commit_by, false);
                self.decide_now(doubt)
            }
            _ => match key.and_then(|k| self.plan.recovered.carried.remove(&k)) {
                Some(carried) => {
                    let key = carried.key;
                    let id = if carried.keyed { RowId::Keyed(key) } else { RowId::Content };
                    let commit_by = carried.commit_by;
                    let fp = identity.map_or(0, |(fp, _)| fp);
                    let (resends, sendable, earlier) = (0, false, true);
                    let foreign = false;
                    let doubt =
                        Doubt { row, fp, key, id, commit_by, resends, sendable, earlier, foreign };
                    self.decide_now(doubt)
                }
                None => {
                    let Some((fp, key)) = identity else { return self.report(row) };
                    // A claim on the identity: a write that may still land, settled as one
                    // (never sent from here).
                    let known = self.plan.ledger.lookup(key)?;
                    if let Known::Claimed(held) = known {
                        return self.settle_claimed(row, fp, key, held, 0, false);
                    }
                    match self.found_by_key(&row, key, known) {
                        Some((lead_id, ours)) => self.found_before_guard(row, fp, lead_id, ours),
                        None => self.report(row),
                    }
                }
            },
        }
    }

    /// The lead an earlier run made for a row a guard now turns away, and whether that run
    /// sent it from this very row: the one the ledger knows for its identity, else under
    /// `--skip-existing` the one the lead list holds with its key.
    fn found_by_key(&self, row: &RowReport, key: u64, known: Known) -> Option<(u64, bool)> {
        if let Known::Sent { lead_id: Some(id), origin } = known {
            return Some((id, self.is_this_row(&origin, row.row)));
        }
        let keyed = self.plan.skip_existing && self.plan.lead_key;
        let listed = keyed.then(|| self.plan.index.keyed(key)).flatten();
        listed.filter(|id| *id <= self.plan.baseline).map(|id| (id, true))
    }

    /// Reports a guarded row whose lead is on the service already, the guard's reasons as
    /// warnings: as created when this row sent it (`ours`), else as already on the service
    /// (another file, sheet or row sent the lead); and journals it so, so a resume says the
    /// same.
    fn found_before_guard(
        &mut self,
        mut row: RowReport,
        fp: u64,
        lead_id: u64,
        ours: bool,
    ) -> Result<(), CollectError> {
        let status = if ours { Final::Created } else { Final::Skipped };
        let entry = Entry::Outcome {
            row: row.row,
            status,
            fp: fp_text(fp),
            lead_id: Some(lead_id),
            message: None,
            commit_by: None,
            reconciled: true,
            key: None,
            keyed: false,
        };
        self.plan.journal.outcome(&entry)?;
        self.summary.reconciled += 1;
        created_before_guard(&mut row, Some(lead_id));
        if !ours {
            row.status = RowStatus::Skipped;
        }
        self.report(row)
    }

    /// What the lead list says of a held-back row in doubt: created (reported so, with a
    /// warning), still able to commit (waited for), or not there for good (reported as it is
    /// judged now, and journaled as not sent so the next run judges it afresh).
    pub(super) fn decide_held_back(
        &mut self,
        doubt: Doubt,
        verdict: Verdict,
    ) -> Result<Option<Doubt>, CollectError> {
        let (status, lead_id) = match verdict {
            Verdict::Wait => return Ok(Some(doubt)),
            Verdict::Settle(Final::Created, id) => (Final::Created, Some(id)),
            Verdict::Settle(..) | Verdict::Resend | Verdict::GiveUp => (Final::Failed, None),
        };
        let Doubt { mut row, fp, key, foreign, .. } = doubt;
        // Another run's write: its lead is on the service, not this row's creation.
        let status = if foreign && status == Final::Created { Final::Skipped } else { status };
        self.learnt(&row, key, status, lead_id, foreign);
        let entry = Entry::Outcome {
            row: row.row,
            status,
            fp: fp_text(fp),
            lead_id,
            message: None,
            commit_by: None,
            reconciled: lead_id.is_some(),
            key: None,
            keyed: false,
        };
        self.plan.journal.outcome(&entry)?;
        if lead_id.is_some() {
            self.summary.reconciled += 1;
            if guarded(&row) {
                created_before_guard(&mut row, lead_id);
            } else {
                apply_final(&mut row, Final::Created, lead_id, None);
            }
            if foreign {
                row.status = RowStatus::Skipped;
            }
        }
        self.report(row).map(|()| None)
    }

    /// A created row whose content changed only because a guard now leaves out one of its
    /// secondary numbers: reported as created, with the guard's warning saying so, instead of
    /// stopping the resume.
    pub(super) fn guarded_after_creation(
        &self,
        row: &mut RowReport,
        status: Final,
        lead_id: Option<u64>,
    ) -> bool {
        let secondary = |w: &Issue| w.code.is_secondary_guard();
        if status != Final::Created || !row.warnings.iter().any(secondary) {
            return false;
        }
        let lead = lead_id.map_or_else(String::new, |id| format!(" (lead {id})"));
        for warning in row.warnings.iter_mut().filter(|w| secondary(w)) {
            warning.message = format!(
                "{}; an earlier run of this journal already created the lead with it{lead}: remove it on the service if it must not be called",
                warning.message
            );
        }
        true
    }
}

fn guarded(row: &RowReport) -> bool {
    row.errors.iter().any(|e| e.code.is_guard())
}

/// Reports a row a guard now turns away as created by an earlier run, the guard's reasons as
/// warnings.
fn created_before_guard(row: &mut RowReport, lead_id: Option<u64>) {
    let lead = lead_id.map_or_else(String::new, |id| format!(" (lead {id})"));
    let guards = std::mem::take(&mut row.errors).into_iter().filter(|e| e.code.is_guard());
    row.warnings.extend(guards.map(|mut issue: Issue| {
        issue.message = format!(
            "{}; an earlier run already created it{lead}: remove it on the service if it must not be called",
            issue.message
        );
        issue
    }));
    row.status = RowStatus::Created;
    row.lead_id = lead_id;
}
