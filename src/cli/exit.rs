//! The one place that maps how a run ended to the process exit code.

use std::process::ExitCode;

/// How a command that ran to its end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything worked (exit 0).
    Success,
    /// The run finished, but some rows were rejected, duplicated or failed (exit 3).
    Problems,
    /// Ctrl-C stopped the run; the journal says where (exit 130, as shells do for SIGINT).
    Interrupted,
    /// Another `sync` of the same source holds the lock (exit 4).
    Locked,
}

/// Exit code for a run that could not run: unreadable file, bad mapping, service down (1).
pub const FAILURE: u8 = 1;
/// Exit code for a command line that does not parse (2), as clap uses.
pub const USAGE: u8 = 2;
/// Exit code for rows with problems (3).
pub const PROBLEMS: u8 = 3;
/// Exit code when another sync of the same source is running (4).
pub const LOCKED: u8 = 4;
/// Exit code after Ctrl-C (130).
pub const INTERRUPTED: u8 = 130;

/// The exit code of a command that ran to its end.
pub fn code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Success => 0,
        Outcome::Problems => PROBLEMS,
        Outcome::Interrupted => INTERRUPTED,
        Outcome::Locked => LOCKED,
    }
}

pub fn exit_code(result: &anyhow::Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Problems) => ExitCode::from(PROBLEMS),
        Ok(Outcome::Interrupted) => ExitCode::from(INTERRUPTED),
        Ok(Outcome::Locked) => ExitCode::from(LOCKED),
        // A reader that went away (`leadsync leads list | head`) is not a failure.
        Err(e) if is_broken_pipe(e) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(FAILURE),
    }
}

pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        let io_kind =
            cause.downcast_ref::<std::io::Error>().map(std::io::Error::kind).or_else(|| {
                cause.downcast_ref::<serde_json::Error>().and_then(serde_json::Error::io_error_kind)
            });
        io_kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}
