//! A real sync: the sheet stays the truth. Before anything is sent, each row is compared with
//! what the ledger recorded for its identity ([`plan`]: new, changed, to stop, unchanged);
//! after the new leads are created, changed rows update their lead, and leads whose people
//! left the sheet or said no are stopped or deleted ([`apply`]), each change recorded in the
//! ledger before its request and after its answer.
//!
//! Only leads the ledger records as made by leadsync from this source are ever stopped or
//! deleted for a missing row; a lead made by hand or by another tool is never touched. A run
//! that would remove more than `max_removed` of a source's leads is refused before anything
//! is sent (`--allow-mass-removal` lets it through once), and a source that read as empty
//! removes nothing.

pub mod apply;
pub mod plan;

pub use crate::mapping::{OnRemoved, OnSuppressed};

/// How a sync treats leads whose rows changed, left, or now say no.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub on_removed: OnRemoved,
    pub on_suppressed: OnSuppressed,
    /// Leads of one source a run may stop or delete for missing rows; `None`: 10% of the
    /// source's leads, at least 5.
    pub max_removed: Option<u64>,
    /// Let one run remove more than `max_removed` (`--allow-mass-removal`).
    pub allow_mass_removal: bool,
}

impl Rules {
    /// These rules with what a mapping file sets on top (a front's choice stands where the
    /// mapping says nothing).
    pub fn with_mapping(self, mapping: Option<&crate::mapping::MappingFile>) -> Rules {
        let Some(mapping) = mapping else { return self };
        Rules {
            on_removed: mapping.on_removed.unwrap_or(self.on_removed),
            on_suppressed: mapping.on_suppressed.unwrap_or(self.on_suppressed),
            max_removed: mapping.max_removed.or(self.max_removed),
            allow_mass_removal: self.allow_mass_removal,
        }
    }

    /// How many of `made` leads of a source one run may stop or delete for missing rows.
    pub fn removal_limit(&self, made: u64) -> u64 {
        self.max_removed.unwrap_or_else(|| (made / 10).max(5))
    }
}

/// A run that would remove more leads than its rules allow: refused before anything is sent.
#[derive(Debug, thiserror::Error)]
#[error(
    "this sync would {verb} {removing} of the {made} leads made from `{source_name}` because their rows are gone, more than the {limit} allowed (`max_removed` in the mapping); nothing was sent or changed. If the sheet is right (not a partial export or a wrong file), run once with --allow-mass-removal"
)]
pub struct MassRemoval {
    pub verb: &'static str,
    pub removing: u64,
    pub made: u64,
    pub limit: u64,
    pub source_name: String,
}
