//! The one place that maps how a run ended to the process exit code.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};

/// How a command that ran to its end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything worked (exit 0).
    Success,
    /// The run finished, but some rows were rejected, duplicated or failed (exit 3).
    Problems,
    /// A `sync` whose only problems are the same rows as the last sync's (exit 5): nothing new
    /// to fix, so a monitor need not alert again.
    KnownProblems,
    /// Ctrl-C or SIGTERM stopped the run; the journal says where (exit 130 for Ctrl-C, 143
    /// for SIGTERM, as shells report them).
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
/// Exit code of a sync whose problem rows are all the same as the last sync's (5).
pub const KNOWN_PROBLEMS: u8 = 5;
/// Exit code after Ctrl-C (130).
pub const INTERRUPTED: u8 = 130;
/// Exit code after SIGTERM (143).
pub const TERMINATED: u8 = 143;

/// A signal that stops a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// Ctrl-C (SIGINT).
    Interrupt,
    /// SIGTERM: `systemctl stop`, `timeout`, `kill`, Kubernetes.
    Terminate,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "Ctrl-C",
            Signal::Terminate => "SIGTERM",
        }
    }

    pub fn exit_code(self) -> u8 {
        match self {
            Signal::Interrupt => INTERRUPTED,
            Signal::Terminate => TERMINATED,
        }
    }
}

/// The signal that stopped the run (0: none, else its number), for the exit code.
static STOPPED_BY: AtomicU8 = AtomicU8::new(0);

/// Records the signal that stopped the run.
pub fn stopped_by(signal: Signal) {
    let number = if signal == Signal::Terminate { 15 } else { 2 };
    STOPPED_BY.store(number, Ordering::Relaxed);
}

fn interrupted_code() -> u8 {
    match STOPPED_BY.load(Ordering::Relaxed) {
        15 => TERMINATED,
        _ => INTERRUPTED,
    }
}

/// The next Ctrl-C or SIGTERM; `None` when neither can be listened for.
pub async fn next_signal() -> Option<Signal> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).ok()?;
        tokio::select! {
            interrupt = tokio::signal::ctrl_c() => interrupt.ok().map(|()| Signal::Interrupt),
            _ = term.recv() => Some(Signal::Terminate),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.ok().map(|()| Signal::Interrupt)
    }
}

/// The exit code of a command that ran to its end.
pub fn code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Success => 0,
        Outcome::Problems => PROBLEMS,
        Outcome::KnownProblems => KNOWN_PROBLEMS,
        Outcome::Interrupted => interrupted_code(),
        Outcome::Locked => LOCKED,
    }
}

pub fn exit_code(result: &anyhow::Result<Outcome>) -> ExitCode {
    match result {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::Problems) => ExitCode::from(PROBLEMS),
        Ok(Outcome::KnownProblems) => ExitCode::from(KNOWN_PROBLEMS),
        Ok(Outcome::Interrupted) => ExitCode::from(interrupted_code()),
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
