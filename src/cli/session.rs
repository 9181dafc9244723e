//! A connection to the service for the length of one command, including the embedded sandbox
//! that `--sandbox` starts and stops around it.

use std::time::Duration;

use anyhow::Context;

use super::config::{Config, Target};
use crate::client::{Client, ClientConfig, Token};
use crate::sandbox::{DEMO_TOKEN, Sandbox, SandboxConfig};

pub struct Session {
    pub client: Client,
    sandbox: Option<Sandbox>,
}

impl Session {
    pub async fn open(config: &Config) -> anyhow::Result<Session> {
        match config.target()? {
            Target::Service(service) => {
                Ok(Session { client: Client::new(service.clone())?, sandbox: None })
            }
            Target::Sandbox => Session::embedded(config.timeout).await,
        }
    }

    async fn embedded(timeout: Duration) -> anyhow::Result<Session> {
        let sandbox = Sandbox::start(SandboxConfig::default(), ([127, 0, 0, 1], 0).into())
            .await
            .context("starting the embedded sandbox")?;
        let config = ClientConfig::new(&sandbox.base_url, Token::new(DEMO_TOKEN)?, timeout, false)?;
        tracing::info!(base_url = %sandbox.base_url, "embedded sandbox started");
        Ok(Session { client: Client::new(config)?, sandbox: Some(sandbox) })
    }

    /// Stops the embedded sandbox, if any, after the command is done with it.
    pub async fn close(self) {
        if let Some(sandbox) = self.sandbox {
            sandbox.shutdown().await;
        }
    }
}
