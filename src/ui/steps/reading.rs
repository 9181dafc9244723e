//! Step 2, Reading: what the library detected (format, encoding, delimiter, sheet, header row)
//! over the sheet's first rows, and a form to change each. The choices travel in the query
//! string, so every change is a GET of this same page and nothing is stored.

use std::fmt::Write;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::super::App;
use super::super::page::{self, Esc, Step, View};
use super::super::text::Text;
use super::{Preview, ReadingChoice, Wanted, preview};

/// Rows shown under the header.
const PREVIEW_ROWS: usize = 20;

pub(in super::super) async fn show(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    Query(choice): Query<ReadingChoice>,
) -> Response {
    let t = view.text();
    let label = app.service.label(t);
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, label, Step::Reading, t.reading_title);
    };
    let wanted = Wanted { rows: PREVIEW_ROWS, above: true };
    let (body, status) = match preview(&chosen, &choice, wanted, t).await {
        Ok(preview) => (shown(&id, &chosen.location, &choice, &preview, t), StatusCode::OK),
        Err(message) => (failed(&id, &choice, &message, t), StatusCode::UNPROCESSABLE_ENTITY),
    };
    page::page(&view, label, Step::Reading, t.reading_title, &body, status)
}

fn shown(id: &str, location: &str, choice: &ReadingChoice, preview: &Preview, t: &Text) -> String {
    let mut body = format!("<p>{}</p>", Esc(t.reading_intro));
    body.push_str(&detected(location, preview, t));
    // A workbook has no delimiter or encoding to choose.
    let text_file = preview.delimiter.is_some();
    body.push_str(&form(id, choice, &preview.sheets, text_file, t));
    body.push_str(&above(choice, &preview.above, t));
    body.push_str(&table(choice, preview, t));
    if let Some(stopped) = &preview.stopped {
        body.push_str(&page::error_box(t, stopped));
    }
    body.push_str(&links(id, choice, t, true));
    body
}

fn failed(id: &str, choice: &ReadingChoice, message: &str, t: &Text) -> String {
    let mut body = format!("<h2>{}</h2>", Esc(t.cannot_read));
    body.push_str(&page::error_box(t, message));
    body.push_str(&form(id, choice, &[], true, t));
    body.push_str(&links(id, choice, t, false));
    body
}

fn detected(location: &str, preview: &Preview, t: &Text) -> String {
    let mut items: Vec<(&str, String)> = vec![(t.file, location.to_string())];
    items.push((t.format, preview.format.to_string()));
    if let Some(encoding) = preview.encoding {
        items.push((t.encoding, encoding.to_string()));
    }
    if let Some(delimiter) = preview.delimiter {
        items.push((t.delimiter, delimiter_name(delimiter, t)));
    }
    if let Some(sheet) = &preview.sheet {
        items.push((t.sheet, sheet.clone()));
    }
    items.push((t.header_row, (t.header_row_is)(preview.header_row)));
    items.push((t.columns, preview.headers.len().to_string()));
    let mut out = format!("<h2>{}</h2><dl class=\"detected\">", Esc(t.detected));
    for (name, value) in items {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", Esc(name), Esc(&value));
    }
    out.push_str("</dl>");
    out
}

fn delimiter_name(delimiter: u8, t: &Text) -> String {
    match delimiter {
        b',' => t.comma.to_string(),
        b';' => t.semicolon.to_string(),
        b'\t' => t.tab.to_string(),
        b'|' => t.pipe.to_string(),
        other => char::from(other).to_string(),
    }
}

/// The choices as a GET form: the sheet (a picker when the workbook's sheets are known), the
/// header row, and for text files the delimiter and encoding.
fn form(id: &str, choice: &ReadingChoice, sheets: &[String], text_file: bool, t: &Text) -> String {
    let mut out = format!(
        "<form method=\"get\" action=\"/reading/{}\"><fieldset><legend>{}</legend>\
         <div class=\"controls\">",
        Esc(id),
        Esc(t.change_legend)
    );
    if !sheets.is_empty() {
        let _ = write!(
            out,
            "<div><label for=\"sheet\">{}</label><select id=\"sheet\" name=\"sheet\">{}</select></div>",
            Esc(t.sheet),
            options(
                std::iter::once(("", t.automatic))
                    .chain(sheets.iter().map(|s| (s.as_str(), s.as_str()))),
                &choice.sheet
            )
        );
    } else if !choice.sheet.is_empty() {
        let _ = write!(
            out,
            "<div><label for=\"sheet\">{}</label>\
             <input type=\"text\" id=\"sheet\" name=\"sheet\" value=\"{}\"></div>",
            Esc(t.sheet),
            Esc(&choice.sheet)
        );
    }
    let _ = write!(
        out,
        "<div><label for=\"header_row\">{label}</label>\
         <input type=\"number\" id=\"header_row\" name=\"header_row\" min=\"1\" step=\"1\" \
         value=\"{value}\" aria-describedby=\"header_row_hint\">\
         <p id=\"header_row_hint\" class=\"hint\">{hint}</p></div>",
        label = Esc(t.header_row),
        value = Esc(choice.header_row.trim()),
        hint = Esc(t.header_row_hint),
    );
    if text_file {
        let delimiters =
            [("", t.automatic), (",", t.comma), (";", t.semicolon), ("tab", t.tab), ("|", t.pipe)];
        let _ = write!(
            out,
            "<div><label for=\"delimiter\">{label}</label><select id=\"delimiter\" name=\"delimiter\">\
             {options}</select></div>\
             <div><label for=\"encoding\">{encoding}</label>\
             <input type=\"text\" id=\"encoding\" name=\"encoding\" value=\"{value}\" \
             aria-describedby=\"encoding_hint\" spellcheck=\"false\">\
             <p id=\"encoding_hint\" class=\"hint\">{hint}</p></div>",
            label = Esc(t.delimiter),
            options = options(delimiters, &choice.delimiter),
            encoding = Esc(t.encoding),
            value = Esc(choice.encoding.trim()),
            hint = Esc(t.encoding_hint),
        );
    }
    let _ = write!(
        out,
        "</div><button type=\"submit\">{}</button> <a href=\"/reading/{}\">{}</a></fieldset></form>",
        Esc(t.apply),
        Esc(id),
        Esc(t.detect_again)
    );
    out
}

fn options<'a>(items: impl IntoIterator<Item = (&'a str, &'a str)>, selected: &str) -> String {
    let mut out = String::new();
    for (value, label) in items {
        let mark = if value == selected { " selected" } else { "" };
        let _ = write!(out, "<option value=\"{}\"{mark}>{}</option>", Esc(value), Esc(label));
    }
    out
}

/// The rows above the header, each offering itself as the header row instead.
fn above(choice: &ReadingChoice, rows: &[(u64, Vec<String>)], t: &Text) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let width = rows.iter().map(|(_, cells)| cells.len()).max().unwrap_or(1).max(1);
    let mut out = format!(
        "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"above-caption\" tabindex=\"0\">\
         <table><caption id=\"above-caption\">{}</caption><thead><tr><th scope=\"col\">{}</th>\
         <th scope=\"col\">{}</th><th scope=\"col\" colspan=\"{width}\">{}</th></tr></thead><tbody>",
        Esc(t.rows_above),
        Esc(t.row),
        Esc(t.use_as_header),
        Esc(t.cells)
    );
    for (row, cells) in rows {
        out.push_str(&row_start(choice, *row, t));
        for cell in cells {
            let _ = write!(out, "<td>{}</td>", Esc(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

/// A row's number and its link to become the header row.
fn row_start(choice: &ReadingChoice, row: u64, t: &Text) -> String {
    let query = choice.with_header_row(row).query();
    format!(
        "<tr><td class=\"row-number\">{row}</td><td><a href=\"?{query}\" aria-label=\"{label}\">{short}</a></td>",
        query = Esc(&query),
        label = Esc(&(t.use_row_as_header)(row)),
        short = Esc(t.use_this_row),
    )
}

/// The header and the first rows; each row offers itself as the header row.
fn table(choice: &ReadingChoice, preview: &Preview, t: &Text) -> String {
    if preview.rows.is_empty() && preview.stopped.is_none() {
        return format!("<p>{}</p>", Esc(t.no_data_rows));
    }
    let mut out = format!(
        "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"rows-caption\" tabindex=\"0\">\
         <table><caption id=\"rows-caption\">{}</caption><thead><tr>\
         <th scope=\"col\">{}</th><th scope=\"col\">{}</th>",
        Esc(&(t.first_rows)(preview.rows.len())),
        Esc(t.row),
        Esc(t.use_as_header)
    );
    for header in &preview.headers {
        let _ = write!(out, "<th scope=\"col\">{}</th>", Esc(header));
    }
    out.push_str("</tr></thead><tbody>");
    for record in &preview.rows {
        out.push_str(&row_start(choice, record.row, t));
        for cell in record.cells.iter().take(preview.headers.len().max(1)) {
            let _ = write!(out, "<td>{}</td>", Esc(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

fn links(id: &str, choice: &ReadingChoice, t: &Text, readable: bool) -> String {
    let mut out = format!("<p class=\"next\"><a href=\"/\">{}</a>", Esc(t.other_file));
    if readable {
        let query = choice.query();
        let href = match query.is_empty() {
            true => format!("/mapping/{id}"),
            false => format!("/mapping/{id}?{query}"),
        };
        let _ = write!(out, "<a href=\"{}\">{}</a>", Esc(&href), Esc(t.next_mapping));
    }
    out.push_str("</p>");
    out
}
