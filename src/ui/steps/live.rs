//! A run's progress pushed to its page as it goes (server-sent events): every half second the
//! same status the page renders (the rows so far, the share done, the time left, the rows by
//! status), then `done`, on which the page loads its finished state. The page's script swaps
//! the status in; without script the page reloads itself instead.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};

use super::super::App;
use super::super::page::View;
use super::super::runs::State as RunState;
use super::check::live_status;

/// How often the status is pushed.
const EVERY: Duration = Duration::from_millis(500);

pub(in super::super) async fn live(
    State(app): State<App>,
    view: View,
    Path(run_id): Path<String>,
) -> Response {
    let Some(run) = app.runs.get(&run_id) else { return StatusCode::NOT_FOUND.into_response() };
    let t = view.text();
    let events =
        futures_util::stream::unfold((run, true, false), move |(run, first, ended)| async move {
            if ended {
                return None;
            }
            if !first {
                tokio::time::sleep(EVERY).await;
            }
            let running = matches!(run.state(), RunState::Running);
            let event = match running {
                true => Event::default().data(live_status(&run, t).into_string()),
                false => Event::default().event("done").data("done"),
            };
            Some((Ok::<_, Infallible>(event), (run, false, !running)))
        });
    Sse::new(events).keep_alive(KeepAlive::default()).into_response()
}
