//! Lead ids already claimed by rows of a journal, so reconciliation never gives one lead to two
//! rows. The ids an earlier run recorded are a sorted `Vec` (8 bytes an id: a resumed
//! million-row run holds a million); the ids this run claims or creates, a set beside it, so a
//! fresh run's set grows with what it sends and only a resume's earlier ids are compact.

use std::collections::HashSet;

#[derive(Debug, Clone, Default)]
pub struct Claimed {
    /// Read from the journal; sorted once reading is done.
    earlier: Vec<u64>,
    new: HashSet<u64>,
}

impl Claimed {
    pub fn contains(&self, id: &u64) -> bool {
        self.earlier.binary_search(id).is_ok() || self.new.contains(id)
    }

    pub fn insert(&mut self, id: u64) {
        if !self.contains(&id) {
            self.new.insert(id);
        }
    }

    /// Adds every id `other` holds (the claims of other runs).
    pub fn merge(&mut self, other: Claimed) {
        self.earlier.extend(other.earlier);
        self.settle();
        self.new.extend(other.new);
    }

    pub fn is_empty(&self) -> bool {
        self.earlier.is_empty() && self.new.is_empty()
    }

    /// An id the journal records, while it is read; `settle` sorts them.
    pub(super) fn record(&mut self, id: u64) {
        self.earlier.push(id);
    }

    pub(super) fn settle(&mut self) {
        self.earlier.sort_unstable();
        self.earlier.dedup();
        self.earlier.shrink_to_fit();
    }
}

impl FromIterator<u64> for Claimed {
    fn from_iter<I: IntoIterator<Item = u64>>(ids: I) -> Claimed {
        let mut claimed = Claimed { earlier: ids.into_iter().collect(), new: HashSet::new() };
        claimed.settle();
        claimed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_and_new_ids_are_both_claimed() {
        let mut claimed = Claimed::default();
        for id in [9, 3, 7, 3] {
            claimed.record(id);
        }
        claimed.settle();
        assert!(claimed.contains(&3) && claimed.contains(&9) && !claimed.contains(&4));
        claimed.insert(4);
        claimed.insert(7);
        assert!(claimed.contains(&4));
        assert_eq!(claimed.new.len(), 1, "an id already recorded is not stored twice");
        let from: Claimed = [5, 1].into_iter().collect();
        assert!(from.contains(&1) && from.contains(&5));
    }
}
