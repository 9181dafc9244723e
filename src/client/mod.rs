//! The typed client of the calling service: one method per operation of the interface.
//!
//! This is the only module that speaks HTTP to the service. It turns every answer into either a
//! typed record or a [`ClientError`] that says what to do; it does not retry (the push engine
//! decides that, because only it knows whether a write may be repeated).

pub mod account;
pub mod config;
pub mod error;
pub mod lenient;
pub mod model;

use std::collections::HashSet;
use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use config::{ClientConfig, ConfigError, Token};
pub use error::{ClientError, FieldError};
pub use model::{
    Assistant, Campaign, CampaignRef, Created, Lead, NewContact, NewLead, OutboundAssistant, Page,
    SecondaryContact, Variables,
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
                url: config.base_url.to_string(),
                reason: error_chain(&e),
            })?;
        Ok(Client { http, config, service_name: None })
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
        decode_all(self.outbound_assistants_raw().await?, "user/assistants/outbound")
    }

    /// Operation 2 as the service sent the records, in any list shape (see [`Client::list_raw`]).
    pub async fn outbound_assistants_raw(&self) -> Result<Vec<Value>, ClientError> {
        self.list_raw("user/assistants/outbound", "assistants").await
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
        decode_all(self.list_leads_raw().await?, "user/leads")
    }

    /// Operation 4 as the service sent the records, in any list shape (see [`Client::list_raw`]).
    pub async fn list_leads_raw(&self) -> Result<Vec<Value>, ClientError> {
        self.list_raw("user/leads", "leads").await
    }

    /// Operation 5: the user's campaigns.
    pub async fn list_campaigns(&self) -> Result<Vec<Campaign>, ClientError> {
        decode_all(self.list_campaigns_raw().await?, "user/campaigns")
    }

    /// Operation 5 as the service sent the records, in any list shape (see [`Client::list_raw`]).
    pub async fn list_campaigns_raw(&self) -> Result<Vec<Value>, ClientError> {
        self.list_raw("user/campaigns", "campaigns").await
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
    async fn list_raw(&self, path: &str, resource: &str) -> Result<Vec<Value>, ClientError> {
        let mut walk = PageWalk::new(path);
        let mut query: Vec<(String, String)> = Vec::new();
        loop {
            let pairs: Vec<(&str, String)> =
                query.iter().map(|(key, value)| (key.as_str(), value.clone())).collect();
            let page = list_page(self.get_raw(path, &pairs).await?, resource, path)?;
            match walk.step(page)? {
                Some(next) => query = next,
                None => return Ok(walk.items),
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
        let mut attempt = 0;
        loop {
            match self.send(Method::GET, path, query, None).await {
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
        let url = self.config.base_url.join(path).map_err(|e| ClientError::Connect {
            url: format!("{}{path}", self.config.base_url),
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
        if status.is_success() {
            return parse_json(status, path, &bytes);
        }
        Err(status_error(status, &headers, path, &bytes))
    }

    fn transport_error(&self, e: reqwest::Error, url: &Url, path: &str) -> ClientError {
        if e.is_timeout() {
            ClientError::Timeout { path: path.to_string(), timeout: self.config.timeout }
        } else if e.is_connect() {
            ClientError::Connect { url: url.to_string(), reason: error_chain(&e) }
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
    serde_json::from_value(value.clone()).map_err(|e| ClientError::BadBody {
        status: 200,
        path: path.to_string(),
        detail: e.to_string(),
        snippet: snippet(value.to_string().as_bytes()),
    })
}

fn decode_all<T: DeserializeOwned>(items: Vec<Value>, path: &str) -> Result<Vec<T>, ClientError> {
    items.into_iter().map(|v| decode(v, path)).collect()
}

/// The most pages a list walk reads: at 15 a page, 1.5 million records. Past it the service is
/// taken to be paging forever.
const MAX_LIST_PAGES: u64 = 100_000;
/// How deep a list may sit in wrapping objects: `{"data": {"leads": [...]}}` is two.
const MAX_LIST_NESTING: u8 = 2;

/// One answer of a list endpoint: its records and what it says about further pages.
#[derive(Debug, Default, PartialEq)]
struct ListPage {
    items: Vec<Value>,
    paging: Paging,
}

/// The pagination fields of a page envelope; all `None` for a list that is not paged.
#[derive(Debug, Default, Clone, PartialEq)]
struct Paging {
    current: Option<u64>,
    last: Option<u64>,
    next_url: Option<String>,
}

impl Paging {
    /// Laravel's paginator puts the fields beside the list; its API resources put the page
    /// numbers under `meta` and the next URL under `links` (an object there, an array of page
    /// links in the paginator).
    fn of(map: &serde_json::Map<String, Value>) -> Paging {
        let meta = map.get("meta").and_then(Value::as_object);
        let links = map.get("links").and_then(Value::as_object);
        let number = |key: &str| map.get(key).or_else(|| meta?.get(key)).and_then(page_number);
        let next_url = map.get("next_page_url").or_else(|| links?.get("next"));
        let next_url = next_url.and_then(Value::as_str).filter(|url| !url.trim().is_empty());
        Paging {
            current: number("current_page"),
            last: number("last_page"),
            next_url: next_url.map(str::to_string),
        }
    }

    /// The fields as the service wrote them, for an error to quote.
    fn describe(&self) -> String {
        let show = |n: Option<u64>| n.map_or_else(|| "none".to_string(), |n| n.to_string());
        let next = self.next_url.as_deref().unwrap_or("none");
        format!(
            "current_page {}, last_page {}, next page URL {next}",
            show(self.current),
            show(self.last)
        )
    }

    fn is_known(&self) -> bool {
        self.current.is_some() || self.last.is_some() || self.next_url.is_some()
    }

    /// Whether the envelope says another page follows.
    fn has_more(&self) -> bool {
        let below_last = matches!((self.current, self.last), (Some(c), Some(l)) if c < l);
        self.next_url.is_some() || below_last
    }
}

/// A page number written as a number or as numeric text.
fn page_number(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The records and paging of one answer of the list of `resource`, in any shape
/// [`Client::list_raw`] reads.
fn list_page(mut answer: Value, resource: &str, path: &str) -> Result<ListPage, ClientError> {
    find_list(&mut answer, resource, 0).ok_or_else(|| bad_shape(answer, resource, path))
}

/// The list in `value`, taken out of it; `value` is left whole when there is none, for the
/// error to quote. The resource's own name is tried first, then `data`, then `items`.
fn find_list(value: &mut Value, resource: &str, depth: u8) -> Option<ListPage> {
    let map = match value {
        Value::Array(items) => {
            return Some(ListPage { items: std::mem::take(items), ..ListPage::default() });
        }
        Value::Object(map) if depth < MAX_LIST_NESTING => map,
        _ => return None,
    };
    let paging = Paging::of(map);
    for key in [resource, "data", "items"] {
        let Some(inner) = map.get_mut(key) else { continue };
        let found = find_list(inner, resource, depth + 1).or_else(|| keyed_records(inner));
        if let Some(mut page) = found {
            // An envelope inside the wrapper (`{"leads": {"data": [...], ...}}`) speaks for
            // itself; a bare list takes the paging of the object around it.
            if !page.paging.is_known() {
                page.paging = paging;
            }
            return Some(page);
        }
    }
    None
}

/// PHP's JSON of a filtered collection that was not re-indexed: an object keyed `"0"`, `"2"`,
/// ... whose values are the records.
fn keyed_records(value: &mut Value) -> Option<ListPage> {
    let map = value.as_object_mut()?;
    let keyed = !map.is_empty()
        && map.iter().all(|(key, record)| key.parse::<u64>().is_ok() && record.is_object());
    if !keyed {
        return None;
    }
    let items = std::mem::take(map).into_iter().map(|(_, record)| record).collect();
    Some(ListPage { items, ..ListPage::default() })
}

fn bad_shape(value: Value, resource: &str, path: &str) -> ClientError {
    ClientError::BadBody {
        status: 200,
        path: path.to_string(),
        detail: format!(
            "expected a list of {resource}: an array, an object with the array under `{resource}`, `data` or `items`, or a page envelope"
        ),
        snippet: snippet(value.to_string().as_bytes()),
    }
}

/// A walk over the pages of a list: the records so far and the guards that stop a service
/// that never ends, whether it repeats a page's records or a URL, or just goes on past
/// [`MAX_LIST_PAGES`].
struct PageWalk {
    path: String,
    items: Vec<Value>,
    pages: u64,
    /// Where the previous page's records start in `items`.
    previous: usize,
    /// Every query sent so far; the first page's is empty.
    asked: HashSet<Vec<(String, String)>>,
}

impl PageWalk {
    fn new(path: &str) -> PageWalk {
        PageWalk {
            path: path.to_string(),
            items: Vec::new(),
            pages: 0,
            previous: 0,
            asked: HashSet::from([Vec::new()]),
        }
    }

    /// Takes in one page; the query of the next page, or `None` when the list is complete.
    fn step(&mut self, page: ListPage) -> Result<Option<Vec<(String, String)>>, ClientError> {
        self.pages += 1;
        self.check_repeat(&page)?;
        let more = !page.items.is_empty() && page.paging.has_more();
        self.previous = self.items.len();
        self.items.extend(page.items);
        if !more {
            return Ok(None);
        }
        if self.pages >= MAX_LIST_PAGES {
            let problem = format!("the list goes on past {MAX_LIST_PAGES} pages");
            return Err(self.endless(problem, &page.paging));
        }
        let query = next_query(&page.paging, self.pages);
        if !self.asked.insert(query.clone()) {
            let problem = format!("page {} points back to a page already read", self.pages);
            return Err(self.endless(problem, &page.paging));
        }
        Ok(Some(query))
    }

    /// A page with the very records of the page before means the service ignores the page
    /// asked for. (A repeated `current_page` alone is not trusted to mean that: the records
    /// and the URLs are what decide.)
    fn check_repeat(&self, page: &ListPage) -> Result<(), ClientError> {
        let before = &self.items[self.previous..];
        if !page.items.is_empty() && before == page.items.as_slice() {
            let problem = format!("page {} repeats the records of the page before", self.pages);
            return Err(self.endless(problem, &page.paging));
        }
        Ok(())
    }

    fn endless(&self, problem: String, paging: &Paging) -> ClientError {
        ClientError::BadBody {
            status: 200,
            path: self.path.clone(),
            detail: format!(
                "{problem}, so the service seems to page forever; it may ignore `page`, report it to the service"
            ),
            snippet: snippet(paging.describe().as_bytes()),
        }
    }
}

/// The query of the page after one with `paging`, the `pages`-th read: the query of its next
/// URL when it has one, else `page` one past the current page.
fn next_query(paging: &Paging, pages: u64) -> Vec<(String, String)> {
    let url = paging.next_url.as_deref().map(|url| url.split('#').next().unwrap_or(url));
    let from_url = url.and_then(|url| url.split_once('?'));
    let pairs: Vec<(String, String)> = from_url
        .map(|(_, query)| url::form_urlencoded::parse(query.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    if !pairs.is_empty() {
        return pairs;
    }
    let number = paging.current.unwrap_or(pages).saturating_add(1);
    vec![("page".to_string(), number.to_string())]
}

fn parse_json(status: StatusCode, path: &str, bytes: &[u8]) -> Result<Value, ClientError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(bytes).map_err(|e| ClientError::BadBody {
        status: status.as_u16(),
        path: path.to_string(),
        detail: e.to_string(),
        snippet: snippet(bytes),
    })
}

fn status_error(status: StatusCode, headers: &HeaderMap, path: &str, bytes: &[u8]) -> ClientError {
    let body: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let message = error_message(&body).unwrap_or_else(|| match snippet(bytes) {
        s if s.is_empty() => status.canonical_reason().unwrap_or("no message").to_string(),
        s => s,
    });
    let path = path.to_string();
    match status.as_u16() {
        401 | 403 => ClientError::Unauthorized { status: status.as_u16(), message },
        404 => ClientError::NotFound { path, message },
        422 => ClientError::Validation { fields: field_errors(&body), message },
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

fn snippet(bytes: &[u8]) -> String {
    let end = bytes.len().min(SNIPPET_BYTES);
    String::from_utf8_lossy(&bytes[..end]).replace(['\n', '\r'], " ").trim().to_string()
}

/// The error and its causes on one line: reqwest's own message alone hides the cause.
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
    parts.join(": ")
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

    fn page(answer: Value) -> ListPage {
        list_page(answer, "leads", "user/leads").unwrap()
    }

    fn ids(page: &ListPage) -> Vec<i64> {
        page.items.iter().filter_map(|item| item["id"].as_i64()).collect()
    }

    #[test]
    fn lists_are_read_in_every_shape() {
        use serde_json::json;
        let (a, b) = (json!({"id": 1}), json!({"id": 2}));
        let shapes = [
            json!([a, b]),
            json!({"leads": [a, b]}),
            json!({"data": [a, b], "message": "ok"}),
            json!({"items": [a, b]}),
            json!({"success": true, "data": {"leads": [a, b]}}),
            json!({"data": {"0": a, "3": b}}),
            json!({"leads": {"current_page": 1, "data": [a, b], "last_page": 1}}),
        ];
        for shape in shapes {
            let read = page(shape.clone());
            assert_eq!((ids(&read), read.paging.has_more()), (vec![1, 2], false), "{shape}");
        }
        // The resource's own name wins over `data`, and a key that holds no list is passed by.
        let read = page(json!({"data": {"count": 2}, "leads": [b], "items": [a]}));
        assert_eq!(ids(&read), [2]);
        let read = page(json!({"data": "none", "items": [a]}));
        assert_eq!(ids(&read), [1]);
    }

    #[test]
    fn page_envelopes_say_where_the_next_page_is() {
        use serde_json::json;
        let laravel = page(json!({"current_page": "1", "data": [{"id": 1}], "last_page": 3,
            "links": [{"url": null, "label": "&laquo; Previous", "active": false}],
            "next_page_url": "http://internal:8000/api/user/leads?page=2#top"}));
        assert_eq!((laravel.paging.current, laravel.paging.last), (Some(1), Some(3)));
        assert_eq!(next_query(&laravel.paging, 1), [("page".to_string(), "2".to_string())]);
        let resource = page(json!({"data": [{"id": 1}],
            "links": {"next": "/api/user/leads?cursor=abc%3D&per_page=15"},
            "meta": {"current_page": 4, "last_page": 9}}));
        assert_eq!((resource.paging.current, resource.paging.last), (Some(4), Some(9)));
        let query = next_query(&resource.paging, 1);
        assert_eq!(query[0], ("cursor".to_string(), "abc=".to_string()));
        // Numbers alone: the page after the current one.
        let numbers = page(json!({"data": [{"id": 1}], "current_page": 2, "last_page": 3}));
        assert!(numbers.paging.has_more());
        assert_eq!(next_query(&numbers.paging, 7), [("page".to_string(), "3".to_string())]);
        let last = page(json!({"data": [{"id": 1}], "current_page": 3, "last_page": 3,
            "next_page_url": null}));
        assert!(!last.paging.has_more());
    }

    #[test]
    fn shapes_that_hold_no_list_are_bad_bodies_naming_the_resource() {
        use serde_json::json;
        let nested = json!({"data": {"data": {"data": [{"id": 1}]}}});
        for answer in [json!({"oops": 1}), json!("leads"), Value::Null, json!({"id": 1}), nested] {
            let err = list_page(answer.clone(), "leads", "user/leads").unwrap_err();
            let ClientError::BadBody { detail, snippet, .. } = &err else { panic!("{err:?}") };
            assert!(detail.contains("list of leads") && detail.contains("`leads`"), "{detail}");
            assert!(!snippet.is_empty() || answer.is_null(), "{answer}: {err}");
        }
    }

    fn walk(pages: impl IntoIterator<Item = Value>) -> Result<(Vec<i64>, usize), ClientError> {
        let mut walk = PageWalk::new("user/leads");
        let mut asked = 0;
        for answer in pages {
            asked += 1;
            if walk.step(list_page(answer, "leads", "user/leads")?)?.is_none() {
                let ids = walk.items.iter().filter_map(|item| item["id"].as_i64()).collect();
                return Ok((ids, asked));
            }
        }
        panic!("the walk wanted more than {asked} pages");
    }

    fn numbered(n: u64, last: u64) -> Value {
        serde_json::json!({"current_page": n, "last_page": last, "data": [{"id": n}],
            "next_page_url": (n < last).then(|| format!("http://x/api/user/leads?page={}", n + 1))})
    }

    #[test]
    fn walks_end_on_the_last_page_or_an_empty_one() {
        assert_eq!(walk((1..=3).map(|n| numbered(n, 3))).unwrap(), (vec![1, 2, 3], 3));
        let empty = serde_json::json!({"data": [], "current_page": 2, "last_page": 5,
            "next_page_url": "http://x/api/user/leads?page=3"});
        assert_eq!(walk([numbered(1, 5), empty]).unwrap(), (vec![1], 2));
    }

    #[test]
    fn walks_refuse_a_service_that_pages_forever() {
        // Ignores `page`: the same records again.
        let err = walk([numbered(1, 9), numbered(1, 9)]).unwrap_err();
        assert!(err.to_string().contains("page 2 repeats the records"), "{err}");
        // Points back to a page it already served.
        let mut back = numbered(2, 9);
        back["next_page_url"] = "http://x/api/user/leads?page=2".into();
        let err = walk([numbered(1, 9), back.clone(), back]).unwrap_err();
        assert!(err.to_string().contains("points back to a page already read"), "{err}");
        assert!(matches!(err, ClientError::BadBody { status: 200, .. }) && !err.is_retryable());
        // New records on every page, forever: stopped at the cap.
        let endless = (1..).map(|n| numbered(n, u64::MAX));
        let err = walk(endless).unwrap_err();
        assert!(err.to_string().contains(&format!("past {MAX_LIST_PAGES} pages")), "{err}");
    }
}
