//! The report model: one `RowReport` per source row and the run's `Summary`.
//!
//! Every stage that judges a row speaks this vocabulary, and every writer (json, csv, html,
//! terminal) renders it. The JSON shape is the public contract, checked against
//! `schema/report.schema.json`.

use serde::Serialize;

/// What became of one row. The JSON names are the public contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
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
}

/// Why a row was refused or warned about. The JSON names are the public contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssueCode {
    MissingPhone,
    InvalidPhone,
    MissingCampaign,
    UnknownCampaign,
    AmbiguousCampaign,
    DuplicateInFile,
    AlreadyExists,
    ServerRejected,
    RequestFailed,
    InvalidSecondaryPhone,
    ExtensionDropped,
    CellError,
    Suppressed,
    SuppressedSecondary,
    ForeignNumber,
    ForeignSecondary,
    UnknownCountry,
    BlockedNumberType,
    BlockedSecondaryType,
    NoConsent,
}

impl IssueCode {
    pub fn as_str(self) -> &'static str {
        match self {
            IssueCode::MissingPhone => "missing_phone",
            IssueCode::InvalidPhone => "invalid_phone",
            IssueCode::MissingCampaign => "missing_campaign",
            IssueCode::UnknownCampaign => "unknown_campaign",
            IssueCode::AmbiguousCampaign => "ambiguous_campaign",
            IssueCode::DuplicateInFile => "duplicate_in_file",
            IssueCode::AlreadyExists => "already_exists",
            IssueCode::ServerRejected => "server_rejected",
            IssueCode::RequestFailed => "request_failed",
            IssueCode::InvalidSecondaryPhone => "invalid_secondary_phone",
            IssueCode::ExtensionDropped => "extension_dropped",
            IssueCode::CellError => "cell_error",
            IssueCode::Suppressed => "suppressed",
            IssueCode::SuppressedSecondary => "suppressed_secondary",
            IssueCode::ForeignNumber => "foreign_number",
            IssueCode::ForeignSecondary => "foreign_secondary",
            IssueCode::UnknownCountry => "unknown_country",
            IssueCode::BlockedNumberType => "blocked_number_type",
            IssueCode::BlockedSecondaryType => "blocked_secondary_type",
            IssueCode::NoConsent => "no_consent",
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

    /// A reason a row is not called by design, not a problem to fix.
    pub fn is_do_not_call(self) -> bool {
        matches!(self, IssueCode::Suppressed | IssueCode::NoConsent)
    }

    /// What a person should do about it, for the HTML report and the terminal summary.
    pub fn fix(self) -> &'static str {
        match self {
            IssueCode::MissingPhone => "enter a phone number in the phone column",
            IssueCode::InvalidPhone => {
                "correct the number, or write it with its country code (+49 …) if it is foreign"
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
                "write the country as a code (DE, AT, CH) or a name; the default region was used"
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
        }
    }
}

/// One problem with a row: an error refuses it, a warning lets it through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

pub use super::variables::Variables;

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
    pub number_type: Option<crate::guards::NumberType>,
}

impl RowReport {
    /// Skipped because the person must not be called (a suppression list, no consent).
    pub fn is_do_not_call(&self) -> bool {
        self.status == RowStatus::Skipped && self.errors.iter().any(|e| e.code.is_do_not_call())
    }
}

/// Counts over all rows. The JSON names are the public contract.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub rows: u64,
    pub valid: u64,
    pub rejected: u64,
    pub duplicates: u64,
    pub created: u64,
    pub skipped_existing: u64,
    /// Skipped because they must not be called: on a suppression list, or without consent.
    pub do_not_call: u64,
    pub failed: u64,
}

impl Summary {
    pub fn count(&mut self, row: &RowReport) {
        self.rows += 1;
        match row.status {
            RowStatus::Valid => self.valid += 1,
            RowStatus::Created => self.created += 1,
            RowStatus::Rejected => self.rejected += 1,
            RowStatus::Duplicate => self.duplicates += 1,
            RowStatus::Skipped if row.is_do_not_call() => self.do_not_call += 1,
            RowStatus::Skipped => self.skipped_existing += 1,
            RowStatus::Failed => self.failed += 1,
        }
    }

    /// Rows that need a person's attention: the run "finished with problems" (exit 3).
    pub fn has_problems(&self) -> bool {
        self.rejected + self.duplicates + self.failed > 0
    }
}

/// Facts about the run that every report states beside the counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunInfo {
    /// The file or URL read.
    pub source: String,
    /// The sheet read, for workbooks.
    pub sheet: Option<String>,
    /// True for `--dry-run`: nothing was sent.
    pub dry_run: bool,
    /// Ctrl-C stopped the run: the rows and counts cover only the rows handled before it, not
    /// the whole file. Every writer says so, so a partial report is never taken for a whole one.
    pub interrupted: bool,
    /// False with `--offline`: campaigns were not checked against the service.
    pub campaigns_checked: bool,
    /// Entirely blank rows, skipped without a report row.
    pub blank_rows: u64,
    /// The source's column headers, in order.
    pub headers: Vec<String>,
    /// How the file was read, where the person should know: rows skipped above the header,
    /// an encoding guessed, a code page replaced. Left out of the JSON when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reading_notes: Vec<String>,
    pub started_at: String,
    pub finished_at: String,
}
