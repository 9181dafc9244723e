//! `leadsync webhook enable`, `webhook listen` (the receiver) and `webhook export`.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;

use super::print_written;
use crate::cli::{Config, Outcome, Session};
use crate::events::{DEFAULT_MAX_BODY, Receiver, ReceiverConfig, Secret, journal_path};
use crate::export::export_events;
use crate::mapping::parse_delimiter;

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
    /// Receive the service's notifications and store each one once, on disk, before answering
    Listen(ListenArgs),
    /// Write stored notifications to a .csv or .xlsx file, one row per conversation
    Export(ExportArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListenArgs {
    /// Port to listen on; 0 picks a free one. The base URL is the first line on stdout
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// Where to store notifications: a directory (they go to `events.jsonl` in it) or a file
    #[arg(long, value_name = "DIR|FILE")]
    out: PathBuf,
    /// File holding the secret the service must send as `?token=` (otherwise
    /// `LEADSYNC_WEBHOOK_SECRET` is read)
    #[arg(long, env = "LEADSYNC_WEBHOOK_SECRET_FILE", value_name = "FILE")]
    secret_file: Option<PathBuf>,
    /// Largest accepted body, in bytes; larger ones get 413
    #[arg(long, default_value_t = DEFAULT_MAX_BODY, value_name = "BYTES", value_parser = max_body_bytes)]
    max_body: usize,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The stored notifications: the `--out` of `webhook listen` (a directory or a file)
    #[arg(long = "in", value_name = "DIR|FILE")]
    input: PathBuf,
    /// The file to write; the format comes from the extension (.csv or .xlsx)
    #[arg(long, short = 'o', value_name = "FILE")]
    out: PathBuf,
    /// What separates a .csv's cells: `,`, `;` (what a German Excel expects), `tab` or `|`
    #[arg(long, value_name = "CHAR", default_value = ",", value_parser = parse_delimiter)]
    delimiter: u8,
}

pub async fn run(command: &WebhookCommand, config: &Config) -> anyhow::Result<Outcome> {
    match command {
        WebhookCommand::Enable { assistant, url } => enable(*assistant, url, config).await,
        WebhookCommand::Listen(args) => listen(args, config).await,
        WebhookCommand::Export(args) => export(args, config),
    }
}

async fn enable(assistant: u64, url: &str, config: &Config) -> anyhow::Result<Outcome> {
    let session = Session::open(config).await?;
    let result = session.client.enable_conversation_ended_webhook(assistant, url).await;
    session.close().await;
    let message = result?;
    if !config.quiet {
        eprintln!("{}", if message.is_empty() { "webhook enabled" } else { &message });
    }
    Ok(Outcome::Success)
}

async fn listen(args: &ListenArgs, config: &Config) -> anyhow::Result<Outcome> {
    let secret = Secret::from_file_or_env(args.secret_file.as_deref())?;
    let receiver = Receiver::start(ReceiverConfig {
        bind: SocketAddr::new(args.bind, args.port),
        journal: journal_path(&args.out),
        secret,
        max_body: args.max_body,
    })
    .await
    .context("starting the receiver")?;
    // Scripts read the first stdout line to find the receiver.
    println!("{}", receiver.base_url);
    if !config.quiet {
        let (journal, stored) = (receiver.journal.display(), receiver.already_stored);
        eprintln!("storing notifications in {journal} ({stored} there already)");
        eprintln!(
            "point the service at {}/conversation-ended?token=<secret>; Ctrl-C stops",
            receiver.base_url
        );
        if !args.bind.is_loopback() {
            eprintln!(
                "note: plain http on {}: the token travels in the URL, so put a TLS proxy in front",
                args.bind
            );
        }
    }
    receiver.wait().await;
    Ok(Outcome::Success)
}

fn export(args: &ExportArgs, config: &Config) -> anyhow::Result<Outcome> {
    let written = export_events(&args.input, &args.out, args.delimiter)?;
    print_written(&written, "notifications", &args.out, config);
    Ok(Outcome::Success)
}

/// `--max-body`: from 1 KiB (a notification with a short transcript) to 64 MiB.
fn max_body_bytes(raw: &str) -> Result<usize, String> {
    const RANGE: std::ops::RangeInclusive<usize> = 1024..=64 * 1024 * 1024;
    match raw.parse::<usize>() {
        Ok(n) if RANGE.contains(&n) => Ok(n),
        _ => Err(format!(
            "give a number of bytes from {} to {} (default {DEFAULT_MAX_BODY})",
            RANGE.start(),
            RANGE.end()
        )),
    }
}
