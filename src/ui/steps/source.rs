//! Step 1, Source: a file uploaded from the browser, or a path or an http(s) URL typed in, as
//! `leadsync import FILE|URL` takes it. Each becomes a chosen sheet with an id, and the browser
//! is sent on to its Reading page.

use std::path::PathBuf;

use axum::Form;
use axum::extract::{Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::super::page::{self, Step, View};
use super::super::runs::{self, Kind, Run, State as RunState};
use super::super::sources::Chosen;
use super::super::upload;
use super::super::{App, text::Text};
use crate::pipeline;
use crate::source::is_url;

const MIB: u64 = 1024 * 1024;
/// Runs listed on the Source page at most.
const MAX_RUNS_LISTED: usize = 20;

pub(in super::super) async fn show(State(app): State<App>, view: View) -> Response {
    render(&app, &view, None, "", StatusCode::OK)
}

pub(in super::super) async fn upload(
    State(app): State<App>,
    view: View,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> Response {
    let t = view.text();
    let received =
        upload::receive_within(&headers, &mut multipart, &app.sources, app.max_upload_bytes).await;
    match received {
        Ok((id, chosen)) => {
            tracing::info!(%id, location = %chosen.location, "ui: file uploaded");
            app.sources.insert(id.clone(), chosen);
            to_reading(&id)
        }
        Err(error) => {
            let message = upload::said(&error, t);
            tracing::info!("ui: upload refused: {error}");
            render(&app, &view, Some(&message), "", error.status())
        }
    }
}

#[derive(Debug, Deserialize)]
pub(in super::super) struct LocationForm {
    #[serde(default)]
    location: String,
}

/// A path on this machine, read where it is, or a URL, downloaded as the CLI downloads it.
pub(in super::super) async fn location(
    State(app): State<App>,
    view: View,
    Form(form): Form<LocationForm>,
) -> Response {
    let t = view.text();
    let typed = form.location.trim();
    let chosen = match is_url(typed) {
        true => download(&app, typed).await,
        false => local(typed, &app.private, t),
    };
    match chosen {
        Ok((id, chosen)) => {
            app.sources.insert(id.clone(), chosen);
            to_reading(&id)
        }
        Err(message) => {
            render(&app, &view, Some(&message), typed, StatusCode::UNPROCESSABLE_ENTITY)
        }
    }
}

async fn download(app: &App, url: &str) -> Result<(String, Chosen), String> {
    let (id, dir) = app.sources.new_folder().map_err(|e| e.to_string())?;
    match pipeline::materialize(url, &dir).await {
        Ok(path) => Ok((id, Chosen { path, location: url.to_string() })),
        Err(e) => {
            let _ = tokio::fs::remove_dir_all(&dir).await;
            Err(e.to_string())
        }
    }
}

/// Only what a person could have uploaded: see `sources::readable_path`.
fn local(typed: &str, private: &[PathBuf], t: &Text) -> Result<(String, Chosen), String> {
    use super::super::sources::{Refused, readable_path};
    let path = readable_path(typed, private).map_err(|refused| match refused {
        Refused::Missing => (t.no_such_file)(typed),
        Refused::Private => t.path_private.to_string(),
        Refused::NotRegular => t.path_not_regular.to_string(),
        Refused::Binary => t.path_binary.to_string(),
    })?;
    Ok((super::super::sources::new_id(), Chosen { path, location: typed.to_string() }))
}

fn to_reading(id: &str) -> Response {
    Redirect::to(&format!("/reading/{id}")).into_response()
}

/// The checks and sends of this server's life, each linked to its page: a send goes on when its
/// tab is closed, and is found here again.
fn runs_so_far(app: &App, t: &Text) -> Markup {
    let runs = app.runs.listed();
    html! {
        @if !runs.is_empty() {
            h2 { (t.runs_title) }
            ul class="runs" {
                @for (id, run) in runs.iter().take(MAX_RUNS_LISTED) {
                    li { (run_line(id, run, t)) }
                }
            }
        }
    }
}

/// Deletes a finished run and its folder (its rows, reports and edits); a run still going is
/// not deleted. Back to the first page either way.
pub(in super::super) async fn delete_run(
    State(app): State<App>,
    view: View,
    Path(run_id): Path<String>,
) -> Response {
    let t = view.text();
    match app.runs.delete(&run_id) {
        Ok(true) => Redirect::to("/").into_response(),
        Ok(false) => render(&app, &view, Some(t.run_not_deleted), "", StatusCode::CONFLICT),
        Err(error) => {
            tracing::warn!("ui: a run could not be deleted: {error}");
            render(&app, &view, Some(t.run_not_deleted), "", StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}

/// One run: what it is, of which file, how it stands, since when, and a button that deletes
/// it once it is done.
fn run_line(id: &str, run: &Run, t: &Text) -> Markup {
    let kind = match run.kind {
        Kind::Check => t.check_title,
        Kind::Send => t.send_title,
    };
    let state = match run.state() {
        RunState::Running => t.run_running,
        RunState::Done(finished) if finished.interrupted => t.run_stopped,
        RunState::Done(_) => t.run_done,
        RunState::Failed(_) => t.run_failed,
    };
    let minutes = run.started.elapsed().as_secs() / 60;
    let going = matches!(run.state(), RunState::Running);
    html! {
        a href={ "/run/" (id) } { (kind) " · " (run.opts.location) }
        " · " (state) " · " ((t.minutes_ago)(minutes))
        @if !going {
            " "
            form method="post" action={ "/run/" (id) "/delete" } class="inline" {
                button type="submit" aria-label=((t.delete_run_of)(&run.opts.location)) {
                    (t.delete_run)
                }
            }
        }
    }
}

fn render(
    app: &App,
    view: &View,
    error: Option<&str>,
    typed: &str,
    status: StatusCode,
) -> Response {
    let t = view.text();
    let body = html! {
        p { (t.source_intro) }
        @if let Some(message) = error { (page::error(t, message)) }
        form method="post" action="/source/upload" enctype="multipart/form-data"
            data-busy=(t.uploading) {
            fieldset {
                legend { (t.upload_legend) }
                label for="file" { (t.upload_label) }
                input type="file" id="file" name=(upload::FIELD) required
                    accept=".csv,.tsv,.txt,.xlsx,.xlsm,.xlsb,.xls,.ods" aria-describedby="file-hint";
                p id="file-hint" class="hint" { ((t.upload_hint)(app.max_upload_bytes / MIB)) }
                button type="submit" { (t.upload_button) }
            }
        }
        form method="post" action="/source/location" {
            fieldset {
                legend { (t.location_legend) }
                label for="location" { (t.location_label) }
                input type="text" id="location" name="location" required value=(typed)
                    aria-describedby="location-hint" autocomplete="off" spellcheck="false";
                p id="location-hint" class="hint" { (t.location_hint) }
                button type="submit" { (t.location_button) }
            }
        }
        (runs_so_far(app, t))
        p class="hint" { ((t.space_used)(runs::space_used(&app.state_dir), app.keep_runs_days)) }
        @if app.client.is_some() {
            p { a href=(super::never::LIST) { (t.never_call_title) } }
        }
    };
    page::page(view, app.service.label(t), Step::Source, t.source_title, body, status)
}
