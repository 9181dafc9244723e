//! `leadsync sync FILE|URL`: the cron form of import. Sends only leads not yet on the service,
//! resumes an interrupted run, exits 4 when an overlapping run holds the run's lock, and prints
//! plain log lines instead of bars.

use super::import::{
    SendArgs, SourceArgs, display, execute, outcome_of, print_machine, push_config, result_text,
    was_interrupted, write_summary,
};
use anyhow::Context;

use crate::cli::{Config, Outcome};
use crate::journal::{JournalError, OnChange};
use crate::pipeline::ImportResult;
use crate::pipeline::{PipelineError, PushOptions};

#[derive(Debug, Clone, clap::Args)]
pub struct SyncArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub send: SendArgs,
    /// Let this run stop or delete more leads than the mapping's `max_removed` allows (the
    /// sheet really lost that many people)
    #[arg(long)]
    pub allow_mass_removal: bool,
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
        front: "sync",
        sync: Some(crate::sync::Rules {
            allow_mass_removal: args.allow_mass_removal,
            ..Default::default()
        }),
    };
    if !config.quiet {
        eprintln!("{} sync: {} started", crate::progress::stamp(), args.source.source);
    }
    // Cron logs: every line with its time.
    let display = match display(config, true) {
        crate::progress::Display::Lines => crate::progress::Display::Log,
        other => other,
    };
    let started = std::time::Instant::now();
    match execute(&args.source, config, false, (false, false, None), Some(push), display).await {
        Ok(result) => {
            let new_problems = new_problems(&result)?;
            let outcome = match (outcome_of(&result), new_problems) {
                (Outcome::Problems, Some(0)) => Outcome::KnownProblems,
                (outcome, _) => outcome,
            };
            if !config.quiet {
                eprint!("{}", log_lines(&result, &args.source.source, new_problems));
            }
            print_machine(&result, config)?;
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

/// How many of this run's problem rows the last sync of the same run did not have; `None`
/// for a run that was stopped (its rows are a part of the sheet) or sent nothing.
fn new_problems(result: &ImportResult) -> anyhow::Result<Option<usize>> {
    let Some(push) = result.push.as_ref().filter(|_| !was_interrupted(result)) else {
        return Ok(None);
    };
    let path = push.journal.with_extension("problems");
    let new = crate::report::problems::new_since_last_run(&path, &result.outcome.problems)
        .with_context(|| format!("remembering this run's problem rows in `{}`", path.display()))?;
    Ok(Some(new))
}

/// What a cron log gets: one timestamped line when nothing is new (nothing sent, no new
/// problem), else the whole summary with each line timestamped.
fn log_lines(result: &ImportResult, source: &str, new_problems: Option<usize>) -> String {
    let summary = &result.outcome.summary;
    let sent = result.push.as_ref().map_or(0, |p| p.sent);
    let applied = result.sync.as_ref().and_then(|s| s.applied.as_ref());
    let changed = applied.is_some_and(|a| !a.entries.is_empty());
    if sent == 0 && !changed && new_problems == Some(0) {
        let problems = summary.rejected + summary.duplicates + summary.failed;
        let same = match problems {
            0 => String::new(),
            n => format!("; {} with the same problems as the last sync (exit 5)", rows(n)),
        };
        return format!(
            "{} sync: {source}: nothing new ({}, none to send){same}\n",
            crate::progress::stamp(),
            rows(summary.rows)
        );
    }
    let stamp = crate::progress::stamp();
    result_text(result).lines().map(|line| format!("{stamp} {line}\n")).collect()
}

/// `1 row`, `2 rows`.
fn rows(n: u64) -> String {
    format!("{n} {}", if n == 1 { "row" } else { "rows" })
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
