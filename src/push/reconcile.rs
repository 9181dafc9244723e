//! The service's lead list as an index, for `--skip-existing` and for deciding what became of
//! rows in doubt.
//!
//! A row in doubt was sent, but no answer came back. If the list holds a lead with its
//! campaign and number that is newer than the run's baseline (the highest lead id when the run
//! started) and no other row of the journal has claimed it, this run wrote it. Lead ids are
//! assumed to grow, as database sequences do; that is what makes "newer" meaningful.

use std::collections::{HashMap, HashSet};

use crate::client::Lead;

#[derive(Debug, Clone, Default)]
pub struct LeadIndex {
    /// (campaign, E.164 digits) → lead ids, ascending.
    by_key: HashMap<(u64, u64), Vec<u64>>,
    max_id: u64,
}

/// The index key of a number: its E.164 digits as an integer.
pub fn phone_key(e164: &str) -> Option<u64> {
    e164.strip_prefix('+').unwrap_or(e164).parse().ok()
}

/// What the lead list says about a row in doubt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Written by this run: lead id.
    Ours(u64),
    /// There before the run started: lead id.
    Before(u64),
    /// Not on the service: send it.
    Missing,
}

impl LeadIndex {
    pub fn new(leads: &[Lead]) -> LeadIndex {
        let mut index = LeadIndex::default();
        for lead in leads {
            index.max_id = index.max_id.max(lead.id);
            if let Some(key) = phone_key(&lead.phone_number) {
                index.by_key.entry((lead.campaign_id, key)).or_default().push(lead.id);
            }
        }
        index.by_key.values_mut().for_each(|ids| ids.sort_unstable());
        index
    }

    /// The highest lead id on the service: the baseline of a new run.
    pub fn max_id(&self) -> u64 {
        self.max_id
    }

    /// A lead with this campaign and number that existed at or before `baseline`.
    pub fn existing(&self, campaign_id: u64, e164: &str, baseline: u64) -> Option<u64> {
        let key = (campaign_id, phone_key(e164)?);
        self.by_key.get(&key)?.iter().copied().find(|id| *id <= baseline)
    }

    /// Decides a row in doubt, claiming the lead it finds so no other row can.
    pub fn reconcile(
        &self,
        campaign_id: u64,
        e164: &str,
        baseline: u64,
        claimed: &mut HashSet<u64>,
    ) -> Found {
        let Some(ids) = phone_key(e164).and_then(|k| self.by_key.get(&(campaign_id, k))) else {
            return Found::Missing;
        };
        if let Some(&id) = ids.iter().find(|id| **id > baseline && !claimed.contains(id)) {
            claimed.insert(id);
            return Found::Ours(id);
        }
        match ids.iter().find(|id| **id <= baseline) {
            Some(&id) => Found::Before(id),
            None => Found::Missing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead(id: u64, campaign_id: u64, phone: &str) -> Lead {
        Lead { id, campaign_id, phone_number: phone.into(), ..Lead::default() }
    }

    #[test]
    fn rows_in_doubt_claim_new_leads_once() {
        let index = LeadIndex::new(&[
            lead(3, 10, "+4911"),
            lead(8, 10, "+4911"),
            lead(9, 10, "+4911"),
            lead(5, 11, "+4922"),
        ]);
        assert_eq!(index.max_id(), 9);
        let mut claimed = HashSet::from([8]);
        assert_eq!(index.reconcile(10, "+4911", 5, &mut claimed), Found::Ours(9));
        assert_eq!(index.reconcile(10, "+4911", 5, &mut claimed), Found::Before(3));
        assert_eq!(index.reconcile(11, "+4922", 5, &mut claimed), Found::Before(5));
        assert_eq!(index.reconcile(12, "+4922", 5, &mut claimed), Found::Missing);
        assert_eq!(index.existing(10, "+4911", 5), Some(3));
        assert_eq!(index.existing(11, "+4922", 4), None);
    }
}
