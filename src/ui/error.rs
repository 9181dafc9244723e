//! Why the UI could not start. Everything after the start is a page, not an error.

use std::net::{IpAddr, SocketAddr};

#[derive(Debug, thiserror::Error)]
pub enum UiError {
    #[error("cannot listen on `{addr}`: {source} (pass another `--port`, or 0 for a free one)")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(
        "`{ip}` means every address of this machine: pass the one address the browser will use \
         (the page answers only under the address it is bound to)"
    )]
    Unspecified { ip: IpAddr },
}
