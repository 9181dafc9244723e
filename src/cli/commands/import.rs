//! `leadsync import FILE|URL`: validate a sheet and (unless `--dry-run`) send its leads.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::cli::args::OutputMode;
use crate::cli::{Config, Outcome, Session};
use crate::mapping::{MappingFile, parse_delimiter};
use crate::pipeline::{self, ImportOptions, ImportResult};
use crate::report::terminal_summary;

#[derive(Debug, Clone, clap::Args)]
pub struct ImportArgs {
    /// The sheet to import: a CSV/TSV/XLSX/XLSM/XLSB/XLS/ODS file, or an http(s) URL to one
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
    /// CSV delimiter (default: sniffed)
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// CSV text encoding, e.g. windows-1252, utf-16le (default: detected)
    #[arg(long, value_name = "LABEL")]
    pub encoding: Option<String>,
    /// 1-based row that holds the headers (default: sniffed)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub header_row: Option<u64>,
    /// Validate and report only; send nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Do not contact the service (campaigns are not checked); implies a dry run
    #[arg(long)]
    pub offline: bool,
    /// Let the same number in the same campaign through more than once
    #[arg(long)]
    pub allow_duplicates: bool,
    /// Write a report; the format comes from the extension (.json, .csv, .html). Repeatable
    #[arg(long, value_name = "PATH")]
    pub report: Vec<PathBuf>,
    /// Threads that check rows (default: one per core)
    #[arg(long, default_value_t = 0, hide_default_value = true, value_name = "N")]
    pub workers: usize,
}

pub async fn run(args: &ImportArgs, config: &Config) -> anyhow::Result<Outcome> {
    let dry_run = args.dry_run || args.offline;
    if !dry_run {
        bail!("sending leads is not available yet: run with `--dry-run` to validate and report");
    }
    let mapping = match &args.mapping {
        Some(path) => Some(MappingFile::load(path)?),
        None => None,
    };
    let session = match args.offline {
        true => None,
        false => Some(Session::open(config).await?),
    };
    let download = pipeline::download_dir().context("creating a download directory")?;
    let path = pipeline::materialize(&args.source, download.path()).await?;
    let opts = ImportOptions {
        path,
        location: args.source.clone(),
        mapping,
        sheet: args.sheet.clone(),
        region: args.region.clone(),
        campaign: args.campaign.clone(),
        delimiter: args.delimiter,
        encoding: args.encoding.clone(),
        header_row: args.header_row,
        offline: args.offline,
        allow_duplicates: args.allow_duplicates,
        dry_run,
        reports: args.report.clone(),
        workers: args.workers,
    };
    let result = pipeline::import(&opts, session.as_ref().map(|s| &s.client)).await;
    if let Some(session) = session {
        session.close().await;
    }
    let result = result?;
    print_result(&result, config)?;
    Ok(if result.outcome.summary.has_problems() { Outcome::Problems } else { Outcome::Success })
}

fn print_result(result: &ImportResult, config: &Config) -> anyhow::Result<()> {
    if !config.quiet {
        for note in &result.mapping_notes {
            eprintln!("mapping: {note}");
        }
        eprint!("{}", terminal_summary(&result.outcome, &result.run));
    }
    if config.output == OutputMode::Json {
        super::print_json(
            &serde_json::json!({ "summary": result.outcome.summary, "run": result.run }),
        )?;
    }
    Ok(())
}
