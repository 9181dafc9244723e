//! The command line: parse, resolve a config, call the library, print. Nothing else depends on it.

mod args;
mod commands;
pub(crate) mod config;
pub(crate) mod exit;
pub mod color;
mod profile;
mod session;
mod table;

use std::process::ExitCode;

use clap::Parser;

pub use args::{Args, Command, GlobalArgs, OutputMode};
pub use config::Config;
pub use exit::Outcome;
use session::Session;

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => {
            // --help and --version are "errors" to clap that print to stdout and exit 0.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { exit::USAGE } else { 0 });
        }
    };
    init_tracing(&args.global);
    quiet_panics();
    let result = run(args);
    if let Err(e) = &result
        && !exit::is_broken_pipe(e)
    {
        eprintln!("error: {e:#}");
    }
    exit::exit_code(&result)
}

fn run(args: Args) -> anyhow::Result<Outcome> {
    let config = Config::from_args(&args.global)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(dispatch(&args.command, &config))
}

async fn dispatch(command: &Command, config: &Config) -> anyhow::Result<Outcome> {
    match command {
        Command::Campaigns(c) => commands::campaigns::run(c, config).await,
        Command::Leads(c) => commands::leads::run(c, config).await,
        Command::Assistants(c) => commands::assistants::run(c, config).await,
        Command::Webhook(c) => commands::webhook::run(c, config).await,
        Command::Import(a) => commands::import::run(a, config).await,
        Command::Sync(a) => commands::sync::run(a, config).await,
        Command::Init(a) => commands::init::run(a, config).await,
        Command::Sandbox(a) => commands::sandbox::run(a, config).await,
        Command::Ui(a) => commands::ui::run(a, config).await,
        Command::Completions(a) => commands::completions::completions(a),
        Command::Man => commands::completions::man(),
    }
}

/// A panic's report as a person reads it, whatever `RUST_BACKTRACE` says. One a library raised
/// on a damaged file and leadsync caught ([`crate::source::caught`]) is reported by its catch,
/// as an error about the file: its own report goes to `-vv` only. Any other is a bug: one line
/// that says so, with the backtrace at `-vv`.
fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let place = info.location().map(|l| format!("{}:{}", l.file(), l.line()));
        let place = place.unwrap_or_default();
        if crate::source::caught::catching() {
            tracing::debug!(%place, %message, "a library panicked on the input; caught");
            return;
        }
        eprintln!(
            "error: leadsync stopped on an internal error ({message}, at {place}); please report it with the command you ran"
        );
        let backtrace = std::backtrace::Backtrace::force_capture();
        tracing::debug!(%backtrace, "the internal error's backtrace");
    }));
}

/// Logs go to stderr: stdout carries data. `RUST_LOG` overrides `-v`.
fn init_tracing(global: &GlobalArgs) {
    let default = match (global.quiet, global.verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "leadsync=info",
        (false, _) => "leadsync=debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let ansi = color::from_env(global.color);
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false)
        .init();
}
