//! `EventsError`: what stops the receiver from starting or a notification from being stored, or
//! a journal from being read, with the file or address involved and what to do about it.

use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use super::secret::{MIN_SECRET_LEN, SECRET_ENV};

#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    #[error("no webhook secret: set `{SECRET_ENV}` or pass `--secret-file FILE`")]
    NoSecret,

    #[error("cannot read the webhook secret from `{path}`: {cause}", path = path.display())]
    ReadSecret { path: PathBuf, cause: io::Error },

    #[error(
        "the webhook secret has {length} characters: use at least {MIN_SECRET_LEN} (for example `openssl rand -hex 16`)"
    )]
    WeakSecret { length: usize },

    #[error(
        "the webhook secret contains whitespace or control characters: it travels in a URL, use letters, digits and `-._~`"
    )]
    SecretNotUrlSafe,

    #[error(
        "cannot open the notification journal `{path}`: {cause}; check that its folder exists and is writable",
        path = path.display()
    )]
    Open { path: PathBuf, cause: io::Error },

    #[error(
        "another receiver is writing `{path}`: stop it or choose another `--out`",
        path = path.display()
    )]
    Locked { path: PathBuf },

    #[error("cannot read the notification journal `{path}`: {cause}", path = path.display())]
    Read { path: PathBuf, cause: io::Error },

    #[error(
        "cannot append to the notification journal `{path}`: {cause}; the sender was answered 500 and will retry",
        path = path.display()
    )]
    Append { path: PathBuf, cause: Arc<io::Error> },

    #[error("the journal writer of `{path}` stopped; restart the receiver", path = path.display())]
    WriterStopped { path: PathBuf },

    #[error("cannot start the journal writer thread: {0}")]
    Spawn(io::Error),

    #[error("cannot listen on `{addr}`: {cause}; choose another port (0 picks a free one)")]
    Bind { addr: SocketAddr, cause: io::Error },
}
