//! `leadsync completions SHELL` and `leadsync man`: shell completion scripts (clap_complete)
//! and the man page (clap_mangen, roff), both generated from the same clap definition as the
//! command line itself, so they never fall behind it.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Args, Outcome};

#[derive(Debug, Clone, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to write a completion script for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes the completion script for `args.shell` on stdout.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut command = Args::command();
    // Into a buffer first: clap_complete panics on a write error, and `| head` is no error.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "leadsync", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(Outcome::Success)
}

/// Writes the man page (roff) on stdout.
pub fn man() -> anyhow::Result<Outcome> {
    let command = Args::command();
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(command).render(&mut out)?;
    out.flush()?;
    Ok(Outcome::Success)
}
