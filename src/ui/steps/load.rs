//! Step 3's "use a mapping file": a mapping file (from `leadsync init`, a download from this
//! page, or a colleague) uploaded and parsed by the library, then shown on the Mapping page as
//! the roles of the columns it names, with its assistant, country, countries in scope and kinds
//! of number never called, each still changeable before the check.

use axum::extract::{Multipart, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};

use super::super::App;
use super::super::page::{self, Esc, Step, View};
use super::super::text::Text;
use super::mapping::{query_pairs, with_roles_href};
use super::{ReadingChoice, Wanted, preview};
use crate::mapping::{AssistantRef, MappingFile, roles_of};
use crate::phone::NumberType;

/// The largest mapping file taken: a mapping is a few lines.
pub(in super::super) const MAX_MAPPING_BYTES: usize = 256 * 1024;
/// The form field that carries the file.
const FIELD: &str = "mapping_file";

/// The form, outside the check form (forms do not nest).
pub(super) fn form(id: &str, choice: &ReadingChoice, t: &Text) -> String {
    page::file_form(&page::FileForm {
        action: &format!("/mapping/{id}/load"),
        query: &choice.query(),
        legend: t.load_legend,
        id: FIELD,
        field: FIELD,
        label: t.load_label,
        accept: ".toml",
        hint: None,
        button: t.load_button,
    })
}

pub(in super::super) async fn load(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
    mut multipart: Multipart,
) -> Response {
    let t = view.text();
    let refuse = |message: &str| {
        let body = format!(
            "{}<p><a href=\"/mapping/{}\">{}</a></p>",
            page::error_box(t, message),
            Esc(&id),
            Esc(t.back_mapping)
        );
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        page::page(&view, app.service.label(t), Step::Mapping, t.mapping_title, &body, status)
    };
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, app.service.label(t), Step::Mapping, t.mapping_title);
    };
    let text = match file_text(&mut multipart).await {
        Some(text) => text,
        None => return refuse(t.no_file_chosen),
    };
    let file = match MappingFile::parse(&text) {
        Ok(file) => file,
        Err(problem) => return refuse(&(t.mapping_file_invalid)(&problem)),
    };
    let pairs = query_pairs(raw.as_deref());
    let choice = ReadingChoice::from_pairs(&pairs);
    let headers = match preview(&chosen, &choice, Wanted { rows: 1, above: false }, t).await {
        Ok(preview) => preview.headers,
        Err(message) => return refuse(&message),
    };
    let href = with_roles_href(&id, &choice, &roles_of(&file, &headers));
    let extra = page::query(settings(&file).iter().map(|(k, v)| (*k, v.as_str())));
    let href = if extra.is_empty() { href } else { format!("{href}&{extra}") };
    Redirect::to(&href).into_response()
}

/// The file's text, if one came and it is UTF-8 within the limit.
async fn file_text(multipart: &mut Multipart) -> Option<String> {
    while let Ok(Some(field)) = multipart.next_field().await {
        if field.name() != Some(FIELD) {
            continue;
        }
        let bytes = field.bytes().await.ok()?;
        if bytes.is_empty() || bytes.len() > MAX_MAPPING_BYTES {
            return None;
        }
        return String::from_utf8(bytes.to_vec()).ok();
    }
    None
}

/// The file's settings the Mapping page carries in its address beside the roles.
fn settings(file: &MappingFile) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(AssistantRef::Id(id)) = &file.assistant {
        out.push(("assistant", id.to_string()));
    }
    if let Some(region) = &file.region {
        out.push(("region", region.clone()));
    }
    if !file.countries.is_empty() {
        out.push(("countries", file.countries.join(", ")));
    }
    if let Some(blocked) = &file.block_number_types {
        out.push(("block_shown", "1".to_string()));
        let kinds = blocked.iter().filter_map(|name| NumberType::parse(name).ok());
        out.extend(kinds.map(|kind| ("block", kind.as_str().to_string())));
    }
    out
}
