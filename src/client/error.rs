//! What can go wrong talking to the service, one variant per thing a caller reacts to
//! differently: fix the token, fix the input, wait, retry, or give up.

use std::time::Duration;

/// A field the service refused, with its messages (Laravel's `errors` object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub messages: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("the service refused the token ({status}): {message}; check {token}")]
    Unauthorized {
        status: u16,
        message: String,
        /// Where the token came from: `LEADSYNC_TOKEN`, a token file, a profile's token file.
        token: String,
    },

    #[error("not found (404) at `{path}`: {message}")]
    NotFound { path: String, message: String },

    /// The lead is not the user's: deleted, never created, or another account's. A delete that
    /// meets this has nothing left to do.
    #[error(
        "lead {id} not found at `{path}`: {message}; it was deleted or belongs to another account"
    )]
    LeadNotFound { id: u64, path: String, message: String },

    #[error("the service rejected the request (422): {}", describe_validation(.message, .fields))]
    Validation { message: String, fields: Vec<FieldError> },

    #[error("rate limited (429) at `{path}`{}", .retry_after.map(|d| format!(": retry after {:.1}s", d.as_secs_f64())).unwrap_or_default())]
    RateLimited { path: String, retry_after: Option<Duration> },

    #[error("the service failed ({status}) at `{path}`: {message}")]
    Server { status: u16, path: String, message: String },

    #[error("unexpected answer ({status}) at `{path}`: {message}")]
    Status { status: u16, path: String, message: String },

    #[error("no answer from the service within {}s at `{path}`", .timeout.as_secs())]
    Timeout { path: String, timeout: Duration },

    #[error("cannot reach the service at `{url}`: {reason}; check `--base-url` and your network")]
    Connect { url: String, reason: String },

    /// The request went out and the connection broke before the answer arrived: the service
    /// may or may not have acted on it.
    #[error("the connection broke before the service answered `{path}`: {reason}")]
    Interrupted { path: String, reason: String },

    #[error(
        "the service answered `{path}` ({status}) with something that is not the expected JSON: {detail}; first bytes: `{snippet}`"
    )]
    BadBody { status: u16, path: String, detail: String, snippet: String },

    /// A write answered with success but without the record it should have returned: the
    /// service probably acted on it, but which record it made cannot be told from the answer.
    #[error(
        "the service answered `{path}` with {status} but without a record id ({detail}): the write may have been applied"
    )]
    Unconfirmed { status: u16, path: String, detail: String },

    /// An update or delete answered with a 5xx, or with a success that is not JSON: the service
    /// may or may not have applied it. Both operations are idempotent, so the caller may send
    /// the same request again, or read the lead list to see which happened.
    #[error(
        "the service answered {method} `{path}` with {status} ({detail}): the change may have been applied; sending it again is safe"
    )]
    WriteInDoubt { method: String, status: u16, path: String, detail: String },
}

impl ClientError {
    /// Worth sending again: the service may succeed next time. A write in doubt is, because
    /// only idempotent writes (update, delete) report it.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ClientError::RateLimited { .. }
                | ClientError::WriteInDoubt { .. }
                | ClientError::Server { .. }
                | ClientError::Timeout { .. }
                | ClientError::Connect { .. }
                | ClientError::Interrupted { .. }
        )
    }

    /// The request may have been carried out although no success was seen, so a retry of a
    /// write could double it unless the caller checks first.
    pub fn maybe_applied(&self) -> bool {
        matches!(
            self,
            ClientError::Timeout { .. }
                | ClientError::Interrupted { .. }
                | ClientError::Unconfirmed { .. }
                | ClientError::WriteInDoubt { .. }
        )
    }

    /// How long the service asked us to wait, for a 429.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ClientError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// For a 422: does the service say this phone number already exists?
    pub fn is_duplicate(&self) -> bool {
        let ClientError::Validation { fields, message } = self else {
            return false;
        };
        let says_taken = |m: &str| {
            let m = m.to_lowercase();
            m.contains("already") || m.contains("taken") || m.contains("duplicate")
        };
        fields.iter().any(|f| f.field == "phone_number" && f.messages.iter().any(|m| says_taken(m)))
            || (fields.is_empty() && says_taken(message))
    }
}

fn describe_validation(message: &str, fields: &[FieldError]) -> String {
    if fields.is_empty() {
        return message.to_string();
    }
    fields
        .iter()
        .map(|f| format!("`{}`: {}", f.field, f.messages.join(" ")))
        .collect::<Vec<_>>()
        .join("; ")
}
