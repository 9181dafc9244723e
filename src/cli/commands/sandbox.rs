//! `leadsync sandbox`: the reference service, for tests, demos and trying imports.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use crate::cli::{Config, Outcome};
use crate::sandbox::{
    DEMO_TOKEN, Faults, LeadPaths, ListShape, Sandbox, SandboxConfig, Seed, WebhookRetry,
};

#[derive(Debug, clap::Args)]
pub struct SandboxArgs {
    /// Port to listen on; 0 picks a free one. The base URL is the first line on stdout
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// SQLite file that keeps the state across restarts (default: in memory)
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// JSON file with users, tokens, campaigns and assistants (default: the demo data)
    #[arg(long, value_name = "FILE")]
    seed: Option<PathBuf>,
    /// Fraction of requests answered 500/503 before doing anything
    #[arg(long, default_value_t = 0.0, value_parser = fraction)]
    fail_rate: f64,
    /// Fraction of requests carried out and then left unanswered (connection closed)
    #[arg(long, default_value_t = 0.0, value_parser = fraction)]
    drop_rate: f64,
    /// Fraction of writes (POST, PUT, DELETE) carried out and committed, then answered 500 anyway
    #[arg(long, default_value_t = 0.0, value_parser = fraction)]
    commit_fail_rate: f64,
    /// Fraction of writes carried out and committed whose answer is then held back for
    /// --stall-ms (a client with a shorter timeout gives up on a stored lead)
    #[arg(long, default_value_t = 0.0, value_parser = fraction, requires = "stall_ms")]
    stall_rate: f64,
    /// Fraction of writes that wait --stall-ms before being carried out, and are carried out
    /// and committed even if the client has given up meanwhile
    #[arg(long, default_value_t = 0.0, value_parser = fraction, requires = "stall_ms")]
    slow_commit_rate: f64,
    /// Fraction of writes carried out and committed, then answered 200 with an HTML page
    /// instead of the record
    #[arg(long, default_value_t = 0.0, value_parser = fraction)]
    garble_rate: f64,
    /// How long --stall-rate and --slow-commit-rate hold a write, in milliseconds (1 to 600000)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=600_000))]
    stall_ms: Option<u64>,
    /// Requests per second allowed per token (1 to 1000000); the rest get 429 with Retry-After
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    rate_limit: Option<u32>,
    /// Delay before each answer, in milliseconds (0 to 600000)
    #[arg(long, default_value_t = 0, value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=600_000))]
    latency_ms: u64,
    /// Seed of the fault generator, for repeatable runs
    #[arg(long, value_name = "N")]
    fault_seed: Option<u64>,
    /// Shape of the campaign, lead and outbound-assistant lists: a bare array (as the spec
    /// shows), wrapped in an object under the resource's name, or Laravel pages of 15
    #[arg(long, value_enum, default_value_t = ShapeArg::Bare, value_name = "SHAPE")]
    list_shape: ShapeArg,
    /// Paths under which a lead is updated (PUT) and deleted (DELETE): both `leads/{id}` and
    /// `user/leads/{id}`, or only one of them, to try a client's fallback between the two
    #[arg(long, value_enum, default_value_t = LeadPathsArg::Both, value_name = "FORM")]
    lead_paths: LeadPathsArg,
    /// First wait before a failed simulated webhook delivery is tried again, in milliseconds;
    /// later waits double (default: the service's 30 s, 60 s, 120 s)
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    webhook_retry_ms: Option<u64>,
}

/// `--list-shape`, kept apart from the library's `ListShape` so the library never sees clap.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ShapeArg {
    Bare,
    Wrapped,
    Paged,
}

impl From<ShapeArg> for ListShape {
    fn from(shape: ShapeArg) -> ListShape {
        match shape {
            ShapeArg::Bare => ListShape::Bare,
            ShapeArg::Wrapped => ListShape::Wrapped,
            ShapeArg::Paged => ListShape::Paged,
        }
    }
}

/// `--lead-paths`, kept apart from the library's `LeadPaths` for the same reason.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum LeadPathsArg {
    Both,
    UserOnly,
    BareOnly,
}

impl From<LeadPathsArg> for LeadPaths {
    fn from(paths: LeadPathsArg) -> LeadPaths {
        match paths {
            LeadPathsArg::Both => LeadPaths::Both,
            LeadPathsArg::UserOnly => LeadPaths::UserOnly,
            LeadPathsArg::BareOnly => LeadPaths::BareOnly,
        }
    }
}

fn fraction(raw: &str) -> Result<f64, String> {
    match raw.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("`{raw}` is not a fraction between 0 and 1")),
    }
}

pub async fn run(args: &SandboxArgs, config: &Config) -> anyhow::Result<Outcome> {
    let seed = match &args.seed {
        Some(path) => Some(Seed::from_path(path)?),
        None => None,
    };
    let faults = Faults {
        fail_rate: args.fail_rate,
        drop_rate: args.drop_rate,
        commit_fail_rate: args.commit_fail_rate,
        stall_rate: args.stall_rate,
        slow_commit_rate: args.slow_commit_rate,
        garble_rate: args.garble_rate,
        stall: Duration::from_millis(args.stall_ms.unwrap_or_default()),
        rate_limit: args.rate_limit,
        latency: Duration::from_millis(args.latency_ms),
        seed: args.fault_seed,
        echo_auth: None,
    };
    let webhook_retry = match args.webhook_retry_ms {
        Some(ms) => WebhookRetry::compressed(Duration::from_millis(ms)),
        None => WebhookRetry::default(),
    };
    let sandbox_config = SandboxConfig {
        db: args.db.clone(),
        seed: seed.clone(),
        faults,
        webhook_retry,
        list_shape: args.list_shape.into(),
        lead_paths: args.lead_paths.into(),
    };
    let sandbox = Sandbox::start(sandbox_config, SocketAddr::new(args.bind, args.port))
        .await
        .with_context(|| format!("starting the sandbox on {}:{}", args.bind, args.port))?;
    // Scripts read the first stdout line to find the service.
    println!("{}", sandbox.base_url);
    if !config.quiet {
        if seed.is_none() {
            eprintln!("demo token: {DEMO_TOKEN}");
            eprintln!(
                "try: LEADSYNC_TOKEN={DEMO_TOKEN} leadsync --base-url {} campaigns list",
                sandbox.base_url
            );
        }
        eprintln!("sandbox listening; Ctrl-C stops it");
    }
    tokio::select! {
        () = sandbox.wait() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(Outcome::Success)
}
