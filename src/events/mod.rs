//! The way back: the service's notifications, received, stored exactly once, and read again.
//!
//! ```text
//!  service ─POST /hooks/KIND?token=…─► receiver ──► journal ──► events.jsonl ──► export
//!                                      (secret,      (one writer thread:
//!                                       size, JSON)   dedupe, append, fsync, then 200)
//! ```
//!
//! The interface leaves the payloads' layout, headers, signing and retries unspecified, so the
//! receiver trusts nothing but a secret token in the URL, stores every payload as it came, and
//! answers 200 only once the line is on disk. `payload` reads what it can out of a stored payload
//! for the export; what it does not recognise stays in the raw JSON.

mod dedupe;
mod error;
mod journal;
mod payload;
mod receiver;
mod secret;

use std::path::{Path, PathBuf};

pub use dedupe::dedupe_key;
pub use error::EventsError;
pub use journal::{Appended, Journal, JournalClosed, JournalContents, StoredEvent, read_journal};
pub use payload::{Customer, Event, Turn};
pub use receiver::{DEFAULT_MAX_BODY, Receiver, ReceiverConfig};
pub use secret::{SECRET_ENV, Secret};

/// The file name of the journal inside an `--out` directory.
pub const JOURNAL_FILE: &str = "events.jsonl";

/// The notifications the service sends, by the path segment they arrive on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A chat (WhatsApp or web widget) ended: transcript, variables, customer.
    ConversationEnded,
    /// A call ended (the assistant's `webhook_url`).
    PostCall,
    /// A call came in (the assistant's `inbound_webhook_url`).
    InboundCall,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::ConversationEnded, Kind::PostCall, Kind::InboundCall];

    /// The path segment under `/hooks/` and the `kind` of a stored line.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::ConversationEnded => "conversation-ended",
            Kind::PostCall => "post-call",
            Kind::InboundCall => "inbound-call",
        }
    }

    pub fn from_segment(segment: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == segment)
    }
}

/// Where the journal of `--out`/`--in` is: `events.jsonl` inside an existing directory,
/// otherwise the path itself, taken as a file.
pub fn journal_path(out: &Path) -> PathBuf {
    if out.is_dir() { out.join(JOURNAL_FILE) } else { out.to_path_buf() }
}

#[cfg(test)]
mod tests {
    use super::{JOURNAL_FILE, Kind, journal_path};

    #[test]
    fn kinds_round_trip_through_their_segments() {
        for kind in Kind::ALL {
            assert_eq!(Kind::from_segment(kind.as_str()), Some(kind));
        }
        assert_eq!(Kind::from_segment("conversation_ended"), None);
    }

    #[test]
    fn a_directory_holds_events_jsonl_and_anything_else_is_the_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(journal_path(dir.path()), dir.path().join(JOURNAL_FILE));
        let file = dir.path().join("hooks.jsonl");
        assert_eq!(journal_path(&file), file);
    }
}
