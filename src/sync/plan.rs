//! The plan of a sync, made before anything is sent: every row of the sheet judged against
//! what the ledger recorded for its identity (new, changed, unchanged, now refused by a
//! do-not-call guard), then the leads this source made whose rows are gone.

use std::collections::HashSet;

use serde::Serialize;

use super::{MassRemoval, OnRemoved, OnSuppressed, Rules};
use crate::ledger::identity::{RowKeys, Who, contacts_digest, identity_key, row_digest};
use crate::ledger::{Ledger, LedgerError, Recorded};
use crate::row::{RowReport, RowStatus};

/// What a sync will do, counted, with each change it will make.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    pub new: u64,
    pub changed: u64,
    pub to_stop: u64,
    pub to_delete: u64,
    pub unchanged: u64,
    /// Rows the workbook hides (by hand, by its filter): not sent, their leads left as they are.
    pub hidden: u64,
    /// Changes an earlier run began and never saw answered: they are in this plan again.
    pub in_doubt_before: u64,
    #[serde(skip)]
    pub changes: Vec<Change>,
    /// Leads whose content was not known (recorded by an earlier version, found on the
    /// service): the sheet as it is now becomes what they say.
    #[serde(skip)]
    pub baselines: Vec<(u64, u64)>,
    /// Rows whose secondary numbers changed since their lead was made: the service cannot
    /// update them, so each row says so (once).
    pub contacts_not_updated: Vec<u64>,
    /// The secondary numbers each lead's row has now, as `(key, digest)`, to record.
    #[serde(skip)]
    pub contacts_seen: Vec<(u64, u64)>,
}

/// One change to one lead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub key: u64,
    pub lead_id: u64,
    /// The lead's number (E.164) as the ledger knows it: who is changed.
    pub phone: String,
    /// The sheet row it comes from; `None` for a lead whose row is gone.
    pub row: Option<u64>,
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The row now says something else: its variables (those set), its number (E.164);
    /// `resume`: a lead a sync stopped whose row is back (and may be called): called again.
    /// `moved`: under an id column, the record's row now names another campaign.
    Update {
        phone: String,
        variables: Vec<(String, String)>,
        digest: u64,
        resume: bool,
        moved: Option<Moved>,
    },
    /// No longer called (status `completed`).
    Stop(Why),
    Delete(Why),
}

/// A lead whose record (by the id column) moved to another campaign: the campaign it was in,
/// the one it is in now, and its identity there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    pub from: u64,
    pub to: u64,
    pub key: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The row is gone from the sheet.
    Removed,
    /// The row is now refused by a do-not-call guard (suppression list, consent): its code.
    Refused(crate::row::IssueCode),
}

impl Plan {
    /// "12 new, 3 changed, 2 to stop, 540 unchanged", leaving out what is zero (but new and
    /// unchanged).
    pub fn line(&self) -> String {
        let mut parts = vec![format!("{} new", self.new)];
        if self.changed > 0 {
            parts.push(format!("{} changed", self.changed));
        }
        if self.to_stop > 0 {
            parts.push(format!("{} to stop", self.to_stop));
        }
        if self.to_delete > 0 {
            parts.push(format!("{} to delete", self.to_delete));
        }
        parts.push(format!("{} unchanged", self.unchanged));
        if self.hidden > 0 {
            parts.push(format!("{} hidden in the workbook", self.hidden));
        }
        parts.join(", ")
    }
}

/// Judges the rows of one sheet, in order, as they are read. It holds a ledger connection of
/// its own, which then carries out the plan ([`super::apply`]).
pub struct Planner {
    ledger: Ledger,
    rules: Rules,
    keys: RowKeys,
    seen: HashSet<u64>,
    valid: u64,
    plan: Plan,
    /// The account's campaigns, where a record under an id column may have moved from.
    campaigns: Vec<u64>,
    /// Rows whose record's lead is in another campaign: a move, unless that record's row
    /// there is still in the sheet (known once every row was read).
    moves: Vec<(u64, Change)>,
}

impl Planner {
    pub fn new(
        ledger: Ledger,
        rules: Rules,
        allow_duplicates: bool,
        campaigns: Vec<u64>,
    ) -> Planner {
        let plan = Plan::default();
        Planner {
            ledger,
            rules,
            keys: RowKeys::new(allow_duplicates),
            seen: HashSet::new(),
            valid: 0,
            plan,
            campaigns,
            moves: Vec::new(),
        }
    }

    /// Judges one row, as the push will see it.
    pub fn row(&mut self, row: &RowReport) -> Result<(), LedgerError> {
        if row.is_hidden() {
            self.plan.hidden += 1;
        }
        // Every row takes its place in the count of occurrences, whatever its fate.
        let Some(key) = self.keys.next(row) else { return Ok(()) };
        // A row still in the sheet is never a removed one, even when refused (fixing a typo
        // must not stop a lead).
        self.seen.insert(key);
        match row.status {
            RowStatus::Valid => {
                self.valid += 1;
                self.valid_row(row, key)
            }
            // Refused rows, and rows a do-not-call guard skips.
            _ => self.refused_row(row, key),
        }
    }

    fn valid_row(&mut self, row: &RowReport, key: u64) -> Result<(), LedgerError> {
        let Some(recorded) = self.ledger.recorded(key)? else {
            match self.moved_from(row, key)? {
                Some(moved) => self.moves.push(moved),
                None => self.plan.new += 1,
            }
            return Ok(());
        };
        self.secondary_numbers(row, key, recorded.contacts);
        let digest = row_digest(row);
        let (Some(lead_id), Some(before)) = (recorded.lead_id, recorded.digest) else {
            // Not known what the lead says (or which lead it is): the sheet as it is now.
            if recorded.digest.is_none() {
                self.plan.baselines.push((key, digest));
            }
            self.plan.unchanged += 1;
            return Ok(());
        };
        if before == digest && !recorded.stopped {
            self.plan.unchanged += 1;
            return Ok(());
        }
        self.plan.changed += 1;
        let phone = row.phone.clone().unwrap_or_default();
        let variables = row.variables.iter().map(|(n, v)| (n.to_string(), v.to_string()));
        let action = Action::Update {
            phone,
            variables: variables.collect(),
            digest,
            resume: recorded.stopped,
            moved: None,
        };
        let phone = recorded.phone;
        self.plan.changes.push(Change { key, lead_id, phone, row: Some(row.row), action });
        Ok(())
    }

    /// The lead a row's record had in another campaign, as the update that moves it there
    /// (with the old identity, to be checked against the rest of the sheet).
    fn moved_from(&self, row: &RowReport, key: u64) -> Result<Option<(u64, Change)>, LedgerError> {
        let (Some(id), Some(to)) = (row.record_id.as_deref(), row.campaign_id) else {
            return Ok(None);
        };
        if id.trim().is_empty() {
            return Ok(None);
        }
        for &from in self.campaigns.iter().filter(|&&c| c != to) {
            let old = identity_key(from, Who::Record(id));
            let Some(recorded) = self.ledger.recorded(old)? else { continue };
            let Some(lead_id) = recorded.lead_id.filter(|_| recorded.made) else { continue };
            let variables = row.variables.iter().map(|(n, v)| (n.to_string(), v.to_string()));
            let action = Action::Update {
                phone: row.phone.clone().unwrap_or_default(),
                variables: variables.collect(),
                digest: row_digest(row),
                resume: recorded.stopped,
                moved: Some(Moved { from, to, key }),
            };
            let phone = recorded.phone;
            return Ok(Some((
                old,
                Change { key: old, lead_id, phone, row: Some(row.row), action },
            )));
        }
        Ok(None)
    }

    /// Moves whose old identity has no row left in the sheet are updates; the others new.
    fn settle_moves(&mut self) {
        for (old, change) in std::mem::take(&mut self.moves) {
            if self.seen.contains(&old) {
                self.plan.new += 1;
                continue;
            }
            // Its old identity is this row now: never a removed one.
            self.seen.insert(old);
            self.plan.changed += 1;
            self.plan.changes.push(change);
        }
    }

    /// A row whose secondary numbers changed since its lead's row was last seen is said once;
    /// either way what they are now is recorded.
    fn secondary_numbers(&mut self, row: &RowReport, key: u64, before: Option<u64>) {
        let now = contacts_digest(row);
        if before == Some(now) {
            return;
        }
        if before.is_some() {
            self.plan.contacts_not_updated.push(row.row);
        }
        self.plan.contacts_seen.push((key, now));
    }

    /// A row a do-not-call guard now refuses whose lead was made: stopped (by default).
    fn refused_row(&mut self, row: &RowReport, key: u64) -> Result<(), LedgerError> {
        let Some(code) = row.errors.iter().map(|e| e.code).find(|c| c.is_do_not_call()) else {
            return Ok(());
        };
        if self.rules.on_suppressed == OnSuppressed::Keep {
            return Ok(());
        }
        let Some(Recorded { lead_id: Some(lead_id), stopped: false, phone, .. }) =
            self.ledger.recorded(key)?
        else {
            return Ok(());
        };
        self.plan.to_stop += 1;
        let action = Action::Stop(Why::Refused(code));
        self.plan.changes.push(Change { key, lead_id, phone, row: Some(row.row), action });
        Ok(())
    }

    /// The plan, once every row was judged: with the leads `sources` made whose rows are gone
    /// (none when the sheet was not read whole or held no valid row). Refused when it would
    /// remove more than the rules allow. Unless `dry`, the leads whose content was not known
    /// take the sheet's as theirs now.
    pub fn finish(
        mut self,
        sources: &[String],
        read_whole: bool,
        dry: bool,
    ) -> Result<(Ledger, Plan), PlanError> {
        self.plan.in_doubt_before = self.ledger.changes_in_doubt()?;
        self.settle_moves();
        self.removed(sources, read_whole)?;
        if !dry {
            self.ledger.set_baselines(&self.plan.baselines)?;
            self.ledger.set_contacts(&self.plan.contacts_seen)?;
        }
        Ok((self.ledger, self.plan))
    }

    fn removed(&mut self, sources: &[String], read_whole: bool) -> Result<(), PlanError> {
        let removing = self.rules.on_removed != OnRemoved::Keep && read_whole && self.valid > 0;
        if !removing {
            return Ok(());
        }
        let made = self.ledger.recorded_from(sources)?;
        let delete = self.rules.on_removed == OnRemoved::Delete;
        // A stopped lead is stopped already; deleting still deletes it.
        let gone: Vec<&Recorded> =
            made.iter().filter(|r| !self.seen.contains(&r.key) && (delete || !r.stopped)).collect();
        let limit = self.rules.removal_limit(made.len() as u64);
        if gone.len() as u64 > limit && !self.rules.allow_mass_removal {
            return Err(PlanError::MassRemoval(MassRemoval {
                verb: if delete { "delete" } else { "stop" },
                removing: gone.len() as u64,
                made: made.len() as u64,
                limit,
                source_name: sources.first().cloned().unwrap_or_default(),
            }));
        }
        for recorded in gone {
            let Some(lead_id) = recorded.lead_id else { continue };
            let (key, row) = (recorded.key, None);
            let action = if delete {
                self.plan.to_delete += 1;
                Action::Delete(Why::Removed)
            } else {
                self.plan.to_stop += 1;
                Action::Stop(Why::Removed)
            };
            let phone = recorded.phone.clone();
            self.plan.changes.push(Change { key, lead_id, phone, row, action });
        }
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error(transparent)]
    MassRemoval(#[from] MassRemoval),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_line_says_what_will_happen_and_leaves_out_what_will_not() {
        let plan = Plan { new: 12, changed: 3, to_stop: 2, unchanged: 540, ..Plan::default() };
        assert_eq!(plan.line(), "12 new, 3 changed, 2 to stop, 540 unchanged");
        assert_eq!(Plan::default().line(), "0 new, 0 unchanged");
        let hidden = Plan { new: 1, unchanged: 2, hidden: 3, ..Plan::default() };
        assert_eq!(hidden.line(), "1 new, 2 unchanged, 3 hidden in the workbook");
    }

    use crate::ledger::identity::{RowKeys, row_digest};
    use crate::ledger::{RunOrigin, Settled};
    use crate::row::{Issue, IssueCode, Said};

    fn person(i: u64, status: RowStatus) -> RowReport {
        let mut row = RowReport::blank(i + 2, status);
        row.phone = Some(format!("+4915111{i:04}"));
        row.campaign_id = Some(10);
        row
    }

    /// A ledger that made a lead for each of `n` people, from `leads.csv`.
    fn ledger_of(dir: &std::path::Path, n: u64) -> Ledger {
        let origin = RunOrigin { source: "leads.csv".into(), sheet: None, front: "sync".into() };
        let mut ledger = Ledger::open(dir, "sandbox", origin).unwrap();
        let mut keys = RowKeys::new(false);
        let made: Vec<Settled> = (0..n)
            .map(|i| {
                let row = person(i, RowStatus::Valid);
                Settled {
                    key: keys.next(&row).unwrap(),
                    campaign_id: 10,
                    phone: row.phone.clone().unwrap(),
                    lead_id: Some(100 + i),
                    digest: row_digest(&row),
                    made: true,
                    contacts: 0,
                    row: row.row,
                    keep_origin: false,
                }
            })
            .collect();
        ledger.record(&made).unwrap();
        ledger
    }

    fn planned(
        ledger: Ledger,
        rows: &[RowReport],
        rules: Rules,
        whole: bool,
    ) -> Result<Plan, PlanError> {
        let mut planner = Planner::new(ledger, rules, false, Vec::new());
        rows.iter().for_each(|row| planner.row(row).unwrap());
        planner.finish(&["leads.csv".into()], whole, true).map(|(_, plan)| plan)
    }

    /// Ten leads made; the sheet now holds the first two, and two more whose people said no.
    #[test]
    fn removals_are_guarded_refusals_are_not_and_a_partial_sheet_removes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let said_no = |i| {
            let mut row = person(i, RowStatus::Skipped);
            row.errors.push(Issue::said(IssueCode::Suppressed, None, Said::Excluded));
            row
        };
        let rows =
            [person(0, RowStatus::Valid), person(1, RowStatus::Valid), said_no(2), said_no(3)];
        let stop = Rules { on_removed: OnRemoved::Stop, ..Rules::default() };
        // Six removed rows are past the limit (5 of 10 leads): refused; the two who said no do not count.
        let refused = planned(ledger_of(dir.path(), 10), &rows, stop.clone(), true);
        assert!(matches!(refused, Err(PlanError::MassRemoval(MassRemoval { removing: 6, .. }))));
        // Allowed: six stops for rows gone, two for people who said no.
        let allowed = Rules { allow_mass_removal: true, ..stop.clone() };
        let plan = planned(ledger_of(dir.path(), 10), &rows, allowed, true).unwrap();
        assert_eq!((plan.to_stop, plan.unchanged), (8, 2));
        // A sheet not read whole removes nothing; the people who said no are still stopped.
        let plan = planned(ledger_of(dir.path(), 10), &rows, stop, false).unwrap();
        assert_eq!(plan.to_stop, 2);
        assert!(
            plan.changes
                .iter()
                .all(|c| c.action == Action::Stop(Why::Refused(IssueCode::Suppressed)))
        );
    }

    #[test]
    fn the_removal_limit_is_a_tenth_of_the_sources_leads_at_least_five() {
        let rules = Rules::default();
        assert_eq!((rules.removal_limit(100), rules.removal_limit(20)), (10, 5));
        let set = Rules { max_removed: Some(1), ..Rules::default() };
        assert_eq!(set.removal_limit(100), 1);
    }
}
