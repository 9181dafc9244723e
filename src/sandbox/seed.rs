//! The seed format: which users exist, their tokens, campaigns and assistants.
//!
//! ```json
//! {"users": [{"id": 1, "token": "...",
//!             "campaigns": [{"id": 10, "name": "Spring"}],
//!             "assistants": [{"id": 5, "name": "Sales", "type": "outbound"}]},
//!            {"id": 2, "tokens": ["...", "..."]}]}
//! ```
//!
//! A user has one token or more: `token`, `tokens`, or both (`token` then counts first). Every
//! one of them authenticates as that user, as several API keys of one account do. A token is
//! unique across the whole seed, and must fit in an `Authorization` header.
//!
//! Records take any wire field; omitted ones get defaults (see `defaults.rs`), unknown keys are
//! ignored. A seed is checked completely when read, so a typo fails at start-up naming the file
//! and the key, not as a 500 later. Decimal-as-text fields may be written as numbers.

use std::collections::HashSet;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::SandboxError;
use super::store::Record;
use super::time::{is_record_timestamp, is_time_of_day};
use super::wire::{Assistant, Campaign, DECIMAL_TEXT_FIELDS};

/// Users with their campaigns and assistants, validated, ready to be upserted.
#[derive(Debug, Clone)]
pub struct Seed {
    /// The file it came from, or a label; named in every error about it.
    pub(crate) name: String,
    pub(crate) users: Vec<SeedUser>,
}

#[derive(Debug, Clone)]
pub(crate) struct SeedUser {
    pub id: i64,
    /// At least one; the first is the user's main token in the database.
    pub tokens: Vec<String>,
    pub campaigns: Vec<SeedRecord>,
    pub assistants: Vec<SeedRecord>,
}

/// One campaign or assistant: its id and the fields the seed gave, type-checked.
#[derive(Debug, Clone)]
pub(crate) struct SeedRecord {
    pub id: i64,
    pub fields: Map<String, Value>,
}

#[derive(Deserialize)]
struct RawSeed {
    users: Vec<RawUser>,
}

#[derive(Deserialize)]
struct RawUser {
    id: i64,
    token: Option<String>,
    #[serde(default)]
    tokens: Vec<String>,
    #[serde(default)]
    campaigns: Vec<Map<String, Value>>,
    #[serde(default)]
    assistants: Vec<Map<String, Value>>,
}

impl Seed {
    /// Reads and checks a seed file.
    pub fn from_path(path: &Path) -> Result<Seed, SandboxError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| SandboxError::ReadSeed { path: path.to_path_buf(), source })?;
        let name = path.display().to_string();
        let json = serde_json::from_str(&text)
            .map_err(|source| SandboxError::ParseSeed { seed: name.clone(), source })?;
        Seed::from_json(name, json)
    }

    /// The built-in demo tenants (see `demo.rs`).
    pub fn demo() -> Seed {
        super::demo::seed()
    }

    /// Checks a seed given as JSON; `name` says where it came from in errors.
    pub fn from_json(name: String, json: Value) -> Result<Seed, SandboxError> {
        let raw: RawSeed = serde_json::from_value(json)
            .map_err(|source| SandboxError::ParseSeed { seed: name.clone(), source })?;
        let users = check_users(raw.users).map_err(|(at, problem)| SandboxError::InvalidSeed {
            seed: name.clone(),
            at,
            problem,
        })?;
        Ok(Seed { name, users })
    }

    /// How many users the seed defines.
    pub fn user_count(&self) -> usize {
        self.users.len()
    }
}

/// Where in the seed something is wrong, and what.
type Problem = (String, String);

fn check_users(raw: Vec<RawUser>) -> Result<Vec<SeedUser>, Problem> {
    let (mut ids, mut tokens) = (HashSet::new(), HashSet::new());
    let (mut campaign_ids, mut assistant_ids) = (HashSet::new(), HashSet::new());
    let mut users = Vec::with_capacity(raw.len());
    for (index, user) in raw.into_iter().enumerate() {
        let at = format!("users[{index}]");
        if !ids.insert(user.id) {
            return Err((format!("{at}.id"), format!("repeats user id {}", user.id)));
        }
        let user_tokens = check_tokens(&at, user.token, user.tokens, &mut tokens)?;
        let campaigns =
            check_records::<Campaign>(&at, "campaigns", user.campaigns, &mut campaign_ids)?;
        let assistants =
            check_records::<Assistant>(&at, "assistants", user.assistants, &mut assistant_ids)?;
        users.push(SeedUser { id: user.id, tokens: user_tokens, campaigns, assistants });
    }
    Ok(users)
}

/// A user's tokens, `token` first, each trimmed, usable and not seen before in the seed.
fn check_tokens(
    user_at: &str,
    token: Option<String>,
    more: Vec<String>,
    seen: &mut HashSet<String>,
) -> Result<Vec<String>, Problem> {
    let first = token.map(|token| (format!("{user_at}.token"), token));
    let rest = more.into_iter().enumerate();
    let all = first.into_iter().chain(rest.map(|(j, t)| (format!("{user_at}.tokens[{j}]"), t)));
    let mut tokens = Vec::new();
    for (at, token) in all {
        let token = token.trim().to_string();
        if let Some(problem) = token_problem(&token, seen) {
            return Err((at, problem.into()));
        }
        seen.insert(token.clone());
        tokens.push(token);
    }
    if tokens.is_empty() {
        let problem = "needs a token: give `token` or a non-empty `tokens` list";
        return Err((format!("{user_at}.token"), problem.into()));
    }
    Ok(tokens)
}

fn token_problem(token: &str, seen: &HashSet<String>) -> Option<&'static str> {
    if token.is_empty() {
        Some("must not be empty")
    } else if token.chars().any(char::is_control) || !token.is_ascii() {
        Some("must be printable ASCII, since it travels in an `Authorization` header")
    } else if seen.contains(token) {
        Some("repeats a token given earlier in the seed; every token must be unique")
    } else {
        None
    }
}

fn check_records<R: Record>(
    user_at: &str,
    kind: &str,
    raw: Vec<Map<String, Value>>,
    seen: &mut HashSet<i64>,
) -> Result<Vec<SeedRecord>, Problem> {
    let mut records = Vec::with_capacity(raw.len());
    for (index, fields) in raw.into_iter().enumerate() {
        let at = format!("{user_at}.{kind}[{index}]");
        let id = fields.get("id").and_then(Value::as_i64);
        let id =
            id.ok_or_else(|| (format!("{at}.id"), "is required and must be an integer".into()))?;
        if !seen.insert(id) {
            return Err((format!("{at}.id"), format!("repeats {kind} id {id}")));
        }
        let fields = check_fields::<R>(&at, fields)?;
        records.push(SeedRecord { id, fields });
    }
    Ok(records)
}

/// Keeps the known fields, each checked against the record's type and the spec's formats.
fn check_fields<R: Record>(
    at: &str,
    raw: Map<String, Value>,
) -> Result<Map<String, Value>, Problem> {
    let template = R::template();
    let known = raw
        .into_iter()
        .filter(|(key, _)| template.contains_key(key) && key != "id" && key != "user_id");
    let mut fields = Map::new();
    for (key, value) in known {
        let value = decimal_as_text(&key, value);
        check_field::<R>(&key, &value).map_err(|problem| (format!("{at}.{key}"), problem))?;
        fields.insert(key, value);
    }
    Ok(fields)
}

/// `0.7` and `"0.7"` both mean the text `"0.7"` for the spec's decimal-as-text fields.
fn decimal_as_text(key: &str, value: Value) -> Value {
    match value {
        Value::Number(number) if DECIMAL_TEXT_FIELDS.contains(&key) => {
            Value::String(number.to_string())
        }
        other => other,
    }
}

fn check_field<R: Record>(key: &str, value: &Value) -> Result<(), String> {
    let mut probe = R::template().clone();
    probe.insert(key.to_string(), value.clone());
    if let Err(e) = serde_json::from_value::<R>(Value::Object(probe)) {
        return Err(format!("has the wrong type: {e}"));
    }
    format_problem(key, value).map_or(Ok(()), Err)
}

/// Formats the spec fixes beyond JSON types.
fn format_problem(key: &str, value: &Value) -> Option<String> {
    let text = value.as_str();
    let days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
    match key {
        "created_at" | "updated_at" | "deleted_at"
            if text.is_some_and(|t| !is_record_timestamp(t)) =>
        {
            Some("must look like 2024-05-01T09:30:00.000000Z".into())
        }
        "allowed_hours_start_time" | "allowed_hours_end_time"
            if text.is_some_and(|t| !is_time_of_day(t)) =>
        {
            Some("must be a time of day HH:MM:SS".into())
        }
        "type" if !matches!(text, Some("inbound" | "outbound")) => {
            Some("must be \"inbound\" or \"outbound\"".into())
        }
        "allowed_days" => {
            let all = value.as_array().into_iter().flatten();
            let bad = all.filter_map(Value::as_str).find(|day| !days.contains(day));
            bad.map(|day| format!("has `{day}`; use lowercase English day names"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Seed;

    fn problem(json: serde_json::Value) -> String {
        Seed::from_json("seed.json".into(), json).unwrap_err().to_string()
    }

    #[test]
    fn demo_seed_is_valid_and_has_two_tenants() {
        assert_eq!(Seed::demo().user_count(), 2);
    }

    #[test]
    fn unknown_keys_are_ignored_and_decimals_become_text() {
        let seed = Seed::from_json(
            "s".into(),
            json!({"users": [{"id": 1, "token": "t",
            "assistants": [{"id": 5, "colour": "red", "llm_temperature": 0.25}]}], "extra": 1}),
        )
        .unwrap();
        let fields = &seed.users[0].assistants[0].fields;
        assert_eq!(fields.get("llm_temperature"), Some(&json!("0.25")));
        assert!(!fields.contains_key("colour"));
    }

    #[test]
    fn errors_name_the_seed_and_the_key() {
        let message = problem(json!({"users": [{"id": 1, "token": "t",
            "campaigns": [{"id": 10}, {"id": 11, "max_retries": "three"}]}]}));
        assert!(
            message.starts_with("seed `seed.json`: `users[0].campaigns[1].max_retries`"),
            "{message}"
        );
        let message =
            problem(json!({"users": [{"id": 1, "token": "t", "assistants": [{"name": "x"}]}]}));
        assert!(message.contains("`users[0].assistants[0].id` is required"), "{message}");
        let message = problem(json!({"users": [{"id": 1, "token": "t", "campaigns": [{"id": 1,
            "allowed_days": ["Monday"]}]}]}));
        assert!(message.contains("allowed_days"), "{message}");
        let message = problem(json!({"users": [{"id": 1, "token": "t"}, {"id": 2, "token": "t"}]}));
        assert!(message.contains("users[1].token"), "{message}");
        assert!(problem(json!({"people": []})).contains("not valid seed JSON"));
    }

    #[test]
    fn a_user_may_have_several_tokens() {
        let seed = Seed::from_json(
            "s".into(),
            json!({"users": [{"id": 1, "token": " a ", "tokens": ["b", "c"]},
                             {"id": 2, "tokens": ["d"]}]}),
        )
        .unwrap();
        assert_eq!(seed.users[0].tokens, ["a", "b", "c"], "`token` first, trimmed");
        assert_eq!(seed.users[1].tokens, ["d"]);
    }

    #[test]
    fn token_errors_name_the_token() {
        let cases = [
            (
                json!([{"id": 1, "tokens": ["a"]}, {"id": 2, "tokens": ["b", "a"]}]),
                "users[1].tokens[1]",
                "unique",
            ),
            (json!([{"id": 1, "token": "a", "tokens": ["a"]}]), "users[0].tokens[0]", "unique"),
            (json!([{"id": 1, "tokens": ["a", " "]}]), "users[0].tokens[1]", "empty"),
            (json!([{"id": 1, "tokens": []}]), "users[0].token", "needs a token"),
            (json!([{"id": 1}]), "users[0].token", "needs a token"),
            (json!([{"id": 1, "token": "a\nb"}]), "users[0].token", "printable ASCII"),
            (json!([{"id": 1, "token": "a"}, {"id": 2, "token": "a"}]), "users[1].token", "unique"),
        ];
        for (users, at, says) in cases {
            let message = problem(json!({ "users": users }));
            assert!(message.contains(&format!("`{at}`")) && message.contains(says), "{message}");
        }
    }
}
