//! Who a lead is, and the key that says it: a row's identity is its campaign and its main
//! number in E.164, or its campaign and its record id when the mapping names an id column (the
//! CRM's own, `id = "Kunden-Nr"`). With `--allow-duplicates` and no id column, where one number
//! may stand for several people, which occurrence of that number in the sheet the row is
//! belongs to it too.
//!
//! Nothing else does: not the file's name, path, format or sheet, not the column order, not the
//! other cells, not the mapping's constants, not a flag, not the front that sends it. Two rows
//! with one identity are one lead, wherever and however they were sent; that is the rule the
//! service itself applies ("duplicate detection prevents duplicate phone numbers" within a
//! campaign), and the one its users think in.
//!
//! The key is a 64-bit digest (16 hex digits) of the identity, sent with the lead as the
//! variable `leadsync_key`, so a lost ledger is rebuilt from the service's lead list and a row
//! in doubt is matched to its lead. It reveals nothing a person could read off it: checking it
//! needs the number or the id it was made of.

use std::collections::{HashMap, HashSet};

use crate::row::RowReport;

/// The lead variable that carries the key (a mapping may not send one of its own).
pub const VARIABLE: &str = crate::mapping::OWN_KEY;

/// Who a row is, before it is digested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who<'a> {
    /// The main number in E.164, and which occurrence of it in the campaign (0 unless
    /// duplicates are allowed).
    Number(&'a str, u32),
    /// The CRM's record id.
    Record(&'a str),
}

/// The key of an identity.
pub fn identity_key(campaign_id: u64, who: Who) -> u64 {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"leadsync identity 1\n");
    hasher.update(&campaign_id.to_le_bytes());
    match who {
        Who::Number(e164, occurrence) => {
            hasher.update(b"number\n");
            hasher.update(e164.as_bytes());
            hasher.update(&occurrence.to_le_bytes());
        }
        Who::Record(id) => {
            hasher.update(b"record\n");
            hasher.update(id.trim().as_bytes());
        }
    }
    let hash = hasher.finalize();
    u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// A digest of what a lead says: its campaign, its number and its variables by name (empty
/// ones and the lead's own key left out, the order of columns ignored). A sync compares it
/// with the digest recorded when the lead was last written: equal, nothing to update.
pub fn content_digest<'a, 'b>(
    campaign_id: u64,
    phone: &str,
    variables: impl IntoIterator<Item = (&'a str, &'b str)>,
) -> u64 {
    let mut named: Vec<(&str, &str)> = variables
        .into_iter()
        .filter(|(name, value)| !value.is_empty() && *name != VARIABLE)
        .collect();
    named.sort_unstable();
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"leadsync content 1\n");
    hasher.update(&campaign_id.to_le_bytes());
    hasher.update(phone.as_bytes());
    for (name, value) in named {
        // Lengths first: no two lists of names and values hash alike.
        hasher.update(&(name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(&(value.len() as u64).to_le_bytes());
        hasher.update(value.as_bytes());
    }
    let hash = hasher.finalize();
    u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// A digest of a row's secondary numbers and their variables, in order: a sync that finds it
/// changed says so on the row, since the service cannot update secondary contacts.
pub fn contacts_digest(row: &RowReport) -> u64 {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"leadsync contacts 1\n");
    for contact in &row.secondary_contacts {
        let digest = content_digest(0, &contact.phone, contact.variables.iter());
        hasher.update(&digest.to_le_bytes());
    }
    let hash = hasher.finalize();
    u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// [`content_digest`] of a checked row.
pub fn row_digest(row: &RowReport) -> u64 {
    let phone = row.phone.as_deref().unwrap_or_default();
    content_digest(row.campaign_id.unwrap_or_default(), phone, row.variables.iter())
}

/// Gives each row of one sheet its identity key, in file order.
#[derive(Debug, Default)]
pub struct RowKeys {
    allow_duplicates: bool,
    /// Numbers (digests of campaign and number) seen once, and how often those seen more than
    /// once were, for the occurrence: a million distinct rows cost a set of a million `u64`s.
    seen: HashSet<u64>,
    repeats: HashMap<u64, u32>,
}

impl RowKeys {
    /// Occurrences are counted only when duplicates are allowed: otherwise a second row with
    /// the number is a duplicate of the first and never sent.
    pub fn new(allow_duplicates: bool) -> RowKeys {
        RowKeys { allow_duplicates, ..RowKeys::default() }
    }

    /// The key of the next row in file order; `None` for a row without a number or a
    /// campaign, which is no lead. Every row with both takes its place in the count of
    /// occurrences, valid or not, so a guard that turns one away does not shift the others.
    pub fn next(&mut self, row: &RowReport) -> Option<u64> {
        let (phone, campaign_id) = (row.phone.as_deref()?, row.campaign_id?);
        if let Some(id) = row.record_id.as_deref().filter(|id| !id.trim().is_empty()) {
            return Some(identity_key(campaign_id, Who::Record(id)));
        }
        let occurrence =
            if self.allow_duplicates { self.occurrence(campaign_id, phone) } else { 0 };
        Some(identity_key(campaign_id, Who::Number(phone, occurrence)))
    }

    fn occurrence(&mut self, campaign_id: u64, phone: &str) -> u32 {
        let number = identity_key(campaign_id, Who::Number(phone, u32::MAX));
        if self.seen.insert(number) {
            return 0;
        }
        let count = self.repeats.entry(number).or_insert(0);
        *count += 1;
        *count
    }
}

/// A key as the lead's variable holds it.
pub fn text(key: u64) -> String {
    format!("{key:016x}")
}

/// A key read back from a lead's variables; anything else is no key.
pub fn parse(text: &str) -> Option<u64> {
    (text.len() == 16).then(|| u64::from_str_radix(text, 16).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::RowStatus;

    fn row(phone: &str, campaign: u64, id: Option<&str>) -> RowReport {
        let mut row = RowReport::blank(2, RowStatus::Valid);
        row.phone = Some(phone.into());
        row.campaign_id = Some(campaign);
        row.record_id = id.map(str::to_string);
        row
    }

    #[test]
    fn a_lead_is_its_campaign_and_number_wherever_it_sits() {
        let mut a = RowKeys::new(false);
        let mut b = RowKeys::new(false);
        let first = a.next(&row("+4915111", 10, None)).unwrap();
        b.next(&row("+4915122", 10, None));
        assert_eq!(b.next(&row("+4915111", 10, None)), Some(first), "another place, one lead");
        assert_ne!(a.next(&row("+4915111", 11, None)), Some(first), "another campaign");
        assert_eq!(a.next(&row("+4915111", 10, None)), Some(first), "a duplicate row");
        assert_eq!(parse(&text(first)), Some(first));
        assert_eq!(parse("xyz"), None);
    }

    #[test]
    fn a_content_digest_ignores_column_order_empty_cells_and_the_key() {
        let a = content_digest(10, "+4915111", [("name", "Ada"), ("city", "Köln")]);
        let b = content_digest(10, "+4915111", [("city", "Köln"), ("name", "Ada"), ("x", "")]);
        assert_eq!(a, b);
        let keyed = [("city", "Köln"), ("name", "Ada"), (VARIABLE, "00ff")];
        assert_eq!(a, content_digest(10, "+4915111", keyed));
        assert_ne!(a, content_digest(10, "+4915111", [("name", "Ada"), ("city", "Bonn")]));
        assert_ne!(a, content_digest(10, "+4915122", [("name", "Ada"), ("city", "Köln")]));
        assert_ne!(a, content_digest(11, "+4915111", [("name", "Ada"), ("city", "Köln")]));
        assert_ne!(
            content_digest(10, "+49", [("ab", "c")]),
            content_digest(10, "+49", [("a", "bc")])
        );
    }

    #[test]
    fn with_duplicates_allowed_each_occurrence_is_its_own_lead() {
        let mut keys = RowKeys::new(true);
        let first = keys.next(&row("+4915111", 10, None));
        let second = keys.next(&row("+4915111", 10, None));
        assert_ne!(first, second);
        // The first occurrence is the lead a run without the flag makes: adding the flag later
        // sends no second copy of it.
        assert_eq!(RowKeys::new(false).next(&row("+4915111", 10, None)), first);
    }

    #[test]
    fn a_record_id_names_the_lead_whatever_its_number() {
        let mut keys = RowKeys::new(true);
        let anna = keys.next(&row("+4915111", 10, Some("K-1"))).unwrap();
        assert_eq!(keys.next(&row("+4915199", 10, Some(" K-1 "))), Some(anna));
        assert_ne!(keys.next(&row("+4915111", 10, Some("K-2"))), Some(anna));
        assert_ne!(keys.next(&row("+4915111", 10, Some(""))), Some(anna), "no id: the number");
    }
}
