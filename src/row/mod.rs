//! The row model, on the ground floor: one `RowReport` per source row, its status, its issues
//! and its variables. Every stage that judges a row speaks this vocabulary (mapping, guards,
//! validate, push), and every report writer renders it, so it depends on none of them.

mod variables;

use serde::{Deserialize, Serialize};

pub use variables::{Variables, intern};

/// What became of one row. The JSON names are the public contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    /// Passed validation; a dry run stops here.
    Valid,
    /// A lead was created on the service.
    Created,
    /// Failed validation, or the service refused it.
    Rejected,
    /// The same number in the same campaign appeared earlier in the file.
    Duplicate,
    /// Not sent because the lead already exists on the service (`--skip-existing`).
    Skipped,
    /// Sending failed after every retry; running the same command again retries it.
    Failed,
    /// Read, but not sent because the run was stopped (Ctrl-C, SIGTERM): nothing went wrong
    /// with it, and running the same command again sends it.
    NotSent,
}

/// Why a row was refused or warned about. The JSON names are the public contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueCode {
    MissingPhone,
    InvalidPhone,
    /// `4,91511E+12`: Excel already dropped the number's last digits.
    ScientificNotation,
    MissingCampaign,
    UnknownCampaign,
    AmbiguousCampaign,
    DuplicateInFile,
    AlreadyExists,
    ServerRejected,
    RequestFailed,
    InvalidSecondaryPhone,
    ExtensionDropped,
    /// Words after the number (`(privat)`), not sent with it.
    RemarkDropped,
    CellError,
    Suppressed,
    SuppressedSecondary,
    ForeignNumber,
    ForeignSecondary,
    UnknownCountry,
    BlockedNumberType,
    BlockedSecondaryType,
    NoConsent,
    /// A variable the assistant speaks (`{{customer_name}}`) that the row leaves empty.
    MissingVariable,
    /// Left out by the person on the Check page (or the `--edits` file): never sent.
    Excluded,
}

impl IssueCode {
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::MissingPhone => "missing_phone",
            IssueCode::InvalidPhone => "invalid_phone",
            IssueCode::ScientificNotation => "scientific_notation",
            IssueCode::MissingCampaign => "missing_campaign",
            IssueCode::UnknownCampaign => "unknown_campaign",
            IssueCode::AmbiguousCampaign => "ambiguous_campaign",
            IssueCode::DuplicateInFile => "duplicate_in_file",
            IssueCode::AlreadyExists => "already_exists",
            IssueCode::ServerRejected => "server_rejected",
            IssueCode::RequestFailed => "request_failed",
            IssueCode::InvalidSecondaryPhone => "invalid_secondary_phone",
            IssueCode::ExtensionDropped => "extension_dropped",
            IssueCode::RemarkDropped => "remark_dropped",
            IssueCode::CellError => "cell_error",
            IssueCode::Suppressed => "suppressed",
            IssueCode::SuppressedSecondary => "suppressed_secondary",
            IssueCode::ForeignNumber => "foreign_number",
            IssueCode::ForeignSecondary => "foreign_secondary",
            IssueCode::UnknownCountry => "unknown_country",
            IssueCode::BlockedNumberType => "blocked_number_type",
            IssueCode::BlockedSecondaryType => "blocked_secondary_type",
            IssueCode::NoConsent => "no_consent",
            IssueCode::MissingVariable => "missing_variable",
            IssueCode::Excluded => "excluded",
        }
    }

    /// A reason from the "who may be called" guards.
    pub fn is_guard(self) -> bool {
        matches!(
            self,
            IssueCode::Suppressed
                | IssueCode::NoConsent
                | IssueCode::ForeignNumber
                | IssueCode::BlockedNumberType
        )
    }

    /// A guard that leaves a secondary number of a row out (the row itself is still sent).
    pub fn is_secondary_guard(self) -> bool {
        matches!(
            self,
            IssueCode::SuppressedSecondary
                | IssueCode::ForeignSecondary
                | IssueCode::BlockedSecondaryType
        )
    }

    /// A reason a row is not called by design, not a problem to fix.
    pub fn is_do_not_call(self) -> bool {
        matches!(self, IssueCode::Suppressed | IssueCode::NoConsent)
    }

    /// Left out on purpose, by a person, for this sheet.
    pub fn is_excluded(self) -> bool {
        self == IssueCode::Excluded
    }

    /// What a person should do about it, for the HTML report and the terminal summary.
    pub fn fix(self) -> &'static str {
        match self {
            IssueCode::MissingPhone => {
                "enter a phone number in the phone column, or name a column to fall back on: phone = [\"Telefon\", \"Mobil\"] takes the first one filled"
            }
            IssueCode::InvalidPhone => {
                "correct the number, or write it with its country code (+49 …) if it is foreign"
            }
            IssueCode::ScientificNotation => {
                "format the column as text and type the number again: Excel stored it in scientific notation and dropped its last digits"
            }
            IssueCode::MissingCampaign => "fill in the campaign column or pass --campaign",
            IssueCode::UnknownCampaign => "use the id or exact name of an existing campaign",
            IssueCode::AmbiguousCampaign => {
                "use the campaign id: several campaigns share this name"
            }
            IssueCode::DuplicateInFile => "remove the repeated row, or pass --allow-duplicates",
            IssueCode::AlreadyExists => "nothing to do: the lead is already on the service",
            IssueCode::ServerRejected => "correct the field the service names and import again",
            IssueCode::RequestFailed => "run the same command again: failed rows are retried",
            IssueCode::InvalidSecondaryPhone => {
                "correct the secondary number; the lead went without it"
            }
            IssueCode::ExtensionDropped => "none needed: the service takes no extensions",
            IssueCode::RemarkDropped => {
                "none needed: the number was kept and sent without the remark; put remarks in a column of their own to send them as a variable"
            }
            IssueCode::CellError => "fix the formula in the spreadsheet",
            IssueCode::Suppressed => {
                "none needed: the number is on a do-not-call list and is never sent"
            }
            IssueCode::SuppressedSecondary => {
                "none needed: the secondary number is on a do-not-call list and was left out"
            }
            IssueCode::ForeignNumber => {
                "check the number's country code or the row's country; widen `countries` only if the campaign may call there"
            }
            IssueCode::ForeignSecondary => {
                "check the secondary number's country code; it was left out"
            }
            IssueCode::UnknownCountry => {
                "write the country as a code (PL, SE, CZ) or a name, or the number with its country code (+48 …): a number without one is never read in another country"
            }
            IssueCode::BlockedNumberType => {
                "use another number for this person, or change `block_number_types` if calling this type is intended"
            }
            IssueCode::BlockedSecondaryType => {
                "none needed unless intended: the secondary number's type is blocked and it was left out"
            }
            IssueCode::NoConsent => {
                "record the person's consent in the consent column before they can be called"
            }
            IssueCode::MissingVariable => {
                "fill in the cell the assistant's text needs, or set missing_variables = \"warn\" in the mapping to send such rows anyway"
            }
            IssueCode::Excluded => {
                "none needed: you left this row out; include it again on its row page in `leadsync ui`, or remove it from the edits file"
            }
        }
    }
}

/// One problem with a row: an error refuses it, a warning lets it through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    pub code: IssueCode,
    /// The lead field or source column concerned, when there is one.
    pub field: Option<String>,
    pub message: String,
}

impl Issue {
    pub fn new(
        code: IssueCode,
        field: impl Into<Option<String>>,
        message: impl Into<String>,
    ) -> Self {
        Issue { code, field: field.into(), message: message.into() }
    }
}

/// A secondary contact as it will be (or was) sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContactReport {
    pub phone: String,
    pub variables: Variables,
}

/// Everything the reports say about one source row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowReport {
    /// The spreadsheet row number a person sees (header is row 1).
    pub row: u64,
    pub status: RowStatus,
    /// E.164, when the number could be normalized.
    pub phone: Option<String>,
    pub campaign_id: Option<u64>,
    pub lead_id: Option<u64>,
    pub variables: Variables,
    pub errors: Vec<Issue>,
    pub warnings: Vec<Issue>,
    pub secondary_contacts: Vec<ContactReport>,
    /// The row's cells as read, for the CSV report (not part of the JSON contract).
    #[serde(skip)]
    pub source_cells: Vec<String>,
    /// The phone's region (`DE`), for the per-country chart.
    #[serde(skip)]
    pub region: Option<String>,
    /// The campaign's name, for the per-campaign chart.
    #[serde(skip)]
    pub campaign_name: Option<String>,
    /// The main number's type, for the "numbers per type" chart.
    #[serde(skip)]
    pub number_type: Option<crate::phone::NumberType>,
}

impl RowReport {
    /// A row with a status and nothing else known about it yet.
    pub fn blank(row: u64, status: RowStatus) -> RowReport {
        RowReport {
            row,
            status,
            phone: None,
            campaign_id: None,
            lead_id: None,
            variables: Default::default(),
            errors: Vec::new(),
            warnings: Vec::new(),
            secondary_contacts: Vec::new(),
            source_cells: Vec::new(),
            region: None,
            campaign_name: None,
            number_type: None,
        }
    }

    /// Skipped because the person must not be called (a suppression list, no consent).
    pub fn is_do_not_call(&self) -> bool {
        self.status == RowStatus::Skipped && self.errors.iter().any(|e| e.code.is_do_not_call())
    }

    /// Left out by the person's edits.
    pub fn is_excluded(&self) -> bool {
        self.status == RowStatus::Skipped && self.errors.iter().any(|e| e.code.is_excluded())
    }
}
