//! `leadsync leads list` and `leadsync leads export`.

use std::path::{Path, PathBuf};

use clap::Subcommand;

use super::{print_json, print_table, print_written};
use crate::cli::args::OutputMode;
use crate::cli::{Config, Outcome, Session};
use crate::client::Lead;
use crate::export::export_leads;
use crate::mapping::parse_delimiter;

#[derive(Debug, Subcommand)]
pub enum LeadsCommand {
    /// List the account's leads
    List,
    /// Write the account's leads to a .csv or .xlsx file, every variable in its own column
    Export {
        /// Only the leads of this campaign, by id or name
        #[arg(long, value_name = "ID|NAME")]
        campaign: Option<String>,
        /// The file to write; the format comes from the extension (.csv or .xlsx)
        #[arg(long, short = 'o', value_name = "FILE")]
        out: PathBuf,
        /// What separates a .csv's cells: `,`, `;` (what a German Excel expects), `tab` or `|`
        #[arg(long, value_name = "CHAR", default_value = ",", value_parser = parse_delimiter)]
        delimiter: u8,
    },
}

pub async fn run(command: &LeadsCommand, config: &Config) -> anyhow::Result<Outcome> {
    match command {
        LeadsCommand::List => list(config).await,
        LeadsCommand::Export { campaign, out, delimiter } => {
            export(campaign.as_deref(), out, *delimiter, config).await
        }
    }
}

async fn export(
    campaign: Option<&str>,
    out: &Path,
    delimiter: u8,
    config: &Config,
) -> anyhow::Result<Outcome> {
    let session = Session::open(config).await?;
    let result = export_leads(&session.client, campaign, out, delimiter).await;
    session.close().await;
    print_written(&result?, "leads", out, config);
    Ok(Outcome::Success)
}

async fn list(config: &Config) -> anyhow::Result<Outcome> {
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
