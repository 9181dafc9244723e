//! The HTML report's bounded tallies: reasons, warnings, campaigns, countries and number types.
//!
//! Campaigns and countries are keyed by name, so their number is capped: past the cap, new
//! names are counted together as "others" and memory stays flat on any input.

use std::collections::{BTreeMap, HashMap};

use super::super::distinct_codes;
use super::super::model::{IssueCode, RowReport, RowStatus};

const MAX_GROUPS: usize = 1_000;

/// The group of rows without a campaign, or without a recognised number: always listed last,
/// since it is not a campaign or country a person could confuse with a real one.
pub(super) const NONE: &str = "";

#[derive(Default)]
pub(super) struct Tally {
    pub(super) reasons: BTreeMap<IssueCode, u64>,
    pub(super) warnings: BTreeMap<IssueCode, u64>,
    pub(super) campaigns: Groups,
    pub(super) countries: Groups,
    /// Mobile, fixed line, premium rate, ...
    pub(super) number_types: Groups,
    /// Rows in the table, and rows that needed fixing but did not fit.
    pub(super) shown: u64,
    pub(super) hidden: u64,
}

impl Tally {
    pub(super) fn add(&mut self, row: &RowReport) {
        for code in distinct_codes(&row.errors) {
            *self.reasons.entry(code).or_default() += 1;
        }
        for code in distinct_codes(&row.warnings) {
            *self.warnings.entry(code).or_default() += 1;
        }
        let campaign = match (&row.campaign_name, row.campaign_id) {
            (Some(name), _) => Key::Name(name),
            (None, Some(id)) => Key::Id(id),
            (None, None) => Key::Name(NONE),
        };
        self.campaigns.add(campaign, row.status);
        self.countries.add(Key::Name(row.region.as_deref().unwrap_or(NONE)), row.status);
        let kind = row.number_type.map_or(NONE, |t| t.label());
        self.number_types.add(Key::Name(kind), row.status);
    }
}

pub(super) enum Key<'a> {
    Name(&'a str),
    Id(u64),
}

/// How a group's rows ended, for the stacked bars.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Split {
    /// Valid or created: these will be (or were) called.
    pub(super) good: u64,
    pub(super) skipped: u64,
    /// Rejected, duplicate or failed.
    pub(super) problem: u64,
}

impl Split {
    pub(super) fn total(&self) -> u64 {
        self.good + self.skipped + self.problem
    }

    fn add(&mut self, status: RowStatus) {
        match status {
            RowStatus::Valid | RowStatus::Created => self.good += 1,
            RowStatus::Skipped | RowStatus::NotSent => self.skipped += 1,
            RowStatus::Rejected | RowStatus::Duplicate | RowStatus::Failed => self.problem += 1,
        }
    }

    fn merge(&mut self, other: Split) {
        self.good += other.good;
        self.skipped += other.skipped;
        self.problem += other.problem;
    }
}

/// The largest groups, and the rest summed.
pub(super) struct Top<'a> {
    pub(super) groups: Vec<(&'a str, Split)>,
    pub(super) others: Option<Others>,
}

pub(super) struct Others {
    /// How many groups were summed: 0 when it is only the overflow past the cap.
    pub(super) groups: usize,
    pub(super) split: Split,
}

#[derive(Default)]
pub(super) struct Groups {
    named: HashMap<String, Split>,
    /// Rows whose group arrived after the cap was reached.
    overflow: Split,
}

impl Groups {
    fn add(&mut self, key: Key<'_>, status: RowStatus) {
        let key = match key {
            Key::Name(name) => std::borrow::Cow::Borrowed(name),
            Key::Id(id) => std::borrow::Cow::Owned(format!("Campaign #{id}")),
        };
        if let Some(split) = self.named.get_mut(key.as_ref()) {
            split.add(status);
        } else if self.named.len() < MAX_GROUPS {
            self.named.entry(key.into_owned()).or_default().add(status);
        } else {
            self.overflow.add(status);
        }
    }

    /// The `n` largest groups, largest first (ties by name, [`NONE`] last), and the rest summed.
    pub(super) fn top(&self, n: usize) -> Top<'_> {
        let mut groups: Vec<_> = self.named.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let rank =
            |(name, split): &(&str, Split)| (*name == NONE, std::cmp::Reverse(split.total()));
        groups.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.0.cmp(b.0)));
        let rest = groups.split_off(n.min(groups.len()));
        let mut others = self.overflow;
        rest.iter().for_each(|(_, split)| others.merge(*split));
        let others = (others.total() > 0).then_some(Others { groups: rest.len(), split: others });
        Top { groups, others }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.named.is_empty() && self.overflow.total() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::model::RowStatus;
    use super::{Groups, Key, MAX_GROUPS, Split};

    #[test]
    fn groups_are_capped_and_the_rest_summed() {
        let mut groups = Groups::default();
        for i in 0..MAX_GROUPS as u64 + 50 {
            groups.add(Key::Id(i), RowStatus::Valid);
        }
        groups.add(Key::Id(0), RowStatus::Rejected);
        let top = groups.top(3);
        let first = Split { good: 1, skipped: 0, problem: 1 };
        assert_eq!(top.groups[0], ("Campaign #0", first));
        assert_eq!(top.groups.len(), 3);
        let others = top.others.unwrap();
        assert_eq!(others.groups, MAX_GROUPS - 3);
        assert_eq!(others.split.total(), MAX_GROUPS as u64 + 50 - 3);
    }
}
