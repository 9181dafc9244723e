//! The mapping file (`--mapping M.toml`): which column feeds which lead field.
//!
//! This is the user-facing format; `resolve` checks it against a source's headers. Unknown keys
//! are errors that name the key, because a typo silently ignored means a column silently lost.

use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// A mapping as written in TOML. Every part is optional; `infer` fills in what is missing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MappingFile {
    /// Workbook sheet, by name or 1-based position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheet: Option<SheetRef>,
    /// Header of the main phone column, or several (`["Telefon", "Mobil"]`): each row's
    /// number comes from the first one filled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<PhoneColumns>,
    /// Default region (ISO 3166 code such as `DE`) for numbers written without a country code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Header of a column holding each row's campaign, by id or by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub campaign_column: Option<String>,
    /// Header of a column holding the CRM's own id of each record (`id = "Kunden-Nr"`): a lead
    /// is then its campaign and that id, whatever its number or the rest of the row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// One campaign for every row, by id or by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub campaign: Option<CampaignRef>,
    /// Secondary contacts: phone column headers, or tables with their own variables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub secondary_contacts: Vec<ContactSpec>,
    /// Lead variable = header (or list of headers joined with a space) it comes from.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub variables: IndexMap<String, Columns>,
    /// Variables with the same value on every lead.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub constants: IndexMap<String, String>,
    /// Carry every column not mapped otherwise as a variable named after its header in
    /// snake_case.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub carry_unmapped: bool,
    /// CSV delimiter, when sniffing guesses wrong (`";"`, `"\t"`, `"|"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// Text encoding of a CSV, when detection guesses wrong (`"windows-1252"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// 1-based row of the headers, when a title block sits above them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_row: Option<u64>,
    /// Suppression (do-not-call) lists: files or URLs, paths relative to the mapping file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppress: Vec<String>,
    /// The countries numbers may belong to (`["DE", "AT", "CH"]`); empty: any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub countries: Vec<String>,
    /// Header of a column naming each row's country, for numbers written without a country code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region_column: Option<String>,
    /// Number types never called; `premium_rate` when absent, nothing when `[]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_number_types: Option<Vec<String>>,
    /// A column recording consent to be called, and the values that mean yes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consent: Option<super::ConsentSpec>,
    /// The assistant that calls the leads, by id or by name: every row is checked against the
    /// variables it uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assistant: Option<AssistantRef>,
    /// A row that leaves a variable the assistant needs empty: refused (`"error"`, the
    /// default) or sent with a warning (`"warn"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_variables: Option<MissingVariables>,
    /// Send each lead with its own key (the variable `leadsync_key`), by which a later run
    /// knows it; `false` falls back to matching leads by number and content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lead_key: Option<bool>,
    /// What `sync` does with a lead this source made whose row is gone: `keep` (the default),
    /// `stop` (status `completed`: no longer called) or `delete`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_removed: Option<OnRemoved>,
    /// What `sync` does with a lead whose row a do-not-call guard now refuses (a suppression
    /// list, the account's do-not-call list, consent now no): `stop` (the default) or `keep`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_suppressed: Option<OnSuppressed>,
    /// How many of a source's leads one sync may stop or delete because their rows are gone;
    /// default: 10% of them, at least 5. More refuses the run (`--allow-mass-removal`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_removed: Option<u64>,
    /// Rows hidden in a workbook, by hand or by its autofilter: `skip` (the default: a person
    /// does not see them, so they are not sent) or `read`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden_rows: Option<HiddenRows>,
}

/// What a run does with rows hidden in the workbook.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HiddenRows {
    /// Skipped, each with its reason (`hidden_row`, `filtered_out`).
    #[default]
    Skip,
    /// Read as any other row.
    Read,
}

/// What a sync does with a lead whose row left the sheet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnRemoved {
    /// Left as it is (and still called).
    #[default]
    Keep,
    /// Status `completed`: the campaign no longer calls it.
    Stop,
    /// Deleted from the service, for good.
    Delete,
}

/// What a sync does with a lead whose row now says do not call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnSuppressed {
    /// Status `completed`: no longer called.
    #[default]
    Stop,
    Keep,
}

/// A workbook sheet: by name or 1-based position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SheetRef {
    Index(usize),
    Name(String),
}

/// A campaign named in the mapping or on the command line: by id or by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CampaignRef {
    Id(u64),
    Name(String),
}

impl CampaignRef {
    /// `17` is an id, anything else a name.
    pub fn parse(raw: &str) -> CampaignRef {
        match raw.trim().parse() {
            Ok(id) => CampaignRef::Id(id),
            Err(_) => CampaignRef::Name(raw.trim().to_string()),
        }
    }

    /// The text as a row's campaign cell would hold it.
    pub fn as_text(&self) -> String {
        match self {
            CampaignRef::Id(id) => id.to_string(),
            CampaignRef::Name(name) => name.clone(),
        }
    }
}

/// An assistant named in the mapping or on the command line: by id or by name, as a campaign.
pub type AssistantRef = CampaignRef;

/// What a row that leaves a variable the assistant needs empty is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MissingVariables {
    /// Refused: the call would open with a gap.
    #[default]
    Error,
    /// Sent, with a warning in the report.
    Warn,
}

/// The phone column, or several in order of preference: a row's number comes from the first
/// whose cell holds something, so a sheet with `Telefon` and `Mobil` calls the mobile of a
/// person who has no landline instead of refusing the row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PhoneColumns {
    One(String),
    FirstFilled(Vec<String>),
}

impl PhoneColumns {
    pub fn headers(&self) -> Vec<&str> {
        match self {
            PhoneColumns::One(h) => vec![h.as_str()],
            PhoneColumns::FirstFilled(hs) => hs.iter().map(String::as_str).collect(),
        }
    }

    /// The preferred column, the one read first.
    pub fn first(&self) -> Option<&str> {
        self.headers().first().copied()
    }
}

impl From<&str> for PhoneColumns {
    fn from(header: &str) -> PhoneColumns {
        PhoneColumns::One(header.to_string())
    }
}

/// One header, or several whose cells are joined with a space (`["Vorname", "Nachname"]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Columns {
    One(String),
    Joined(Vec<String>),
}

impl Columns {
    pub fn headers(&self) -> Vec<&str> {
        match self {
            Columns::One(h) => vec![h.as_str()],
            Columns::Joined(hs) => hs.iter().map(String::as_str).collect(),
        }
    }
}

/// A secondary contact: just a phone header, or a table with variables of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ContactSpec {
    Phone(String),
    Table(ContactTable),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactTable {
    pub phone: String,
    #[serde(default)]
    pub variables: IndexMap<String, Columns>,
}

impl ContactSpec {
    pub fn phone(&self) -> &str {
        match self {
            ContactSpec::Phone(p) => p,
            ContactSpec::Table(t) => &t.phone,
        }
    }

    pub fn variables(&self) -> Option<&IndexMap<String, Columns>> {
        match self {
            ContactSpec::Phone(_) => None,
            ContactSpec::Table(t) => Some(&t.variables),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MappingFileError {
    #[error("cannot read the mapping `{path}`: {reason}")]
    Read { path: String, reason: String },
    #[error("the mapping `{path}` is not valid: {reason}")]
    Parse { path: String, reason: String },
}

impl MappingFile {
    pub fn load(path: &Path) -> Result<MappingFile, MappingFileError> {
        let text = std::fs::read_to_string(path).map_err(|e| MappingFileError::Read {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let mut file = MappingFile::parse(&text).map_err(|reason| MappingFileError::Parse {
            path: path.display().to_string(),
            reason,
        })?;
        // Lists are named relative to the mapping, so a mapping and its lists move together.
        let dir = path.parent().unwrap_or(Path::new("."));
        for list in &mut file.suppress {
            *list = super::relative_to(dir, list);
        }
        Ok(file)
    }

    /// The "who may be called" part of the mapping.
    pub fn guard_spec(&self) -> super::GuardSpec {
        super::GuardSpec {
            suppress: self.suppress.clone(),
            countries: self.countries.clone(),
            region_column: self.region_column.clone(),
            block_number_types: self.block_number_types.clone(),
            consent: self.consent.clone(),
        }
    }

    pub fn parse(text: &str) -> Result<MappingFile, String> {
        toml::from_str(text).map_err(|e| {
            // toml's message carries the line, the key and a caret; keep it on few lines.
            let reason = e.to_string().trim().replace("\n\n", "\n");
            match e.span().and_then(|span| unquoted_text(text, span.start)) {
                Some(hint) => format!("{reason}\n{hint}"),
                None => reason,
            }
        })
    }

    /// A column given in the file as a delimiter string, as the byte the reader wants.
    pub fn delimiter_byte(&self) -> Result<Option<u8>, String> {
        self.delimiter.as_deref().map(parse_delimiter).transpose()
    }
}

/// The usual slip behind a TOML error: a text value written without quotes (`phone = Telefon`,
/// which toml reads as a misspelt `true`). Names the fix for the line the error is on.
fn unquoted_text(text: &str, at: usize) -> Option<String> {
    let start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?;
    let (key, value) = line.split_once('=')?;
    let (key, value) = (key.trim(), value.trim());
    let bare = value.chars().next().is_some_and(|c| c.is_alphabetic())
        && !matches!(value, "true" | "false");
    bare.then(|| format!("text values need quotes: write {key} = \"{value}\""))
}

/// `","`, `";"`, `"\t"` or `"tab"`, `"|"`: one ASCII character.
pub fn parse_delimiter(raw: &str) -> Result<u8, String> {
    match raw {
        "\t" | "\\t" | "tab" | "TAB" => Ok(b'\t'),
        s if s.len() == 1 && s.is_ascii() => Ok(s.as_bytes()[0]),
        other => {
            Err(format!("the delimiter must be one ASCII character such as `;`, got `{other}`"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_form_from_the_docs_parses() {
        let file = MappingFile::parse(
            r#"
            sheet = "Leads"
            phone = "Telefon"
            region = "DE"
            campaign_column = "Kampagne"
            secondary_contacts = ["Phone 2", "Mobile 2"]
            [variables]
            customer_name = "Name"
            email = "E-Mail"
            "#,
        )
        .unwrap();
        assert_eq!(file.sheet, Some(SheetRef::Name("Leads".into())));
        assert_eq!(file.phone, Some("Telefon".into()));
        assert_eq!(file.secondary_contacts[1], ContactSpec::Phone("Mobile 2".into()));
        assert_eq!(file.variables["email"], Columns::One("E-Mail".into()));
    }

    #[test]
    fn tables_constants_and_joined_columns_parse() {
        let file = MappingFile::parse(
            r#"
            phone = "Phone"
            campaign = 17
            carry_unmapped = true
            delimiter = ";"
            header_row = 3
            [variables]
            customer_name = ["Vorname", "Nachname"]
            [constants]
            source = "fair 2026"
            [[secondary_contacts]]
            phone = "Phone 2"
            variables = { customer_name = "Contact 2" }
            "#,
        )
        .unwrap();
        assert_eq!(file.campaign, Some(CampaignRef::Id(17)));
        assert_eq!(file.variables["customer_name"].headers(), ["Vorname", "Nachname"]);
        assert_eq!(file.constants["source"], "fair 2026");
        assert_eq!(file.secondary_contacts[0].phone(), "Phone 2");
        assert_eq!(file.delimiter_byte().unwrap(), Some(b';'));
    }

    #[test]
    fn the_guard_keys_parse() {
        let file = MappingFile::parse(
            r#"
            phone = "Phone"
            campaign = 1
            suppress = ["dnc.csv", "https://example.com/dnc.txt"]
            countries = ["DE", "AT", "CH"]
            region_column = "Land"
            block_number_types = ["premium_rate", "shared_cost"]
            [consent]
            column = "Opt-in"
            values = ["ja", "yes"]
            "#,
        )
        .unwrap();
        let spec = file.guard_spec();
        assert_eq!(spec.suppress.len(), 2);
        assert_eq!(spec.countries, ["DE", "AT", "CH"]);
        assert_eq!(spec.region_column.as_deref(), Some("Land"));
        assert_eq!(spec.consent.unwrap().values, ["ja", "yes"]);
        let default = MappingFile::parse("[consent]\ncolumn = \"Opt-in\"\n").unwrap();
        assert!(default.consent.unwrap().values.contains(&"ja".to_string()));
    }

    #[test]
    fn suppression_lists_are_relative_to_the_mapping_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.toml");
        std::fs::write(&path, "suppress = [\"dnc.csv\", \"/abs/x.csv\", \"https://h/x\"]\n")
            .unwrap();
        let file = MappingFile::load(&path).unwrap();
        assert_eq!(file.suppress[0], dir.path().join("dnc.csv").display().to_string());
        assert_eq!(file.suppress[1], "/abs/x.csv");
        assert_eq!(file.suppress[2], "https://h/x");
    }

    #[test]
    fn phone_takes_one_column_or_a_list() {
        let one = MappingFile::parse("phone = \"Telefon\"\n").unwrap().phone.unwrap();
        assert_eq!(one.headers(), ["Telefon"]);
        let list = MappingFile::parse("phone = [\"Telefon\", \"Mobil\"]\n").unwrap().phone.unwrap();
        assert_eq!(list, PhoneColumns::FirstFilled(vec!["Telefon".into(), "Mobil".into()]));
        assert_eq!((list.headers(), list.first()), (vec!["Telefon", "Mobil"], Some("Telefon")));
        assert!(MappingFile::parse("phone = 3\n").is_err());
    }

    #[test]
    fn unknown_keys_are_errors_that_name_the_key() {
        let err = MappingFile::parse("phone = \"P\"\ncampaing = 3\n").unwrap_err();
        assert!(err.contains("campaing"), "{err}");
    }

    #[test]
    fn delimiters_are_single_ascii_characters() {
        assert_eq!(parse_delimiter("tab"), Ok(b'\t'));
        assert_eq!(parse_delimiter("|"), Ok(b'|'));
        assert!(parse_delimiter(";;").is_err());
    }
}
