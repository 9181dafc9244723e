//! The dedupe key of a notification: what makes a redelivery recognisable as the same event.
//!
//! The service retries a notification it thinks failed (after 30 s, 60 s and 120 s), so the same
//! event can arrive several times. When the payload names itself (`event_id`,
//! `conversation_id`, `call_id`, ...) that id is the key; otherwise the key is a hash of the
//! payload in a canonical form (keys sorted, no whitespace), so a resend that reorders keys or
//! reformats the JSON still matches. The kind is part of the key: a call's post-call and inbound
//! notifications may share its id and are still two events.

use serde_json::Value;

use super::Kind;
use super::payload::lookup;

/// Fields that name one notification, most specific first. `id` and `uuid` come last because in
/// an unknown layout they might name something else; they are used only when nothing better is.
const ID_PATHS: [&str; 9] = [
    "event_id",
    "conversation_id",
    "call_id",
    "conversation.id",
    "call.id",
    "conversation_uuid",
    "call_uuid",
    "id",
    "uuid",
];

/// The key under which `payload`, received as `kind`, is stored once.
pub fn dedupe_key(kind: Kind, payload: &Value) -> String {
    let named =
        ID_PATHS.iter().find_map(|path| id_text(lookup(payload, path)?).map(|id| (path, id)));
    match named {
        Some((path, id)) => format!("{}:{path}={id}", kind.as_str()),
        None => {
            let mut text = String::new();
            canonical(payload, &mut text);
            format!("{}:blake3={}", kind.as_str(), blake3::hash(text.as_bytes()).to_hex())
        }
    }
}

/// An id is a non-empty string or a number; anything else does not identify an event.
fn id_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Compact JSON with object keys sorted at every level.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::dedupe_key;
    use crate::events::Kind;

    const ENDED: Kind = Kind::ConversationEnded;

    #[test]
    fn an_explicit_id_is_the_key() {
        let payload = json!({"id": 7, "conversation_id": "c-1", "transcript": []});
        assert_eq!(dedupe_key(ENDED, &payload), "conversation-ended:conversation_id=c-1");
        let nested = json!({"data": {"call": {"id": 42}}});
        assert_eq!(dedupe_key(Kind::PostCall, &nested), "post-call:call.id=42");
        assert_eq!(dedupe_key(ENDED, &json!({"id": 7})), "conversation-ended:id=7");
    }

    #[test]
    fn the_kind_keeps_events_of_one_call_apart() {
        let payload = json!({"call_id": "x"});
        assert_ne!(dedupe_key(Kind::PostCall, &payload), dedupe_key(Kind::InboundCall, &payload));
    }

    #[test]
    fn without_an_id_reordered_and_reformatted_payloads_hash_alike() {
        let a: serde_json::Value =
            serde_json::from_str(r#"{"a": 1, "b": {"y": [1, 2], "x": "é"}}"#).unwrap();
        let b: serde_json::Value =
            serde_json::from_str(r#"{"b":{"x":"é","y":[1,2]},"a":1}"#).unwrap();
        let key = dedupe_key(ENDED, &a);
        assert!(key.starts_with("conversation-ended:blake3="), "{key}");
        assert_eq!(key, dedupe_key(ENDED, &b));
        assert_ne!(key, dedupe_key(ENDED, &json!({"a": 2, "b": {"y": [1, 2], "x": "é"}})));
    }

    #[test]
    fn empty_or_structured_ids_are_not_ids() {
        let payload = json!({"conversation_id": "", "id": {"nested": true}});
        assert!(dedupe_key(ENDED, &payload).contains("blake3="));
    }
}
