//! `SandboxError`: everything that can stop the sandbox from starting or a request from being
//! answered, with the file, key or address involved and what to do about it.

use std::net::SocketAddr;
use std::path::PathBuf;

/// What a `?` on a rusqlite call records until [`SandboxError::during`] names the real action.
const UNNAMED_ACTION: &str = "running a query";

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "cannot open the sandbox database `{path}`: {source}; check that its directory exists and is writable"
    )]
    OpenDatabase { path: PathBuf, source: rusqlite::Error },

    #[error("sandbox database failed while {action}: {source}")]
    Database { action: &'static str, source: rusqlite::Error },

    #[error(
        "sandbox database row `{table}` id {id} does not have the record's shape: {problem}; delete the database file to start over"
    )]
    CorruptRow { table: &'static str, id: i64, problem: String },

    #[error(
        "the sandbox database thread stopped before answering; see the log and restart the sandbox"
    )]
    StoreClosed,

    #[error("cannot start the sandbox database thread: {0}")]
    SpawnThread(#[source] std::io::Error),

    #[error("cannot build a response: {problem}")]
    Answer { problem: String },

    #[error("cannot read seed file `{path}`: {source}")]
    ReadSeed { path: PathBuf, source: std::io::Error },

    #[error(
        "seed `{seed}` is not valid seed JSON: {source}; expected {{\"users\": [{{\"id\": 1, \"token\": \"...\" (or \"tokens\": [\"...\", ...]), \"campaigns\": [...], \"assistants\": [...]}}]}}"
    )]
    ParseSeed { seed: String, source: serde_json::Error },

    #[error("seed `{seed}`: `{at}` {problem}")]
    InvalidSeed { seed: String, at: String, problem: String },

    #[error("cannot load seed `{seed}` into the database: {problem}")]
    SeedConflict { seed: String, problem: String },

    #[error("invalid fault setting `{setting}`: {problem}")]
    InvalidFaults { setting: &'static str, problem: String },

    #[error("cannot listen on `{addr}`: {source}; choose another port (0 picks a free one)")]
    Bind { addr: SocketAddr, source: std::io::Error },
}

impl From<rusqlite::Error> for SandboxError {
    fn from(source: rusqlite::Error) -> Self {
        SandboxError::Database { action: UNNAMED_ACTION, source }
    }
}

impl SandboxError {
    /// Names the action of a database error that a `?` left unnamed.
    pub(crate) fn during(self, action: &'static str) -> Self {
        match self {
            SandboxError::Database { action: UNNAMED_ACTION, source } => {
                SandboxError::Database { action, source }
            }
            other => other,
        }
    }
}
