//! `leadsync sync FILE|URL`: the cron form of import. Sends only leads not yet on the service,
//! resumes an interrupted run, exits 4 when an overlapping run holds the run's lock, and prints
//! plain log lines instead of bars.

use super::import::{
    SendArgs, SourceArgs, display, execute, print_result, push_config, write_summary,
};
use crate::cli::{Config, Outcome};
use crate::journal::{JournalError, OnChange};
use crate::pipeline::{PipelineError, PushOptions};

#[derive(Debug, Clone, clap::Args)]
pub struct SyncArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub send: SendArgs,
}

pub async fn run(args: &SyncArgs, config: &Config) -> anyhow::Result<Outcome> {
    let push = PushOptions {
        config: push_config(&args.send, config)?,
        skip_existing: true,
        restart: false,
        journal: None,
        state_dir: config.state_dir()?,
        journal_folder: "sync",
        // Two cron jobs syncing one sheet with two mappings are two runs, not one that keeps
        // starting over.
        run_key: mapping_key(args),
        // A synced sheet changes between runs by design: a new version is a new run, and
        // `skip_existing` keeps it from sending what earlier runs sent.
        on_change: OnChange::StartOver,
    };
    if !config.quiet {
        eprintln!("sync: {} started", args.source.source);
    }
    let display = display(config, true);
    let started = std::time::Instant::now();
    match execute(&args.source, config, false, false, Some(push), display).await {
        Ok(result) => {
            let outcome = print_result(&result, config)?;
            write_summary(&args.source, "sync", &result, outcome, started)?;
            Ok(outcome)
        }
        Err(e) if is_busy(&e) => {
            eprintln!(
                "error: another `leadsync sync` of `{}` is running ({e:#}); this run exits",
                args.source.source
            );
            Ok(Outcome::Locked)
        }
        Err(e) => Err(e),
    }
}

/// The mapping file's absolute path, as part of the run's key.
fn mapping_key(args: &SyncArgs) -> String {
    let mapping =
        args.source.mapping.as_ref().map(|m| std::path::absolute(m).unwrap_or_else(|_| m.clone()));
    mapping.map(|m| m.display().to_string()).unwrap_or_default()
}

/// The run's journal is locked by another process (an overlapping cron tick).
fn is_busy(error: &anyhow::Error) -> bool {
    matches!(
        error.downcast_ref::<PipelineError>(),
        Some(PipelineError::Journal(JournalError::Busy { .. }))
    )
}
