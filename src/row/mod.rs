//! The row model, on the ground floor: one `RowReport` per source row, its status, its issues
//! and its variables. Every stage that judges a row speaks this vocabulary (mapping, guards,
//! validate, push), and every report writer renders it, so it depends on none of them.
//!
//! The words people read about a row live here too, in English and German: the language and
//! its number words (`lang`), each reason's title and what to do (`words`), and each message
//! as a value with its parameters (`said`), so every front says the same in either language.

mod lang;
mod said;
mod variables;
mod words;

#[cfg(test)]
mod complete;

use serde::{Deserialize, Serialize};

pub use lang::{Lang, count, date_time, percent, plural, rate};
pub use said::{AssistantText, Said, number_kind, phone_problem};
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
    /// Hidden in the workbook by hand: skipped unless the mapping says `hidden_rows = "read"`.
    HiddenRow,
    /// Hidden by the sheet's autofilter: skipped unless `hidden_rows = "read"`.
    FilteredOut,
    /// A sync found the row's secondary number changed since its lead was made: the service
    /// cannot change a lead's secondary contacts, so the change is not sent.
    SecondaryNotUpdated,
    /// A sync updated the row's lead on the service: the values before and after.
    LeadUpdated,
    /// A sync stopped the row's lead (status `completed`): the row now says do not call.
    LeadStopped,
    /// A sync's update or stop of the row's lead was refused or stayed in doubt.
    ChangeFailed,
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
            IssueCode::HiddenRow => "hidden_row",
            IssueCode::FilteredOut => "filtered_out",
            IssueCode::SecondaryNotUpdated => "secondary_not_updated",
            IssueCode::LeadUpdated => "lead_updated",
            IssueCode::LeadStopped => "lead_stopped",
            IssueCode::ChangeFailed => "change_failed",
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

    /// Hidden in the workbook, by hand or by its autofilter.
    pub fn is_hidden(self) -> bool {
        matches!(self, IssueCode::HiddenRow | IssueCode::FilteredOut)
    }
}

/// One problem with a row: an error refuses it, a warning lets it through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    pub code: IssueCode,
    /// The lead field or source column concerned, when there is one.
    pub field: Option<String>,
    /// The message in English, as the JSON report has it (the public contract).
    pub message: String,
    /// The message as a value, to say it in any language. Not in the JSON report (its
    /// `message` is the English of it); the rows database stores it beside the message.
    /// Boxed: an issue travels in a `Result` through the checks, and most rows have none.
    #[serde(default, skip_serializing)]
    pub said: Box<Said>,
}

impl Issue {
    /// An issue with a message in one language only ([`Said::AsWritten`]): for words from
    /// outside the catalog. Every issue leadsync makes itself comes from [`Issue::said`].
    pub fn new(
        code: IssueCode,
        field: impl Into<Option<String>>,
        message: impl Into<String>,
    ) -> Self {
        Issue { code, field: field.into(), message: message.into(), said: Box::default() }
    }

    /// An issue whose message the catalog says, in English for the JSON report and in any
    /// language through [`Issue::message_in`].
    pub fn said(code: IssueCode, field: impl Into<Option<String>>, said: Said) -> Self {
        let message = said.render(Lang::En).unwrap_or_default();
        Issue { code, field: field.into(), message, said: Box::new(said) }
    }

    /// The message as a page shows it: in `lang`, quoted as the language quotes instead of
    /// with the terminal's backticks, and without the command line's advice (a page offers its
    /// own way: choosing the campaign on the Mapping page).
    pub fn page_message(&self, lang: Lang) -> String {
        if lang == Lang::En && matches!(*self.said, Said::NoCampaign) {
            return "no campaign: fill in the campaign column, or choose one campaign for every row"
                .into();
        }
        quoted(&self.message_in(lang), lang)
    }

    /// The message in `lang`; the English `message` when it was written in one language only
    /// (an issue stored by an older leadsync shows its English).
    pub fn message_in(&self, lang: Lang) -> String {
        match lang {
            Lang::En => self.message.clone(),
            Lang::De => self.said.render(lang).unwrap_or_else(|| self.message.clone()),
        }
    }
}

/// `text` with each pair of backticks turned into the language's quotes: “x” in English, „x“
/// in German. An odd backtick is left as it is.
fn quoted(text: &str, lang: Lang) -> String {
    if text.matches('`').count() % 2 == 1 {
        return text.to_string();
    }
    let (open, close) = match lang {
        Lang::En => ('\u{201c}', '\u{201d}'),
        Lang::De => ('\u{201e}', '\u{201c}'),
    };
    let mut opening = true;
    text.chars()
        .map(|c| match c {
            '`' => {
                let quote = if opening { open } else { close };
                opening = !opening;
                quote
            }
            other => other,
        })
        .collect()
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
    /// The CRM's own id of the record, when the mapping names an id column: who the lead is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_id: Option<String>,
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
            record_id: None,
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

    /// Skipped because the workbook hides it.
    pub fn is_hidden(&self) -> bool {
        self.status == RowStatus::Skipped && self.errors.iter().any(|e| e.code.is_hidden())
    }
}
