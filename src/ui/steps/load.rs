//! Step 3's "use a mapping file": a mapping file (from `leadsync init`, a download from this
//! page, or a colleague) uploaded and parsed by the library, then shown on the Mapping page as
//! the roles of the columns it names, with its assistant, country, countries in scope and kinds
//! of number never called, each still changeable before the check.

use axum::extract::{Multipart, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::super::App;
use super::super::page::{self, Step, View};
use super::super::text::Text;
use super::super::upload::TextBudget;
use super::{ReadingChoice, Wanted, choices, preview};
use crate::mapping::MappingFile;

/// The largest mapping file taken: a mapping is a few lines.
pub(in super::super) const MAX_MAPPING_BYTES: usize = 256 * 1024;
/// The form field that carries the file.
const FIELD: &str = "mapping_file";

/// The file field and its button, inside the page's one form: the button sends the whole form
/// as multipart, so what the file leaves open keeps the person's choice.
pub(super) fn fields(id: &str, t: &Text) -> Markup {
    html! {
        fieldset {
            legend { (t.load_legend) }
            label for=(FIELD) { (t.load_label) }
            " "
            input type="file" id=(FIELD) name=(FIELD) accept=".toml";
            " "
            button type="submit" formaction={ "/mapping/" (id) "/load" }
                formenctype="multipart/form-data" formnovalidate { (t.load_button) }
        }
    }
}

pub(in super::super) async fn load(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    mut multipart: Multipart,
) -> Response {
    let t = view.text();
    let (form, text) = read_form(&mut multipart).await;
    let back = format!("/mapping/{id}?{}", choices::as_query(&choices::carried(&form)));
    let refuse = |message: &str| {
        let body = html! {
            (page::error(t, message))
            p { a href=(back) { (t.back_mapping) } }
        };
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        page::page(&view, app.service.label(t), Step::Mapping, t.mapping_title, body, status)
    };
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, app.service.label(t), Step::Mapping, t.mapping_title);
    };
    let Some(text) = text else { return refuse(t.no_file_chosen) };
    let file = match MappingFile::parse(&text) {
        Ok(file) => file,
        Err(problem) => return refuse(&(t.mapping_file_invalid)(&problem)),
    };
    // The file's roles go to the headers read as the file says to read the sheet: the page
    // that follows reads it so, and gives the roles column by column.
    let choice =
        ReadingChoice::from_pairs(&choices::overlaid(&form, choices::reading_pairs(&file)));
    let headers = match preview(&chosen, &choice, Wanted { rows: 1, above: false }, t).await {
        Ok(preview) => preview.headers,
        Err(message) => return refuse(&message),
    };
    let fields = choices::overlaid(&form, choices::pairs_of(&app, &file, &headers));
    Redirect::to(&format!("/mapping/{id}?{}", choices::as_query(&fields))).into_response()
}

/// The form's text fields, and the mapping file's text if one came and it is UTF-8 within the
/// limit.
async fn read_form(multipart: &mut Multipart) -> (Vec<(String, String)>, Option<String>) {
    let mut fields = Vec::new();
    let mut text = None;
    let mut budget = TextBudget::default();
    while let Ok(Some(field)) = multipart.next_field().await {
        if field.name() != Some(FIELD) {
            fields.extend(budget.text(field).await);
            continue;
        }
        let Ok(bytes) = field.bytes().await else { break };
        if !bytes.is_empty() && bytes.len() <= MAX_MAPPING_BYTES {
            text = String::from_utf8(bytes.to_vec()).ok();
        }
    }
    (fields, text)
}
