//! What was typed: clap structs, and the parsers that hold every number to a range that makes
//! sense, so a bad value is a usage error naming the flag, the value and the range (never a panic
//! deep in the run). `Config::from_args` turns them into something to run.

use std::fmt::Display;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::str::FromStr;

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

    /// Seconds to wait for each answer of the service (0.1 to 3600)
    #[arg(
        long,
        env = "LEADSYNC_TIMEOUT",
        global = true,
        default_value_t = 30.0,
        value_name = "SECONDS",
        value_parser = timeout_secs,
        allow_negative_numbers = true
    )]
    pub timeout: f64,

    /// Settings of one account from `$XDG_CONFIG_HOME/leadsync/config.toml` (`[profiles.NAME]`)
    #[arg(long, env = "LEADSYNC_PROFILE", global = true, value_name = "NAME")]
    pub profile: Option<String>,

    /// Folder for journals, locks and the embedded sandbox's data, for every command (default:
    /// the profile's, else the XDG state directory)
    #[arg(long, env = "LEADSYNC_STATE_DIR", global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,

    /// Run against an embedded sandbox service with demo data: no account needed
    #[arg(long, global = true, conflicts_with = "base_url")]
    pub sandbox: bool,

    /// How to print records on stdout
    #[arg(long, global = true, value_enum, default_value_t = OutputMode::Table)]
    pub output: OutputMode,

    /// Colour on stderr: auto (on a terminal, unless NO_COLOR is set or CLICOLOR_FORCE forces
    /// it), always or never
    #[arg(long, global = true, value_enum, default_value_t = super::color::ColorChoice::Auto, value_name = "WHEN")]
    pub color: super::color::ColorChoice,

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
    /// Import in the browser: a local page that guides through choosing and reading a sheet
    Ui(commands::ui::UiArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish)
    Completions(commands::completions::CompletionsArgs),
    /// Print the man page (roff)
    Man,
}

/// `--timeout`: long enough for a slow answer on a bad line, short enough that a hung service is
/// noticed within the hour (writes in doubt wait twice this before they are sent again).
pub const TIMEOUT_SECS: RangeInclusive<f64> = 0.1..=3600.0;
/// `--rate`, besides 0 for no limit: below one request in 100 s a run never ends; above 10,000/s
/// no service answers anyway.
pub const RATE: RangeInclusive<f64> = 0.01..=10_000.0;
/// `--max-retries`: backoff doubles up to 30 s, so 100 retries is already most of an hour.
pub const MAX_RETRIES: RangeInclusive<u32> = 0..=100;
/// `--workers`: checking threads; more than 256 only costs memory and context switches.
pub const WORKERS: RangeInclusive<usize> = 0..=256;
/// `--concurrency`: requests in flight; beyond 256 a service sees a flood, not a client.
pub const CONCURRENCY: RangeInclusive<u16> = 1..=256;
/// `--header-row`: 1-based, and no worksheet has more than 1,048,576 rows.
pub const HEADER_ROW: RangeInclusive<u64> = 1..=1_048_576;

fn timeout_secs(raw: &str) -> Result<f64, String> {
    let hint = " (default 30; set by `--timeout` or `LEADSYNC_TIMEOUT`)";
    bounded(raw, TIMEOUT_SECS, "a number of seconds", hint)
}

/// 0 means no limit; anything else must lie in [`RATE`].
pub fn rate(raw: &str) -> Result<f64, String> {
    if raw.trim().parse::<f64>() == Ok(0.0) {
        return Ok(0.0);
    }
    bounded(raw, RATE, "requests per second", ", or 0 for no limit (default 5)")
}

pub fn max_retries(raw: &str) -> Result<u32, String> {
    bounded(raw, MAX_RETRIES, "a number of retries", " (default 5)")
}

pub fn workers(raw: &str) -> Result<usize, String> {
    bounded(raw, WORKERS, "a number of threads", " (0, the default, is one per core)")
}

pub fn concurrency(raw: &str) -> Result<u16, String> {
    bounded(raw, CONCURRENCY, "a number of requests in flight", " (default 4)")
}

pub fn header_row(raw: &str) -> Result<u64, String> {
    bounded(
        raw,
        HEADER_ROW,
        "the 1-based row of the headers",
        ", or leave the flag out to have it found",
    )
}

/// A number in `range`, or a message that says what was wrong and what to give instead (clap
/// puts the flag and the value in front of it). Infinities are out of every range; NaN, which
/// compares to nothing, not even itself, is not a number.
fn bounded<T>(raw: &str, range: RangeInclusive<T>, what: &str, hint: &str) -> Result<T, String>
where
    T: FromStr + PartialOrd + Display,
{
    let problem = match raw.trim().parse::<T>() {
        Ok(n) if range.contains(&n) => return Ok(n),
        Ok(n) if n.partial_cmp(&n).is_some() => "out of range",
        // `-1`, `2.5` or `1e3` for a count: a number, but not one this type can hold.
        Err(_) if raw.trim().parse::<f64>().is_ok_and(|f| !f.is_nan()) => {
            "not a whole number in range"
        }
        _ => "not a number",
    };
    let (min, max) = (range.start(), range.end());
    Err(format!("{problem}: give {what} from {min} to {max}{hint}"))
}

#[cfg(test)]
mod tests {
    use super::{concurrency, header_row, max_retries, rate, timeout_secs, workers};

    #[test]
    fn numbers_are_held_to_their_ranges() {
        assert_eq!(timeout_secs("0.1"), Ok(0.1));
        assert_eq!(timeout_secs(" 3600 "), Ok(3600.0));
        for bad in ["0", "0.09", "3600.5", "1e20", "-1", "nan", "inf", "", "30s"] {
            assert!(timeout_secs(bad).is_err(), "timeout {bad:?} was accepted");
        }
        assert_eq!(rate("0"), Ok(0.0));
        assert_eq!(rate("-0"), Ok(0.0));
        assert_eq!(rate("0.01"), Ok(0.01));
        assert_eq!(rate("10000"), Ok(10_000.0));
        for bad in ["1e-20", "0.009", "10000.1", "-5", "NaN", "infinity"] {
            assert!(rate(bad).is_err(), "rate {bad:?} was accepted");
        }
        assert_eq!((max_retries("0"), max_retries("100")), (Ok(0), Ok(100)));
        assert!(max_retries("101").is_err() && max_retries("-1").is_err());
        assert_eq!((workers("0"), workers("256")), (Ok(0), Ok(256)));
        assert!(workers("257").is_err());
        assert_eq!((concurrency("1"), concurrency("256")), (Ok(1), Ok(256)));
        assert!(concurrency("0").is_err() && concurrency("65536").is_err());
        assert_eq!((header_row("1"), header_row("1048576")), (Ok(1), Ok(1_048_576)));
        assert!(header_row("0").is_err() && header_row("1048577").is_err());
    }

    #[test]
    fn a_refusal_says_what_was_wrong_and_what_to_give() {
        assert_eq!(
            timeout_secs("1e20").unwrap_err(),
            "out of range: give a number of seconds from 0.1 to 3600 (default 30; set by \
             `--timeout` or `LEADSYNC_TIMEOUT`)"
        );
        assert_eq!(
            rate("fast").unwrap_err(),
            "not a number: give requests per second from 0.01 to 10000, or 0 for no limit \
             (default 5)"
        );
        assert!(rate("NaN").unwrap_err().starts_with("not a number: "));
        assert!(workers("-1").unwrap_err().starts_with("not a whole number in range: "));
        assert!(workers("many").unwrap_err().starts_with("not a number: "));
    }
}
