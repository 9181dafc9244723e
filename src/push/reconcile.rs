//! The service's lead list as an index, for `--skip-existing` and for deciding what became of
//! rows in doubt.
//!
//! A row in doubt was sent, but no answer came back. A row sent with its key (`key.rs`) owns
//! the lead that carries that key, whoever created it, and no other. Only a row sent without
//! one (by an older version, or with `lead_key = false`) is matched by content: a lead without
//! a key, with its campaign, number and variables, newer than the run's baseline (the highest
//! lead id when the run started) and claimed by no other row, was written by this run. Lead ids
//! are assumed to grow, as database sequences do; that is what makes "newer" meaningful.

use std::collections::HashMap;

use std::hash::{Hash, Hasher};

use super::key;
use crate::client::{Client, ClientError, Lead};
use crate::journal::Claimed;
use crate::row::Variables;

#[derive(Debug, Clone, Default)]
pub struct LeadIndex {
    /// (campaign, E.164 digits) → leads, ascending by id.
    by_key: HashMap<(u64, u64), Vec<Listed>>,
    /// A lead's own key → its id (the lowest, should a key ever be on two).
    by_lead_key: HashMap<u64, u64>,
    max_id: u64,
}

/// A lead on the list: (id, hash of its variables, the key it carries).
type Listed = (u64, u64, Option<u64>);

/// How a row was (or is) sent: with its own key, or to be matched by content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowId {
    Keyed(u64),
    Content,
    /// Another run's write without a key: any lead without a key of its campaign and number
    /// that no row has claimed is that identity's, whenever it was made.
    Number,
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
        let own = lead.variables.get(key::VARIABLE).and_then(|k| key::parse(k));
        if let Some(own) = own {
            let id = self.by_lead_key.entry(own).or_insert(lead.id);
            *id = (*id).min(lead.id);
        }
        if let Some(number) = phone_key(&lead.phone_number) {
            let pairs = lead.variables.iter().map(|(k, v)| (k.as_str(), v.as_str()));
            let entry = (lead.id, variables_hash(pairs), own);
            self.by_key.entry((lead.campaign_id, number)).or_default().push(entry);
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

    /// The lead that carries this key, if the list holds one.
    pub fn keyed(&self, key: u64) -> Option<u64> {
        self.by_lead_key.get(&key).copied()
    }

    /// The lead already on the service for a row, for `--skip-existing`: the one with the
    /// row's key; else, when duplicates are not allowed, any lead with its campaign and number
    /// (the service would refuse another); else a lead without a key with its campaign and
    /// number. Only leads at or before `baseline` count.
    pub fn existing(
        &self,
        campaign_id: u64,
        e164: &str,
        id: RowId,
        allow_duplicates: bool,
        baseline: u64,
    ) -> Option<u64> {
        if let RowId::Keyed(own) = id
            && let Some(found) = self.keyed(own).filter(|found| *found <= baseline)
        {
            return Some(found);
        }
        let leads = self.by_key.get(&(campaign_id, phone_key(e164)?))?;
        let older = leads.iter().filter(|(id, ..)| *id <= baseline);
        if !allow_duplicates {
            return older.map(|(id, ..)| *id).next();
        }
        // A lead written without a key (by hand, another tool, an older version) with the
        // row's campaign and number is the row's lead, whatever else it holds.
        older.filter(|(_, _, own)| own.is_none()).map(|(id, ..)| *id).next()
    }

    /// Every lead on the list by its identity (`key::identity_key`), for the ledger to learn
    /// a list it lost, as (key, campaign, number, lead id): a lead with a key by that key
    /// (first, so it wins); a lead without one (made by hand, by another tool, with
    /// `lead_key = false`) by its campaign and number, the first such lead of a number being its
    /// first occurrence not named by a keyed lead, and so on.
    pub fn identities(&self) -> impl Iterator<Item = (u64, u64, String, u64)> + '_ {
        let by_key = self.by_lead_key.iter().map(|(&own, &id)| (own, 0, String::new(), id));
        let by_number = self.by_key.iter().flat_map(|(&(campaign, number), leads)| {
            let phone = format!("+{number}");
            let keyless = leads.iter().filter(|(.., own)| own.is_none()).map(|(id, ..)| *id);
            let mut occurrences = (0..u32::MAX)
                .map(move |n| key::identity_key(campaign, key::Who::Number(&phone, n)))
                .filter(|k| !self.by_lead_key.contains_key(k));
            let phone = format!("+{number}");
            keyless
                .map_while(move |id| Some((occurrences.next()?, campaign, phone.clone(), id)))
                .collect::<Vec<_>>()
        });
        by_key.chain(by_number)
    }

    /// Decides a row in doubt: by its key when it was sent with one, else by content.
    pub fn settle(
        &self,
        campaign_id: u64,
        e164: &str,
        id: RowId,
        variables: &Variables,
        baseline: u64,
        claimed: &mut Claimed,
    ) -> Found {
        match id {
            RowId::Keyed(own) => self.reconcile_keyed(campaign_id, e164, own, claimed),
            RowId::Content => self.reconcile(campaign_id, e164, variables, baseline, claimed),
            RowId::Number => self.reconcile_number(campaign_id, e164, claimed),
        }
    }

    /// Another run's write in doubt, sent without a key: the first unclaimed lead without a
    /// key of its campaign and number is its identity's (the row is reported as already on the
    /// service, so which of several such leads it is does not matter).
    fn reconcile_number(&self, campaign_id: u64, e164: &str, claimed: &mut Claimed) -> Found {
        let leads = phone_key(e164).and_then(|k| self.by_key.get(&(campaign_id, k)));
        let free =
            leads.into_iter().flatten().find(|(id, _, own)| own.is_none() && !claimed.contains(id));
        match free {
            Some(&(id, ..)) => {
                claimed.insert(id);
                Found::Ours(id)
            }
            None => Found::Missing,
        }
    }

    /// A row sent with its key owns the lead with that key and no other; any other lead with
    /// its campaign and number is someone else's.
    fn reconcile_keyed(
        &self,
        campaign_id: u64,
        e164: &str,
        own: u64,
        claimed: &mut Claimed,
    ) -> Found {
        if let Some(id) = self.keyed(own) {
            claimed.insert(id);
            return Found::Ours(id);
        }
        let other = phone_key(e164)
            .and_then(|k| self.by_key.get(&(campaign_id, k)))
            .and_then(|leads| leads.first().map(|(id, ..)| *id));
        other.map_or(Found::Missing, Found::Other)
    }

    /// Decides a row in doubt sent without a key, claiming the lead it finds so no other row
    /// can. A lead counts
    /// as the row's own only when it is newer than the run's baseline, unclaimed, and holds the
    /// row's variables: a report never calls a row created for a lead with other content.
    fn reconcile(
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
        // A lead with a key was written by a row that sent one: never this row's.
        let ours = leads.iter().find(|(id, hash, own)| {
            own.is_none() && *id > baseline && !claimed.contains(id) && *hash == wanted
        });
        if let Some(&(id, ..)) = ours {
            claimed.insert(id);
            return Found::Ours(id);
        }
        match leads.iter().find(|(id, ..)| *id <= baseline || !claimed.contains(id)) {
            Some(&(id, ..)) => Found::Other(id),
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
        let existing = |c, p, base| index.existing(c, p, RowId::Content, false, base);
        assert_eq!(existing(10, "+4911", 5), Some(3));
        assert_eq!(existing(11, "+4922", 4), None);
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

#[cfg(test)]
mod keyed_tests {
    use super::*;

    fn keyed_lead(id: u64, phone: &str, own: Option<u64>) -> Lead {
        let mut variables: crate::client::Variables =
            [("customer_name".to_string(), "Anna".to_string())].into_iter().collect();
        if let Some(own) = own {
            variables.insert(key::VARIABLE.to_string(), key::text(own));
        }
        Lead { id, campaign_id: 10, phone_number: phone.into(), variables, ..Lead::default() }
    }

    fn anna() -> Variables {
        [("customer_name".to_string(), "Anna".to_string())].into_iter().collect()
    }

    #[test]
    fn a_keyed_row_owns_the_lead_with_its_key_and_no_other() {
        // Lead 1 is another sheet's row with the same content; lead 2 carries our key.
        let index =
            LeadIndex::new(&[keyed_lead(1, "+4911", Some(5)), keyed_lead(2, "+4911", Some(6))]);
        let mut claimed = Claimed::default();
        let ours = index.settle(10, "+4911", RowId::Keyed(6), &anna(), 0, &mut claimed);
        assert_eq!(ours, Found::Ours(2));
        let none = index.settle(10, "+4911", RowId::Keyed(7), &anna(), 0, &mut claimed);
        assert_eq!(none, Found::Other(1), "another row's lead is never this row's");
        let by_content = index.settle(10, "+4911", RowId::Content, &anna(), 0, &mut claimed);
        assert_eq!(by_content, Found::Other(1), "a keyed lead is never matched by content");
    }

    #[test]
    fn skip_existing_finds_a_row_by_its_key_even_with_duplicates_allowed() {
        let index =
            LeadIndex::new(&[keyed_lead(1, "+4911", Some(5)), keyed_lead(2, "+4922", None)]);
        let existing = |phone, id, dup| index.existing(10, phone, id, dup, 9);
        assert_eq!(existing("+4911", RowId::Keyed(5), true), Some(1));
        assert_eq!(existing("+4911", RowId::Keyed(6), true), None, "another row's lead");
        assert_eq!(existing("+4911", RowId::Keyed(6), false), Some(1), "the service refuses it");
        assert_eq!(existing("+4922", RowId::Keyed(6), true), Some(2), "an older version's lead");
    }
}
