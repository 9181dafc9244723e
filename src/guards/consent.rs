//! Consent: a column that says whether a person agreed to be called (`Opt-in`, `Einwilligung`),
//! and the cell values that mean yes.

use crate::row::{Issue, IssueCode, Said};

/// The consent check, resolved against a source's headers.
#[derive(Debug, Clone)]
pub struct Consent {
    pub column: usize,
    /// The column's header as the sheet writes it, for messages.
    pub header: String,
    /// Folded values that mean yes.
    yes: Vec<String>,
}

impl Consent {
    pub fn new(column: usize, header: String, values: &[String]) -> Consent {
        Consent { column, header, yes: values.iter().map(|v| fold(v)).collect() }
    }

    /// Whether the cell says the person agreed.
    pub fn given(&self, cell: &str) -> bool {
        let value = fold(cell);
        !value.is_empty() && self.yes.contains(&value)
    }

    /// The values that count, for messages.
    pub fn values(&self) -> &[String] {
        &self.yes
    }
}

/// A row without consent is not called, by design.
impl super::Guard for Consent {
    fn refuse_row(&self, cells: &csv::StringRecord) -> Option<Issue> {
        let cell = cells.get(self.column).unwrap_or("").trim();
        if self.given(cell) {
            return None;
        }
        let said = Said::NoConsent {
            column: self.header.clone(),
            cell: cell.to_string(),
            accepted: self.values().iter().map(|v| v.to_string()).collect(),
        };
        Some(Issue::said(IssueCode::NoConsent, Some(self.header.clone()), said))
    }
}

fn fold(text: &str) -> String {
    text.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_without_case_or_space_and_empty_is_no() {
        let consent = Consent::new(0, "Opt-in".into(), &["ja".into(), "X".into()]);
        assert!(consent.given(" JA "));
        assert!(consent.given("x"));
        assert!(!consent.given(""));
        assert!(!consent.given("nein"));
        assert!(!consent.given("jaa"));
    }
}
