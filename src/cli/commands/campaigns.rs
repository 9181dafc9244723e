//! `leadsync campaigns list`.

use clap::Subcommand;

use super::{print_json, print_table};
use crate::cli::args::OutputMode;
use crate::cli::{Config, Outcome, Session};

#[derive(Debug, Subcommand)]
pub enum CampaignsCommand {
    /// List the account's campaigns
    List,
}

pub async fn run(command: &CampaignsCommand, config: &Config) -> anyhow::Result<Outcome> {
    let CampaignsCommand::List = command;
    let session = Session::open(config).await?;
    let result = match config.output {
        OutputMode::Json => print_json(&session.client.list_campaigns_raw().await?),
        OutputMode::Table => {
            let rows = session.client.list_campaigns().await?.into_iter().map(|c| {
                let hours = format!("{}–{}", c.allowed_hours_start_time, c.allowed_hours_end_time);
                vec![
                    c.id.to_string(),
                    c.name,
                    c.status,
                    c.max_calls_in_parallel.to_string(),
                    hours,
                    c.allowed_days.join(","),
                ]
            });
            print_table(
                &["id", "name", "status", "parallel", "hours", "days"],
                &rows.collect::<Vec<_>>(),
            )
        }
    };
    session.close().await;
    result.map(|()| Outcome::Success)
}
