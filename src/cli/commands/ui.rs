//! `leadsync ui`: the import as a guided flow in the browser (`crate::ui`). Prints the page's
//! address (with its one-time key) as the first line on stdout, opens the browser, and serves
//! until Ctrl-C.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;

use crate::cli::session::{Session, state_dir};
use crate::cli::{Config, Outcome};
use crate::ui::{Ui, UiConfig};

#[derive(Debug, clap::Args)]
pub struct UiArgs {
    /// Port to listen on (default 0: a free port)
    #[arg(long, default_value_t = 0, value_name = "PORT")]
    pub port: u16,
    /// Do not open the browser; only print the address
    #[arg(long)]
    pub no_open: bool,
    /// Listen on ADDR instead of 127.0.0.1; other machines on the network can then reach the
    /// page (a warning says so)
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<IpAddr>,
    /// Folder for uploads, journals and locks (default: the profile's, else the XDG state
    /// directory)
    #[arg(long, env = "LEADSYNC_STATE_DIR", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// The most rows a check takes; a bigger sheet is refused before its rows are stored
    #[arg(long, default_value_t = crate::ui::DEFAULT_MAX_ROWS, value_name = "ROWS")]
    pub max_rows: u64,
    /// Delete checks, sends and uploads older than DAYS when the page starts (they hold
    /// people's names and numbers)
    #[arg(long, default_value_t = crate::ui::DEFAULT_KEEP_RUNS_DAYS, value_name = "DAYS")]
    pub keep_runs_days: u64,
    /// How a send from the page sends, as `import` does
    #[command(flatten)]
    pub send: crate::cli::commands::import::SendArgs,
}

/// What the page's path field must never read besides the system folders and the state
/// folder: the config folder (profiles name token files) and the token file and its folder.
fn private_places(config: &Config) -> Vec<PathBuf> {
    let config_dir = crate::cli::profile::config_path().and_then(|p| p.parent().map(PathBuf::from));
    let token_file = config.token_file.iter().flat_map(|file| {
        let absolute = std::path::absolute(file).unwrap_or_else(|_| file.clone());
        // A token kept in the home folder (or at the root) keeps only itself private: the
        // sheets a person means to read live there too.
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let folder = absolute
            .parent()
            .filter(|dir| dir.parent().is_some() && Some(*dir) != home.as_deref())
            .map(PathBuf::from);
        [Some(absolute), folder].into_iter().flatten()
    });
    config_dir.into_iter().chain(token_file).collect()
}

pub async fn run(args: &UiArgs, config: &Config) -> anyhow::Result<Outcome> {
    let state_dir = state_dir(args.state_dir.as_deref(), config.profile.state_dir.as_deref())?;
    let session = match config.target() {
        Ok(_) => Some(Session::open_in(config, &state_dir).await?),
        Err(why) => {
            if !config.quiet {
                eprintln!("note: {why:#}; reading and mapping a sheet work without a service");
            }
            None
        }
    };
    let ip = args.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    if !ip.is_loopback() {
        // Printed even with --quiet: this is the one choice that opens the page to others.
        eprintln!(
            "warning: listening on {ip}: other machines that reach this address can open the \
             import page if they learn its key, and the connection is not encrypted; leave \
             --bind out to keep the page on this machine"
        );
    }
    let ui_config = UiConfig {
        ip,
        port: args.port,
        client: session.as_ref().map(|s| s.client.clone()),
        push: crate::cli::commands::import::push_config(&args.send, config)?,
        private: private_places(config),
        max_rows: args.max_rows,
        keep_runs: std::time::Duration::from_secs(args.keep_runs_days.saturating_mul(24 * 3600)),
        ..UiConfig::new(state_dir)
    };
    let ui = Ui::start(ui_config).await?;
    // The first line on stdout: scripts and tests read the address there.
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", ui.url())?;
    out.flush()?;
    drop(out);
    if !config.quiet {
        eprintln!("open the address above in a browser (it carries the page's key); Ctrl-C stops");
    }
    if !args.no_open {
        open_browser(ui.url());
    }
    // Ctrl-C or SIGTERM, as every command listens for them.
    crate::cli::exit::next_signal().await;
    ui.shutdown().await;
    if let Some(session) = session {
        session.close().await;
    }
    Ok(Outcome::Success)
}

/// The desktop's default browser; a machine without one (a server over SSH) just has the
/// printed address, so failure is ignored.
fn open_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(windows) {
        let mut c = std::process::Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    let opened = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match opened {
        // Reaped on a thread of its own, so it does not linger as a zombie while we serve.
        Ok(mut child) => {
            let _ = std::thread::spawn(move || child.wait());
        }
        Err(error) => tracing::info!("no browser opened: {error}"),
    }
}
