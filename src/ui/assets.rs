//! The stylesheet, the script and the tab's icon, compiled into the binary: nothing is fetched from the network
//! and no build step other than `cargo build` makes them.

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;

const CSS: &str = include_str!("assets/ui.css");
const JS: &str = include_str!("assets/ui.js");
const ICON: &str = include_str!("assets/icon.svg");

pub(super) async fn css() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/css; charset=utf-8")], CSS)
}

pub(super) async fn js() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/javascript; charset=utf-8")], JS)
}

pub(super) async fn icon() -> impl IntoResponse {
    ([(CONTENT_TYPE, "image/svg+xml")], ICON)
}
