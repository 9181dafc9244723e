//! The words the HTML page uses for statuses, issue codes and countries.

use super::super::model::{IssueCode, RowStatus};
use super::Esc;
use super::tally::NONE;

pub(super) fn status(status: RowStatus) -> &'static str {
    match status {
        RowStatus::Valid => "Valid",
        RowStatus::Created => "Created",
        RowStatus::Rejected => "Rejected",
        RowStatus::Duplicate => "Duplicate",
        RowStatus::Skipped => "Skipped",
        RowStatus::Failed => "Failed",
        RowStatus::NotSent => "Not sent yet",
    }
}

pub(super) fn reason(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => "No phone number",
        IssueCode::InvalidPhone => "Phone number not valid",
        IssueCode::ScientificNotation => "Number cut short by Excel",
        IssueCode::MissingCampaign => "No campaign",
        IssueCode::UnknownCampaign => "Unknown campaign",
        IssueCode::AmbiguousCampaign => "Ambiguous campaign name",
        IssueCode::DuplicateInFile => "Repeated in the file",
        IssueCode::AlreadyExists => "Already on the service",
        IssueCode::ServerRejected => "Refused by the service",
        IssueCode::RequestFailed => "Could not be sent",
        IssueCode::InvalidSecondaryPhone => "Second number not valid",
        IssueCode::ExtensionDropped => "Extension dropped",
        IssueCode::RemarkDropped => "Remark after the number dropped",
        IssueCode::CellError => "Formula error in a cell",
        IssueCode::Suppressed => "On a suppression list",
        IssueCode::SuppressedSecondary => "Second number on a suppression list",
        IssueCode::ForeignNumber => "Outside the allowed countries",
        IssueCode::ForeignSecondary => "Second number outside the allowed countries",
        IssueCode::UnknownCountry => "Country cell not recognised",
        IssueCode::BlockedNumberType => "Blocked number type",
        IssueCode::BlockedSecondaryType => "Second number of a blocked type",
        IssueCode::NoConsent => "No consent",
        IssueCode::MissingVariable => "Variable the assistant needs is empty",
        IssueCode::Excluded => "Excluded by you",
    }
}

/// A campaign's name as HTML.
pub(super) fn campaign(name: &str) -> String {
    match name {
        NONE => "No campaign".to_string(),
        name => Esc(name).to_string(),
    }
}

/// A number type's label as HTML.
pub(super) fn number_type(label: &str) -> String {
    match label {
        NONE => "No valid number".to_string(),
        label => Esc(label).to_string(),
    }
}

/// `DE` → `Germany` with the code underneath, as HTML; other codes are shown as they are.
pub(super) fn country(region: &str) -> String {
    if region == NONE {
        return "No valid number".to_string();
    }
    match crate::phone::country_name(region) {
        Some(name) => format!("{}<small>{}</small>", Esc(name), Esc(region)),
        None => Esc(region).to_string(),
    }
}
