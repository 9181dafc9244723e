//! `leadsync init FILE`: write the mapping leadsync would infer, as a commented TOML to review.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::assistant::Unmatched;
use crate::cli::{Config, Outcome, Session};
use crate::mapping::{AssistantRef, MappingFile, infer, render_template_with};
use crate::pipeline;
use crate::source::{SheetSelector, Source, SourceOptions};

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The sheet to look at (a file or an http(s) URL)
    #[arg(value_name = "FILE|URL")]
    source: String,
    /// Where to write the mapping (default: stdout)
    #[arg(long, short = 'o', value_name = "M.toml")]
    out: Option<PathBuf>,
    /// Overwrite an existing mapping file
    #[arg(long)]
    force: bool,
    /// Workbook sheet, by name or 1-based position
    #[arg(long, value_name = "NAME|INDEX")]
    sheet: Option<String>,
    /// The assistant that calls the leads, by id or name: the mapping's variables are its
    /// variables, matched to the sheet's columns by name (needs the service)
    #[arg(long, value_name = "ID|NAME")]
    assistant: Option<String>,
}

pub async fn run(args: &InitArgs, config: &Config) -> anyhow::Result<Outcome> {
    if let Some(out) = &args.out
        && out.exists()
        && !args.force
    {
        bail!("`{}` exists already: pass `--force` to overwrite it", out.display());
    }
    let download = pipeline::download_dir().context("creating a download directory")?;
    let path = pipeline::materialize(&args.source, download.path()).await?;
    let sheet = args.sheet.as_deref().map(str::parse::<SheetSelector>).transpose()?;
    let source = Source::open(&path, &SourceOptions { sheet, ..SourceOptions::default() })?;
    let (mut mapping, mut notes) = infer(&source.headers);
    mapping.region = Some("DE".to_string());
    let mut unmatched = Vec::new();
    if let Some(asked) = &args.assistant {
        (mapping, unmatched) = for_assistant(config, &mapping, asked, &source.headers).await?;
        notes.extend(unmatched.iter().map(|u| format!("no column for `{}`: {}", u.name, u.note)));
    }
    let commented: Vec<(String, String)> =
        unmatched.into_iter().map(|u| (u.name, u.note)).collect();
    let text = render_template_with(&mapping, &args.source, &source.headers, &commented);
    match &args.out {
        Some(out) => {
            std::fs::write(out, &text).with_context(|| format!("writing `{}`", out.display()))?;
            if !config.quiet {
                notes.iter().for_each(|n| eprintln!("mapping: {n}"));
                eprintln!(
                    "wrote {}: review it, then `leadsync import {} --mapping {} --dry-run`",
                    out.display(),
                    args.source,
                    out.display()
                );
            }
        }
        None => print!("{text}"),
    }
    Ok(Outcome::Success)
}

/// The inferred mapping with the assistant's variables for its own.
async fn for_assistant(
    config: &Config,
    inferred: &MappingFile,
    asked: &str,
    headers: &[String],
) -> anyhow::Result<(MappingFile, Vec<Unmatched>)> {
    let session = Session::open(config).await?;
    let speaker = pipeline::fetch_assistant(&session.client, &AssistantRef::parse(asked)).await;
    session.close().await;
    Ok(crate::assistant::propose(&speaker?, inferred, headers))
}
