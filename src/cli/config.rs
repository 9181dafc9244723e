//! The resolved configuration: defaults, environment, token and terminal state decided once,
//! without network I/O, so commands never look at clap types or the environment themselves.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, bail};

use super::args::{GlobalArgs, OutputMode, TIMEOUT_SECS};
use super::profile::{self, Profile};
use crate::client::{ClientConfig, ConfigError, Token};

/// Which service a command talks to.
#[derive(Debug, Clone)]
pub enum Target {
    /// An embedded sandbox, started in-process with the demo data.
    Sandbox,
    /// A real service (or a sandbox started elsewhere).
    Service(ClientConfig),
}

#[derive(Debug, Clone)]
pub struct Config {
    /// The token file in use or named (`--token-file`, else the profile's), if any: the UI
    /// never reads it, nor its folder, through a typed path.
    pub token_file: Option<std::path::PathBuf>,
    target: Option<Target>,
    target_error: Option<String>,
    pub output: OutputMode,
    pub quiet: bool,
    pub verbose: u8,
    /// Someone is watching stderr: progress bars make sense.
    pub stderr_is_tty: bool,
    /// Colour on stderr (see `color.rs`).
    pub color: bool,
    /// The selected profile's settings (empty without `--profile`).
    pub profile: Profile,
    /// `--state-dir` or `LEADSYNC_STATE_DIR`, if given.
    state_dir_flag: Option<std::path::PathBuf>,
    pub timeout: Duration,
}

impl Config {
    pub fn from_args(args: &GlobalArgs) -> anyhow::Result<Config> {
        let timeout = timeout(args.timeout)?;
        // A missing service is an error only for commands that need one (`init` and offline
        // dry runs do not), so it is kept until `target()` is asked for.
        let profile = match &args.profile {
            Some(name) => {
                let path = profile::config_path()
                    .context("no config folder to read profiles from: set `XDG_CONFIG_HOME`")?;
                profile::load(&path, name)?
            }
            None => Profile::default(),
        };
        let (target, target_error) = match resolve_target(args, &profile, timeout) {
            Ok(t) => (Some(t), None),
            Err(e) => (None, Some(format!("{e:#}"))),
        };
        let token_file = args.token_file.clone().or_else(|| profile.token_file.clone());
        Ok(Config {
            token_file,
            target,
            target_error,
            output: args.output,
            quiet: args.quiet,
            verbose: args.verbose,
            stderr_is_tty: std::io::stderr().is_terminal(),
            color: super::color::from_env(args.color),
            profile,
            timeout,
            state_dir_flag: args.state_dir.clone(),
        })
    }

    /// The one state folder every command uses: journals, locks and the embedded sandbox's
    /// data (so "check, send, look" meet the same sandbox).
    pub fn state_dir(&self) -> anyhow::Result<std::path::PathBuf> {
        super::session::state_dir(self.state_dir_flag.as_deref(), self.profile.state_dir.as_deref())
    }

    /// The service to talk to, or why there is none.
    pub fn target(&self) -> anyhow::Result<&Target> {
        match (&self.target, &self.target_error) {
            (Some(target), _) => Ok(target),
            (None, Some(err)) => Err(anyhow::anyhow!("{err}")),
            (None, None) => unreachable!("one of target and target_error is always set"),
        }
    }
}

/// clap's parser already holds the timeout to its range; this keeps `GlobalArgs` built in code
/// from reaching `Duration::from_secs_f64`, which panics on a value too large for a `Duration`.
fn timeout(secs: f64) -> anyhow::Result<Duration> {
    if !TIMEOUT_SECS.contains(&secs) {
        let (min, max) = (TIMEOUT_SECS.start(), TIMEOUT_SECS.end());
        bail!("`--timeout` must be {min} to {max} seconds, got `{secs}`: pass one in that range");
    }
    Ok(Duration::from_secs_f64(secs))
}

fn resolve_target(
    args: &GlobalArgs,
    profile: &Profile,
    timeout: Duration,
) -> anyhow::Result<Target> {
    if args.sandbox {
        return Ok(Target::Sandbox);
    }
    let Some(base_url) = args.base_url.as_ref().or(profile.base_url.as_ref()) else {
        bail!(
            "no service given: pass `--base-url URL`, set `LEADSYNC_BASE_URL` or use a `--profile` (or try `--sandbox`)"
        );
    };
    let token = read_token(args, profile)?;
    let config = ClientConfig::new(base_url, token, timeout, args.allow_insecure_http)?;
    Ok(Target::Service(config))
}

/// `--token-file` (or `LEADSYNC_TOKEN_FILE`), else `LEADSYNC_TOKEN`, else the profile's
/// `token_file`.
fn read_token(args: &GlobalArgs, profile: &Profile) -> anyhow::Result<Token> {
    let from_file = |path: &std::path::Path| {
        profile::warn_if_readable_by_others(path);
        Token::from_file(path).context("reading the token")
    };
    if let Some(path) = &args.token_file {
        return from_file(path);
    }
    if let Ok(raw) = std::env::var("LEADSYNC_TOKEN") {
        return Ok(Token::new(raw)?);
    }
    match &profile.token_file {
        Some(path) => Ok(from_file(path)?
            .with_origin(format!("the `token_file` of the profile ({})", path.display()))),
        None => Err(ConfigError::NoToken.into()),
    }
}
