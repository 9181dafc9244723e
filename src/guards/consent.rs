//! Consent: a column that says whether a person agreed to be called (`Opt-in`, `Einwilligung`),
//! and the cell values that mean yes.

use serde::{Deserialize, Serialize};

/// The mapping's `[consent]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsentSpec {
    /// The header of the consent column.
    pub column: String,
    /// Cell values that mean "agreed", compared without case or surrounding space.
    #[serde(default = "default_values")]
    pub values: Vec<String>,
}

/// "Yes" as a form, a CRM or a person writes it, in the six languages the headers are read in.
pub fn default_values() -> Vec<String> {
    ["yes", "y", "ja", "j", "oui", "si", "sí", "x", "1", "true", "wahr", "vrai", "opt-in", "✓"]
        .into_iter()
        .map(String::from)
        .collect()
}

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
