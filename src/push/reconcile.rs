//! The service's lead list as an index, for `--skip-existing` and for deciding what became of
//! rows in doubt.
//!
//! A row in doubt was sent, but no answer came back. If the list holds a lead with its
//! campaign and number that is newer than the run's baseline (the highest lead id when the run
//! started) and no other row of the journal has claimed it, this run wrote it. Lead ids are
//! assumed to grow, as database sequences do; that is what makes "newer" meaningful.

use std::collections::HashMap;

use std::hash::{Hash, Hasher};

use crate::client::{Client, ClientError, Lead};
use crate::journal::Claimed;
use crate::report::Variables;

#[derive(Debug, Clone, Default)]
pub struct LeadIndex {
    /// (campaign, E.164 digits) → lead ids, ascending.
    by_key: HashMap<(u64, u64), Vec<(u64, u64)>>,
    max_id: u64,
}

/// The index key of a number: its E.164 digits as an integer.
pub fn phone_key(e164: &str) -> Option<u64> {
    e164.strip_prefix('+').unwrap_or(e164).parse().ok()
}

/// What the lead list says about a row in doubt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// Written by this run, with the row's content: lead id.
    Ours(u64),
    /// A lead with this campaign and number that this row did not write (there before the run,
    /// or newer with other variables): lead id.
    Other(u64),
    /// Not on the service.
    Missing,
}

impl LeadIndex {
    #[cfg(test)]
    pub fn new(leads: &[Lead]) -> LeadIndex {
        let mut index = LeadIndex::default();
        leads.iter().for_each(|lead| index.add(lead));
        index.finish()
    }

    /// The service's leads, read one at a time: the index is all that stays in memory.
    pub async fn load(client: &Client) -> Result<LeadIndex, ClientError> {
        let mut index = LeadIndex::default();
        client.for_each_lead(|lead| index.add(&lead)).await?;
        Ok(index.finish())
    }

    fn add(&mut self, lead: &Lead) {
        self.max_id = self.max_id.max(lead.id);
        if let Some(key) = phone_key(&lead.phone_number) {
            let pairs = lead.variables.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            let entry = (lead.id, variables_hash(pairs));
            self.by_key.entry((lead.campaign_id, key)).or_default().push(entry);
        }
    }

    fn finish(mut self) -> LeadIndex {
        self.by_key.values_mut().for_each(|ids| ids.sort_unstable());
        self
    }

    /// The highest lead id on the service: the baseline of a new run.
    pub fn max_id(&self) -> u64 {
        self.max_id
    }

    /// A lead with this campaign and number that existed at or before `baseline`.
    pub fn existing(&self, campaign_id: u64, e164: &str, baseline: u64) -> Option<u64> {
        let key = (campaign_id, phone_key(e164)?);
        self.by_key.get(&key)?.iter().map(|(id, _)| *id).find(|id| *id <= baseline)
    }

    /// Decides a row in doubt, claiming the lead it finds so no other row can. A lead counts
    /// as the row's own only when it is newer than the run's baseline, unclaimed, and holds the
    /// row's variables: a report never calls a row created for a lead with other content.
    pub fn reconcile(
        &self,
        campaign_id: u64,
        e164: &str,
        variables: &Variables,
        baseline: u64,
        claimed: &mut Claimed,
    ) -> Found {
        let Some(leads) = phone_key(e164).and_then(|k| self.by_key.get(&(campaign_id, k))) else {
            return Found::Missing;
        };
        let wanted = variables_hash(variables.iter());
        let ours = leads
            .iter()
            .find(|(id, hash)| *id > baseline && !claimed.contains(id) && *hash == wanted);
        if let Some(&(id, _)) = ours {
            claimed.insert(id);
            return Found::Ours(id);
        }
        match leads.iter().find(|(id, _)| *id <= baseline || !claimed.contains(id)) {
            Some(&(id, _)) => Found::Other(id),
            None => Found::Missing,
        }
    }
}

/// A fingerprint of a lead's variables that ignores their order.
fn variables_hash<'n, 'v>(variables: impl Iterator<Item = (&'n str, &'v str)>) -> u64 {
    let mut pairs: Vec<(&str, &str)> = variables.collect();
    pairs.sort_unstable();
    let mut hasher = std::hash::DefaultHasher::new();
    pairs.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead(id: u64, campaign_id: u64, phone: &str, name: &str) -> Lead {
        let variables = [("customer_name".to_string(), name.to_string())].into_iter().collect();
        Lead { id, campaign_id, phone_number: phone.into(), variables, ..Lead::default() }
    }

    fn vars(name: &str) -> Variables {
        [("customer_name".to_string(), name.to_string())].into_iter().collect()
    }

    #[test]
    fn rows_in_doubt_claim_new_leads_with_their_content_once() {
        let index = LeadIndex::new(&[
            lead(3, 10, "+4911", "x"),
            lead(8, 10, "+4911", "x"),
            lead(9, 10, "+4911", "x"),
            lead(5, 11, "+4922", "d"),
        ]);
        assert_eq!(index.max_id(), 9);
        let mut claimed: Claimed = [8].into_iter().collect();
        assert_eq!(index.reconcile(10, "+4911", &vars("x"), 5, &mut claimed), Found::Ours(9));
        assert_eq!(index.reconcile(10, "+4911", &vars("x"), 5, &mut claimed), Found::Other(3));
        assert_eq!(index.reconcile(11, "+4922", &vars("d"), 5, &mut claimed), Found::Other(5));
        assert_eq!(index.reconcile(12, "+4922", &vars("d"), 5, &mut claimed), Found::Missing);
        assert_eq!(index.existing(10, "+4911", 5), Some(3));
        assert_eq!(index.existing(11, "+4922", 4), None);
    }

    #[test]
    fn a_new_lead_with_other_content_is_never_called_the_rows() {
        // Two rows with one number; only the second row's request reached the service.
        let index = LeadIndex::new(&[lead(7, 10, "+4911", "second")]);
        let mut claimed = Claimed::default();
        let first = index.reconcile(10, "+4911", &vars("first"), 0, &mut claimed);
        assert_eq!(first, Found::Other(7), "not the first row's lead");
        assert!(claimed.is_empty(), "and not claimed by it");
        let second = index.reconcile(10, "+4911", &vars("second"), 0, &mut claimed);
        assert_eq!(second, Found::Ours(7));
        let again = index.reconcile(10, "+4911", &vars("second"), 0, &mut claimed);
        assert_eq!(again, Found::Missing, "a claimed new lead is nobody else's");
    }
}
