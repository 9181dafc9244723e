//! Who may be called, as the mapping and the command line ask for it: suppression lists,
//! countries, a country column, blocked number types and consent. The spec is the mapping's
//! part; `guards` resolves it against a source and applies it.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// What the mapping and the command line ask for, before it meets a source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuardSpec {
    /// Suppression lists: paths (relative ones already resolved) or URLs.
    pub suppress: Vec<String>,
    /// Countries numbers may belong to (codes or names); empty: any.
    pub countries: Vec<String>,
    /// The header of a column naming each row's country.
    pub region_column: Option<String>,
    /// Number types not to call; `None`: premium rate.
    pub block_number_types: Option<Vec<String>>,
    pub consent: Option<ConsentSpec>,
}

/// The mapping's `[consent]` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsentSpec {
    /// The header of the consent column.
    pub column: String,
    /// Cell values that mean "agreed", compared without case or surrounding space.
    #[serde(default = "default_consent_values")]
    pub values: Vec<String>,
}

/// "Yes" as a form, a CRM or a person writes it, in the six languages the headers are read in.
pub fn default_consent_values() -> Vec<String> {
    [
        "yes", "y", "ja", "j", "oui", "si", "sí", "x", "1", "true", "wahr", "vrai", "opt-in", "✓",
        "sì", "✔",
    ]
    .into_iter()
    .map(String::from)
    .collect()
}

/// A suppression list named in a mapping file, made relative to that file's folder.
pub fn relative_to(mapping_dir: &Path, list: &str) -> String {
    if crate::source::is_url(list) || Path::new(list).is_absolute() {
        return list.to_string();
    }
    mapping_dir.join(list).display().to_string()
}
