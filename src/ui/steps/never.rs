//! "Never call this number": a row's number put on the account's own do-not-call list (the
//! library's [`NeverCall`], in the state folder), which every later check, `import` and `sync`
//! of the account applies; and the list's page, to see it, add a number and take one off. The
//! row is also left out of this check at once, as "only this time" would.

use std::fmt::Write;

use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};

use super::super::App;
use super::super::page::{self, Esc, Step, View};
use super::super::text::Text;
use super::field;
use crate::guards::NeverCall;
use crate::phone::PhoneParser;

/// The address of the list's page.
pub(in super::super) const LIST: &str = "/never-call";

/// The account's list; `None` without a service (a list belongs to an account).
async fn account_list(app: &App) -> Result<Option<NeverCall>, String> {
    let Some(client) = &app.client else { return Ok(None) };
    let lists = crate::pipeline::account_never_calls(client, &app.state_dir).await;
    lists.map(|lists| lists.into_iter().next()).map_err(|e| e.to_string())
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
    let mut body = format!("<p>{}</p>", Esc(t.never_call_intro));
    match entries.is_empty() {
        true => {
            let _ = write!(body, "<p>{}</p>", Esc(t.never_call_empty));
        }
        false => body.push_str(&table(&entries, t)),
    }
    let _ = write!(
        body,
        "<form method=\"post\" action=\"{LIST}/add\"><p><label for=\"never-number\">{}</label> \
         <input id=\"never-number\" name=\"number\" required maxlength=\"64\"> \
         <button type=\"submit\">{}</button></p></form><p><a href=\"/\">{}</a></p>",
        Esc(t.never_call_add_label),
        Esc(t.never_call_add),
        Esc(t.other_file)
    );
    page::page(&view, app.service.label(t), Step::Check, t.never_call_title, &body, StatusCode::OK)
}

fn table(entries: &[crate::guards::NeverCallEntry], t: &Text) -> String {
    let mut out = format!(
        "<div class=\"table-wrap\"><table><thead><tr><th scope=\"col\">{}</th><th scope=\"col\">{}</th>\
         <th scope=\"col\">{}</th><th scope=\"col\"></th></tr></thead><tbody>",
        Esc(t.never_call_number),
        Esc(t.never_call_added),
        Esc(t.never_call_from)
    );
    for entry in entries {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td><form method=\"post\" action=\"{LIST}/remove\">\
             <input type=\"hidden\" name=\"number\" value=\"{}\"><button type=\"submit\">{}</button>\
             </form></td></tr>",
            Esc(&entry.phone),
            Esc(&entry.added),
            Esc(&entry.note),
            Esc(&entry.phone),
            Esc(&(t.never_call_remove)(&entry.phone))
        );
    }
    out.push_str("</tbody></table></div>");
    out
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
    change: impl FnOnce(&NeverCall) -> std::io::Result<()>,
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
    let body = format!(
        "{}<p><a href=\"{LIST}\">{}</a> · <a href=\"/\">{}</a></p>",
        page::error_box(t, message),
        Esc(t.never_call_title),
        Esc(t.other_file)
    );
    let status = StatusCode::UNPROCESSABLE_ENTITY;
    page::page(view, app.service.label(t), Step::Check, t.never_call_title, &body, status)
}
