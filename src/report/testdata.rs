//! A small run that exercises every status, umlauts, HTML and formula injection, for the
//! writers' tests.

use super::model::{ContactReport, Issue, IssueCode, RowReport, RowStatus, RunInfo, Variables};

pub(crate) fn headers() -> Vec<String> {
    ["Name", " Phone ", "Campaign", "Notes"].map(String::from).to_vec()
}

pub(crate) fn run_info() -> RunInfo {
    RunInfo {
        source: "leads.xlsx".into(),
        sheet: Some("Leads".into()),
        dry_run: true,
        interrupted: false,
        read_whole: false,
        campaigns_checked: false,
        blank_rows: 1,
        headers: headers(),
        reading_notes: Vec::new(),
        started_at: "2025-05-01T09:00:00Z".into(),
        finished_at: "2025-05-01T09:00:02Z".into(),
        assistant: None,
    }
}

struct Spec {
    row: u64,
    status: RowStatus,
    cells: [&'static str; 4],
    phone: Option<&'static str>,
    region: Option<&'static str>,
    campaign: Option<(u64, &'static str)>,
    errors: Vec<Issue>,
    warnings: Vec<Issue>,
}

fn issue(code: IssueCode, field: &str, message: &str) -> Issue {
    Issue::new(code, Some(field.to_string()), message)
}

fn build(spec: Spec) -> RowReport {
    let mut variables = Variables::new();
    variables.insert("name", spec.cells[0].into());
    RowReport {
        row: spec.row,
        status: spec.status,
        phone: spec.phone.map(String::from),
        campaign_id: spec.campaign.map(|c| c.0),
        record_id: None,
        lead_id: (spec.status == RowStatus::Created).then_some(9000 + spec.row),
        variables,
        errors: spec.errors,
        warnings: spec.warnings,
        secondary_contacts: Vec::new(),
        source_cells: spec.cells.map(String::from).to_vec(),
        region: spec.region.map(String::from),
        campaign_name: spec.campaign.map(|c| c.1.to_string()),
        number_type: spec.phone.map(|_| crate::phone::NumberType::Mobile),
    }
}

pub(crate) fn rows() -> Vec<RowReport> {
    use IssueCode::*;
    use RowStatus::*;
    let spring = Some((7, "Spring Promo"));
    let specs = vec![
        Spec {
            row: 2,
            status: Valid,
            cells: ["Jürgen Müller", "+49 151 12345678", "Spring Promo", "Rückruf"],
            phone: Some("+4915112345678"),
            region: Some("DE"),
            campaign: spring,
            errors: vec![],
            warnings: vec![],
        },
        Spec {
            row: 3,
            status: Rejected,
            cells: ["Eve", "12345", "Spring Promo", "=HYPERLINK(\"http://x\")"],
            phone: None,
            region: None,
            campaign: spring,
            errors: vec![issue(InvalidPhone, "Phone", "`12345` is too short to be a phone number")],
            warnings: vec![],
        },
        Spec {
            row: 4,
            status: Rejected,
            cells: ["Anna", "", "Spring Promo", ""],
            phone: None,
            region: None,
            campaign: spring,
            errors: vec![issue(MissingPhone, "Phone", "the phone cell is empty")],
            warnings: vec![],
        },
        Spec {
            row: 5,
            status: Duplicate,
            cells: ["Jürgen M.", "0151 12345678", "Spring Promo", ""],
            phone: Some("+4915112345678"),
            region: Some("DE"),
            campaign: spring,
            errors: vec![issue(
                DuplicateInFile,
                "phone_number",
                "same number as row 2 in the same campaign",
            )],
            warnings: vec![],
        },
        Spec {
            row: 6,
            status: Rejected,
            cells: ["Lukas", "+43 664 1234567", "Wnter Sale", ""],
            phone: Some("+436641234567"),
            region: Some("AT"),
            campaign: None,
            errors: vec![issue(UnknownCampaign, "Campaign", "no campaign is called `Wnter Sale`")],
            warnings: vec![],
        },
        Spec {
            row: 7,
            status: Rejected,
            cells: ["<script>alert(1)</script>", "<b>call</b>", "Spring Promo", "@SUM(A1)"],
            phone: None,
            region: None,
            campaign: spring,
            errors: vec![issue(InvalidPhone, "Phone", "`<b>call</b>` contains letters")],
            warnings: vec![],
        },
        Spec {
            row: 8,
            status: Failed,
            cells: ["Sam", "(415) 555-2671", "Spring Promo", ""],
            phone: Some("+14155552671"),
            region: Some("US"),
            campaign: spring,
            errors: vec![issue(RequestFailed, "phone", "the service timed out after 3 attempts")],
            warnings: vec![],
        },
        Spec {
            row: 9,
            status: Skipped,
            cells: ["Zoë", "+41 79 123 45 67", "Spring Promo", ""],
            phone: Some("+41791234567"),
            region: Some("CH"),
            campaign: spring,
            errors: vec![],
            warnings: vec![issue(AlreadyExists, "phone", "lead 4711 already has this number")],
        },
        Spec {
            row: 10,
            status: Created,
            cells: ["Chloé", "+33 6 12 34 56 78", "Été", ""],
            phone: Some("+33612345678"),
            region: Some("FR"),
            campaign: Some((8, "Été")),
            errors: vec![],
            warnings: vec![],
        },
        Spec {
            row: 11,
            status: Valid,
            cells: ["Max", "+49 30 12345678 ext. 12", "Spring Promo", "-1+2"],
            phone: Some("+493012345678"),
            region: Some("DE"),
            campaign: spring,
            errors: vec![],
            warnings: vec![issue(ExtensionDropped, "Phone", "extension `12` was dropped")],
        },
    ];
    let mut rows: Vec<RowReport> = specs.into_iter().map(build).collect();
    rows[9]
        .secondary_contacts
        .push(ContactReport { phone: "+4915199999999".into(), variables: Variables::new() });
    rows
}

/// `n` rejected rows, for the tests that check the writers' bounds.
pub(crate) fn many_rejected(n: u64) -> impl Iterator<Item = RowReport> {
    let template = rows().swap_remove(1);
    (0..n).map(move |i| RowReport { row: 100 + i, ..template.clone() })
}
