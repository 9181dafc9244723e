//! `leads export`: the account's leads, one row per main lead, shaped for filtering in Excel.
//!
//! Columns: the lead's own fields, then every variable as its own column (the union of keys
//! over all leads, in the order they were first seen), then a count of secondary contacts and
//! one group of columns per contact position — `secondary_1_phone`, `secondary_1_status`,
//! `secondary_1_<variable>`, `secondary_2_…` — so "leads whose second contact is in Munich" is
//! one filter, not a parse of a JSON cell.

use std::path::{Path, PathBuf};

use indexmap::IndexSet;

use super::error::ExportError;
use super::table::{Column, ColumnKind, Table, variable_columns};
use super::{Format, Written, write_table};
use crate::client::{Client, Lead, SecondaryContact};
use crate::report::IssueCode;
use crate::validate::CampaignBook;

/// How many campaigns an "unknown campaign" error lists before it says "and N more".
const LISTED_CAMPAIGNS: usize = 20;

/// Exports the account's leads (those of one campaign, given by id or name) to `path`;
/// `delimiter` separates a CSV's cells.
pub async fn export_leads(
    client: &Client,
    campaign: Option<&str>,
    path: &Path,
    delimiter: u8,
) -> Result<Written, ExportError> {
    Format::from_path(path)?;
    let campaign_id = match campaign {
        Some(text) => Some(resolve_campaign(client, text).await?),
        None => None,
    };
    let mut leads = client.list_leads().await?;
    leads.retain(|lead| campaign_id.is_none_or(|id| lead.campaign_id == id));
    let path: PathBuf = path.to_path_buf();
    // Building and writing a big workbook takes seconds of CPU: off the async threads.
    tokio::task::spawn_blocking(move || {
        write_table(&path, &leads_table(&leads), "Leads", delimiter)
    })
    .await
    .map_err(|e| ExportError::Task(e.to_string()))?
}

/// The id of the campaign `text` names: an id, or a name compared case-insensitively.
async fn resolve_campaign(client: &Client, text: &str) -> Result<u64, ExportError> {
    let campaigns = client.list_campaigns().await?;
    if campaigns.is_empty() {
        return Err(ExportError::NoCampaigns { given: text.trim().to_string() });
    }
    let book = CampaignBook::new(campaigns.iter().map(|c| (c.id, c.name.clone())));
    let issue = match book.resolve(text) {
        Ok(found) => return Ok(found.id),
        Err(issue) => issue,
    };
    let problem = match issue.code {
        IssueCode::UnknownCampaign => format!("no campaign `{}`", text.trim()),
        _ => issue.message,
    };
    let mut listed: Vec<String> = campaigns
        .iter()
        .take(LISTED_CAMPAIGNS)
        .map(|c| format!("`{}` ({})", c.name, c.id))
        .collect();
    if campaigns.len() > LISTED_CAMPAIGNS {
        listed.push(format!("and {} more", campaigns.len() - LISTED_CAMPAIGNS));
    }
    Err(ExportError::Campaign { problem, campaigns: listed.join(", ") })
}

/// The leads as a table (see the module documentation for the columns).
pub fn leads_table(leads: &[Lead]) -> Table {
    let variables: IndexSet<&String> = leads.iter().flat_map(|l| l.variables.keys()).collect();
    let contacts = leads.iter().flat_map(|l| &l.secondary_contacts);
    let contact_variables: IndexSet<&String> = contacts.flat_map(|c| c.variables.keys()).collect();
    let slots = leads.iter().map(|l| l.secondary_contacts.len()).max().unwrap_or(0);
    let mut columns = fixed_columns();
    let slot_columns = (1..=slots).flat_map(|n| contact_columns(n, &contact_variables));
    let after_variables: Vec<Column> =
        std::iter::once(Column::new("secondary_contacts", ColumnKind::Integer))
            .chain(slot_columns)
            .collect();
    let taken: Vec<Column> = columns.iter().chain(&after_variables).cloned().collect();
    let names = variable_columns(&taken, variables.iter().copied());
    columns.extend(names.into_iter().map(|name| Column::new(name, ColumnKind::Text)));
    columns.extend(after_variables);
    let rows = leads.iter().map(|lead| lead_row(lead, &variables, &contact_variables, slots));
    Table { columns, rows: rows.collect() }
}

fn fixed_columns() -> Vec<Column> {
    use ColumnKind::{Integer, Phone, Text};
    let fixed = [
        ("id", Integer),
        ("campaign_id", Integer),
        ("campaign_name", Text),
        ("phone_number", Phone),
        ("status", Text),
        ("created_at", Text),
        ("updated_at", Text),
    ];
    fixed.into_iter().map(|(name, kind)| Column::new(name, kind)).collect()
}

fn contact_columns(n: usize, variables: &IndexSet<&String>) -> Vec<Column> {
    let own = [
        (format!("secondary_{n}_id"), ColumnKind::Integer),
        (format!("secondary_{n}_phone"), ColumnKind::Phone),
        (format!("secondary_{n}_status"), ColumnKind::Text),
    ];
    let own = own.into_iter().map(|(name, kind)| Column::new(name, kind));
    let vars =
        variables.iter().map(|key| Column::new(format!("secondary_{n}_{key}"), ColumnKind::Text));
    own.chain(vars).collect()
}

fn lead_row(
    lead: &Lead,
    variables: &IndexSet<&String>,
    contact_variables: &IndexSet<&String>,
    slots: usize,
) -> Vec<String> {
    let mut row = vec![
        lead.id.to_string(),
        lead.campaign_id.to_string(),
        lead.campaign.name.clone(),
        lead.phone_number.clone(),
        lead.status.clone(),
        lead.created_at.0.clone(),
        lead.updated_at.0.clone(),
    ];
    row.extend(variables.iter().map(|key| lead.variables.get(*key).cloned().unwrap_or_default()));
    row.push(lead.secondary_contacts.len().to_string());
    for n in 0..slots {
        row.extend(contact_cells(lead.secondary_contacts.get(n), contact_variables));
    }
    row
}

fn contact_cells(contact: Option<&SecondaryContact>, variables: &IndexSet<&String>) -> Vec<String> {
    let Some(contact) = contact else {
        return vec![String::new(); 3 + variables.len()];
    };
    let own = [contact.id.to_string(), contact.phone_number.clone(), contact.status.clone()];
    let vars = variables.iter().map(|key| contact.variables.get(*key).cloned().unwrap_or_default());
    own.into_iter().chain(vars).collect()
}

#[cfg(test)]
mod tests {
    use super::leads_table;
    use crate::client::{Lead, SecondaryContact};

    fn lead(id: u64, phone: &str, vars: &[(&str, &str)], contacts: Vec<SecondaryContact>) -> Lead {
        let mut lead = Lead { id, campaign_id: 10, phone_number: phone.into(), ..Lead::default() };
        lead.campaign.name = "Spring".into();
        lead.variables = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        lead.secondary_contacts = contacts;
        lead
    }

    fn contact(id: u64, phone: &str, vars: &[(&str, &str)]) -> SecondaryContact {
        SecondaryContact {
            id,
            phone_number: phone.into(),
            variables: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            status: "created".into(),
            ..SecondaryContact::default()
        }
    }

    #[test]
    fn variables_and_contacts_become_columns_in_first_seen_order() {
        let leads = [
            lead(1, "+491", &[("customer_name", "Zoë"), ("status", "vip")], vec![]),
            lead(
                2,
                "+492",
                &[("email", "a@b.c")],
                vec![contact(3, "+493", &[("role", "wife")]), contact(4, "+494", &[])],
            ),
        ];
        let table = leads_table(&leads);
        let names: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "id",
                "campaign_id",
                "campaign_name",
                "phone_number",
                "status",
                "created_at",
                "updated_at",
                "customer_name",
                "variable_status",
                "email",
                "secondary_contacts",
                "secondary_1_id",
                "secondary_1_phone",
                "secondary_1_status",
                "secondary_1_role",
                "secondary_2_id",
                "secondary_2_phone",
                "secondary_2_status",
                "secondary_2_role",
            ]
        );
        assert!(table.rows.iter().all(|row| row.len() == names.len()));
        assert_eq!(table.column("customer_name").unwrap(), ["Zoë", ""]);
        assert_eq!(table.column("variable_status").unwrap(), ["vip", ""]);
        assert_eq!(table.column("secondary_contacts").unwrap(), ["0", "2"]);
        assert_eq!(table.column("secondary_1_role").unwrap(), ["", "wife"]);
        assert_eq!(table.column("secondary_2_phone").unwrap(), ["", "+494"]);
    }
}
