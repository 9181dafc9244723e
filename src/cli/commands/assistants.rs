//! `leadsync assistants list`, `leadsync assistants outbound` and `leadsync assistants show`.

use clap::Subcommand;

use super::{cell, print_json, print_table};
use crate::assistant::{Overview, Text};
use crate::cli::args::OutputMode;
use crate::cli::{Config, Outcome, Session};
use crate::client::{Client, PER_PAGE_RANGE, Page};
use crate::mapping::AssistantRef;

#[derive(Debug, Subcommand)]
pub enum AssistantsCommand {
    /// List assistants, one page at a time (or every page with --all)
    List {
        /// Page number, from 1
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        page: u64,
        /// Assistants per page, 1 to 100
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=100))]
        per_page: u64,
        /// Walk every page
        #[arg(long, conflicts_with = "page")]
        all: bool,
    },
    /// List the outbound assistants (those that make calls)
    Outbound,
    /// One assistant's variables and the placeholders its initial message and system prompt
    /// use: what each lead must bring
    Show {
        /// The assistant, by id or name
        #[arg(value_name = "ID|NAME")]
        assistant: String,
    },
}

pub async fn run(command: &AssistantsCommand, config: &Config) -> anyhow::Result<Outcome> {
    let session = Session::open(config).await?;
    let result = match command {
        AssistantsCommand::List { page, per_page, all } => {
            list(&session.client, config.output, *page, *per_page, *all).await
        }
        AssistantsCommand::Outbound => outbound(&session.client, config.output).await,
        AssistantsCommand::Show { assistant } => {
            show(&session.client, config.output, assistant).await
        }
    };
    session.close().await;
    result.map(|()| Outcome::Success)
}

async fn list(
    client: &Client,
    output: OutputMode,
    page: u64,
    per_page: u64,
    all: bool,
) -> anyhow::Result<()> {
    debug_assert!(PER_PAGE_RANGE.contains(&per_page));
    if all {
        let records = client.all_assistants_raw().await?;
        return match output {
            OutputMode::Json => print_json(&records),
            OutputMode::Table => print_table(
                ASSISTANT_COLUMNS,
                &records.iter().map(assistant_row).collect::<Vec<_>>(),
            ),
        };
    }
    let page_value = client.list_assistants_raw(page, per_page).await?;
    match output {
        OutputMode::Json => print_json(&page_value),
        OutputMode::Table => {
            let page: Page<serde_json::Value> = serde_json::from_value(page_value)?;
            print_table(
                ASSISTANT_COLUMNS,
                &page.data.iter().map(assistant_row).collect::<Vec<_>>(),
            )?;
            eprintln!(
                "page {} of {} ({} assistants)",
                page.current_page,
                page.last_page.max(1),
                page.total
            );
            Ok(())
        }
    }
}

async fn outbound(client: &Client, output: OutputMode) -> anyhow::Result<()> {
    let records = client.outbound_assistants_raw().await?;
    match output {
        OutputMode::Json => print_json(&records),
        OutputMode::Table => {
            print_table(ASSISTANT_COLUMNS, &records.iter().map(assistant_row).collect::<Vec<_>>())
        }
    }
}

const ASSISTANT_COLUMNS: &[&str] = &["id", "name", "type", "status", "mode", "timezone", "webhook"];

fn assistant_row(a: &serde_json::Value) -> Vec<String> {
    ["id", "name", "type", "status", "mode", "timezone", "webhook_url"]
        .iter()
        .map(|k| cell(a, k))
        .collect()
}

async fn show(client: &Client, output: OutputMode, asked: &str) -> anyhow::Result<()> {
    let speaker = crate::pipeline::fetch_assistant(client, &AssistantRef::parse(asked)).await?;
    let overview = speaker.overview();
    match output {
        OutputMode::Json => print_json(&overview),
        OutputMode::Table => print_overview(&overview),
    }
}

/// Its variables, then which placeholders each text uses.
fn print_overview(overview: &Overview) -> anyhow::Result<()> {
    println!("assistant `{}` (id {})", overview.name, overview.id);
    let rows: Vec<Vec<String>> = overview
        .variables
        .iter()
        .map(|v| {
            let used_by: Vec<&str> = v.used_by.iter().map(|t| text_name(*t)).collect();
            let from_lead = if v.from_lead { "yes" } else { "no" };
            vec![v.name.clone(), v.value.clone(), used_by.join(", "), from_lead.to_string()]
        })
        .collect();
    print_table(&["variable", "value", "used by", "from each lead"], &rows)?;
    let texts = [
        (Text::InitialMessage, &overview.initial_message),
        (Text::SystemPrompt, &overview.system_prompt),
    ];
    // One placeholder a row: a list in one cell is cut to the terminal's width.
    let rows: Vec<Vec<String>> = texts
        .iter()
        .flat_map(|(text, seen)| {
            seen.placeholders
                .iter()
                .map(|p| vec![text_name(*text).to_string(), format!("{{{{{p}}}}}")])
        })
        .collect();
    println!();
    print_table(&["text", "placeholder"], &rows)
}

fn text_name(text: Text) -> &'static str {
    match text {
        Text::InitialMessage => "initial message",
        Text::SystemPrompt => "system prompt",
        Text::Variables => "its variables",
    }
}
