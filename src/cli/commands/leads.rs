//! `leadsync leads list`.

use clap::Subcommand;

use super::{print_json, print_table};
use crate::cli::args::OutputMode;
use crate::cli::{Config, Outcome, Session};
use crate::client::Lead;

#[derive(Debug, Subcommand)]
pub enum LeadsCommand {
    /// List the account's leads
    List,
}

pub async fn run(command: &LeadsCommand, config: &Config) -> anyhow::Result<Outcome> {
    let LeadsCommand::List = command;
    let session = Session::open(config).await?;
    let result = match config.output {
        OutputMode::Json => print_json(&session.client.list_leads_raw().await?),
        OutputMode::Table => {
            let rows: Vec<Vec<String>> =
                session.client.list_leads().await?.into_iter().map(lead_row).collect();
            print_table(
                &["id", "phone", "campaign", "status", "created", "contacts", "variables"],
                &rows,
            )
        }
    };
    session.close().await;
    result.map(|()| Outcome::Success)
}

fn lead_row(lead: Lead) -> Vec<String> {
    let variables: Vec<String> = lead.variables.iter().map(|(k, v)| format!("{k}={v}")).collect();
    vec![
        lead.id.to_string(),
        lead.phone_number,
        format!("{} ({})", lead.campaign.name, lead.campaign_id),
        lead.status,
        lead.created_at.0,
        lead.secondary_contacts.len().to_string(),
        variables.join(" "),
    ]
}
