//! A connection to the service for the length of one command, including the embedded sandbox
//! that `--sandbox` starts and stops around it.
//!
//! The embedded sandbox keeps its data in the state folder (`sandbox.sqlite`), so what one
//! `--sandbox` command sent is there for the next (`leads list`, a resumed import, the next
//! `sync`), as it would be on the real service; its journals name it `sandbox` whatever port it
//! got.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;

use super::config::{Config, Target};
use crate::client::{Client, ClientConfig, Token};
use crate::sandbox::{DEMO_TOKEN, Sandbox, SandboxConfig};

pub struct Session {
    pub client: Client,
    sandbox: Option<Sandbox>,
}

/// The embedded sandbox's database, in the state folder.
const SANDBOX_DB: &str = "sandbox.sqlite";

impl Session {
    /// Opens the service, with the embedded sandbox (if any) kept in the default state folder.
    pub async fn open(config: &Config) -> anyhow::Result<Session> {
        Session::open_in(config, &config.state_dir()?).await
    }

    /// Opens the service, with the embedded sandbox (if any) kept in `state_dir`.
    pub async fn open_in(config: &Config, state_dir: &Path) -> anyhow::Result<Session> {
        match config.target()? {
            Target::Service(service) => {
                Ok(Session { client: Client::new(service.clone())?, sandbox: None })
            }
            Target::Sandbox => Session::embedded(config.timeout, state_dir).await,
        }
    }

    async fn embedded(timeout: Duration, state_dir: &Path) -> anyhow::Result<Session> {
        std::fs::create_dir_all(state_dir)
            .with_context(|| format!("creating the state folder `{}`", state_dir.display()))?;
        let db = state_dir.join(SANDBOX_DB);
        let sandbox_config = SandboxConfig { db: Some(db.clone()), ..SandboxConfig::default() };
        let sandbox = Sandbox::start(sandbox_config, ([127, 0, 0, 1], 0).into())
            .await
            .with_context(|| format!("starting the embedded sandbox on `{}`", db.display()))?;
        let config = ClientConfig::new(&sandbox.base_url, Token::new(DEMO_TOKEN)?, timeout, false)?;
        tracing::info!(base_url = %sandbox.base_url, db = %db.display(), "embedded sandbox started");
        let client = Client::new(config)?.named("sandbox");
        Ok(Session { client, sandbox: Some(sandbox) })
    }

    /// Stops the embedded sandbox, if any, after the command is done with it.
    pub async fn close(self) {
        if let Some(sandbox) = self.sandbox {
            sandbox.shutdown().await;
        }
    }
}

/// The folder for journals, locks, the account key and the embedded sandbox: the flag
/// (`--state-dir`), else `LEADSYNC_STATE_DIR`, else the profile's, else the XDG state directory.
/// The state folder, made private (0700) if it exists: an older leadsync or another tool may
/// have created it readable by others.
pub fn state_dir(flag: Option<&Path>, profile: Option<&Path>) -> anyhow::Result<PathBuf> {
    let dir = resolve_state_dir(flag, profile)?;
    #[cfg(unix)]
    if dir.is_dir() {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
    }
    Ok(dir)
}

fn resolve_state_dir(flag: Option<&Path>, profile: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(dir) = flag {
        return Ok(dir.to_path_buf());
    }
    if let Some(dir) = std::env::var_os("LEADSYNC_STATE_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    if let Some(dir) = profile {
        return Ok(dir.to_path_buf());
    }
    let dirs = directories::ProjectDirs::from("", "", "leadsync")
        .context("no home directory to keep journals in: pass `--state-dir DIR`")?;
    Ok(dirs.state_dir().unwrap_or_else(|| dirs.data_local_dir()).to_path_buf())
}
