//! One file per subcommand: its arguments and a short `run` that calls the library and prints.

pub mod assistants;
pub mod campaigns;
pub mod completions;
pub mod import;
pub mod init;
pub mod leads;
pub mod sandbox;
pub mod sync;
pub mod ui;
pub mod webhook;

use std::io::Write;
use std::path::Path;

use serde_json::Value;

use crate::cli::Config;

/// Prints records as the service sent them, one pretty JSON array on stdout.
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Prints a table on stdout.
pub fn print_table(headers: &[&str], rows: &[Vec<String>]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    super::table::print(&mut out, headers, rows)?;
    Ok(())
}

/// A JSON field as table text: strings bare, null empty.
pub fn cell(value: &Value, key: &str) -> String {
    match value.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The summary of an export on stderr: its warnings always, the count unless `--quiet`.
pub fn print_written(written: &crate::export::Written, what: &str, out: &Path, config: &Config) {
    for warning in written.warnings() {
        eprintln!("warning: {warning}");
    }
    if !config.quiet {
        eprintln!("wrote {} {what} to {}", written.rows, out.display());
    }
}
