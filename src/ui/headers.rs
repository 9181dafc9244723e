//! What every response says about itself, set in one middleware outside all others so the
//! refusals of the guard carry it too: a Content-Security-Policy that lets a page load nothing
//! from anywhere but this server and run no inline script, no MIME sniffing, no referrer to
//! any other site (a page's address never leaves the machine), and no caching of pages that
//! show a user's rows.
//!
//! The referrer policy is `same-origin`, not `no-referrer`: under `no-referrer` a browser sends
//! `Origin: null` with a plain form POST (Fetch standard, "append a request `Origin` header"),
//! so the guard could not tell this server's own forms from a sandboxed frame elsewhere. Under
//! `same-origin` the forms carry the real origin, and other sites still get no referrer.

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use axum::middleware::Next;
use axum::response::Response;

/// The policy of every page: nothing from outside, no inline script, no framing.
pub const CONTENT_SECURITY_POLICY_VALUE: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; \
     form-action 'self'; base-uri 'none'";

pub(super) async fn secure(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers
        .insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY_VALUE));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
