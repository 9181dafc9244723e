//! `leadsync import FILE|URL`: validate a sheet and (unless `--dry-run`) send its leads.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

use crate::cli::args::{self, OutputMode};
use crate::cli::{Config, Outcome, Session};
use crate::edits::Edits;
use crate::journal::OnChange;
use crate::mapping::{MappingFile, parse_delimiter};
use crate::pipeline::{self, ImportOptions, ImportResult, PushOptions};
use crate::progress::Display;
use crate::push::PushConfig;
use crate::report::{PushCounts, RunSummary, first_message_line, terminal_summary_in};

/// Where the rows come from and how they map: shared by `import` and `sync`.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// The sheet: a CSV/TSV/XLSX/XLSM/XLSB/XLS/ODS file, or an http(s) URL to one
    #[arg(value_name = "FILE|URL")]
    pub source: String,
    /// Mapping file (TOML); without it the mapping is inferred from the headers
    #[arg(long, short = 'm', value_name = "M.toml")]
    pub mapping: Option<PathBuf>,
    /// Workbook sheet, by name or 1-based position (default: the first with data)
    #[arg(long, value_name = "NAME|INDEX")]
    pub sheet: Option<String>,
    /// Country for numbers without a country code, e.g. DE, FR, US
    #[arg(long, value_name = "CODE")]
    pub region: Option<String>,
    /// One campaign for every row, by id or name (overrides the mapping)
    #[arg(long, value_name = "ID|NAME")]
    pub campaign: Option<String>,
    /// The assistant that calls the leads, by id or name (overrides the mapping's
    /// `assistant`): every row is checked for the variables its texts use
    #[arg(long, value_name = "ID|NAME")]
    pub assistant: Option<String>,
    /// CSV delimiter (default: sniffed)
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// CSV text encoding, e.g. windows-1252, utf-16le (default: detected)
    #[arg(long, value_name = "LABEL")]
    pub encoding: Option<String>,
    /// 1-based row that holds the headers (default: sniffed)
    #[arg(
        long,
        value_name = "N",
        value_parser = args::header_row,
        allow_negative_numbers = true
    )]
    pub header_row: Option<u64>,
    /// Let the same number in the same campaign through more than once
    #[arg(long)]
    pub allow_duplicates: bool,
    /// A suppression (do-not-call) list: CSV/TSV/TXT/XLSX/ODS file or URL of numbers never to
    /// call, `+49900*` for a prefix. Repeatable; added to the mapping's `suppress`
    #[arg(long, value_name = "FILE|URL")]
    pub suppress: Vec<String>,
    /// Countries numbers may belong to, e.g. DE,AT,CH (overrides the mapping's `countries`)
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub countries: Option<Vec<String>>,
    /// Cells changed and rows left out, by row number, without touching the sheet: the
    /// `edits.json` of a check in `leadsync ui`. A run with edits resumes only with the same edits
    #[arg(long, value_name = "edits.json")]
    pub edits: Option<PathBuf>,
    /// Write a report; the format comes from the extension (.json, .csv, .xlsx, .html).
    /// Repeatable
    #[arg(long, value_name = "PATH")]
    pub report: Vec<PathBuf>,
    /// Write a JSON summary of the run for scripts (`-` for stdout): counts per status and
    /// code, journal and report paths, duration, exit code, the run's identity
    #[arg(long, value_name = "PATH")]
    pub summary_json: Option<PathBuf>,
    /// Threads that check rows, up to 256 (default: one per core)
    #[arg(
        long,
        default_value_t = 0,
        hide_default_value = true,
        value_name = "N",
        value_parser = args::workers,
        allow_negative_numbers = true
    )]
    pub workers: usize,
}

/// How to send: shared by `import` and `sync`.
#[derive(Debug, Clone, clap::Args)]
pub struct SendArgs {
    /// Requests in flight at once (1 to 256; default: the profile's, else 4)
    #[arg(long, value_name = "N", value_parser = args::concurrency, allow_negative_numbers = true)]
    pub concurrency: Option<u16>,
    /// Requests per second, smooth: 0.01 to 10000, or 0 for no limit (default: the profile's,
    /// else 5)
    #[arg(long, value_name = "PER_SECOND", value_parser = args::rate, allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// Retries (0 to 100) of a write the service cannot have acted on (a 503, a connection that
    /// never opened), and resends of one in doubt that the lead list shows was not saved
    #[arg(
        long,
        default_value_t = 5,
        value_name = "N",
        value_parser = args::max_retries,
        allow_negative_numbers = true
    )]
    pub max_retries: u32,
}

#[derive(Debug, Clone, clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub source: SourceArgs,
    #[command(flatten)]
    pub send: SendArgs,
    /// Validate and report only; send nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not contact the service (campaigns are not checked); implies --dry-run
    #[arg(long)]
    pub offline: bool,
    /// Skip rows whose number is already in their campaign on the service
    #[arg(long)]
    pub skip_existing: bool,
    /// The journal file (default: one per source and account in the state directory)
    #[arg(long, value_name = "PATH")]
    pub journal: Option<PathBuf>,
    /// Forget the journal of an earlier run and start over
    #[arg(long)]
    pub restart: bool,
    /// Keep the sheet the truth, as `sync` does: changed rows update their lead, and leads
    /// whose rows left or now say no are handled as the mapping's `on_removed` and
    /// `on_suppressed` say
    #[arg(long)]
    pub update: bool,
    /// With --update: let this run stop or delete more leads than `max_removed` allows
    #[arg(long, requires = "update")]
    pub allow_mass_removal: bool,
}

pub async fn run(args: &ImportArgs, config: &Config) -> anyhow::Result<Outcome> {
    let dry_run = args.dry_run || args.offline;
    let push = (!dry_run).then(|| -> anyhow::Result<PushOptions> {
        Ok(PushOptions {
            config: push_config(&args.send, config)?,
            skip_existing: args.skip_existing,
            restart: args.restart,
            journal: args.journal.clone(),
            state_dir: config.state_dir()?,
            journal_folder: "journals",
            run_key: String::new(),
            on_change: OnChange::Refuse,
            front: "import",
            sync: args.update.then(|| crate::sync::Rules {
                allow_mass_removal: args.allow_mass_removal,
                ..Default::default()
            }),
        })
    });
    let push = push.transpose()?;
    let display = display(config, false);
    let started = std::time::Instant::now();
    let preview_skips = dry_run && args.skip_existing;
    // A dry run with --update says what the update would change.
    let plan = (dry_run && args.update).then(|| crate::sync::Rules {
        allow_mass_removal: args.allow_mass_removal,
        ..Default::default()
    });
    let result =
        execute(&args.source, config, args.offline, (dry_run, preview_skips, plan), push, display)
            .await?;
    let outcome = print_result(&result, config)?;
    write_summary(&args.source, "import", &result, outcome, started)?;
    Ok(outcome)
}

/// `--summary-json`: the run summary for scripts, to a file (written aside, then renamed) or
/// to stdout.
pub fn write_summary(
    source: &SourceArgs,
    command: &str,
    result: &ImportResult,
    outcome: Outcome,
    started: std::time::Instant,
) -> anyhow::Result<()> {
    let Some(path) = &source.summary_json else { return Ok(()) };
    let mut summary = RunSummary::new(command, &result.outcome, &result.run);
    summary.exit_code = crate::cli::exit::code(outcome);
    summary.duration_secs = started.elapsed().as_secs_f64();
    if let Some(push) = &result.push {
        summary.journal = Some(push.journal.clone());
        summary.identity = push.identity.as_ref();
        summary.push = Some(PushCounts {
            sent: push.sent,
            from_journal: push.from_journal,
            reconciled: push.reconciled,
            rate_limited: push.rate_limited,
            in_doubt: push.unsettled,
            sending_secs: push.sending_secs,
        });
    }
    summary.sync = result.sync.as_ref().map(serde_json::to_value).transpose()?;
    let mut text = serde_json::to_string_pretty(&summary)?;
    text.push('\n');
    if path.as_os_str() == "-" {
        use std::io::Write;
        std::io::stdout().lock().write_all(text.as_bytes())?;
        return Ok(());
    }
    let mut aside = path.clone().into_os_string();
    aside.push(".part");
    std::fs::write(&aside, text)
        .with_context(|| format!("writing the summary `{}`", path.display()))?;
    std::fs::rename(&aside, path)
        .with_context(|| format!("writing the summary `{}`", path.display()))?;
    Ok(())
}

/// Runs the pipeline for `import` and `sync`: session, download, Ctrl-C, the import itself.
pub async fn execute(
    source: &SourceArgs,
    config: &Config,
    offline: bool,
    (dry_run, preview_skips, plan_sync): (bool, bool, Option<crate::sync::Rules>),
    push: Option<PushOptions>,
    display: Display,
) -> anyhow::Result<ImportResult> {
    let mapping = match &source.mapping {
        Some(path) => Some(MappingFile::load(path)?),
        None => None,
    };
    // Offline, no state is needed: no account, so no account's do-not-call list either.
    let state_dir = match (&push, offline) {
        (Some(push), _) => Some(push.state_dir.clone()),
        (None, true) => None,
        (None, false) => Some(config.state_dir()?),
    };
    let session = match (offline, &state_dir) {
        (false, Some(state_dir)) => Some(Session::open_in(config, state_dir).await?),
        _ => None,
    };
    let edits = match &source.edits {
        Some(path) => Arc::new(Edits::load(path)?),
        None => Arc::default(),
    };
    let (path, _download) = pipeline::local_copy(&source.source).await?;
    let opts = ImportOptions {
        path,
        location: source.source.clone(),
        mapping,
        sheet: source.sheet.clone(),
        region: source.region.clone().or_else(|| config.profile.region.clone()),
        campaign: source.campaign.clone(),
        assistant: source.assistant.clone(),
        delimiter: source.delimiter,
        encoding: source.encoding.clone(),
        header_row: source.header_row,
        suppress: source.suppress.clone(),
        countries: source.countries.clone(),
        offline,
        preview_skips,
        allow_duplicates: source.allow_duplicates,
        dry_run,
        reports: source.report.clone(),
        workers: source.workers,
        push,
        display,
        max_rows: None,
        row_limit: None,
        edits,
        board: None,
        state_dir,
        plan_sync,
        lang: crate::row::Lang::from_env(),
    };
    let stop = stop_on_signal(config.quiet);
    let result = pipeline::import(&opts, session.as_ref().map(|s| &s.client), stop).await;
    if let Some(session) = session {
        session.close().await;
    }
    Ok(result?)
}

/// The send settings, each already held to its range by its clap parser (`SendArgs` is only
/// ever built by clap).
/// How to send: the flag, else the profile, else the default.
pub fn push_config(args: &SendArgs, config: &Config) -> anyhow::Result<PushConfig> {
    let defaults = PushConfig::default();
    let profile = &config.profile;
    let concurrency = args.concurrency.or(profile.concurrency).map(usize::from);
    Ok(PushConfig {
        concurrency: concurrency.unwrap_or(defaults.concurrency),
        rate: args.rate.or(profile.rate).unwrap_or(defaults.rate),
        max_retries: args.max_retries,
        ..defaults
    })
}

/// Bars on a watched terminal, log lines otherwise (always for `sync`), nothing with `-q`.
pub fn display(config: &Config, plain: bool) -> Display {
    match (config.quiet, config.stderr_is_tty && !plain) {
        (true, _) => Display::Hidden,
        (false, true) => Display::Bars,
        (false, false) => Display::Lines,
    }
}

/// The first Ctrl-C or SIGTERM (what `systemctl stop`, `timeout` and Kubernetes send) stops
/// the run gracefully: requests in flight finish, and the journal, the reports and the summary
/// are written. A second signal exits at once (the journal is consistent either way: attempts
/// are on disk before requests go out).
fn stop_on_signal(quiet: bool) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    tokio::spawn(async move {
        let Some(first) = crate::cli::exit::next_signal().await else { return };
        crate::cli::exit::stopped_by(first);
        flag.store(true, Ordering::Relaxed);
        if !quiet {
            let again =
                if first == crate::cli::exit::Signal::Interrupt { "Ctrl-C" } else { "the signal" };
            eprintln!(
                "stopping ({}): finishing requests in flight and writing the journal and reports ({again} again to quit at once)",
                first.name()
            );
        }
        if let Some(second) = crate::cli::exit::next_signal().await {
            std::process::exit(i32::from(second.exit_code()));
        }
    });
    stop
}

pub fn print_result(result: &ImportResult, config: &Config) -> anyhow::Result<Outcome> {
    if config.verbose > 0
        && !config.quiet
        && let Some(line) = first_message_line(&result.outcome)
    {
        eprint!("{line}");
    }
    if !config.quiet {
        let text = result_text(result);
        match config.color {
            true => eprint!("{}", crate::cli::color::paint_summary(&text)),
            false => eprint!("{text}"),
        }
    }
    print_machine(result, config)?;
    Ok(outcome_of(result))
}

/// The summary for people: counts, reasons, reports, and how sending went.
pub fn result_text(result: &ImportResult) -> String {
    let lang = crate::row::Lang::from_env();
    let mut text = terminal_summary_in(&result.outcome, &result.run, lang);
    if let Some(push) = &result.push {
        text.push_str(&push_lines(push, &result.outcome.summary));
    }
    text
}

/// The summary as JSON on stdout, with `--output json`.
pub fn print_machine(result: &ImportResult, config: &Config) -> anyhow::Result<()> {
    if config.output == OutputMode::Json {
        let push = result.push.as_ref().map(|p| {
            serde_json::json!({"journal": p.journal, "sent": p.sent, "from_journal": p.from_journal,
                "reconciled": p.reconciled, "rate_limited": p.rate_limited, "interrupted": p.interrupted,
                "sending_secs": p.sending_secs})
        });
        super::print_json(
            &serde_json::json!({ "summary": result.outcome.summary, "run": result.run, "push": push }),
        )?;
    }
    Ok(())
}

/// How the run ended, for the exit code.
pub fn outcome_of(result: &ImportResult) -> Outcome {
    // Ctrl-C wins over the counts in every mode: the counts cover part of the file only.
    if was_interrupted(result) {
        Outcome::Interrupted
    } else if result.outcome.summary.has_problems() || changes_failed(result) {
        Outcome::Problems
    } else {
        Outcome::Success
    }
}

/// A sync's change the service refused, or left in doubt after every try.
fn changes_failed(result: &ImportResult) -> bool {
    let applied = result.sync.as_ref().and_then(|s| s.applied.as_ref());
    applied.is_some_and(|a| a.failed > 0)
}

pub fn was_interrupted(result: &ImportResult) -> bool {
    result.run.interrupted || result.push.as_ref().is_some_and(|p| p.interrupted)
}

fn push_lines(push: &crate::push::PushSummary, summary: &crate::report::Summary) -> String {
    let mut out = String::new();
    if push.sent == 0 && push.from_journal > 0 && !push.interrupted {
        out.push_str(&format!(
            "nothing to send: {} rows were settled by an earlier run (journal {}); `--restart` starts over\n",
            push.from_journal,
            push.journal.display()
        ));
    } else if push.from_journal > 0 {
        out.push_str(&format!(
            "resumed: {} rows settled by an earlier run were not sent again\n",
            push.from_journal
        ));
    }
    if push.reconciled > 0 {
        out.push_str(&format!("{} rows settled from the service's lead list\n", push.reconciled));
    }
    if push.rate_limited > 0 {
        out.push_str(&format!(
            "the service rate-limited {} requests; leadsync slowed down\n",
            push.rate_limited
        ));
    }
    if summary.failed > 0 {
        out.push_str("failed rows are retried by running the same command again\n");
    }
    out.push_str(&format!("journal: {}\n", push.journal.display()));
    out
}
