//! `leadsync webhook enable`.

use clap::Subcommand;

use crate::cli::{Config, Outcome, Session};

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Send an assistant's conversation-ended notifications to URL
    Enable {
        /// The assistant's id
        #[arg(long, value_name = "ID")]
        assistant: u64,
        /// Where the service should POST the notifications
        #[arg(long, value_name = "URL")]
        url: String,
    },
}

pub async fn run(command: &WebhookCommand, config: &Config) -> anyhow::Result<Outcome> {
    let WebhookCommand::Enable { assistant, url } = command;
    let session = Session::open(config).await?;
    let result = session.client.enable_conversation_ended_webhook(*assistant, url).await;
    session.close().await;
    let message = result?;
    if !config.quiet {
        eprintln!("{}", if message.is_empty() { "webhook enabled" } else { &message });
    }
    Ok(Outcome::Success)
}
