//! Step 3, Mapping: each column with its role, first as `mapping::infer` gives it, each
//! changeable (`mapping::with_roles` builds the mapping from the roles picked, the library's
//! own `resolve` says whether it can be used), then the campaign and the country of national
//! numbers, and the check. The choices travel in the query string, as Reading's do.

use std::fmt::Write;

use axum::Form;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

use super::super::App;
use super::super::mappings::as_toml;
use super::super::page::{self, Esc, Step, View};
use super::super::text::Text;
use super::{ReadingChoice, Wanted, choices, preview};
use crate::assistant::{Piece, Speaker};
use crate::mapping::{CampaignRef, MappingFile, Role, infer_from, roles_of, with_roles};
use crate::report::rows_db::{RowFilter, RowsDb};

pub(in super::super) async fn show(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    Query(choice): Query<ReadingChoice>,
    RawQuery(raw): RawQuery,
) -> Response {
    let t = view.text();
    let label = app.service.label(t);
    let back = back_link(&id, &choice, t);
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, label, Step::Mapping, t.mapping_title);
    };
    let wanted = Wanted { rows: CAMPAIGN_SAMPLE_ROWS, above: false };
    let preview = match preview(&chosen, &choice, wanted, t).await {
        Ok(preview) => preview,
        Err(message) => {
            let body = format!("{}{back}", page::error_box(t, &message));
            let status = StatusCode::UNPROCESSABLE_ENTITY;
            return page::page(&view, label, Step::Mapping, t.mapping_title, &body, status);
        }
    };
    let pairs = query_pairs(raw.as_deref());
    let campaigns = campaign_names(&app).await;
    let (mapping, not_campaign) = judged_mapping(&preview, &pairs, &campaigns);
    let speakers = speakers(&app).await;
    let asked = super::field(&pairs, "assistant");
    let speaker = speakers.iter().find(|s| s.id.to_string() == asked.trim());
    let roles = roles_of(&mapping, &preview.headers);
    let mut body = format!("<p>{}</p>", Esc(t.mapping_intro));
    if let Err(problem) = resolves(&mapping, &preview.headers, &chosen.location, t) {
        body.push_str(&page::error_box(t, &problem));
    }
    body.push_str(&proposals(&app, &id, &choice, &preview.headers, t));
    if let Some((column, example)) = &not_campaign {
        let said = (t.campaign_column_unknown)(column, example);
        let _ = write!(body, "<div class=\"proposal\" role=\"note\"><p>{}</p></div>", Esc(&said));
    }
    let _ = write!(body, "<form id=\"choices\" method=\"post\" action=\"/check/{}\">", Esc(&id));
    for (name, value) in choice.fields() {
        let _ = write!(body, "<input type=\"hidden\" name=\"{name}\" value=\"{}\">", Esc(value));
    }
    body.push_str(&roles_table(&id, &preview, &roles, (&speakers, speaker), t));
    body.push_str(&first_rows(&chosen, &choice, &mapping, speaker, t).await);
    let _ = write!(body, "<p>{}</p>", Esc(t.next_later));
    let callable = super::callable::fields(&app, &id, &mapping, &pairs, t).into_string();
    let campaign = (mapping.campaign_column.as_deref(), campaigns.as_slice());
    // The country of national numbers: the form's, a loaded mapping's, else the default.
    let region = match super::field(&pairs, "region") {
        region if !region.trim().is_empty() => region,
        _ => mapping.region.clone().unwrap_or_else(|| crate::mapping::DEFAULT_REGION.to_string()),
    };
    body.push_str(&check_fields(&pairs, campaign, (&region, &callable), t));
    body.push_str(&keep_fields(&id, t));
    body.push_str(&super::load::fields(&id, t).into_string());
    body.push_str("</form>");
    body.push_str(&back);
    page::page(&view, label, Step::Mapping, t.mapping_title, &body, StatusCode::OK)
}

/// Rows read to judge the campaign column: its values in the first rows name campaigns of the
/// account or they do not.
const CAMPAIGN_SAMPLE_ROWS: usize = 200;

/// The mapping the form describes, and, when the inferred campaign column names no campaign
/// of the account (a CRM's own campaign names), that column taken as a variable instead, with
/// its name and a value of it for the page to say why. A role the person chose is kept.
fn judged_mapping(
    preview: &super::Preview,
    pairs: &[(String, String)],
    campaigns: &[(u64, String)],
) -> (MappingFile, Option<(String, String)>) {
    let headers = &preview.headers;
    let mapping = chosen_mapping(preview, pairs);
    let chose_roles = pairs.iter().any(|(k, _)| k.starts_with("role"));
    let Some(column) = mapping.campaign_column.clone().filter(|_| !chose_roles) else {
        return (mapping, None);
    };
    let Some(index) = headers.iter().position(|h| *h == column) else { return (mapping, None) };
    let values: Vec<&str> =
        preview.rows.iter().filter_map(|r| r.cells.get(index)).map(str::trim).collect();
    let book = crate::validate::CampaignBook::new(campaigns.iter().cloned());
    if book.names_any(values.iter().copied()) {
        return (mapping, None);
    }
    let example = values.iter().find(|v| !v.is_empty()).unwrap_or(&"").to_string();
    let mut roles = roles_of(&mapping, headers);
    roles[index] = Role::parse("variable", "", &column).unwrap_or(Role::Ignore);
    (with_roles(&mapping, headers, &roles), Some((column, example)))
}

/// The pairs of a query string or form, in order.
pub(super) fn query_pairs(raw: Option<&str>) -> Vec<(String, String)> {
    url::form_urlencoded::parse(raw.unwrap_or_default().as_bytes()).into_owned().collect()
}

/// The sheet's headers as `choice` reads them, and the mapping the form's roles make of them.
pub(super) async fn headers_and_mapping(
    chosen: &super::super::sources::Chosen,
    choice: &ReadingChoice,
    pairs: &[(String, String)],
    t: &Text,
) -> Result<(Vec<String>, MappingFile), String> {
    let preview = preview(chosen, choice, Wanted { rows: SAMPLE_ROWS, above: false }, t).await?;
    let mapping = chosen_mapping(&preview, pairs);
    Ok((preview.headers, mapping))
}

/// Rows the inference looks at beside the headers (a column of `ja`/`nein` is consent, never
/// a phone), as many as `import` reads ahead.
const SAMPLE_ROWS: usize = 50;

/// The mapping the person chose: the one the library infers from the headers and the first
/// rows, with each column's role as the form says (`role3=variable&name3=firma`) where it
/// says one.
pub(super) fn chosen_mapping(preview: &super::Preview, pairs: &[(String, String)]) -> MappingFile {
    let headers = &preview.headers;
    let samples: Vec<Vec<String>> = preview
        .rows
        .iter()
        .take(SAMPLE_ROWS)
        .map(|r| r.cells.iter().map(str::to_string).collect())
        .collect();
    let (inferred, _notes) = infer_from(headers, &samples);
    let field = |name: String| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str());
    let mut roles = roles_of(&inferred, headers);
    let mut chosen = false;
    for (i, header) in headers.iter().enumerate() {
        let Some(role) = field(format!("role{i}")) else { continue };
        let name = field(format!("name{i}")).unwrap_or_default();
        if let Some(role) = Role::parse(role, name, header) {
            roles[i] = role;
            chosen = true;
        }
    }
    match chosen {
        true => with_roles(&inferred, headers, &roles),
        false => inferred,
    }
}

/// Rows checked for the preview: enough to see a pattern, few enough to answer at once.
const PREVIEW_ROWS: u64 = 10;

/// What the first rows would send with this mapping (the number as sent, the variables) and
/// what is wrong with them: the library's own dry run of those rows, offline (campaigns are
/// looked up by the check).
async fn first_rows(
    chosen: &super::super::sources::Chosen,
    choice: &ReadingChoice,
    mapping: &MappingFile,
    speaker: Option<&Speaker>,
    t: &Text,
) -> String {
    let Ok(mut opts) = choice.import_options(chosen, t) else { return String::new() };
    let Ok(dir) = tempfile::tempdir() else { return String::new() };
    // The rows as the check's page reads them (a rows database keeps what each message was
    // made of, so it is said in the page's language), not a report written to be read back.
    let report = dir.path().join("preview.sqlite");
    let mut mapping = mapping.clone();
    if mapping.campaign.is_none() && mapping.campaign_column.is_none() {
        // Offline, any campaign stands for the one the check will ask for.
        mapping.campaign = Some(CampaignRef::Id(0));
    }
    opts.mapping = Some(mapping);
    opts.dry_run = true;
    opts.offline = true;
    opts.max_rows = Some(PREVIEW_ROWS);
    opts.reports = vec![report.clone()];
    opts.workers = 1;
    opts.lang = t.lang;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // The import blocks between its stages: it runs beside the server's workers.
    let runtime = tokio::runtime::Handle::current();
    let checked = tokio::task::spawn_blocking(move || {
        runtime.block_on(crate::pipeline::import(&opts, None, stop)).map(|_| ())
    });
    match checked.await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => return page::error_box(t, &error.to_string()),
        Err(error) => return page::error_box(t, &error.to_string()),
    }
    let every = RowFilter { status: None, reason: None, search: None, after: 0 };
    let read = RowsDb::open(&report).and_then(|db| db.page(&every, PREVIEW_ROWS as usize));
    let Ok(page) = read else { return String::new() };
    let rows = page.rows;
    let said = speaker.map(|speaker| spoken(speaker, &rows, t)).unwrap_or_default();
    format!(
        "<h2 id=\"rows\">{}</h2>{}{said}",
        Esc(t.preview_title),
        super::check::rows_table(&rows, t, None)
    )
}

/// The roles as form fields: `role0=variable&name0=customer_name&role1=phone…`.
pub(super) fn roles_pairs(roles: &[Role]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        out.push((format!("role{i}"), role.as_str().to_string()));
        if let Role::Variable(name) = role {
            out.push((format!("name{i}"), name.clone()));
        }
    }
    out
}

/// The saved mappings that fit this sheet, each a link that fills the page with it: its
/// roles, assistant, campaign, countries, consent values and guards, not only the roles.
fn proposals(app: &App, id: &str, choice: &ReadingChoice, headers: &[String], t: &Text) -> String {
    let fitting = app.mappings.fitting(headers);
    if fitting.is_empty() {
        return String::new();
    }
    let mut out = format!("<div class=\"proposal\" role=\"note\"><p>{}</p><ul>", Esc(t.saved_fit));
    let reading: Vec<(String, String)> =
        choice.fields().iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    for (name, file) in fitting {
        let fields = choices::overlaid(&reading, choices::pairs_of(app, &file, headers));
        let href = format!("/mapping/{id}?{}", choices::as_query(&fields));
        let _ =
            write!(out, "<li><a href=\"{}\">{}</a></li>", Esc(&href), Esc(&(t.use_saved)(&name)));
    }
    out.push_str("</ul></div>");
    out
}

/// Keeping the mapping, inside the page's one form so it keeps what is on the page: download
/// it as a file for `import`/`sync --mapping`, or save it here to be proposed for the next
/// sheet with these columns.
fn keep_fields(id: &str, t: &Text) -> String {
    format!(
        "<fieldset class=\"keep\"><legend>{}</legend>\
         <p><button type=\"submit\" formmethod=\"get\" formaction=\"/mapping/{id}/mapping.toml\" formnovalidate>{}</button></p>\
         <p><label for=\"save_name\">{}</label> <input id=\"save_name\" name=\"save_name\"> \
         <button type=\"submit\" formaction=\"/mapping/{id}/save\" formnovalidate>{}</button></p></fieldset>",
        Esc(t.keep_legend),
        Esc(t.download_mapping),
        Esc(t.save_name),
        Esc(t.save_mapping),
        id = Esc(id),
    )
}

/// The chosen mapping as a TOML file to download: everything on the page.
pub(in super::super) async fn download(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let t = view.text();
    let Some(chosen) = app.sources.get(&id) else { return StatusCode::NOT_FOUND.into_response() };
    let pairs = query_pairs(raw.as_deref());
    let mapping = match choices::full_mapping(&app, &chosen, &pairs, t).await {
        Ok((_, mapping)) => mapping,
        Err(message) => return (StatusCode::UNPROCESSABLE_ENTITY, message).into_response(),
    };
    let disposition = "attachment; filename=\"mapping.toml\"";
    let headers = [
        (header::CONTENT_TYPE, "application/toml; charset=utf-8"),
        (header::CONTENT_DISPOSITION, disposition),
    ];
    (headers, as_toml(&mapping)).into_response()
}

/// Saves everything on the page under the name given, then shows the page again as it was.
pub(in super::super) async fn save(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let t = view.text();
    let label = app.service.label(t);
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, label, Step::Mapping, t.mapping_title);
    };
    let back = format!("/mapping/{id}?{}", choices::as_query(&choices::carried(&pairs)));
    let refuse = |message: &str| {
        let body = format!(
            "{}<p><a href=\"{}\">{}</a></p>",
            page::error_box(t, message),
            Esc(&back),
            Esc(t.back_mapping)
        );
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        page::page(&view, label, Step::Mapping, t.mapping_title, &body, status)
    };
    let name = super::field(&pairs, "save_name");
    if name.trim().is_empty() {
        return refuse(t.save_name_missing);
    }
    let mapping = match choices::full_mapping(&app, &chosen, &pairs, t).await {
        Ok((_, mapping)) => mapping,
        Err(message) => return refuse(&message),
    };
    if let Err(error) = app.mappings.save(&name, &mapping) {
        tracing::warn!("ui: the mapping could not be saved: {error}");
        return refuse(t.save_failed);
    }
    Redirect::to(&back).into_response()
}

/// Each column with a choice of its role (and a variable's name), and its first value.
/// Its button shows the page again with every choice on it (it is the form's first button, so
/// Enter in a field does this, never the check).
fn roles_table(
    id: &str,
    preview: &super::Preview,
    roles: &[Role],
    (speakers, speaker): (&[Speaker], Option<&Speaker>),
    t: &Text,
) -> String {
    let mut out = assistant_choice(speakers, speaker, t);
    let _ = write!(
        out,
        "<div class=\"table-wrap\" role=\"region\" aria-labelledby=\"columns-caption\" tabindex=\"0\">\
         <table><caption id=\"columns-caption\">{}</caption><thead><tr><th scope=\"col\">{}</th>\
         <th scope=\"col\">{}</th><th scope=\"col\">{}</th><th scope=\"col\">{}</th></tr></thead><tbody>",
        Esc(t.mapping_title),
        Esc(t.column),
        Esc(t.role),
        Esc(t.variable_name),
        Esc(t.first_value)
    );
    let first = preview.rows.first();
    let choices = [
        ("phone", t.role_phone),
        ("secondary", t.role_secondary),
        ("variable", t.role_variable_any),
        ("campaign", t.role_campaign),
        ("country", t.role_country),
        ("consent", t.role_consent),
        ("ignore", t.role_ignored),
    ];
    for (i, header) in preview.headers.iter().enumerate() {
        let value = first.and_then(|r| r.cells.get(i)).unwrap_or_default();
        let _ = write!(
            out,
            "<tr><th scope=\"row\"><label for=\"role{i}\">{}</label></th><td><select id=\"role{i}\" name=\"role{i}\">",
            Esc(header)
        );
        for (value, words) in choices {
            let selected = if roles[i].as_str() == value { " selected" } else { "" };
            let _ = write!(out, "<option value=\"{value}\"{selected}>{}</option>", Esc(words));
        }
        let name = match &roles[i] {
            Role::Variable(name) => name.as_str(),
            _ => "",
        };
        let _ = write!(
            out,
            "</select></td><td><input id=\"name{i}\" name=\"name{i}\" value=\"{}\" aria-label=\"{}\" list=\"assistant-variables\"></td><td>{}</td></tr>",
            Esc(name),
            Esc(&(t.variable_name_of)(header)),
            Esc(value)
        );
    }
    let _ = write!(
        out,
        "</tbody></table></div><p><button type=\"submit\" formmethod=\"get\" \
         formaction=\"/mapping/{}\" formnovalidate>{}</button></p>",
        Esc(id),
        Esc(t.update_preview)
    );
    out
}

/// The account's assistants, to choose the one that makes the calls; none without a service.
async fn speakers(app: &App) -> Vec<Speaker> {
    let Some(client) = &app.client else { return Vec::new() };
    match crate::pipeline::speakers(client).await {
        Ok(speakers) => speakers,
        Err(error) => {
            tracing::info!("ui: the assistants could not be read: {error}");
            Vec::new()
        }
    }
}

/// The assistant that makes the calls, and its variables offered as names for the columns.
fn assistant_choice(speakers: &[Speaker], speaker: Option<&Speaker>, t: &Text) -> String {
    if speakers.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<p><label for=\"assistant\">{}</label> <select id=\"assistant\" name=\"assistant\">\
         <option value=\"\">{}</option>",
        Esc(t.assistant_label),
        Esc(t.assistant_none)
    );
    for one in speakers {
        let selected = if speaker.is_some_and(|s| s.id == one.id) { " selected" } else { "" };
        let _ = write!(
            out,
            "<option value=\"{}\"{selected}>{} ({})</option>",
            one.id,
            Esc(&one.name),
            one.id
        );
    }
    out.push_str("</select></p><datalist id=\"assistant-variables\">");
    for used in speaker.map(Speaker::uses).unwrap_or_default() {
        let _ = write!(out, "<option value=\"{}\">", Esc(&used.name));
    }
    out.push_str("</datalist>");
    out
}

/// The assistant's first message as the first rows would have it said, gaps marked.
fn spoken(speaker: &Speaker, rows: &[serde_json::Value], t: &Text) -> String {
    let mut out =
        format!("<h2>{}</h2><ul class=\"spoken\">", Esc(&(t.assistant_says)(&speaker.name)));
    for row in rows.iter().filter(|r| r["phone"].is_string()).take(3) {
        let number = row["row"].as_u64().unwrap_or_default();
        let message = speaker.first_message(number, |name| row["variables"][name].as_str());
        let _ = write!(out, "<li><strong>{}</strong> ", Esc(&(t.row_says)(number)));
        for piece in &message.pieces {
            match piece {
                Piece::Said(words) => out.push_str(&Esc(words).to_string()),
                Piece::Gap(name) => {
                    let _ = write!(
                        out,
                        "<mark class=\"gap\">{}</mark>",
                        Esc(&(t.missing_variable)(name))
                    );
                }
            }
        }
        out.push_str("</li>");
    }
    out.push_str("</ul>");
    out
}

/// Whether the mapping can be used: a phone column, the columns it names there. Resolving
/// needs a campaign; without a campaign column one is chosen for every row on this page, and
/// any stands in for it here, as it uses no column.
fn resolves(
    mapping: &MappingFile,
    headers: &[String],
    location: &str,
    t: &Text,
) -> Result<(), String> {
    if mapping.phone.is_none() {
        return Err(t.no_phone_column.to_string());
    }
    let mut file = mapping.clone();
    if file.campaign.is_none() && file.campaign_column.is_none() {
        file.campaign = Some(CampaignRef::Id(0));
    }
    file.resolve(headers, location).map(|_| ()).map_err(|e| e.to_string())
}

/// The account's campaigns, by id and name; none without a service or when it cannot be asked
/// (the field then takes an id or name typed in, as `--campaign` does).
async fn campaign_names(app: &App) -> Vec<(u64, String)> {
    let Some(client) = &app.client else { return Vec::new() };
    match client.list_campaigns().await {
        Ok(campaigns) => campaigns.into_iter().map(|c| (c.id, c.name)).collect(),
        Err(error) => {
            tracing::info!("ui: the campaign list could not be read: {error}");
            Vec::new()
        }
    }
}

/// The part of the form that starts the check: the campaign (asked for unless a column
/// names each row's), the country of national numbers, who may be called, duplicates. Each
/// shows what the form last said, so the way back from the check changes nothing.
fn check_fields(
    pairs: &[(String, String)],
    campaign: (Option<&str>, &[(u64, String)]),
    (region, callable): (&str, &str),
    t: &Text,
) -> String {
    let mut form = format!("<fieldset><legend>{}</legend>", Esc(t.check_legend));
    let _ = write!(
        form,
        "<p><label for=\"campaign\">{}</label> <span class=\"hint\" id=\"campaign-hint\">{}</span><br>",
        Esc(t.campaign_label),
        Esc(t.campaign_hint)
    );
    form.push_str(&campaign_choice(&super::field(pairs, "campaign"), campaign, t));
    let duplicates = if super::field(pairs, "allow_duplicates") == "on" { " checked" } else { "" };
    let _ = write!(
        form,
        "</p><p><label for=\"region\">{}</label> <span class=\"hint\" id=\"region-hint\">{}</span><br>\
         <input id=\"region\" name=\"region\" value=\"{}\" aria-describedby=\"region-hint\"></p>\
         {callable}<p><label class=\"choice\" for=\"allow_duplicates\"><input type=\"checkbox\" id=\"allow_duplicates\" \
         name=\"allow_duplicates\"{duplicates}> {}</label></p>\
         <p><button type=\"submit\" data-busy=\"{}\">{}</button></p></fieldset>",
        Esc(t.region_label),
        Esc(t.region_hint),
        Esc(region),
        Esc(t.allow_duplicates),
        Esc(t.checking),
        Esc(t.check_button)
    );
    form
}

/// The campaign: the account's list (with "from the column" first when a column names each
/// row's campaign, else "choose one", which the browser will not send empty), or a field to
/// type an id or a name where the list cannot be read.
fn campaign_choice(
    chosen: &str,
    (column, campaigns): (Option<&str>, &[(u64, String)]),
    t: &Text,
) -> String {
    let described = "aria-describedby=\"campaign-hint\"";
    if campaigns.is_empty() && column.is_none() {
        return format!(
            "<input id=\"campaign\" name=\"campaign\" required {described} value=\"{}\">",
            Esc(chosen)
        );
    }
    let required = if column.is_none() { " required" } else { "" };
    let mut out = format!("<select id=\"campaign\" name=\"campaign\"{required} {described}>");
    let first = match column {
        Some(column) => (t.campaign_from_column)(column),
        None => t.campaign_choose.to_string(),
    };
    let _ = write!(out, "<option value=\"\">{}</option>", Esc(&first));
    for (campaign_id, name) in campaigns {
        let selected = if chosen.trim() == campaign_id.to_string() { " selected" } else { "" };
        let _ = write!(
            out,
            "<option value=\"{campaign_id}\"{selected}>{} ({campaign_id})</option>",
            Esc(name)
        );
    }
    out.push_str("</select>");
    out
}

fn back_link(id: &str, choice: &ReadingChoice, t: &Text) -> String {
    let query = choice.query();
    let href = match query.is_empty() {
        true => format!("/reading/{id}"),
        false => format!("/reading/{id}?{query}"),
    };
    format!("<p class=\"next\"><a href=\"{}\">{}</a></p>", Esc(&href), Esc(t.back_reading))
}
