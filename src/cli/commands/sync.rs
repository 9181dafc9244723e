//! `leadsync sync FILE|URL`: the cron form of import. Sends only leads not yet on the service,
//! resumes an interrupted run, takes a lock so overlapping runs do not race, and prints plain
//! log lines instead of bars.

use std::fs::File;
use std::path::PathBuf;

use anyhow::Context;

use super::import::{SendArgs, SourceArgs, display, execute, print_result, push_config, state_dir};
use crate::cli::config::Target;
use crate::cli::{Config, Outcome};
use crate::journal::OnChange;
use crate::pipeline::PushOptions;

#[derive(Debug, Clone, clap::Args)]
pub struct SyncArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub send: SendArgs,
}

pub async fn run(args: &SyncArgs, config: &Config) -> anyhow::Result<Outcome> {
    let state_dir = state_dir(&args.send)?;
    let key = run_key(args, config)?;
    let lock_path = state_dir.join("locks").join(format!("{key}.lock"));
    let Some(_lock) = try_lock(&lock_path)? else {
        eprintln!(
            "error: another `leadsync sync` of `{}` is running (lock `{}`); this run exits",
            args.source.source,
            lock_path.display()
        );
        return Ok(Outcome::Locked);
    };
    let push = PushOptions {
        config: push_config(&args.send)?,
        skip_existing: true,
        restart: false,
        journal: Some(state_dir.join("sync").join(format!("{key}.jsonl"))),
        state_dir,
        // A synced sheet changes between runs by design: a new version is a new run, and
        // `skip_existing` keeps it from sending what earlier runs sent.
        on_change: OnChange::StartOver,
    };
    if !config.quiet {
        eprintln!("sync: {} started", args.source.source);
    }
    let result =
        execute(&args.source, config, false, false, Some(push), display(config, true)).await?;
    print_result(&result, config)
}

/// One lock and journal per (source, mapping file, service, account).
fn run_key(args: &SyncArgs, config: &Config) -> anyhow::Result<String> {
    let (service, account) = match config.target()? {
        Target::Sandbox => ("sandbox".to_string(), String::new()),
        Target::Service(c) => (c.base_url.to_string(), c.token.fingerprint()),
    };
    let source = crate::pipeline::absolute_location(&args.source.source);
    let mapping =
        args.source.mapping.as_ref().map(|m| std::path::absolute(m).unwrap_or_else(|_| m.clone()));
    let text = format!("{source}\n{mapping:?}\n{service}\n{account}");
    Ok(blake3::hash(text.as_bytes()).to_hex()[..20].to_string())
}

/// An exclusive lock held for the life of the returned file; `None` if another process has it.
fn try_lock(path: &PathBuf) -> anyhow::Result<Option<File>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating `{}`", dir.display()))?;
    }
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .with_context(|| format!("opening the lock `{}`", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("locking `{}`", path.display()))
        }
    }
}
