//! Step 4's changes: one row of a finished check with its cells as the file holds them and as
//! they will be used, changed, excluded or included again, and checked again by the library on
//! its own; one action for every row of a reason where one fits (exclude every duplicate, set
//! the country of every `unknown_country` row) and "check again", each a new check of the whole
//! sheet with the changes; the corrected sheet to download. The changes are the run's (its
//! `edits.json`), never the file's, and a send of the check sends with them.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::super::page::{self, Step, View};
use super::super::runs::{Kind, Run, State as RunState};
use super::super::text::Text;
use super::super::{App, download};
use super::check::checked_rows;
use super::field;
use crate::edits::Edits;
use crate::pipeline::{self, CheckedRow};
use crate::report::IssueCode;
use crate::report::rows_db::RowsDb;

/// What the row page says after a change.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(in super::super) struct RowPageQuery {
    saved: String,
}

/// A row of a finished check: its verdict, its cells to change, and the button to exclude it.
pub(in super::super) async fn show_row(
    State(app): State<App>,
    view: View,
    Path((run_id, row)): Path<(String, u64)>,
    Query(query): Query<RowPageQuery>,
) -> Response {
    let t = view.text();
    let run = match editable(&app, &view, &run_id) {
        Ok(run) => run,
        Err(refused) => return *refused,
    };
    let checked = match check_one(&app, &run, row).await {
        Ok(Some(checked)) => checked,
        Ok(None) => return refusal(&app, &view, t.row_not_found, StatusCode::NOT_FOUND),
        Err(message) => return refusal(&app, &view, &message, StatusCode::UNPROCESSABLE_ENTITY),
    };
    let shown = (!query.saved.is_empty(), app.client.is_some());
    let body = row_page(&run_id, row, &checked, shown, t);
    page::page(&view, app.service.label(t), Step::Check, &(t.row_title)(row), body, StatusCode::OK)
}

/// Keeps the cells the form carries (each `cellN`, N counted from 0) as the row's edits, then
/// checks the row again and puts it in the table.
pub(in super::super) async fn save_row(
    State(app): State<App>,
    view: View,
    Path((run_id, row)): Path<(String, u64)>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    change_row(&app, &view, &run_id, row, |edits, checked| {
        let mut changed = Vec::new();
        for (column, original) in checked.original.iter().enumerate() {
            let name = format!("cell{column}");
            if pairs.iter().any(|(k, _)| *k == name) {
                let typed = field(&pairs, &name);
                edits.set_cell(row, column, &typed, original);
                let header = checked.headers.get(column).cloned().unwrap_or_default();
                changed.push((header, original.clone(), typed));
            }
        }
        // The same wrong cell in a later sheet gets the same fix offered.
        let said = changed.iter().map(|(h, was, now)| (h.as_str(), was.as_str(), now.as_str()));
        super::fixes::remember(&app, said);
    })
    .await
}

/// The row's number as the check read it (E.164), for "never call this number".
pub(super) async fn row_phone(app: &App, run: &Run, row: u64) -> Result<Option<String>, String> {
    Ok(check_one(app, run, row).await?.and_then(|checked| checked.report.phone))
}

/// Leaves the row out of this check, as "only this time" does.
pub(super) async fn exclude(app: &App, view: &View, run_id: &str, row: u64) -> Response {
    change_row(app, view, run_id, row, |edits, _| edits.exclude(row, true)).await
}

/// Excludes the row (`exclude=1`) or includes it again (`exclude=0`).
pub(in super::super) async fn exclude_row(
    State(app): State<App>,
    view: View,
    Path((run_id, row)): Path<(String, u64)>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let exclude = field(&pairs, "exclude") == "1";
    change_row(&app, &view, &run_id, row, |edits, _| edits.exclude(row, exclude)).await
}

/// One change of one row: made, kept, the row checked again and stored in its new state.
async fn change_row(
    app: &App,
    view: &View,
    run_id: &str,
    row: u64,
    change: impl FnOnce(&mut Edits, &CheckedRow),
) -> Response {
    let t = view.text();
    let run = match editable(app, view, run_id) {
        Ok(run) => run,
        Err(refused) => return *refused,
    };
    let before = match check_one(app, &run, row).await {
        Ok(Some(checked)) => checked,
        Ok(None) => return refusal(app, view, t.row_not_found, StatusCode::NOT_FOUND),
        Err(message) => return refusal(app, view, &message, StatusCode::UNPROCESSABLE_ENTITY),
    };
    let mut edits = Edits::clone(&run.edits());
    change(&mut edits, &before);
    if let Err(error) = run.set_edits(edits) {
        return refusal(app, view, &error.to_string(), StatusCode::INTERNAL_SERVER_ERROR);
    }
    let after = match check_one(app, &run, row).await {
        Ok(Some(checked)) => checked,
        Ok(None) => return refusal(app, view, t.row_not_found, StatusCode::NOT_FOUND),
        Err(message) => return refusal(app, view, &message, StatusCode::UNPROCESSABLE_ENTITY),
    };
    if let Err(error) = run.replace_row(&after.report) {
        return refusal(app, view, &error.to_string(), StatusCode::INTERNAL_SERVER_ERROR);
    }
    Redirect::to(&format!("/run/{run_id}/row/{row}?saved=1")).into_response()
}

/// One action for every row of a reason (`action=exclude` of `duplicate_in_file`,
/// `action=country` of `unknown_country` with `country`), or none (`action=recheck`); then the
/// whole sheet is checked again with the changes, as a new check.
pub(in super::super) async fn for_reason(
    State(app): State<App>,
    view: View,
    Path(run_id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let run = match editable(&app, &view, &run_id) {
        Ok(run) => run,
        Err(refused) => return *refused,
    };
    let mut edits = Edits::clone(&run.edits());
    let changed = match field(&pairs, "action").as_str() {
        "exclude" => exclude_duplicates(&run, &mut edits),
        "country" => set_country(&run, &mut edits, field(&pairs, "country").trim(), view.text()),
        "remembered" => {
            super::fixes::apply(&super::fixes::offers(&app, &run).await, &mut edits);
            Ok(())
        }
        _ => Ok(()),
    };
    if let Err(message) = changed.and_then(|()| run.set_edits(edits).map_err(|e| e.to_string())) {
        return refusal(&app, &view, &message, StatusCode::UNPROCESSABLE_ENTITY);
    }
    let opts = run.options();
    let started = app.runs.start(
        Kind::Check,
        &run.source,
        run.query.clone(),
        opts,
        app.client.clone(),
        (None, None),
    );
    match started {
        Ok(new_run) => Redirect::to(&format!("/run/{new_run}")).into_response(),
        Err(error) => refusal(&app, &view, &error.to_string(), StatusCode::INTERNAL_SERVER_ERROR),
    }
}

fn exclude_duplicates(run: &Run, edits: &mut Edits) -> Result<(), String> {
    let db = RowsDb::open(&run.rows_db()).map_err(|e| e.to_string())?;
    let rows = db.rows_with(IssueCode::DuplicateInFile.as_str()).map_err(|e| e.to_string())?;
    rows.into_iter().for_each(|row| edits.exclude(row, true));
    Ok(())
}

/// Writes `country` into the country column of every row whose country was not recognised,
/// as its two-letter code: what is typed must be a country (the library reads it as a row's
/// country cell is read), so one request cannot write any text into every row.
fn set_country(run: &Run, edits: &mut Edits, typed: &str, t: &Text) -> Result<(), String> {
    let Some(column) = country_column(run) else { return Ok(()) };
    if typed.is_empty() {
        return Ok(());
    }
    let within = typed.chars().count() <= MAX_COUNTRY_CHARS;
    let Some(country) = crate::phone::region_of(typed).filter(|_| within) else {
        return Err((t.not_a_country)(
            typed.chars().take(MAX_COUNTRY_CHARS).collect::<String>().as_str(),
        ));
    };
    let country = country.as_str();
    let db = RowsDb::open(&run.rows_db()).map_err(|e| e.to_string())?;
    let rows = db.rows_with(IssueCode::UnknownCountry.as_str()).map_err(|e| e.to_string())?;
    for row in rows {
        edits.set_cell(row, column, country, "");
    }
    Ok(())
}

/// The longest country name read ("Vereinigtes Königreich Großbritannien und Nordirland").
const MAX_COUNTRY_CHARS: usize = 64;

/// The column the check read each row's country from, if it had one.
pub(super) fn country_column(run: &Run) -> Option<usize> {
    let name = run.opts.mapping.as_ref()?.region_column.clone()?;
    let headers = RowsDb::open(&run.rows_db()).ok()?.headers().ok()?;
    headers.iter().position(|h| h.trim() == name.trim())
}

/// The corrected sheet of a finished check, made when first asked for.
pub(in super::super) async fn corrected(
    State(app): State<App>,
    view: View,
    Path(run_id): Path<String>,
) -> Response {
    let run = match editable(&app, &view, &run_id) {
        Ok(run) => run,
        Err(refused) => return *refused,
    };
    let Some(path) = run.corrected().await else { return StatusCode::NOT_FOUND.into_response() };
    let Ok(file) = tokio::fs::File::open(path).await else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
    let named = (view.text().corrected_file)(&super::check::file_stem(&run.opts.location));
    let headers = [
        (header::CONTENT_TYPE, content_type.to_string()),
        (header::CONTENT_DISPOSITION, download::disposition("attachment", &named)),
    ];
    (headers, download::body(file)).into_response()
}

/// The run, when it is a finished check: only those have rows to change.
fn editable(app: &App, view: &View, run_id: &str) -> Result<Arc<Run>, Box<Response>> {
    let t = view.text();
    let Some(run) = app.runs.get(run_id) else {
        let unknown = page::unknown_source(view, app.service.label(t), Step::Check, t.check_title);
        return Err(Box::new(unknown));
    };
    // Once sent, a check's rows are what was sent: "send the rest" sends with the changes
    // its send started with, so a later change here would never reach it.
    if app.runs.latest_send_of(run_id).is_some() {
        return Err(Box::new(refusal(app, view, t.sent_no_changes, StatusCode::CONFLICT)));
    }
    match (run.kind, run.state()) {
        (Kind::Check, RunState::Done(_)) => Ok(run),
        _ => Err(Box::new(refusal(app, view, t.only_finished_checks, StatusCode::CONFLICT))),
    }
}

/// The row checked by the library as the run checks it, with the edits so far.
async fn check_one(app: &App, run: &Run, row: u64) -> Result<Option<CheckedRow>, String> {
    let checked = pipeline::check_rows(&run.options(), app.client.as_ref(), &[row]).await;
    checked.map(|rows| rows.into_iter().next()).map_err(|e| e.to_string())
}

fn refusal(app: &App, view: &View, message: &str, status: StatusCode) -> Response {
    let t = view.text();
    let body = html! {
        (page::error(t, message))
        p { a href="/" { (t.other_file) } }
    };
    page::page(view, app.service.label(t), Step::Check, t.check_title, body, status)
}

fn row_page(
    run_id: &str,
    row: u64,
    checked: &CheckedRow,
    (saved, with_service): (bool, bool),
    t: &Text,
) -> Markup {
    let verdict = serde_json::to_value(&checked.report).unwrap_or_default();
    let (exclude, label) = match checked.report.is_excluded() {
        true => ("0", t.include_row),
        false => ("1", t.exclude_row),
    };
    // The second way to leave a row out: for good, on the account's own list.
    let never = checked.report.phone.as_deref().filter(|_| with_service);
    html! {
        p { (t.row_intro) }
        @if saved {
            p class="notice" role="status" { (t.row_saved) " " (t.duplicates_after_edit) }
        }
        @if checked.report.is_excluded() { p class="notice" { (t.row_is_excluded) } }
        (checked_rows(&[verdict], t, None))
        form method="post" action={ "/run/" (run_id) "/row/" (row) } {
            div class="table-wrap" { table {
                (page::heads(&[t.column, t.in_file, t.value_to_use]))
                tbody { (cells(checked, t)) }
            } }
            p { button type="submit" { (t.save_row) } }
        }
        form method="post" action={ "/run/" (run_id) "/row/" (row) "/exclude" } {
            input type="hidden" name="exclude" value=(exclude);
            p { button type="submit" { (label) } }
        }
        @if let Some(phone) = never {
            form method="post" action={ "/run/" (run_id) "/row/" (row) "/never" } {
                p {
                    button type="submit" { (t.never_call_row) }
                    " "
                    span class="hint" { ((t.never_call_row_hint)(phone)) }
                }
            }
        }
        p class="next" {
            a href={ "/run/" (run_id) "#rows" } { (t.back_rows) }
            " · "
            a href=(super::never::LIST) { (t.never_call_title) }
        }
    }
}

/// Each cell of the row: its column, as the file holds it, and the field to change it.
fn cells(checked: &CheckedRow, t: &Text) -> Markup {
    html! {
        @for (i, original) in checked.original.iter().enumerate() {
            @let header = checked.headers.get(i).map(|h| h.trim()).filter(|h| !h.is_empty());
            @let name = header.map_or_else(|| format!("{} {}", t.column, i + 1), str::to_string);
            @let field = format!("cell{i}");
            tr {
                th scope="row" { label for=(field) { (name) } }
                td { (original) }
                td {
                    input id=(field) name=(field) value=(checked.cells.get(i).map_or("", String::as_str))
                        maxlength=(crate::edits::MAX_CELL_CHARS);
                }
            }
        }
    }
}
