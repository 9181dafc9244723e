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
    }
}

pub(super) fn reason(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => "No phone number",
        IssueCode::InvalidPhone => "Phone number not valid",
        IssueCode::MissingCampaign => "No campaign",
        IssueCode::UnknownCampaign => "Unknown campaign",
        IssueCode::AmbiguousCampaign => "Ambiguous campaign name",
        IssueCode::DuplicateInFile => "Repeated in the file",
        IssueCode::AlreadyExists => "Already on the service",
        IssueCode::ServerRejected => "Refused by the service",
        IssueCode::RequestFailed => "Could not be sent",
        IssueCode::InvalidSecondaryPhone => "Second number not valid",
        IssueCode::ExtensionDropped => "Extension dropped",
        IssueCode::CellError => "Formula error in a cell",
    }
}

/// A campaign's name as HTML.
pub(super) fn campaign(name: &str) -> String {
    match name {
        NONE => "No campaign".to_string(),
        name => Esc(name).to_string(),
    }
}

/// `DE` → `Germany` with the code underneath, as HTML; other codes are shown as they are.
pub(super) fn country(region: &str) -> String {
    if region == NONE {
        return "No valid number".to_string();
    }
    match COUNTRIES.iter().find(|(code, _)| *code == region) {
        Some((code, name)) => format!("{name}<small>{code}</small>"),
        None => Esc(region).to_string(),
    }
}

#[rustfmt::skip]
const COUNTRIES: &[(&str, &str)] = &[
    ("AE", "United Arab Emirates"), ("AR", "Argentina"), ("AT", "Austria"), ("AU", "Australia"),
    ("BE", "Belgium"), ("BG", "Bulgaria"), ("BR", "Brazil"), ("CA", "Canada"),
    ("CH", "Switzerland"), ("CL", "Chile"), ("CN", "China"), ("CO", "Colombia"),
    ("CZ", "Czechia"), ("DE", "Germany"), ("DK", "Denmark"), ("EE", "Estonia"), ("ES", "Spain"),
    ("FI", "Finland"), ("FR", "France"), ("GB", "United Kingdom"), ("GR", "Greece"),
    ("HK", "Hong Kong"), ("HR", "Croatia"), ("HU", "Hungary"), ("IE", "Ireland"),
    ("IL", "Israel"), ("IN", "India"), ("IT", "Italy"), ("JP", "Japan"), ("KR", "South Korea"),
    ("LI", "Liechtenstein"), ("LT", "Lithuania"), ("LU", "Luxembourg"), ("LV", "Latvia"),
    ("MX", "Mexico"), ("NL", "Netherlands"), ("NO", "Norway"), ("NZ", "New Zealand"),
    ("PL", "Poland"), ("PT", "Portugal"), ("RO", "Romania"), ("RS", "Serbia"), ("SE", "Sweden"),
    ("SG", "Singapore"), ("SI", "Slovenia"), ("SK", "Slovakia"), ("TR", "Türkiye"),
    ("UA", "Ukraine"), ("US", "United States"), ("ZA", "South Africa"),
];
