//! The row states read back from a journal, held compactly: a resumed run keeps one for every
//! row an earlier run touched, a million of them for a million-row sheet.
//!
//! A state is a 24-byte slot (row, kind, lead id or deadline, content fingerprint) in a vector
//! sorted by row, so a million rows take 24 MB; a hash map of [`RowState`] enums took about
//! 130 MB. The rare service message of a settled row lives in a side table, and rows beyond
//! `u32::MAX` (no spreadsheet has them) in a plain map.

use std::collections::HashMap;

use super::{Final, RowState};

/// Every row's last state, as [`RowState`]s going in and out.
#[derive(Debug, Clone, Default)]
pub struct RowStates {
    /// Sorted by row up to `sorted`; after that, rows that came out of order, until `settle`.
    slots: Vec<Slot>,
    sorted: usize,
    /// Service messages of settled rows, by row: only rejected rows have one.
    messages: HashMap<u64, String>,
    /// Rows numbered beyond `u32::MAX`.
    large: HashMap<u64, RowState>,
}

/// One row's state in 24 bytes. `value` is the lead id (`Done`) or the commit deadline
/// (`InDoubt`), when `kind` says there is one.
#[derive(Debug, Clone, Copy)]
struct Slot {
    row: u32,
    kind: Kind,
    value: u64,
    fp: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Done {
        status: Final,
        has_lead: bool,
    },
    InDoubt {
        has_deadline: bool,
    },
    Retry,
    /// Taken out by [`RowStates::remove`].
    Removed,
}

impl Slot {
    fn pack(row: u32, state: RowState) -> (Slot, Option<String>) {
        let slot = |kind, value: Option<u64>, fp| Slot { row, kind, value: value.unwrap_or(0), fp };
        match state {
            RowState::Done { status, lead_id, message, fp } => {
                let kind = Kind::Done { status, has_lead: lead_id.is_some() };
                (slot(kind, lead_id, fp), message)
            }
            RowState::InDoubt { fp, commit_by } => {
                (slot(Kind::InDoubt { has_deadline: commit_by.is_some() }, commit_by, fp), None)
            }
            RowState::Retry => (slot(Kind::Retry, None, 0), None),
        }
    }

    fn unpack(&self, message: Option<String>) -> Option<RowState> {
        let value = |present: bool| present.then_some(self.value);
        match self.kind {
            Kind::Done { status, has_lead } => {
                Some(RowState::Done { status, lead_id: value(has_lead), message, fp: self.fp })
            }
            Kind::InDoubt { has_deadline } => {
                Some(RowState::InDoubt { fp: self.fp, commit_by: value(has_deadline) })
            }
            Kind::Retry => Some(RowState::Retry),
            Kind::Removed => None,
        }
    }
}

impl RowStates {
    /// Records `state` as the row's latest, replacing any earlier one.
    pub fn insert(&mut self, row: u64, state: RowState) {
        let Ok(small) = u32::try_from(row) else {
            self.large.insert(row, state);
            return;
        };
        let (slot, message) = Slot::pack(small, state);
        match message {
            Some(message) => {
                self.messages.insert(row, message);
            }
            None if !self.messages.is_empty() => {
                self.messages.remove(&row);
            }
            None => {}
        }
        let in_order = self.slots.last().is_none_or(|last| last.row < small);
        if self.sorted == self.slots.len() && in_order {
            self.slots.push(slot);
            self.sorted += 1;
        } else if let Some(i) = self.find_sorted(small) {
            self.slots[i] = slot;
        } else {
            // Out of order (concurrent sends journal their attempts as they go): kept after the
            // sorted part and merged in once that tail is as long as the rest.
            self.slots.push(slot);
            if self.slots.len() - self.sorted > self.sorted.max(4096) {
                self.settle();
            }
        }
    }

    /// Sorts the out-of-order tail in; of several states for one row the last one read wins.
    pub fn settle(&mut self) {
        if self.sorted < self.slots.len() {
            // Stable: states of one row stay in journal order, so the last is the latest.
            self.slots.sort_by_key(|s| s.row);
            let mut kept = 0;
            for i in 0..self.slots.len() {
                let superseded = self.slots.get(i + 1).is_some_and(|n| n.row == self.slots[i].row);
                if !superseded {
                    self.slots[kept] = self.slots[i];
                    kept += 1;
                }
            }
            self.slots.truncate(kept);
            self.sorted = kept;
        }
        self.slots.shrink_to_fit();
    }

    /// The row's state, if the journal has one.
    pub fn get(&self, row: u64) -> Option<RowState> {
        let Ok(small) = u32::try_from(row) else { return self.large.get(&row).cloned() };
        let slot = self.find(small)?;
        slot.unpack(self.messages.get(&row).cloned())
    }

    /// Takes the row's state out, so it is acted on once.
    pub fn remove(&mut self, row: u64) -> Option<RowState> {
        let Ok(small) = u32::try_from(row) else { return self.large.remove(&row) };
        let i = self.position(small)?;
        let state = self.slots[i].unpack(self.messages.remove(&row));
        self.slots[i].kind = Kind::Removed;
        state
    }

    /// Every row with a state, and its latest state (in no particular order).
    pub fn iter(&self) -> impl Iterator<Item = (u64, RowState)> + '_ {
        let small = self.latest_slots().filter_map(|slot| {
            let row = u64::from(slot.row);
            slot.unpack(self.messages.get(&row).cloned()).map(|state| (row, state))
        });
        small.chain(self.large.iter().map(|(row, state)| (*row, state.clone())))
    }

    /// The rows whose latest state is in doubt.
    pub fn rows_in_doubt(&self) -> impl Iterator<Item = u64> + '_ {
        let small = self.latest_slots().filter(|s| matches!(s.kind, Kind::InDoubt { .. }));
        let large = self.large.iter().filter(|(_, s)| matches!(s, RowState::InDoubt { .. }));
        small.map(|s| u64::from(s.row)).chain(large.map(|(row, _)| *row))
    }

    /// How many rows are in each state: (settled, in doubt).
    pub fn counts(&self) -> (usize, usize) {
        let done = |s: &RowState| matches!(s, RowState::Done { .. });
        let doubt = |s: &RowState| matches!(s, RowState::InDoubt { .. });
        let mut counts = (0, 0);
        for slot in self.latest_slots() {
            counts.0 += usize::from(matches!(slot.kind, Kind::Done { .. }));
            counts.1 += usize::from(matches!(slot.kind, Kind::InDoubt { .. }));
        }
        counts.0 += self.large.values().filter(|s| done(s)).count();
        counts.1 += self.large.values().filter(|s| doubt(s)).count();
        counts
    }

    /// Each row's latest slot (the tail may hold several of one row until `settle`).
    fn latest_slots(&self) -> impl Iterator<Item = &Slot> {
        let (sorted, tail) = self.slots.split_at(self.sorted);
        let in_sorted = sorted.iter().filter(|s| !tail.iter().any(|t| t.row == s.row));
        let in_tail =
            tail.iter().enumerate().filter(|(i, s)| !tail[i + 1..].iter().any(|t| t.row == s.row));
        in_sorted.chain(in_tail.map(|(_, s)| s))
    }

    fn find(&self, row: u32) -> Option<&Slot> {
        self.position(row).map(|i| &self.slots[i])
    }

    /// Where the row's latest slot is: the tail's last one, else the sorted part's.
    fn position(&self, row: u32) -> Option<usize> {
        let tail = self.slots[self.sorted..].iter().rposition(|s| s.row == row);
        tail.map(|i| self.sorted + i).or_else(|| self.find_sorted(row))
    }

    fn find_sorted(&self, row: u32) -> Option<usize> {
        self.slots[..self.sorted].binary_search_by_key(&row, |s| s.row).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(lead: u64, fp: u64) -> RowState {
        RowState::Done { status: Final::Created, lead_id: Some(lead), message: None, fp }
    }

    #[test]
    fn a_slot_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Slot>(), 24);
    }

    #[test]
    fn every_state_comes_back_as_it_went_in() {
        let states = [
            done(41, 200),
            RowState::Done {
                status: Final::Rejected,
                lead_id: None,
                message: Some("phone refused".into()),
                fp: 7,
            },
            RowState::Done {
                status: Final::Skipped,
                lead_id: Some(0),
                message: None,
                fp: u64::MAX,
            },
            RowState::InDoubt { fp: 300, commit_by: None },
            RowState::InDoubt { fp: 500, commit_by: Some(1234) },
            RowState::Retry,
        ];
        let mut rows = RowStates::default();
        for (i, state) in states.iter().enumerate() {
            rows.insert(i as u64 + 2, state.clone());
        }
        let big = u64::from(u32::MAX) + 5;
        rows.insert(big, done(9, 9));
        rows.settle();
        for (i, state) in states.iter().enumerate() {
            assert_eq!(rows.get(i as u64 + 2).as_ref(), Some(state), "row {}", i + 2);
        }
        assert_eq!(rows.get(big), Some(done(9, 9)));
        assert_eq!(rows.get(1), None);
        assert_eq!(rows.get(100), None);
        assert_eq!(rows.counts(), (4, 2));
        let mut listed: Vec<(u64, RowState)> = rows.iter().collect();
        listed.sort_by_key(|(row, _)| *row);
        let mut wanted: Vec<(u64, RowState)> =
            states.iter().enumerate().map(|(i, s)| (i as u64 + 2, s.clone())).collect();
        wanted.push((big, done(9, 9)));
        assert_eq!(listed, wanted, "iter lists every row once with its state");
    }

    #[test]
    fn the_last_state_read_wins_in_any_order() {
        let mut rows = RowStates::default();
        // Attempts journaled out of order by concurrent sends, then their outcomes.
        for row in [2, 5, 3, 4, 9, 7, 8, 6] {
            rows.insert(row, RowState::InDoubt { fp: row, commit_by: None });
        }
        assert_eq!(rows.get(3), Some(RowState::InDoubt { fp: 3, commit_by: None }));
        for row in [5, 3, 2, 9] {
            rows.insert(row, done(row * 10, row));
        }
        rows.insert(4, RowState::Retry);
        rows.insert(4, RowState::InDoubt { fp: 4, commit_by: Some(1) });
        assert_eq!(rows.counts(), (4, 4));
        rows.settle();
        for row in [2, 3, 5, 9] {
            assert_eq!(rows.get(row), Some(done(row * 10, row)), "row {row}");
        }
        assert_eq!(rows.get(4), Some(RowState::InDoubt { fp: 4, commit_by: Some(1) }));
        assert_eq!(rows.get(6), Some(RowState::InDoubt { fp: 6, commit_by: None }));
        assert_eq!(rows.counts(), (4, 4));
    }

    #[test]
    fn a_later_state_drops_an_earlier_message() {
        let mut rows = RowStates::default();
        let rejected = RowState::Done {
            status: Final::Rejected,
            lead_id: None,
            message: Some("no".into()),
            fp: 1,
        };
        rows.insert(2, rejected.clone());
        rows.insert(2, RowState::Retry);
        assert_eq!(rows.get(2), Some(RowState::Retry));
        rows.insert(3, rejected.clone());
        assert_eq!(rows.remove(3), Some(rejected));
        assert_eq!(rows.remove(3), None, "taken once");
        assert_eq!(rows.get(3), None);
    }

    #[test]
    fn a_long_unordered_journal_settles_as_it_goes() {
        let mut rows = RowStates::default();
        let n = 20_000u64;
        // Rows in descending order: every one is out of order.
        for row in (2..n).rev() {
            rows.insert(row, done(row, row));
        }
        for row in (2..n).step_by(3) {
            rows.insert(row, RowState::Retry);
        }
        rows.settle();
        assert_eq!(rows.slots.len(), (n - 2) as usize);
        for row in 2..n {
            let want = if (row - 2) % 3 == 0 { RowState::Retry } else { done(row, row) };
            assert_eq!(rows.get(row), Some(want), "row {row}");
        }
    }
}
