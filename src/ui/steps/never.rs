//! "Never call this number": a row's number put on the account's own do-not-call list (the
//! library's [`NeverCalls`], one list under each name of the account, in the state folder), which every later check, `import` and `sync`
//! of the account applies; and the list's page, to see it, add a number and take one off. The
//! row is also left out of this check at once, as "only this time" would.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::super::App;
use super::super::page::{self, Step, View};
use super::super::text::Text;
use super::field;
use crate::guards::NeverCalls;
use crate::phone::PhoneParser;

/// The address of the list's page.
pub(in super::super) const LIST: &str = "/never-call";

/// The account's list; `None` without a service (a list belongs to an account).
async fn account_list(app: &App) -> Result<Option<NeverCalls>, String> {
    let Some(client) = &app.client else { return Ok(None) };
    let lists = crate::pipeline::account_never_calls(client, &app.state_dir).await;
    lists.map(NeverCalls::of).map_err(|e| e.to_string())
}

/// The row's number onto the account's list, the row left out of this check.
pub(in super::super) async fn never_row(
    State(app): State<App>,
    view: View,
    Path((run_id, row)): Path<(String, u64)>,
) -> Response {
    let t = view.text();
    let Some(run) = app.runs.get(&run_id) else {
        return page::unknown_source(&view, app.service.label(t), Step::Check, t.check_title);
    };
    let phone = match super::edit::row_phone(&app, &run, row).await {
        Ok(Some(phone)) => phone,
        Ok(None) => return refusal(&app, &view, t.never_call_no_number),
        Err(message) => return refusal(&app, &view, &message),
    };
    let list = match account_list(&app).await {
        Ok(Some(list)) => list,
        Ok(None) => return refusal(&app, &view, t.never_call_no_service),
        Err(message) => return refusal(&app, &view, &message),
    };
    let note = (t.never_call_note)(&run.opts.location, row);
    if let Err(error) = list.add(&phone, &note) {
        tracing::warn!("ui: the do-not-call list could not be written: {error}");
        return refusal(&app, &view, t.never_call_failed);
    }
    super::edit::exclude(&app, &view, &run_id, row).await
}

/// The list: every number with when and where it was added, a button to take it off, and a
/// field to add one.
pub(in super::super) async fn show(State(app): State<App>, view: View) -> Response {
    let t = view.text();
    let list = match account_list(&app).await {
        Ok(Some(list)) => list,
        Ok(None) => return refusal(&app, &view, t.never_call_no_service),
        Err(message) => return refusal(&app, &view, &message),
    };
    let entries = match list.entries() {
        Ok(entries) => entries,
        Err(error) => {
            tracing::warn!("ui: the do-not-call list could not be read: {error}");
            return refusal(&app, &view, t.never_call_failed);
        }
    };
    let body = html! {
        p { (t.never_call_intro) }
        @if entries.is_empty() {
            p { (t.never_call_empty) }
        } @else {
            (table(&entries, t))
        }
        form method="post" action={ (LIST) "/add" } {
            p {
                label for="never-number" { (t.never_call_add_label) }
                " "
                input id="never-number" name="number" required maxlength="64";
                " "
                button type="submit" { (t.never_call_add) }
            }
        }
        p { a href="/" { (t.other_file) } }
    };
    page::page(&view, app.service.label(t), Step::Check, t.never_call_title, body, StatusCode::OK)
}

fn table(entries: &[crate::guards::NeverCallEntry], t: &Text) -> Markup {
    html! {
        div class="table-wrap" {
            table {
                (page::heads(&[t.never_call_number, t.never_call_added, t.never_call_from, ""]))
                tbody {
                    @for entry in entries {
                        tr {
                            td { (entry.phone) }
                            td { (crate::row::date_time(t.lang, &entry.added)) }
                            td { (entry.note) }
                            td {
                                form method="post" action={ (LIST) "/remove" } {
                                    input type="hidden" name="number" value=(entry.phone);
                                    button type="submit" { ((t.never_call_remove)(&entry.phone)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A number typed on the list's page, read as the library reads a sheet's (national numbers
/// in Germany unless written with a country code).
pub(in super::super) async fn add(
    State(app): State<App>,
    view: View,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let t = view.text();
    let typed = field(&pairs, "number");
    let parsed = PhoneParser::new(crate::mapping::DEFAULT_REGION).map_err(|e| e.to_string());
    let Ok(phone) = parsed.and_then(|p| p.parse(&typed).map_err(|_| typed.clone())) else {
        return refusal(&app, &view, &(t.never_call_not_a_number)(&typed));
    };
    change(&app, &view, |list| list.add(&phone.e164, t.never_call_typed).map(|_| ())).await
}

/// A number taken off the list.
pub(in super::super) async fn remove(
    State(app): State<App>,
    view: View,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let number = field(&pairs, "number");
    change(&app, &view, |list| list.remove(number.trim()).map(|_| ())).await
}

async fn change(
    app: &App,
    view: &View,
    change: impl FnOnce(&NeverCalls) -> std::io::Result<()>,
) -> Response {
    let t = view.text();
    let list = match account_list(app).await {
        Ok(Some(list)) => list,
        Ok(None) => return refusal(app, view, t.never_call_no_service),
        Err(message) => return refusal(app, view, &message),
    };
    if let Err(error) = change(&list) {
        tracing::warn!("ui: the do-not-call list could not be written: {error}");
        return refusal(app, view, t.never_call_failed);
    }
    Redirect::to(LIST).into_response()
}

fn refusal(app: &App, view: &View, message: &str) -> Response {
    let t = view.text();
    let body = html! {
        (page::error(t, message))
        p {
            a href=(LIST) { (t.never_call_title) }
            " · "
            a href="/" { (t.other_file) }
        }
    };
    let status = StatusCode::UNPROCESSABLE_ENTITY;
    page::page(view, app.service.label(t), Step::Check, t.never_call_title, body, status)
}
