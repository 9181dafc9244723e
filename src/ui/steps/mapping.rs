//! Step 3, Mapping: each column with its role, first as `mapping::infer` gives it, each
//! changeable (`mapping::with_roles` builds the mapping from the roles picked, the library's
//! own `resolve` says whether it can be used), then the campaign and the country of national
//! numbers, and the check. The choices travel in the query string, as Reading's do.

use axum::Form;
use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::super::App;
use super::super::mappings::as_toml;
use super::super::page::{self, Step, View};
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
    let wanted = Wanted { rows: SAMPLE_ROWS, above: false };
    let preview = match preview(&chosen, &choice, wanted, t).await {
        Ok(preview) => preview,
        Err(message) => {
            let body = html! { (page::error(t, &message)) (back) };
            let status = StatusCode::UNPROCESSABLE_ENTITY;
            return page::page(&view, label, Step::Mapping, t.mapping_title, body, status);
        }
    };
    let pairs = query_pairs(raw.as_deref());
    let campaigns = campaign_names(&app).await;
    let (mapping, not_campaign) = judged_mapping(&preview, &pairs, &campaigns);
    let speakers = speakers(&app).await;
    let asked = super::field(&pairs, "assistant");
    let speaker = speakers.iter().find(|s| s.id.to_string() == asked.trim());
    let roles = roles_of(&mapping, &preview.headers);
    let problem = resolves(&mapping, &preview.headers, &chosen.location, t).err();
    let callable = super::callable::fields(&app, &id, &mapping, &pairs, t);
    let campaign = (mapping.campaign_column.as_deref(), campaigns.as_slice());
    // The country of national numbers: the form's, a loaded mapping's, else the default.
    let region = match super::field(&pairs, "region") {
        region if !region.trim().is_empty() => region,
        _ => mapping.region.clone().unwrap_or_else(|| crate::mapping::DEFAULT_REGION.to_string()),
    };
    let first_rows = first_rows(&chosen, &choice, &mapping, speaker, t).await;
    let body = html! {
        p { (t.mapping_intro) }
        @if let Some(problem) = problem {
            (page::error(t, &problem))
        }
        (proposals(&app, &id, &choice, &preview.headers, t))
        @if let Some((column, example)) = &not_campaign {
            div class="proposal" role="note" { p { ((t.campaign_column_unknown)(column, example)) } }
        }
        form id="choices" method="post" action={ "/check/" (id) } {
            @for (name, value) in choice.fields() {
                input type="hidden" name=(name) value=(value);
            }
            (roles_table(&id, &preview, &roles, (&speakers, speaker), t))
            (first_rows)
            p { (t.next_later) }
            (check_fields(&pairs, campaign, (&region, callable), t))
            (keep_fields(&id, t))
            (super::load::fields(&id, t))
        }
        (back)
    };
    page::page(&view, label, Step::Mapping, t.mapping_title, body, StatusCode::OK)
}

/// The mapping the form describes; on a first look (no role chosen yet), a campaign column
/// that names no campaign of the account is taken as a variable by the library, and that
/// column and a value of it come back for the page to say why.
fn judged_mapping(
    preview: &super::Preview,
    pairs: &[(String, String)],
    campaigns: &[(u64, String)],
) -> (MappingFile, Option<(String, String)>) {
    let mut mapping = chosen_mapping(preview, pairs);
    if pairs.iter().any(|(k, _)| k.starts_with("role")) {
        return (mapping, None);
    }
    let book = crate::validate::CampaignBook::new(campaigns.iter().cloned());
    let unnamed = book.unname_campaign_column(&mut mapping, &preview.headers, &samples(preview));
    (mapping, unnamed)
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
/// a phone; a campaign column's values name the account's campaigns or not).
const SAMPLE_ROWS: usize = 200;

/// The first rows' cells, by column, as the library's inference takes them.
fn samples(preview: &super::Preview) -> Vec<Vec<String>> {
    let rows = preview.rows.iter().take(SAMPLE_ROWS);
    rows.map(|r| r.cells.iter().map(str::to_string).collect()).collect()
}

/// The mapping the person chose: the one the library infers from the headers and the first
/// rows, with each column's role as the form says (`role3=variable&name3=firma`) where it
/// says one.
pub(super) fn chosen_mapping(preview: &super::Preview, pairs: &[(String, String)]) -> MappingFile {
    let headers = &preview.headers;
    let (inferred, _notes) = infer_from(headers, &samples(preview));
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
) -> Markup {
    let Ok(mut opts) = choice.import_options(chosen, t) else { return html! {} };
    let Ok(dir) = tempfile::tempdir() else { return html! {} };
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
        Ok(Err(error)) => return page::error(t, &error.to_string()),
        Err(error) => return page::error(t, &error.to_string()),
    }
    let every = RowFilter { status: None, reason: None, search: None, after: 0 };
    let read = RowsDb::open(&report).and_then(|db| db.page(&every, PREVIEW_ROWS as usize));
    let Ok(read) = read else { return html! {} };
    let rows = read.rows;
    html! {
        h2 id="rows" { (t.preview_title) }
        (super::check::checked_rows(&rows, t, None))
        @if let Some(speaker) = speaker {
            (spoken(speaker, &rows, t))
        }
    }
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
fn proposals(app: &App, id: &str, choice: &ReadingChoice, headers: &[String], t: &Text) -> Markup {
    let fitting = app.mappings.fitting(headers);
    if fitting.is_empty() {
        return html! {};
    }
    let reading: Vec<(String, String)> =
        choice.fields().iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    html! {
        div class="proposal" role="note" {
            p { (t.saved_fit) }
            ul {
                @for (name, file) in fitting {
                    @let fields = choices::overlaid(&reading, choices::pairs_of(app, &file, headers));
                    li {
                        a href={ "/mapping/" (id) "?" (choices::as_query(&fields)) } {
                            ((t.use_saved)(&name))
                        }
                    }
                }
            }
        }
    }
}

/// Keeping the mapping, inside the page's one form so it keeps what is on the page: download
/// it as a file for `import`/`sync --mapping`, or save it here to be proposed for the next
/// sheet with these columns.
fn keep_fields(id: &str, t: &Text) -> Markup {
    html! {
        fieldset class="keep" {
            legend { (t.keep_legend) }
            p {
                button type="submit" formmethod="get" formaction={ "/mapping/" (id) "/mapping.toml" }
                    formnovalidate { (t.download_mapping) }
            }
            p {
                label for="save_name" { (t.save_name) }
                " "
                input id="save_name" name="save_name";
                " "
                button type="submit" formaction={ "/mapping/" (id) "/save" } formnovalidate {
                    (t.save_mapping)
                }
            }
        }
    }
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
        let body = html! {
            (page::error(t, message))
            p { a href=(back) { (t.back_mapping) } }
        };
        let status = StatusCode::UNPROCESSABLE_ENTITY;
        page::page(&view, label, Step::Mapping, t.mapping_title, body, status)
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
) -> Markup {
    let first = preview.rows.first();
    let role_choices = [
        ("phone", t.role_phone),
        ("secondary", t.role_secondary),
        ("variable", t.role_variable_any),
        ("campaign", t.role_campaign),
        ("country", t.role_country),
        ("consent", t.role_consent),
        ("record_id", t.role_record_id),
        ("ignore", t.role_ignored),
    ];
    html! {
        (assistant_choice(speakers, speaker, t))
        div class="table-wrap" role="region" aria-labelledby="columns-caption" tabindex="0" {
            table {
                caption id="columns-caption" { (t.mapping_title) }
                (page::heads(&[t.column, t.role, t.variable_name, t.first_value]))
                tbody {
                    @for (i, header) in preview.headers.iter().enumerate() {
                        @let value = first.and_then(|r| r.cells.get(i)).unwrap_or_default();
                        @let name = match &roles[i] {
                            Role::Variable(name) => name.as_str(),
                            _ => "",
                        };
                        tr {
                            th scope="row" { label for={ "role" (i) } { (header) } }
                            td {
                                select id={ "role" (i) } name={ "role" (i) } {
                                    @for (role, words) in role_choices {
                                        option value=(role) selected[roles[i].as_str() == role] {
                                            (words)
                                        }
                                    }
                                }
                            }
                            td {
                                input id={ "name" (i) } name={ "name" (i) } value=(name)
                                    aria-label=((t.variable_name_of)(header))
                                    list="assistant-variables";
                            }
                            td { (value) }
                        }
                    }
                }
            }
        }
        p {
            button type="submit" formmethod="get" formaction={ "/mapping/" (id) } formnovalidate {
                (t.update_preview)
            }
        }
    }
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
fn assistant_choice(speakers: &[Speaker], speaker: Option<&Speaker>, t: &Text) -> Markup {
    if speakers.is_empty() {
        return html! {};
    }
    html! {
        p {
            label for="assistant" { (t.assistant_label) }
            " "
            select id="assistant" name="assistant" {
                option value="" { (t.assistant_none) }
                @for one in speakers {
                    option value=(one.id) selected[speaker.is_some_and(|s| s.id == one.id)] {
                        (one.name) " (" (one.id) ")"
                    }
                }
            }
        }
        datalist id="assistant-variables" {
            @for used in speaker.map(Speaker::uses).unwrap_or_default() {
                option value=(used.name);
            }
        }
    }
}

/// The assistant's first message as the first rows would have it said, gaps marked.
fn spoken(speaker: &Speaker, rows: &[serde_json::Value], t: &Text) -> Markup {
    html! {
        h2 { ((t.assistant_says)(&speaker.name)) }
        ul class="spoken" {
            @for row in rows.iter().filter(|r| r["phone"].is_string()).take(3) {
                @let number = row["row"].as_u64().unwrap_or_default();
                @let message = speaker.first_message(number, |name| row["variables"][name].as_str());
                li {
                    strong { ((t.row_says)(number)) }
                    " "
                    @for piece in &message.pieces {
                        @match piece {
                            Piece::Said(words) => { (words) }
                            Piece::Gap(name) => {
                                mark class="gap" { ((t.missing_variable)(name)) }
                            }
                        }
                    }
                }
            }
        }
    }
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
    (region, callable): (&str, Markup),
    t: &Text,
) -> Markup {
    html! {
        fieldset {
            legend { (t.check_legend) }
            p {
                label for="campaign" { (t.campaign_label) }
                " "
                span class="hint" id="campaign-hint" { (t.campaign_hint) }
                br;
                (campaign_choice(&super::field(pairs, "campaign"), campaign, t))
            }
            p {
                label for="region" { (t.region_label) }
                " "
                span class="hint" id="region-hint" { (t.region_hint) }
                br;
                input id="region" name="region" value=(region) aria-describedby="region-hint";
            }
            (callable)
            p {
                label class="choice" for="allow_duplicates" {
                    input type="checkbox" id="allow_duplicates" name="allow_duplicates"
                        checked[super::field(pairs, "allow_duplicates") == "on"];
                    " " (t.allow_duplicates)
                }
            }
            p { button type="submit" data-busy=(t.checking) { (t.check_button) } }
        }
    }
}

/// The campaign: the account's list (with "from the column" first when a column names each
/// row's campaign, else "choose one", which the browser will not send empty), or a field to
/// type an id or a name where the list cannot be read.
fn campaign_choice(
    chosen: &str,
    (column, campaigns): (Option<&str>, &[(u64, String)]),
    t: &Text,
) -> Markup {
    if campaigns.is_empty() && column.is_none() {
        return html! {
            input id="campaign" name="campaign" required aria-describedby="campaign-hint"
                value=(chosen);
        };
    }
    let first = match column {
        Some(column) => (t.campaign_from_column)(column),
        None => t.campaign_choose.to_string(),
    };
    html! {
        select id="campaign" name="campaign" required[column.is_none()]
            aria-describedby="campaign-hint" {
            option value="" { (first) }
            @for (campaign_id, name) in campaigns {
                option value=(campaign_id) selected[chosen.trim() == campaign_id.to_string()] {
                    (name) " (" (campaign_id) ")"
                }
            }
        }
    }
}

fn back_link(id: &str, choice: &ReadingChoice, t: &Text) -> Markup {
    let query = choice.query();
    let href = match query.is_empty() {
        true => format!("/reading/{id}"),
        false => format!("/reading/{id}?{query}"),
    };
    html! { p class="next" { a href=(href) { (t.back_reading) } } }
}
