//! What was typed: clap structs only. `Config::from_args` turns them into something to run.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use super::commands;

/// Get leads from spreadsheets into the AI calling service: validated, fast, exactly once.
#[derive(Debug, Parser)]
#[command(name = "leadsync", version, about, max_term_width = 100)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes. The token is read from `LEADSYNC_TOKEN` or `--token-file`,
/// never from a plain argument, where any user of the machine could read it.
#[derive(Debug, Clone, clap::Args)]
pub struct GlobalArgs {
    /// Base URL of the service; its path ends in `/api`
    #[arg(long, env = "LEADSYNC_BASE_URL", global = true, value_name = "URL")]
    pub base_url: Option<String>,

    /// File that holds the bearer token (otherwise `LEADSYNC_TOKEN` is read)
    #[arg(long, env = "LEADSYNC_TOKEN_FILE", global = true, value_name = "FILE")]
    pub token_file: Option<PathBuf>,

    /// Allow plain http to a non-loopback address (the token travels in clear text)
    #[arg(long, global = true)]
    pub allow_insecure_http: bool,

    /// Seconds to wait for each answer of the service
    #[arg(
        long,
        env = "LEADSYNC_TIMEOUT",
        global = true,
        default_value_t = 30.0,
        value_name = "SECONDS"
    )]
    pub timeout: f64,

    /// Run against an embedded sandbox service with demo data: no account needed
    #[arg(long, global = true, conflicts_with = "base_url")]
    pub sandbox: bool,

    /// How to print records on stdout
    #[arg(long, global = true, value_enum, default_value_t = OutputMode::Table)]
    pub output: OutputMode,

    /// Print only errors on stderr
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// More detail on stderr (-v, -vv)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputMode {
    /// Aligned columns for people
    Table,
    /// The records as the service sent them
    Json,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the campaigns of the account
    #[command(subcommand)]
    Campaigns(commands::campaigns::CampaignsCommand),
    /// List the leads of the account
    #[command(subcommand)]
    Leads(commands::leads::LeadsCommand),
    /// List assistants
    #[command(subcommand)]
    Assistants(commands::assistants::AssistantsCommand),
    /// Manage the conversation-ended webhook
    #[command(subcommand)]
    Webhook(commands::webhook::WebhookCommand),
    /// Validate a sheet and send its leads (`--dry-run`: validate and report only)
    Import(commands::import::ImportArgs),
    /// Send a sheet's new leads: for cron (skips existing leads, resumes, locks, plain logs)
    Sync(commands::sync::SyncArgs),
    /// Write the mapping leadsync infers for a sheet, as a TOML file to review
    Init(commands::init::InitArgs),
    /// Run the local reference implementation of the service
    Sandbox(commands::sandbox::SandboxArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(commands::completions::CompletionsArgs),
    /// Print the man page (roff)
    Man,
}
