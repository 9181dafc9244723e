//! Who may be called: the checks between a valid number and a call. Suppression lists, the
//! countries a campaign may call, a per-row country for reading national numbers, number
//! types that must not be called (premium rate by default), and consent.
//!
//! [`GuardSpec`] is what the mapping and the command line ask for; [`Guards`] is that spec
//! resolved against a source's headers, with its lists loaded, shared read-only by the
//! checking threads. Each check is a [`Guard`] in a file of its own (`countries`,
//! `number_types`, `suppress`, `consent`), registered in [`Guards::resolve`]. Each verdict is an [`Issue`] with its own code; the row checker decides
//! what it does to the row's status. Guards are not part of a run's identity: adding a
//! suppression list to an interrupted run resumes it, and the lists are applied again before
//! every row is sent.

mod consent;
mod countries;
#[cfg(test)]
mod example;
mod never_call;
mod number_types;
mod suppress;

use std::path::PathBuf;
use std::sync::Arc;

pub use crate::mapping::{ConsentSpec, GuardSpec, default_consent_values, relative_to};
pub use consent::Consent;
pub use countries::Countries;
pub use never_call::{NeverCall, NeverCallEntry, NeverCalls};
pub use number_types::NumberTypes;
// Facts about numbers and countries live with the phone code; guards use them.
pub use crate::phone::{BLOCKABLE, BlockedTypes, NumberType, country_name, region_of};
pub use suppress::{SuppressError, Suppression, SuppressionList};

use crate::mapping::header_key;
use crate::phone::{Phone, PhoneParser};
use crate::row::{Issue, IssueCode, Said};

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    #[error(
        "`countries` names `{0}`, which is no country: use two-letter codes such as DE, AT, CH"
    )]
    UnknownCountry(String),
    #[error("`block_number_types`: {0}")]
    NumberType(String),
    #[error(
        "the mapping names column `{header}` for `{key}`, but {source_name} has no such column; its columns are: {available}"
    )]
    MissingColumn { key: &'static str, header: String, source_name: String, available: String },
    #[error(transparent)]
    Suppress(#[from] SuppressError),
}

/// One check of who may be called. A guard is a file of `guards/` that implements this, and a
/// line in [`Guards::resolve`] that builds it from the run's settings; the row checker asks
/// every guard of the run in turn, through [`Guards`].
pub trait Guard: std::fmt::Debug + Send + Sync {
    /// Why the number may not be called, if it may not.
    fn refuse_number(&self, _phone: &Phone) -> Option<Refusal> {
        None
    }

    /// Why the row's person may not be called at all (its cells say no), if they may not.
    fn refuse_row(&self, _cells: &csv::StringRecord) -> Option<Issue> {
        None
    }
}

/// A number a guard turns away, as said of a row's main number and of a secondary one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Not called by design (a do-not-call list), rather than a row to fix.
    pub skip: bool,
    pub main: (IssueCode, Said),
    /// A secondary number turned away is left out, with this warning.
    pub secondary: (IssueCode, Said),
}

/// The checks of one run, resolved and loaded, in the order they are asked: the first that
/// turns a number away says why.
#[derive(Debug, Clone)]
pub struct Guards {
    checks: Vec<Arc<dyn Guard>>,
    /// The column naming each row's country, and its header.
    region_column: Option<(usize, String)>,
}

/// With no settings, only premium-rate numbers are refused.
impl Default for Guards {
    fn default() -> Guards {
        Guards { checks: Vec::new(), region_column: None }.with(NumberTypes::default())
    }
}

/// What a guard makes of a row's main number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Refused: the row needs fixing (exit code 3).
    Reject(Issue),
    /// Not called, by design (a do-not-call list, no consent): not a problem to fix.
    Skip(Issue),
}

/// The region a row's national numbers are read in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowRegion {
    /// No region column, or an empty cell: the mapping's `region`.
    Default,
    Named(String),
    /// A cell that names no country: only a number written with its country code can be read.
    Unknown(UnknownCountry),
}

/// A country cell leadsync does not recognise (`Atlantis`, a typo). Reading the row's national
/// numbers in the default region instead would call someone else's number, so a number needs
/// its country code to be read in such a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCountry {
    pub cell: String,
    /// The country column's header.
    pub header: String,
}

impl UnknownCountry {
    /// The row's number carried its country code, so the cell did not matter: a warning.
    pub fn noted(&self) -> Issue {
        let said =
            Said::CountryUnknownRead { cell: self.cell.clone(), column: self.header.clone() };
        Issue::said(IssueCode::UnknownCountry, Some(self.header.clone()), said)
    }

    /// The row's number has no country code: it cannot be read, the row is refused.
    pub fn refused(&self, number: &str) -> Issue {
        let said = Said::CountryUnknownRefused {
            cell: self.cell.clone(),
            column: self.header.clone(),
            typed: number.to_string(),
        };
        Issue::said(IssueCode::UnknownCountry, Some(self.header.clone()), said)
    }

    /// A secondary number without a country code: left out, the lead goes without it.
    pub fn left_out(&self, number: &str, column: Option<String>) -> Issue {
        let said = Said::CountryUnknownSecondary {
            typed: number.to_string(),
            cell: self.cell.clone(),
            column: self.header.clone(),
        };
        Issue::said(IssueCode::UnknownCountry, column, said)
    }
}

impl Guards {
    /// Resolves `spec` against `headers`; `lists` are the suppression lists, already loaded.
    pub fn resolve(
        spec: &GuardSpec,
        headers: &[String],
        source_name: &str,
        lists: Vec<SuppressionList>,
    ) -> Result<Guards, GuardError> {
        let column = |key: &'static str, header: &str| {
            find_column(headers, header).ok_or_else(|| GuardError::MissingColumn {
                key,
                header: header.to_string(),
                source_name: source_name.to_string(),
                available: headers.iter().map(|h| format!("`{h}`")).collect::<Vec<_>>().join(", "),
            })
        };
        let countries = match spec.countries.as_slice() {
            [] => None,
            names => Some(Countries::new(allowed_regions(names)?)),
        };
        let blocked = match &spec.block_number_types {
            Some(names) => BlockedTypes::parse(names).map_err(GuardError::NumberType)?,
            None => BlockedTypes::default(),
        };
        let consent = match &spec.consent {
            Some(c) => {
                let index = column("consent.column", &c.column)?;
                Some(Consent::new(index, headers[index].trim().to_string(), &c.values))
            }
            None => None,
        };
        let region_column = match &spec.region_column {
            Some(h) => {
                let index = column("region_column", h)?;
                Some((index, headers[index].trim().to_string()))
            }
            None => None,
        };
        // The order of the messages: the country, then the type, then the lists; then consent.
        let guards = Guards { checks: Vec::new(), region_column }
            .with_some(countries)
            .with(NumberTypes(blocked))
            .with(Suppression { lists })
            .with_some(consent);
        Ok(guards)
    }

    /// These guards and `guard`, asked after them.
    pub fn with(mut self, guard: impl Guard + 'static) -> Guards {
        self.checks.push(Arc::new(guard));
        self
    }

    fn with_some(self, guard: Option<impl Guard + 'static>) -> Guards {
        match guard {
            Some(guard) => self.with(guard),
            None => self,
        }
    }

    /// The region a row's numbers are read in, from its country cell.
    pub fn row_region(&self, cells: &csv::StringRecord) -> RowRegion {
        let Some((column, header)) = &self.region_column else { return RowRegion::Default };
        let cell = cells.get(*column).unwrap_or("").trim();
        if cell.is_empty() {
            return RowRegion::Default;
        }
        match region_of(cell) {
            Some(region) => RowRegion::Named(region),
            None => RowRegion::Unknown(UnknownCountry {
                cell: cell.to_string(),
                header: header.clone(),
            }),
        }
    }

    /// Whether the row's main number may be called.
    pub fn judge_main(&self, phone: &Phone, field: impl FnOnce() -> String) -> Option<Verdict> {
        let Refusal { skip, main: (code, said), .. } = self.refusal(phone)?;
        // Named only for an issue: most rows have none, and the name costs an allocation.
        let issue = Issue::said(code, Some(field()), said);
        Some(if skip { Verdict::Skip(issue) } else { Verdict::Reject(issue) })
    }

    /// Why a secondary contact must be left out, if it must: a warning, the lead goes without it.
    pub fn judge_secondary(&self, phone: &Phone, column: Option<String>) -> Option<Issue> {
        let (code, said) = self.refusal(phone)?.secondary;
        Some(Issue::said(code, column, said))
    }

    /// The first guard that turns `phone` away.
    fn refusal(&self, phone: &Phone) -> Option<Refusal> {
        self.checks.iter().find_map(|guard| guard.refuse_number(phone))
    }

    /// Why the row's person may not be called at all (no consent), if they may not.
    pub fn judge_consent(&self, cells: &csv::StringRecord) -> Option<Issue> {
        self.checks.iter().find_map(|guard| guard.refuse_row(cells))
    }
}

/// The phone parser for a row's region, from a small per-thread cache.
pub fn parser_for(
    cache: &mut std::collections::HashMap<String, PhoneParser>,
    region: &str,
) -> Option<PhoneParser> {
    if let Some(parser) = cache.get(region) {
        return Some(*parser);
    }
    let parser = PhoneParser::new(region).ok()?;
    cache.insert(region.to_string(), parser);
    Some(parser)
}

fn allowed_regions(names: &[String]) -> Result<Vec<String>, GuardError> {
    let mut regions = names
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| region_of(n).ok_or_else(|| GuardError::UnknownCountry(n.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    regions.sort();
    regions.dedup();
    Ok(regions)
}

fn find_column(headers: &[String], header: &str) -> Option<usize> {
    let wanted = header_key(header);
    headers.iter().position(|h| header_key(h) == wanted)
}

/// Loads every list of `spec`, each from the local path it was fetched to.
pub fn load_lists(
    lists: &[(PathBuf, String)],
    phones: &PhoneParser,
) -> Result<Vec<SuppressionList>, GuardError> {
    let loaded = lists
        .iter()
        .map(|(path, name)| SuppressionList::load(path, name, phones))
        .collect::<Result<Vec<_>, _>>()?;
    for list in loaded.iter().filter(|l| l.unreadable > 0) {
        tracing::warn!(
            list = %list.name,
            entries = list.unreadable,
            rows = ?list.unreadable_rows,
            "entries of a suppression list are no phone number and were left out"
        );
    }
    Ok(loaded)
}
