//! The typed client of the calling service: one method per operation of the interface.
//!
//! This is the only module that speaks HTTP to the service. It turns every answer into either a
//! typed record or a [`ClientError`] that says what to do; it does not retry (the push engine
//! decides that, because only it knows whether a write may be repeated).

pub mod account;
mod changes;
pub mod config;
pub mod error;
pub mod lenient;
mod list;
pub mod model;
mod redact;

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

pub use config::{ClientConfig, ConfigError, Token};
pub use error::{ClientError, FieldError};
pub use model::{
    Assistant, Campaign, CampaignRef, Created, Deleted, Lead, LeadChange, LeadStatus, NewContact,
    NewLead, OutboundAssistant, Page, SecondaryContact, Updated, Variables,
};

const USER_AGENT: &str = concat!("leadsync/", env!("CARGO_PKG_VERSION"));
/// How many bytes of an unexpected body an error quotes.
const SNIPPET_BYTES: usize = 200;
/// The longest wait a 429 may impose; a larger `Retry-After` is taken as this.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);
/// Retries of a failed read before giving up.
const READ_RETRIES: u32 = 5;
/// The service's page size bounds for the assistant list.
pub const PER_PAGE_RANGE: std::ops::RangeInclusive<u64> = 1..=100;

/// A client for one account of the service. Cheap to clone; clones share connections.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    config: ClientConfig,
    /// What journals call the service; the base URL unless named otherwise.
    service_name: Option<String>,
    /// The path form of a lead's update and delete each, once the service has shown it.
    lead_paths: std::sync::Arc<changes::PathForms>,
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Client, ClientError> {
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(10)))
            .pool_max_idle_per_host(64)
            .build()
            .map_err(|e| ClientError::Connect {
                url: redact::url_for_people(&config.base_url),
                reason: error_chain(&e),
            })?;
        let lead_paths = std::sync::Arc::default();
        Ok(Client { http, config, service_name: None, lead_paths })
    }

    pub fn base_url(&self) -> &Url {
        &self.config.base_url
    }

    /// Names the service for journals: the embedded sandbox is `sandbox` whatever its port, so
    /// its runs resume across invocations.
    pub fn named(mut self, name: &str) -> Client {
        self.service_name = Some(name.to_string());
        self
    }

    /// The service as journals name it.
    pub fn service_name(&self) -> String {
        self.service_name.clone().unwrap_or_else(|| self.config.base_url.to_string())
    }

    /// The request timeout: how long a write may take before its answer is given up on.
    pub fn timeout(&self) -> Duration {
        self.config.timeout
    }

    /// Operation 1: one page of the user's assistants (full records).
    pub async fn list_assistants(
        &self,
        page: u64,
        per_page: u64,
    ) -> Result<Page<Assistant>, ClientError> {
        decode(self.list_assistants_raw(page, per_page).await?, "user/assistants/get")
    }

    /// Operation 1 as the service sent the page.
    pub async fn list_assistants_raw(
        &self,
        page: u64,
        per_page: u64,
    ) -> Result<Value, ClientError> {
        let query = [("page", page.to_string()), ("per_page", per_page.to_string())];
        self.get_raw("user/assistants/get", &query).await
    }

    /// Operation 1, every page: walks the pages until the last one.
    pub fn assistant_pages(&self, per_page: u64) -> AssistantPages<'_> {
        AssistantPages { client: self, per_page, next: Some(1) }
    }

    /// Operation 1, every assistant of every page.
    pub async fn all_assistants(&self) -> Result<Vec<Assistant>, ClientError> {
        decode_all(self.all_assistants_raw().await?, "user/assistants/get")
    }

    /// Operation 1, every page's records as the service sent them.
    pub async fn all_assistants_raw(&self) -> Result<Vec<Value>, ClientError> {
        let per_page = *PER_PAGE_RANGE.end();
        let mut all = Vec::new();
        for number in 1.. {
            let page: Page<Value> =
                decode(self.list_assistants_raw(number, per_page).await?, "user/assistants/get")?;
            let last = page.data.is_empty() || page.current_page.max(number) >= page.last_page;
            all.extend(page.data);
            if last {
                break;
            }
        }
        Ok(all)
    }

    /// Operation 2: the user's outbound assistants (summary records, not paginated).
    pub async fn outbound_assistants(&self) -> Result<Vec<OutboundAssistant>, ClientError> {
        self.list_of("user/assistants/outbound", "assistants").await
    }

    /// Operation 2 as the service sent the records, in any list shape (see `Client::list_of`).
    pub async fn outbound_assistants_raw(&self) -> Result<Vec<Value>, ClientError> {
        self.list_of("user/assistants/outbound", "assistants").await
    }

    /// Operation 3: creates a lead and its secondary contacts. A success must carry the new
    /// lead's id: a 2xx without one (or with a body that is not the record) is
    /// [`ClientError::Unconfirmed`], a write in doubt, never a lead created with no id.
    pub async fn create_lead(&self, lead: &NewLead) -> Result<Created<Lead>, ClientError> {
        const PATH: &str = "user/lead";
        let body = serde_json::to_value(lead).expect("a NewLead always serializes");
        let unconfirmed = |status: u16, detail: String| ClientError::Unconfirmed {
            status,
            path: PATH.to_string(),
            detail,
        };
        let answer = match self.send(Method::POST, PATH, &[], Some(&body)).await {
            Ok(answer) => answer,
            Err(ClientError::BadBody { status: status @ 200..=299, detail, .. }) => {
                return Err(unconfirmed(status, detail));
            }
            Err(e) => return Err(e),
        };
        let created: Created<Lead> = serde_json::from_value(answer)
            .map_err(|e| unconfirmed(200, format!("the record does not decode: {e}")))?;
        match &created.data {
            Some(lead) if lead.id > 0 => Ok(created),
            _ => Err(unconfirmed(200, "no `data.id` in the answer".into())),
        }
    }

    /// Operation 4: every lead of the user. Accepts a bare array, `{"leads": [...]}` and a page
    /// envelope (whose pages it walks), since the service has been seen answering all three.
    pub async fn list_leads(&self) -> Result<Vec<Lead>, ClientError> {
        self.list_of("user/leads", "leads").await
    }

    /// Operation 4, one lead at a time: memory holds one answer's text, never the whole list
    /// decoded (see `Client::list_of` for the shapes).
    pub async fn for_each_lead(&self, take: impl FnMut(Lead)) -> Result<(), ClientError> {
        self.for_each_of("user/leads", "leads", take).await
    }

    /// Operation 4 as the service sent the records, in any list shape (see `Client::list_of`).
    pub async fn list_leads_raw(&self) -> Result<Vec<Value>, ClientError> {
        self.list_of("user/leads", "leads").await
    }

    /// Operation 5: the user's campaigns.
    pub async fn list_campaigns(&self) -> Result<Vec<Campaign>, ClientError> {
        self.list_of("user/campaigns", "campaigns").await
    }

    /// Operation 5 as the service sent the records, in any list shape (see `Client::list_of`).
    pub async fn list_campaigns_raw(&self) -> Result<Vec<Value>, ClientError> {
        self.list_of("user/campaigns", "campaigns").await
    }

    /// Every record of the list at `path`, whose records may sit under `resource` (`leads`,
    /// `campaigns`, `assistants`). The spec shows bare arrays, but the service's own docs show
    /// lists in several shapes, so any of these is read: a bare array; an object with the array
    /// under `resource`, `data` or `items`; a Laravel page envelope, or an API-resource page
    /// (`data`, `links.next`, `meta`), also wrapped in such an object.
    ///
    /// Pages are walked while `next_page_url` (or `links.next`) is set or `current_page` is
    /// below `last_page`. The next request takes the query of the next page's URL but goes to
    /// our own base URL: a service behind a proxy often names an internal host there, and the
    /// token must never go to a host the service names. A walk that repeats itself or never
    /// ends is a [`ClientError::BadBody`] rather than a hang (see [`PageWalk`]).
    async fn list_of<T: DeserializeOwned>(
        &self,
        path: &str,
        resource: &str,
    ) -> Result<Vec<T>, ClientError> {
        let mut items = Vec::new();
        self.for_each_of(path, resource, |item| items.push(item)).await?;
        Ok(items)
    }

    /// Hands every record of the list at `path` to `take`, decoded, one at a time (see
    /// [`Client::list_of`] for the shapes).
    async fn for_each_of<T: DeserializeOwned>(
        &self,
        path: &str,
        resource: &str,
        mut take: impl FnMut(T),
    ) -> Result<(), ClientError> {
        self.walk_list(path, resource, |record| {
            take(decode_raw(record, path)?);
            Ok(())
        })
        .await
    }

    /// Hands every record of the list at `path` to `take`, page by page, as the service wrote
    /// it (see [`Client::list_of`]).
    async fn walk_list(
        &self,
        path: &str,
        resource: &str,
        mut take: impl FnMut(&RawValue) -> Result<(), ClientError>,
    ) -> Result<(), ClientError> {
        let mut walk = list::PageWalk::new(path);
        let mut query: Vec<(String, String)> = Vec::new();
        loop {
            let pairs: Vec<(&str, String)> =
                query.iter().map(|(key, value)| (key.as_str(), value.clone())).collect();
            let (_, body) = self.get_bytes(path, &pairs).await?;
            let page = list::list_page(&body, resource, path)?;
            let next = walk.step(&page)?;
            page.items.iter().try_for_each(|record| take(record))?;
            match next {
                Some(next) => query = next,
                None => return Ok(()),
            }
        }
    }

    /// Operation 6: points the assistant's conversation-ended notifications at `webhook_url`.
    /// Returns the service's confirmation message.
    pub async fn enable_conversation_ended_webhook(
        &self,
        assistant_id: u64,
        webhook_url: &str,
    ) -> Result<String, ClientError> {
        let body = serde_json::json!({ "assistant_id": assistant_id, "webhook_url": webhook_url });
        let path = "user/assistants/enable-conversation-ended-webhook";
        let answer = self.send(Method::POST, path, &[], Some(&body)).await?;
        Ok(answer.get("message").and_then(Value::as_str).unwrap_or_default().to_string())
    }

    /// A GET of `path` (relative to the base URL), as raw JSON. Reads change nothing, so a
    /// 5xx, a 429 or a lost connection is retried here a few times with backoff.
    pub async fn get_raw(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<Value, ClientError> {
        let (status, bytes) = self.get_bytes(path, query).await?;
        parse_json(status, path, &bytes)
    }

    /// A GET of `path`: its success status and body, retried as [`Client::get_raw`] says.
    async fn get_bytes(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(StatusCode, bytes::Bytes), ClientError> {
        let mut attempt = 0;
        loop {
            match self.send_bytes(Method::GET, path, query, None).await {
                Err(e) if e.is_retryable() && attempt < READ_RETRIES => {
                    attempt += 1;
                    let backoff = Duration::from_millis(100 << attempt);
                    tracing::debug!(path, attempt, error = %e, "retrying a read");
                    tokio::time::sleep(
                        e.retry_after().unwrap_or(backoff).min(Duration::from_secs(30)),
                    )
                    .await;
                }
                other => return other,
            }
        }
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<Value, ClientError> {
        let (status, bytes) = self.send_bytes(method, path, query, body).await?;
        parse_json(status, path, &bytes)
    }

    /// A request whose answer is a success: its status and body's bytes. Any other answer is
    /// the error it means.
    async fn send_bytes(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<(StatusCode, bytes::Bytes), ClientError> {
        let url = self.config.base_url.join(path).map_err(|e| ClientError::Connect {
            url: format!("{}{path}", redact::url_for_people(&self.config.base_url)),
            reason: e.to_string(),
        })?;
        let mut request = self
            .http
            .request(method, url.clone())
            .bearer_auth(self.config.token.expose())
            .header(reqwest::header::ACCEPT, "application/json");
        if !query.is_empty() {
            request = request.query(query);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.map_err(|e| self.transport_error(e, &url, path))?;
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response.bytes().await.map_err(|e| self.transport_error(e, &url, path))?;
        // The one door through which answers come in: whatever becomes of the body (a record,
        // an error's message, a snippet of it) never carries our own token.
        let bytes = match redact::token_out(&bytes, self.config.token.expose()) {
            std::borrow::Cow::Borrowed(_) => bytes,
            std::borrow::Cow::Owned(hidden) => bytes::Bytes::from(hidden),
        };
        if status.is_success() {
            return Ok((status, bytes));
        }
        Err(match status_error(status, &headers, path, &bytes) {
            ClientError::Unauthorized { status, message, .. } => {
                let token = self.config.token.origin().to_string();
                ClientError::Unauthorized { status, message, token }
            }
            other => other,
        })
    }

    fn transport_error(&self, e: reqwest::Error, url: &Url, path: &str) -> ClientError {
        if e.is_timeout() {
            ClientError::Timeout { path: path.to_string(), timeout: self.config.timeout }
        } else if e.is_connect() {
            ClientError::Connect { url: redact::url_for_people(url), reason: error_chain(&e) }
        } else {
            ClientError::Interrupted { path: path.to_string(), reason: error_chain(&e) }
        }
    }
}

/// Walks the pages of the assistant list, one request per page.
pub struct AssistantPages<'a> {
    client: &'a Client,
    per_page: u64,
    next: Option<u64>,
}

impl AssistantPages<'_> {
    /// The next page, or `None` after the last one.
    pub async fn next_page(&mut self) -> Option<Result<Page<Assistant>, ClientError>> {
        let number = self.next?;
        let page = self.client.list_assistants(number, self.per_page).await;
        self.next = match &page {
            Ok(p) if !p.data.is_empty() && p.current_page.max(number) < p.last_page => {
                Some(number + 1)
            }
            _ => None,
        };
        Some(page)
    }
}

fn decode<T: DeserializeOwned>(value: Value, path: &str) -> Result<T, ClientError> {
    T::deserialize(&value).map_err(|e| bad_record(path, &e, value.to_string().as_bytes()))
}

fn decode_all<T: DeserializeOwned>(items: Vec<Value>, path: &str) -> Result<Vec<T>, ClientError> {
    items.into_iter().map(|v| decode(v, path)).collect()
}

/// One record of a list, as the service wrote it, decoded.
fn decode_raw<T: DeserializeOwned>(record: &RawValue, path: &str) -> Result<T, ClientError> {
    serde_json::from_str(record.get()).map_err(|e| bad_record(path, &e, record.get().as_bytes()))
}

/// A record of a successful answer that is not the record the interface describes.
fn bad_record(path: &str, error: &serde_json::Error, record: &[u8]) -> ClientError {
    ClientError::BadBody {
        status: 200,
        path: path.to_string(),
        detail: redact::credentials_out(&error.to_string()),
        snippet: snippet(record),
    }
}

fn parse_json(status: StatusCode, path: &str, bytes: &[u8]) -> Result<Value, ClientError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(bytes).map_err(|e| ClientError::BadBody {
        status: status.as_u16(),
        path: path.to_string(),
        detail: redact::credentials_out(&e.to_string()),
        snippet: snippet(bytes),
    })
}

fn status_error(status: StatusCode, headers: &HeaderMap, path: &str, bytes: &[u8]) -> ClientError {
    let body: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let message = match error_message(&body) {
        Some(message) => redact::credentials_out(&message),
        None => match snippet(bytes) {
            s if s.is_empty() => status.canonical_reason().unwrap_or("no message").to_string(),
            s => s,
        },
    };
    let path = path.to_string();
    match status.as_u16() {
        401 | 403 => ClientError::Unauthorized {
            status: status.as_u16(),
            message,
            token: "`LEADSYNC_TOKEN` or `--token-file`".to_string(),
        },
        404 => ClientError::NotFound { path, message },
        422 => {
            let mut fields = field_errors(&body);
            for message in fields.iter_mut().flat_map(|f| f.messages.iter_mut()) {
                *message = redact::credentials_out(message);
            }
            ClientError::Validation { fields, message }
        }
        429 => ClientError::RateLimited { path, retry_after: retry_after(headers, &body) },
        500..=599 => ClientError::Server { status: status.as_u16(), path, message },
        _ => ClientError::Status { status: status.as_u16(), path, message },
    }
}

/// The human message of an error body: `{"message": ...}` or `{"error": ...}`.
fn error_message(body: &Value) -> Option<String> {
    let field = body.get("message").or_else(|| body.get("error"))?;
    match field {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("message").and_then(Value::as_str).map(str::to_string),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Laravel's `{"errors": {"field": ["message", ...]}}`, in the order the service sent it.
fn field_errors(body: &Value) -> Vec<FieldError> {
    let Some(Value::Object(errors)) = body.get("errors") else {
        return Vec::new();
    };
    errors
        .iter()
        .map(|(field, messages)| FieldError {
            field: field.clone(),
            messages: match messages {
                Value::Array(items) => items
                    .iter()
                    .map(|m| m.as_str().map_or_else(|| m.to_string(), str::to_string))
                    .collect(),
                Value::String(s) => vec![s.clone()],
                other => vec![other.to_string()],
            },
        })
        .collect()
}

/// The wait a 429 asks for: the `Retry-After` header (seconds or an HTTP date), else a
/// `retry_after` field in the body.
fn retry_after(headers: &HeaderMap, body: &Value) -> Option<Duration> {
    let from_header =
        headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
    from_header.or_else(|| {
        let field = body.get("retry_after")?;
        field.as_f64().or_else(|| field.as_str()?.trim().parse().ok()).and_then(wait_of)
    })
}

/// A wait in seconds as a duration, capped at [`MAX_RETRY_AFTER`]; nonsense is no wait.
fn wait_of(seconds: f64) -> Option<Duration> {
    (seconds.is_finite() && seconds >= 0.0)
        .then(|| Duration::from_secs_f64(seconds.min(MAX_RETRY_AFTER.as_secs_f64())))
}

fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<f64>() {
        return wait_of(seconds);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(std::time::SystemTime::now()).unwrap_or_default().min(MAX_RETRY_AFTER))
}

/// The first bytes of an answer, on one line, without any credential it repeats.
fn snippet(bytes: &[u8]) -> String {
    let end = bytes.len().min(SNIPPET_BYTES);
    let text = String::from_utf8_lossy(&bytes[..end]).replace(['\n', '\r'], " ");
    redact::credentials_out(text.trim())
}

/// The error and its causes on one line: reqwest's own message alone hides the cause, and
/// names the URL, which loses its user and password here.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    redact::credentials_out(&parts.join(": "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_dates_and_bodies() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        let body = serde_json::json!({"retry_after": 2});
        assert_eq!(retry_after(&HeaderMap::new(), &body), Some(Duration::from_secs(2)));
        assert_eq!(retry_after(&HeaderMap::new(), &Value::Null), None);
        // Absurd waits are capped instead of stalling (or overflowing) the run.
        assert_eq!(parse_retry_after("1e20"), Some(MAX_RETRY_AFTER));
        assert_eq!(
            retry_after(&HeaderMap::new(), &serde_json::json!({"retry_after": 1e300})),
            Some(MAX_RETRY_AFTER)
        );
        assert_eq!(parse_retry_after("-1"), None);
    }

    #[test]
    fn laravel_validation_bodies_become_field_errors() {
        let body = serde_json::json!({
            "message": "The phone number has already been taken.",
            "errors": {"phone_number": ["The phone number has already been taken."], "variables.email": "bad"}
        });
        let err = status_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            &HeaderMap::new(),
            "user/lead",
            body.to_string().as_bytes(),
        );
        assert!(err.is_duplicate(), "{err}");
        let ClientError::Validation { fields, .. } = &err else { panic!("{err:?}") };
        assert_eq!(fields[1].field, "variables.email");
        assert_eq!(fields[1].messages, ["bad"]);
        assert!(
            err.to_string().contains("`phone_number`: The phone number has already been taken.")
        );
    }

    #[test]
    fn error_messages_come_from_message_or_error_or_the_raw_body() {
        let err = status_error(
            StatusCode::BAD_GATEWAY,
            &HeaderMap::new(),
            "x",
            b"<html>bad gateway</html>",
        );
        assert!(err.to_string().contains("<html>bad gateway</html>"), "{err}");
        assert!(err.is_retryable());
        let err = status_error(
            StatusCode::UNAUTHORIZED,
            &HeaderMap::new(),
            "x",
            br#"{"error":"Invalid token"}"#,
        );
        assert!(err.to_string().contains("Invalid token"), "{err}");
        assert!(!err.is_retryable());
    }
}
