//! Step 2, Reading: what the library detected (format, encoding, delimiter, sheet, header row)
//! over the sheet's first rows, and a form to change each. The choices travel in the query
//! string, so every change is a GET of this same page and nothing is stored.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{Markup, html};

use super::super::App;
use super::super::page::{self, Step, View};
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
    page::page(&view, label, Step::Reading, t.reading_title, body, status)
}

fn shown(id: &str, location: &str, choice: &ReadingChoice, preview: &Preview, t: &Text) -> Markup {
    // A workbook has no delimiter or encoding to choose.
    let text_file = preview.delimiter.is_some();
    html! {
        p { (t.reading_intro) }
        (detected(location, preview, t))
        (form(id, choice, &preview.sheets, text_file, t))
        (above(choice, &preview.above, t))
        (table(choice, preview, t))
        @if let Some(stopped) = &preview.stopped {
            (page::error(t, stopped))
        }
        (links(id, choice, t, true))
    }
}

fn failed(id: &str, choice: &ReadingChoice, message: &str, t: &Text) -> Markup {
    html! {
        h2 { (t.cannot_read) }
        (page::error(t, message))
        (form(id, choice, &[], true, t))
        (links(id, choice, t, false))
    }
}

fn detected(location: &str, preview: &Preview, t: &Text) -> Markup {
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
    html! {
        h2 { (t.detected) }
        dl class="detected" {
            @for (name, value) in items {
                dt { (name) }
                dd { (value) }
            }
        }
    }
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
fn form(id: &str, choice: &ReadingChoice, sheets: &[String], text_file: bool, t: &Text) -> Markup {
    let sheet_names =
        std::iter::once(("", t.automatic)).chain(sheets.iter().map(|s| (s.as_str(), s.as_str())));
    let delimiters =
        [("", t.automatic), (",", t.comma), (";", t.semicolon), ("tab", t.tab), ("|", t.pipe)];
    html! {
        form method="get" action={ "/reading/" (id) } {
            fieldset {
                legend { (t.change_legend) }
                div class="controls" {
                    @if !sheets.is_empty() {
                        div {
                            label for="sheet" { (t.sheet) }
                            select id="sheet" name="sheet" { (options(sheet_names, &choice.sheet)) }
                        }
                    } @else if !choice.sheet.is_empty() {
                        div {
                            label for="sheet" { (t.sheet) }
                            input type="text" id="sheet" name="sheet" value=(choice.sheet);
                        }
                    }
                    div {
                        label for="header_row" { (t.header_row) }
                        input type="number" id="header_row" name="header_row" min="1" step="1"
                            value=(choice.header_row.trim()) aria-describedby="header_row_hint";
                        p id="header_row_hint" class="hint" { (t.header_row_hint) }
                    }
                    @if text_file {
                        div {
                            label for="delimiter" { (t.delimiter) }
                            select id="delimiter" name="delimiter" {
                                (options(delimiters, &choice.delimiter))
                            }
                        }
                        div {
                            label for="encoding" { (t.encoding) }
                            input type="text" id="encoding" name="encoding"
                                value=(choice.encoding.trim()) aria-describedby="encoding_hint"
                                spellcheck="false";
                            p id="encoding_hint" class="hint" { (t.encoding_hint) }
                        }
                    }
                }
                button type="submit" { (t.apply) }
                " "
                a href={ "/reading/" (id) } { (t.detect_again) }
            }
        }
    }
}

fn options<'a>(items: impl IntoIterator<Item = (&'a str, &'a str)>, selected: &str) -> Markup {
    html! {
        @for (value, label) in items {
            option value=(value) selected[value == selected] { (label) }
        }
    }
}

/// The rows above the header, each offering itself as the header row instead.
fn above(choice: &ReadingChoice, rows: &[(u64, Vec<String>)], t: &Text) -> Markup {
    if rows.is_empty() {
        return html! {};
    }
    let width = rows.iter().map(|(_, cells)| cells.len()).max().unwrap_or(1).max(1);
    html! {
        div class="table-wrap" role="region" aria-labelledby="above-caption" tabindex="0" {
            table {
                caption id="above-caption" { (t.rows_above) }
                thead {
                    tr {
                        th scope="col" { (t.row) }
                        th scope="col" { (t.use_as_header) }
                        th scope="col" colspan=(width) { (t.cells) }
                    }
                }
                tbody {
                    @for (row, cells) in rows {
                        tr {
                            (row_start(choice, *row, t))
                            @for cell in cells {
                                td { (cell) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A row's number and its link to become the header row: the first cells of its `tr`.
fn row_start(choice: &ReadingChoice, row: u64, t: &Text) -> Markup {
    let query = choice.with_header_row(row).query();
    html! {
        td class="row-number" { (row) }
        td { a href={ "?" (query) } aria-label=((t.use_row_as_header)(row)) { (t.use_this_row) } }
    }
}

/// The header and the first rows; each row offers itself as the header row.
fn table(choice: &ReadingChoice, preview: &Preview, t: &Text) -> Markup {
    if preview.rows.is_empty() && preview.stopped.is_none() {
        return html! { p { (t.no_data_rows) } };
    }
    let width = preview.headers.len().max(1);
    html! {
        div class="table-wrap" role="region" aria-labelledby="rows-caption" tabindex="0" {
            table {
                caption id="rows-caption" { ((t.first_rows)(preview.rows.len())) }
                thead {
                    tr {
                        th scope="col" { (t.row) }
                        th scope="col" { (t.use_as_header) }
                        @for header in &preview.headers {
                            th scope="col" { (header) }
                        }
                    }
                }
                tbody {
                    @for record in &preview.rows {
                        tr {
                            (row_start(choice, record.row, t))
                            @for cell in record.cells.iter().take(width) {
                                td { (cell) }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn links(id: &str, choice: &ReadingChoice, t: &Text, readable: bool) -> Markup {
    let query = choice.query();
    let href = match query.is_empty() {
        true => format!("/mapping/{id}"),
        false => format!("/mapping/{id}?{query}"),
    };
    html! {
        p class="next" {
            a href="/" { (t.other_file) }
            @if readable {
                a href=(href) { (t.next_mapping) }
            }
        }
    }
}
