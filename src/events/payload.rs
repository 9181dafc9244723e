//! What a notification says, as far as it can be read: the interface names the contents of a
//! conversation-ended notification (transcript, extracted variables, customer information) but
//! not its layout, so each field is looked for under the names such payloads commonly use, at the
//! top level or inside a `data`/`payload` wrapper. Nothing here rejects a payload: what is not
//! found stays empty, and the raw JSON is kept beside it anyway.

use indexmap::IndexMap;
use serde_json::Value;

/// Objects some senders wrap the whole notification in.
const WRAPPERS: [&str; 2] = ["data", "payload"];

const CONVERSATION_ID: &[&str] = &[
    "conversation_id",
    "conversationId",
    "conversation.id",
    "conversation_uuid",
    "conversation.uuid",
    "chat_id",
    "call_id",
    "call.id",
    "id",
];
/// The service identifies assistants in notifications by their UUID; a numeric id is accepted.
const ASSISTANT_ID: &[&str] = &[
    "assistant_uuid",
    "assistant.uuid",
    "assistant_id",
    "assistantId",
    "assistant.id",
    "agent_id",
];
const TRANSCRIPT: &[&str] = &[
    "transcript",
    "messages",
    "conversation.transcript",
    "conversation.messages",
    "chat.messages",
];
/// `extracted_*` first: a bare `variables` may be the assistant's input variables.
const VARIABLES: &[&str] =
    &["extracted_variables", "extracted_data", "variables", "conversation.variables"];
const CUSTOMER: &[&str] = &["customer", "customer_info", "customer_information", "contact", "lead"];
const ENDED_AT: &[&str] =
    &["ended_at", "endedAt", "end_time", "conversation.ended_at", "call.ended_at"];

const ROLE: &[&str] = &["role", "speaker", "sender", "from", "author"];
const CONTENT: &[&str] = &["content", "text", "message", "body"];
const TIMESTAMP: &[&str] = &["timestamp", "time", "created_at", "at"];
const NAME: &[&str] = &["name", "full_name", "customer_name"];
const PHONE: &[&str] = &["phone", "phone_number", "number", "msisdn"];
const EMAIL: &[&str] = &["email", "email_address"];

/// One notification as far as it was understood.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Event {
    pub conversation_id: Option<String>,
    pub assistant_id: Option<String>,
    pub transcript: Vec<Turn>,
    /// Values that are not strings are kept as their JSON text.
    pub variables: IndexMap<String, String>,
    pub customer: Customer,
    pub ended_at: Option<String>,
}

/// One message of a transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    /// `user`, `assistant`, ... as the sender named it; empty when it did not.
    pub role: String,
    pub content: String,
    pub timestamp: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Customer {
    pub name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

impl Event {
    pub fn from_payload(payload: &Value) -> Event {
        Event {
            conversation_id: first(payload, CONVERSATION_ID).and_then(text),
            assistant_id: first(payload, ASSISTANT_ID).and_then(text),
            transcript: first(payload, TRANSCRIPT).map(turns).unwrap_or_default(),
            variables: first(payload, VARIABLES).map(variables).unwrap_or_default(),
            customer: customer(payload),
            ended_at: first(payload, ENDED_AT).and_then(text),
        }
    }

    /// The transcript for people: one `role: content` line per message.
    pub fn transcript_text(&self) -> String {
        let lines = self.transcript.iter().map(|turn| match turn.role.as_str() {
            "" => turn.content.clone(),
            role => format!("{role}: {}", turn.content),
        });
        lines.collect::<Vec<_>>().join("\n")
    }
}

/// `path` (dot-separated) in `payload`, or inside one of its wrapper objects.
pub(super) fn lookup<'a>(payload: &'a Value, path: &str) -> Option<&'a Value> {
    let inner = WRAPPERS.iter().filter_map(|w| payload.get(w).filter(|v| v.is_object()));
    std::iter::once(payload).chain(inner).find_map(|root| at_path(root, path))
}

fn at_path<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let found = path.split('.').try_fold(root, |value, key| value.get(key))?;
    (!found.is_null()).then_some(found)
}

/// The first of `paths` that is present (and not null).
fn first<'a>(payload: &'a Value, paths: &[&str]) -> Option<&'a Value> {
    paths.iter().find_map(|path| lookup(payload, path))
}

/// A field of `object` itself (no wrappers), as text.
fn field_text(object: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| object.get(key).and_then(text))
}

/// Scalars as text; empty strings, null and structures are not text.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A variable's value as a cell: strings as they are, null empty, anything else as JSON.
fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn turns(value: &Value) -> Vec<Turn> {
    match value {
        Value::Array(items) => items.iter().map(turn).collect(),
        Value::String(text) => {
            text.lines().filter(|l| !l.trim().is_empty()).map(line_turn).collect()
        }
        Value::Object(_) => value.get("messages").map(turns).unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn turn(item: &Value) -> Turn {
    match item {
        Value::String(line) => line_turn(line),
        Value::Object(_) => Turn {
            role: field_text(item, ROLE).unwrap_or_default(),
            content: CONTENT.iter().find_map(|k| item.get(k)).map(content).unwrap_or_default(),
            timestamp: field_text(item, TIMESTAMP),
        },
        other => Turn { content: plain(other), ..Turn::default() },
    }
}

/// Message content: a string, or chat-completion style parts (`[{"type": "text", "text": ...}]`).
fn content(value: &Value) -> String {
    match value {
        Value::Array(parts) => {
            let texts = parts.iter().map(|p| p.get("text").map_or_else(|| plain(p), plain));
            texts.collect::<Vec<_>>().join(" ")
        }
        other => plain(other),
    }
}

/// `User: hello` → role `User`; a line without a short label before `: ` has no role.
fn line_turn(line: &str) -> Turn {
    let labelled = line.split_once(": ").filter(|(label, _)| {
        let label = label.trim();
        !label.is_empty()
            && label.chars().count() <= 24
            && label.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-'))
    });
    match labelled {
        Some((role, rest)) => Turn {
            role: role.trim().to_string(),
            content: rest.trim().to_string(),
            timestamp: None,
        },
        None => Turn { content: line.trim().to_string(), ..Turn::default() },
    }
}

/// An object of variables, or a list of `{name|key, value}` pairs.
fn variables(value: &Value) -> IndexMap<String, String> {
    match value {
        Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), plain(v))).collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(|item| {
                let name = field_text(item, &["name", "key"])?;
                Some((name, item.get("value").map(plain).unwrap_or_default()))
            })
            .collect(),
        _ => IndexMap::new(),
    }
}

fn customer(payload: &Value) -> Customer {
    let object = first(payload, CUSTOMER).filter(|c| c.is_object());
    let inner = |keys: &[&str]| object.and_then(|c| field_text(c, keys));
    let outer = |paths: &[&str]| first(payload, paths).and_then(text);
    let split_name = object.and_then(|c| {
        let parts: Vec<String> =
            ["first_name", "last_name"].iter().filter_map(|k| c.get(k).and_then(text)).collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    });
    Customer {
        name: inner(NAME).or(split_name).or_else(|| outer(&["customer_name"])),
        phone: inner(PHONE).or_else(|| outer(&["customer_phone", "customer_number"])),
        email: inner(EMAIL).or_else(|| outer(&["customer_email"])),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Customer, Event, Turn};

    fn turn(role: &str, content: &str, timestamp: Option<&str>) -> Turn {
        Turn { role: role.into(), content: content.into(), timestamp: timestamp.map(Into::into) }
    }

    #[test]
    fn the_flat_layout_the_sandbox_sends() {
        let event = Event::from_payload(&json!({
            "conversation_id": "c-1",
            "assistant_id": "6f1c0f5e-2a3b-4c5d-8e9f-0a1b2c3d4e5f",
            "ended_at": "2026-01-02T10:00:00.000000Z",
            "transcript": [
                {"role": "assistant", "content": "Hallo 👋", "timestamp": "2026-01-02T09:59:00Z"},
                {"role": "user", "content": "مرحبا"}
            ],
            "variables": {"interested": "yes", "score": 7, "missing": null},
            "customer": {"name": "Jürgen", "phone": "+4915112345678", "email": "j@x.de"}
        }));
        assert_eq!(event.conversation_id.as_deref(), Some("c-1"));
        assert_eq!(event.assistant_id.as_deref(), Some("6f1c0f5e-2a3b-4c5d-8e9f-0a1b2c3d4e5f"));
        assert_eq!(event.ended_at.as_deref(), Some("2026-01-02T10:00:00.000000Z"));
        assert_eq!(
            event.transcript,
            [
                turn("assistant", "Hallo 👋", Some("2026-01-02T09:59:00Z")),
                turn("user", "مرحبا", None)
            ]
        );
        let variables: Vec<_> =
            event.variables.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(variables, [("interested", "yes"), ("score", "7"), ("missing", "")]);
        assert_eq!(
            event.customer,
            Customer {
                name: Some("Jürgen".into()),
                phone: Some("+4915112345678".into()),
                email: Some("j@x.de".into())
            }
        );
        assert_eq!(event.transcript_text(), "assistant: Hallo 👋\nuser: مرحبا");
    }

    #[test]
    fn a_wrapped_layout_with_nested_objects_and_other_names() {
        let event = Event::from_payload(&json!({
            "event": "conversation.ended",
            "data": {
                "conversation": {"id": 991, "ended_at": "2026-01-02 10:00:00",
                    "messages": [{"speaker": "bot", "text": "Hi"},
                                 {"sender": "customer", "message": [{"type": "text", "text": "Yo"}]}]},
                "assistant": {"id": 3, "uuid": "a-uuid"},
                "extracted_variables": [{"name": "budget", "value": "10k"}],
                "customer_info": {"first_name": "Ada", "last_name": "Lovelace", "phone_number": "+441234567890"}
            }
        }));
        assert_eq!(event.conversation_id.as_deref(), Some("991"));
        assert_eq!(event.assistant_id.as_deref(), Some("a-uuid"));
        assert_eq!(event.ended_at.as_deref(), Some("2026-01-02 10:00:00"));
        assert_eq!(event.transcript, [turn("bot", "Hi", None), turn("customer", "Yo", None)]);
        assert_eq!(event.variables.get("budget").map(String::as_str), Some("10k"));
        assert_eq!(event.customer.name.as_deref(), Some("Ada Lovelace"));
        assert_eq!(event.customer.phone.as_deref(), Some("+441234567890"));
        assert_eq!(event.customer.email, None);
    }

    #[test]
    fn a_transcript_given_as_text() {
        let event = Event::from_payload(&json!({
            "transcript": "Assistant: Guten Tag!\nUser: Ich möchte kündigen.\n\n(call dropped): sorry",
            "customer_name": "Zoë",
            "extracted_data": {"cancel": true}
        }));
        assert_eq!(
            event.transcript,
            [
                turn("Assistant", "Guten Tag!", None),
                turn("User", "Ich möchte kündigen.", None),
                turn("", "(call dropped): sorry", None)
            ]
        );
        assert_eq!(event.customer.name.as_deref(), Some("Zoë"));
        assert_eq!(event.variables.get("cancel").map(String::as_str), Some("true"));
    }

    #[test]
    fn unknown_shapes_give_an_empty_event_not_an_error() {
        for payload in
            [json!([1, 2]), json!("text"), json!({"transcript": 5, "customer": "x"}), json!(null)]
        {
            let event = Event::from_payload(&payload);
            assert!(event.transcript.is_empty() && event.variables.is_empty(), "{payload}");
            assert_eq!(event.customer, Customer::default(), "{payload}");
        }
    }
}
