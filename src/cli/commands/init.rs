//! `leadsync init FILE`: write the mapping leadsync would infer, as a commented TOML to review.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::assistant::Unmatched;
use crate::cli::{Config, Outcome, Session};
use crate::mapping::{AssistantRef, MappingFile, infer_from, render_template_with};
use crate::pipeline;
use crate::source::{SheetSelector, Source, SourceOptions};

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// The sheet to look at (a file or an http(s) URL); not with `--template`
    #[arg(
        value_name = "FILE|URL",
        required_unless_present = "template",
        conflicts_with = "template"
    )]
    source: Option<String>,
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
    /// Write an empty workbook to fill in instead: the phone columns (formatted as text), then
    /// one column per variable the assistant uses
    #[arg(long, value_name = "leads.xlsx", requires = "assistant")]
    template: Option<PathBuf>,
}

pub async fn run(args: &InitArgs, config: &Config) -> anyhow::Result<Outcome> {
    if let (Some(template), Some(asked)) = (&args.template, &args.assistant) {
        return write_template(args, config, template, asked).await;
    }
    let Some(source_name) = args.source.as_deref() else {
        bail!("name the sheet to look at, or `--template leads.xlsx` with `--assistant`")
    };
    if let Some(out) = &args.out {
        refuse_overwrite(out, args.force)?;
    }
    let (path, _download) = pipeline::local_copy(source_name).await?;
    let sheet = args.sheet.as_deref().map(str::parse::<SheetSelector>).transpose()?;
    let source = Source::open(&path, &SourceOptions { sheet, ..SourceOptions::default() })?;
    // Headers alone mislead: `Telefon erlaubt` over ja/nein is consent, and only the rows say so.
    let (mut mapping, mut notes) = infer_from(&source.headers, &source.samples());
    mapping.region = Some("DE".to_string());
    let mut unmatched = Vec::new();
    if let Some(asked) = &args.assistant {
        (mapping, unmatched) = for_assistant(config, &mapping, asked, &source.headers).await?;
        notes.extend(unmatched.iter().map(|u| format!("no column for `{}`: {}", u.name, u.note)));
    }
    let commented: Vec<(String, String)> =
        unmatched.into_iter().map(|u| (u.name, u.note)).collect();
    let text = render_template_with(&mapping, source_name, &source.headers, &commented);
    match &args.out {
        Some(out) => {
            std::fs::write(out, &text).with_context(|| format!("writing `{}`", out.display()))?;
            if !config.quiet {
                notes.iter().for_each(|n| eprintln!("mapping: {n}"));
                eprintln!(
                    "wrote {}: review it, then `leadsync import {} --mapping {} --dry-run`",
                    out.display(),
                    source_name,
                    out.display()
                );
            }
        }
        None => print!("{text}"),
    }
    Ok(Outcome::Success)
}

fn refuse_overwrite(out: &Path, force: bool) -> anyhow::Result<()> {
    if out.exists() && !force {
        bail!("`{}` exists already: pass `--force` to overwrite it", out.display());
    }
    Ok(())
}

/// `--template`: the empty workbook for the assistant, its columns said on stderr.
async fn write_template(
    args: &InitArgs,
    config: &Config,
    template: &Path,
    asked: &str,
) -> anyhow::Result<Outcome> {
    refuse_overwrite(template, args.force)?;
    let session = Session::open(config).await?;
    let speaker = pipeline::fetch_assistant(&session.client, &AssistantRef::parse(asked)).await;
    session.close().await;
    let columns = crate::assistant::write_template(&speaker?, template)?;
    if !config.quiet {
        eprintln!(
            "wrote {}: columns {}; fill in one lead per row, then `leadsync init {}`",
            template.display(),
            columns.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "),
            template.display()
        );
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
