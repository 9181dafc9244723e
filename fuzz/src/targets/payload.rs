//! Webhook payload extraction: whatever JSON a sender posts becomes an event (ids, transcript,
//! variables, customer) and a deduplication key, without a panic.

use leadsync::events::{Event, Kind, dedupe_key};

use crate::Target;

pub const TARGET: Target = Target {
    name: "payload",
    run,
    dictionary: &[
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b",",
        b"null",
        b"true",
        b"1e999",
        b"-0",
        b"\"\\u0000\"",
        b"\"conversation_id\"",
        b"\"call_id\"",
        b"\"id\"",
        b"\"transcript\"",
        b"\"messages\"",
        b"\"role\"",
        b"\"content\"",
        b"\"variables\"",
        b"\"customer\"",
        b"\"phone\"",
        b"\"data\"",
        b"\"payload\"",
        b"\"ended_at\"",
        b"\"assistant_id\"",
        b"\"text\"",
        b"\"\\n\"",
    ],
    max_len: 64 * 1024,
};

fn run(data: &[u8]) {
    let Ok(payload) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let event = Event::from_payload(&payload);
    let _ = event.transcript_text();
    for kind in Kind::ALL {
        let _ = dedupe_key(kind, &payload);
    }
}
