//! The door of the local web server, one middleware in front of every route so no handler can
//! forget it. A page on `127.0.0.1` is reachable by every site the user's browser opens, so:
//!
//! - **Host**: the request must name the address the server is bound to. A DNS-rebinding site
//!   (`evil.example` resolving to 127.0.0.1) sends its own name, and is refused.
//! - **Origin**: a request that changes anything (every method but GET and HEAD) must carry an
//!   `Origin` of this very server; one from another site, or none at all, is refused (CSRF).
//!   A GET that names another origin is refused too: nothing here is meant to be fetched
//!   cross-site.
//! - **Secret**: 32 random bytes per start, printed once in the URL (`/?s=…`). Trading it for an
//!   HttpOnly, SameSite=Strict cookie drops it from the address bar; every other request needs
//!   the cookie, compared in constant time.
//!
//! Refused requests are answered before their body is read.

use std::fmt;
use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::header::{COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::RngCore;

use super::lang;
use super::page;

/// The query parameter the printed URL carries the secret in.
pub(super) const SECRET_PARAM: &str = "s";

/// The per-start secret, 64 hex digits. Its `Debug` hides it.
#[derive(Clone)]
pub(super) struct Secret(String);

impl Secret {
    pub(super) fn random() -> Secret {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Secret(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    pub(super) fn as_str(&self) -> &str {
        &self.0
    }

    /// Compares without an early exit, so the time taken says nothing about how much of a
    /// guess was right.
    fn matches(&self, guess: &str) -> bool {
        constant_time_eq(self.0.as_bytes(), guess.as_bytes())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// What the door checks against: the secret, the names the server answers to, its cookie.
#[derive(Debug)]
pub(super) struct Guard {
    secret: Secret,
    hosts: Vec<String>,
    cookie: String,
}

impl Guard {
    /// For a server bound to `addr`: a loopback server answers to `localhost` too.
    pub(super) fn new(secret: Secret, addr: SocketAddr) -> Guard {
        let mut hosts = vec![addr.to_string()];
        if addr.ip().is_loopback() {
            hosts.push(format!("localhost:{}", addr.port()));
        }
        // Cookies are not kept apart by port: two servers on one machine need two names.
        let cookie = format!("leadsync_ui_{}", addr.port());
        Guard { secret, hosts, cookie }
    }

    fn host_ok(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Any cookie of the name may hold the key: a page on another port of this host can set
    /// one of the same name for a narrower path, which the browser then sends first.
    fn cookie_ok(&self, headers: &HeaderMap) -> bool {
        cookies(headers, &self.cookie).any(|value| self.secret.matches(value))
    }

    fn set_cookie(&self) -> HeaderValue {
        let value =
            format!("{}={}; HttpOnly; SameSite=Strict; Path=/", self.cookie, self.secret.as_str());
        HeaderValue::from_str(&value).expect("a hex secret is a valid header value")
    }
}

/// Why a request was turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    Host,
    Origin,
    Secret,
}

/// The middleware: Host, then Origin, then the secret or its cookie.
pub(super) async fn check(
    State(guard): State<std::sync::Arc<Guard>>,
    request: Request,
    next: Next,
) -> Response {
    let lang = lang::of(request.uri().query(), request.headers());
    let Some(host) = host(&request) else {
        return page::refused(lang, Refusal::Host);
    };
    if !guard.host_ok(&host) {
        return page::refused(lang, Refusal::Host);
    }
    let changes = !matches!(*request.method(), Method::GET | Method::HEAD);
    match request.headers().get(ORIGIN) {
        Some(origin) if origin.as_bytes() != format!("http://{host}").as_bytes() => {
            return page::refused(lang, Refusal::Origin);
        }
        None if changes => return page::refused(lang, Refusal::Origin),
        _ => {}
    }
    let offered = query_param(request.uri().query(), SECRET_PARAM);
    match offered {
        Some(secret) if !changes && guard.secret.matches(&secret) => trade(&guard, &request),
        Some(_) => page::refused(lang, Refusal::Secret),
        None if guard.cookie_ok(request.headers()) => next.run(request).await,
        None => page::refused(lang, Refusal::Secret),
    }
}

/// The secret for the cookie: back to the same address without it.
fn trade(guard: &Guard, request: &Request) -> Response {
    let rest: Vec<(String, String)> =
        url::form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
            .filter(|(name, _)| name != SECRET_PARAM)
            .map(|(name, value)| (name.into_owned(), value.into_owned()))
            .collect();
    // `//host` (or `/\\host`, which browsers read alike) would send the browser elsewhere.
    let path = request.uri().path();
    let same_site = !(path.starts_with("//") || path.starts_with("/\\"));
    let mut target = if same_site { path.to_string() } else { "/".to_string() };
    if !rest.is_empty() {
        target.push('?');
        target.push_str(
            &url::form_urlencoded::Serializer::new(String::new()).extend_pairs(rest).finish(),
        );
    }
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    headers.insert(SET_COOKIE, guard.set_cookie());
    if let Ok(location) = HeaderValue::from_str(&target) {
        headers.insert(LOCATION, location);
    }
    response
}

/// The host the request names: its `Host` header (HTTP/1.1), else the authority of its URI
/// (HTTP/2). Two `Host` headers name none.
fn host(request: &Request) -> Option<String> {
    let mut hosts = request.headers().get_all(HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(host), None) => host.to_str().ok().map(str::to_string),
        (None, _) => request.uri().authority().map(|a| a.as_str().to_string()),
        (Some(_), Some(_)) => None,
    }
}

/// A cookie's value by name, from every `Cookie` header: the first one sent.
pub(super) fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    cookies(headers, name).next()
}

/// Every value sent under a cookie's name, in the order the browser sent them.
fn cookies<'h>(headers: &'h HeaderMap, name: &str) -> impl Iterator<Item = &'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .filter_map(move |(key, value)| (key == name).then_some(value))
}

/// A query parameter's value, decoded.
pub(super) fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query?.as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue, header::COOKIE};

    use super::{Guard, Secret, constant_time_eq, cookie, query_param, trade};

    #[test]
    fn secrets_are_random_hex_and_hidden() {
        let (a, b) = (Secret::random(), Secret::random());
        assert_eq!(a.as_str().len(), 64);
        assert!(a.as_str().bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a.as_str(), b.as_str());
        assert!(!format!("{a:?}").contains(a.as_str()));
        assert!(a.matches(a.as_str()));
        assert!(!a.matches(b.as_str()) && !a.matches("") && !a.matches(&a.as_str()[..63]));
    }

    #[test]
    fn equal_means_every_byte() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd") && !constant_time_eq(b"abc", b"ab"));
    }

    #[test]
    fn cookies_and_queries_are_read_by_name() {
        let mut headers = HeaderMap::new();
        headers.append(COOKIE, HeaderValue::from_static("a=1; leadsync_lang=de"));
        headers.append(COOKIE, HeaderValue::from_static("b=2"));
        assert_eq!(cookie(&headers, "leadsync_lang"), Some("de"));
        assert_eq!(cookie(&headers, "b"), Some("2"));
        assert_eq!(cookie(&headers, "c"), None);
        assert_eq!(query_param(Some("x=1&s=a%20b"), "s").as_deref(), Some("a b"));
        assert_eq!(query_param(None, "s"), None);
    }

    #[test]
    fn the_trade_never_redirects_to_another_host() {
        let guard = Guard::new(Secret::random(), "127.0.0.1:4000".parse().unwrap());
        let secret = guard.secret.as_str().to_string();
        for (path, expected) in [
            ("/reading/ab", "/reading/ab"),
            ("//evil.example/x", "/"),
            ("/%5Cevil.example", "/%5Cevil.example"),
        ] {
            let uri = format!("{path}?s={secret}&lang=de");
            let request = axum::http::Request::get(uri).body(axum::body::Body::empty()).unwrap();
            let response = trade(&guard, &request);
            let location = response.headers()["location"].to_str().unwrap();
            assert_eq!(location, format!("{expected}?lang=de"));
        }
    }

    #[test]
    fn a_loopback_server_answers_to_its_address_and_localhost() {
        let guard = Guard::new(Secret::random(), "127.0.0.1:4000".parse().unwrap());
        assert!(guard.host_ok("127.0.0.1:4000") && guard.host_ok("LOCALHOST:4000"));
        assert!(!guard.host_ok("127.0.0.1:4001") && !guard.host_ok("evil.example:4000"));
        assert!(!guard.host_ok("127.0.0.1") && !guard.host_ok("localhost"));
        let v6 = Guard::new(Secret::random(), "[::1]:4000".parse().unwrap());
        assert!(v6.host_ok("[::1]:4000") && v6.host_ok("localhost:4000"));
        assert!(!v6.host_ok("::1:4000") && !v6.host_ok("127.0.0.1:4000"));
        let lan = Guard::new(Secret::random(), "192.168.1.5:4000".parse().unwrap());
        assert!(lan.host_ok("192.168.1.5:4000") && !lan.host_ok("localhost:4000"));
    }
}
