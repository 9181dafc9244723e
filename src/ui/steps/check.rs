//! Steps 4 to 6, Check, Send and Results: a run of the library's import started from the
//! Mapping page (a dry run) or from a finished check (the same options, sent), its page while
//! it goes and when it is done (the counts, the reasons with what to do, the rows page by page
//! from the run's SQLite report, filtered and searched on the server), the reports to
//! download, and the buttons to send, stop, and send the rest.

use std::sync::atomic::Ordering;

use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};
use serde::Deserialize;
use serde_json::Value;

use super::super::page::{self, Step, View};
use super::super::runs::{DOWNLOADS, EDITS, Finished, Kind, Run, State as RunState};
use super::super::text::Text;
use super::super::{App, download};
use super::ReadingChoice;
use super::mapping::headers_and_mapping;
use crate::pipeline::PushOptions;
use crate::progress::Display;
use crate::report::rows_db::{RowFilter, RowsDb, stored_issues};
use crate::report::{IssueCode, RowStatus, Summary};
use crate::row::count;

/// Rows a page of the table shows.
const PAGE_ROWS: usize = 50;

/// Starts the dry run of the whole sheet, with the Mapping page's form: how to read the sheet
/// (Reading's choices), each column's role, the campaign and the country of national numbers.
pub(in super::super) async fn start_check(
    State(app): State<App>,
    view: View,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let t = view.text();
    let label = app.service.label(t);
    let Some(chosen) = app.sources.get(&id) else {
        return page::unknown_source(&view, label, Step::Check, t.check_title);
    };
    let field = |name: &str| super::field(&pairs, name);
    let choice = ReadingChoice::from_pairs(&pairs);
    let mut opts = match choice.import_options(&chosen, t) {
        Ok(opts) => opts,
        Err(message) => {
            return failed_page(&view, label, &message, StatusCode::UNPROCESSABLE_ENTITY);
        }
    };
    // The mapping the Mapping page showed, country and consent columns included: `import`
    // without a mapping file only proposes those, but here the person has seen them in use.
    let mut mapping = match headers_and_mapping(&chosen, &choice, &pairs, t).await {
        Ok((_, mapping)) => mapping,
        Err(message) => {
            return failed_page(&view, label, &message, StatusCode::UNPROCESSABLE_ENTITY);
        }
    };
    // Who may be called: the countries, the kinds of number, consent, suppression lists.
    if let Err(message) = super::callable::apply(&app, &pairs, &mut mapping, &mut opts, t) {
        return failed_page(&view, label, &message, StatusCode::UNPROCESSABLE_ENTITY);
    }
    opts.mapping = Some(mapping);
    let text = |s: String| Some(s.trim().to_string()).filter(|s| !s.is_empty());
    opts.campaign = text(field("campaign"));
    opts.region = text(field("region"));
    opts.allow_duplicates = field("allow_duplicates") == "on";
    // The assistant chosen on the Mapping page: every row is checked against what it says.
    opts.assistant = text(field("assistant"));
    opts.dry_run = true;
    opts.offline = app.client.is_none();
    opts.row_limit = Some(app.max_rows);
    // The reports it makes speak the page's language.
    opts.lang = t.lang;
    // Week after week: rows whose lead is on the service already are shown as such, not as
    // ready, and the send's count and time cover only the rest.
    opts.preview_skips = app.client.is_some();
    opts.state_dir = Some(app.state_dir.clone());
    // And of the leads sent before, which rows changed (their leads are updated when sent) and
    // whose people now may not be called (stopped only when she ticks the box).
    opts.plan_sync = app.client.is_some().then(crate::sync::Rules::default);
    opts.display = Display::Hidden;
    // Every choice travels with the way back to the Mapping page, which shows them again.
    let query = super::choices::as_query(&super::choices::carried(&pairs));
    start(&app, &view, Kind::Check, &id, query, opts, (None, None))
}

/// Sends what a finished check checked, with the same options; from a send, sends its rest.
/// One check is one send to the person: while its send goes, or once it sent everything, the
/// button leads to that send instead of starting another.
pub(in super::super) async fn start_send(
    State(app): State<App>,
    view: View,
    Path(run_id): Path<String>,
    // The form's fields, read leniently: "Send the rest" posts none.
    body: axum::body::Bytes,
) -> Response {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
    let t = view.text();
    let label = app.service.label(t);
    let Some(run) = app.runs.get(&run_id) else {
        return page::unknown_source(&view, label, Step::Send, t.send_title);
    };
    if app.client.is_none() {
        return failed_page(&view, label, t.no_service_to_send, StatusCode::CONFLICT);
    }
    let check = match sent_check(&run_id, &run) {
        Ok(check) => check,
        Err(message) => return failed_page(&view, label, message(t), StatusCode::CONFLICT),
    };
    if let Some((send_id, send)) = app.runs.latest_send_of(&check.0)
        && !has_rest(&send)
    {
        return Redirect::to(&format!("/run/{send_id}")).into_response();
    }
    // With the changes made on the check's page since it finished.
    let mut opts = run.options();
    opts.dry_run = false;
    opts.offline = false;
    let mut push = PushOptions::for_browser(app.push.clone(), app.state_dir.clone());
    // The sheet stays the truth for the leads sent before: a changed row updates its lead.
    // Nothing leaves the campaign unless she ticked the box for it; nothing is ever removed
    // from here for a row that is not in this sheet.
    let stop_refused = super::field(&pairs, "stop_refused") == "on";
    push.sync = Some(crate::sync::Rules {
        on_suppressed: match stop_refused {
            true => crate::sync::OnSuppressed::Stop,
            false => crate::sync::OnSuppressed::Keep,
        },
        ..crate::sync::Rules::default()
    });
    opts.push = Some(push);
    // The check's plan is not the send's: the mapping's keys do not apply here.
    if let Some(mapping) = opts.mapping.as_mut() {
        (mapping.on_removed, mapping.on_suppressed) = (None, None);
    }
    let expected = match run.state() {
        RunState::Done(finished) => Some(finished.summary.rows),
        _ => None,
    };
    let sizes = (expected, Some(check));
    start(&app, &view, Kind::Send, &run.source, run.query.clone(), opts, sizes)
}

/// The check a send sends (its id and its count of leads ready), which must have finished
/// well: a check still running or failed has nothing settled to send.
fn sent_check(run_id: &str, run: &Run) -> Result<(String, u64), Said> {
    if let Some(check) = &run.check {
        return Ok(check.clone());
    }
    match (run.kind, run.state()) {
        (Kind::Check, RunState::Done(finished)) if !finished.interrupted => {
            Ok((run_id.to_string(), finished.summary.valid))
        }
        (Kind::Check, RunState::Running) => Err(|t| t.check_not_finished),
        _ => Err(|t| t.check_not_usable),
    }
}

/// Words of the catalog, chosen before the page's language is applied.
type Said = fn(&Text) -> &'static str;

/// Whether a send left rows to send: it stopped or failed before its end, or rows failed.
fn has_rest(send: &Run) -> bool {
    match send.state() {
        RunState::Running => false,
        RunState::Failed(_) => true,
        RunState::Done(finished) => {
            finished.interrupted || finished.summary.not_sent + finished.summary.failed > 0
        }
    }
}

fn start(
    app: &App,
    view: &View,
    kind: Kind,
    source: &str,
    query: String,
    opts: crate::pipeline::ImportOptions,
    sizes: (Option<u64>, Option<(String, u64)>),
) -> Response {
    match app.runs.start(kind, source, query, opts, app.client.clone(), sizes) {
        Ok(run_id) => Redirect::to(&format!("/run/{run_id}")).into_response(),
        Err(error) => {
            let label = app.service.label(view.text());
            failed_page(view, label, &error.to_string(), StatusCode::INTERNAL_SERVER_ERROR)
        }
    }
}

/// Asks a send to stop, as Ctrl-C does: requests in flight finish, the journal is kept.
pub(in super::super) async fn stop(State(app): State<App>, Path(run_id): Path<String>) -> Response {
    if let Some(run) = app.runs.get(&run_id) {
        run.stop.store(true, Ordering::Relaxed);
    }
    Redirect::to(&format!("/run/{run_id}")).into_response()
}

/// Which rows the table shows: the filter form's fields, and where the page starts.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(in super::super) struct RowQuery {
    status: String,
    reason: String,
    q: String,
    after: u64,
}

impl RowQuery {
    fn filter(&self) -> RowFilter {
        let text = |s: &str| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        RowFilter {
            status: status_of(&self.status),
            reason: text(&self.reason),
            search: text(&self.q),
            after: self.after,
        }
    }

    fn query_after(&self, after: u64) -> String {
        let after = after.to_string();
        page::query([
            ("status", self.status.as_str()),
            ("reason", self.reason.as_str()),
            ("q", self.q.trim()),
            ("after", if after == "0" { "" } else { after.as_str() }),
        ])
    }
}

/// A run's page: running, failed, or done with its counts, reasons and rows.
pub(in super::super) async fn show(
    State(app): State<App>,
    view: View,
    Path(run_id): Path<String>,
    Query(rows): Query<RowQuery>,
) -> Response {
    let t = view.text();
    let label = app.service.label(t);
    let Some(run) = app.runs.get(&run_id) else {
        return page::unknown_source(&view, label, Step::Check, t.check_title);
    };
    let state = run.state();
    let (step, title) = match (run.kind, &state) {
        (Kind::Check, _) => (Step::Check, t.check_title),
        (Kind::Send, RunState::Running) => (Step::Send, t.send_title),
        (Kind::Send, _) => (Step::Results, t.results_title),
    };
    let body = match &state {
        RunState::Running => running(&run_id, &run, t),
        // Sent from elsewhere at this moment: said in words, the journal's path for the IT.
        RunState::Failed(failure) if failure.busy => html! {
            h2 { (t.send_title) }
            p class="notice" role="status" { (t.sent_elsewhere) }
            details class="for-it" { summary { (t.for_it) } p { (failure.detail) } }
            (back(&run, t))
        },
        RunState::Failed(failure) => html! {
            h2 { (t.run_failed) }
            @match failure.too_many_rows {
                Some(limit) => (page::error(t, &(t.too_many_rows)(limit))),
                None => (page::error(t, &failure.detail)),
            }
            (back(&run, t))
        },
        RunState::Done(finished) => {
            let rows = tokio::task::spawn_blocking({
                let run = run.clone();
                let codes = finished.top_reasons.iter().map(|(code, _)| *code).collect();
                let editable =
                    run.kind == Kind::Check && app.runs.latest_send_of(&run_id).is_none();
                let render = RowsRender { run_id: run_id.clone(), codes, t, editable };
                move || render.table(&run, &rows)
            })
            .await
            .unwrap_or_else(|e| page::error(t, &e.to_string()));
            let campaign = match run.kind {
                Kind::Send => campaign_name(&app, &run).await,
                Kind::Check => None,
            };
            let offers = match run.kind {
                Kind::Check => super::fixes::offers(&app, &run).await,
                Kind::Send => Default::default(),
            };
            let shown = Shown { rows: &rows, campaign: campaign.as_deref(), offers: &offers };
            done(&app, &run_id, &run, finished, shown, t)
        }
    };
    page::page(&view, label, step, title, body, StatusCode::OK)
}

/// A report of the run: the HTML report opens in a tab, the others download, each named after
/// the person's file in her language, streamed from disk (memory does not grow with the size
/// of a report or the number of downloads at once).
pub(in super::super) async fn file(
    State(app): State<App>,
    view: View,
    Path((run_id, name)): Path<(String, String)>,
) -> Response {
    let Some(run) = app.runs.get(&run_id) else { return StatusCode::NOT_FOUND.into_response() };
    // Only the names the page links to: the path never comes from the request.
    let Some(name) = DOWNLOADS.iter().find(|n| **n == name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let Some(path) = run.report(name).await else { return StatusCode::NOT_FOUND.into_response() };
    let Ok(file) = tokio::fs::File::open(path).await else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let t = view.text();
    let stem = file_stem(&run.opts.location);
    let (content_type, kind, named) = match name.rsplit('.').next() {
        Some("html") => ("text/html; charset=utf-8", "inline", (t.report_file)(&stem)),
        Some("json") => ("application/json", "attachment", format!("{stem} – report.json")),
        _ => (XLSX, "attachment", (t.fix_file)(&stem)),
    };
    let headers = [
        (header::CONTENT_TYPE, content_type.to_string()),
        (header::CONTENT_DISPOSITION, download::disposition(kind, &named)),
    ];
    (headers, download::body(file)).into_response()
}

const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// The name of the person's file without its folder and extension, for the downloads' names.
pub(super) fn file_stem(location: &str) -> String {
    let last = location.rsplit(['/', '\\']).next().unwrap_or(location);
    let stem = last.rsplit_once('.').map_or(last, |(stem, _)| stem);
    match stem.trim() {
        "" => "leadsync".to_string(),
        stem => stem.to_string(),
    }
}

fn running(run_id: &str, run: &Run, t: &Text) -> Markup {
    html! {
        // Pushed from the server while the run goes (`live`); reloaded each second without script.
        div data-refresh="1000" data-live={ "/run/" (run_id) "/live" } { (live_status(run, t)) }
        p { a href={ "/run/" (run_id) } { (t.refresh) } }
        @if run.kind == Kind::Send {
            @if run.stop.load(Ordering::Relaxed) {
                p { (t.stopping) }
            } @else {
                form method="post" action={ "/run/" (run_id) "/stop" } {
                    button type="submit" { (t.stop_button) }
                }
            }
        }
    }
}

/// How a run under way stands: the rows so far, the share done and the time left, the rows by
/// status. The page shows it and the live stream pushes it again as it changes.
pub(super) fn live_status(run: &Run, t: &Text) -> Markup {
    let counts = RowsDb::open(&run.rows_db()).and_then(|db| db.counts()).unwrap_or_default();
    let so_far: u64 = counts.iter().map(|(_, n)| n).sum();
    let doing = match run.kind {
        Kind::Check => t.checking,
        Kind::Send => t.send_title,
    };
    let share = run.expected_rows.filter(|&n| n > 0).map(|total| {
        let elapsed = run.started.elapsed().as_secs_f64();
        let left = total.saturating_sub(so_far);
        let eta = match so_far {
            0 => None,
            done => Some((elapsed / done as f64 * left as f64).ceil() as u64),
        };
        (total, (t.progress_line)(so_far, total, eta, so_far as f64 / elapsed.max(0.001)))
    });
    // What the send is at in the terminal's words (the service's limit, retries waiting):
    // for the IT, folded away, so the page has one progress line in its own language.
    let line = run.opts.board.as_ref().map(|b| b.line()).filter(|l| !l.is_empty());
    html! {
        p role="status" { (doing) " " ((t.rows_so_far)(so_far)) }
        @if let Some((total, said)) = share {
            p {
                progress max=(total) value=(so_far) aria-label=(t.send_title) {}
                " " (said)
            }
        }
        @if let Some(line) = line {
            details class="for-it" { summary { (t.for_it) } p { (line) } }
        }
        @if !counts.is_empty() {
            dl class="counts" {
                @for (status, n) in &counts {
                    div data-status=(status) {
                        dt { ((t.status_name)(status)) }
                        dd { (count(t.lang, *n)) }
                    }
                }
            }
        }
    }
}

fn done(app: &App, run_id: &str, run: &Run, finished: &Finished, shown: Shown, t: &Text) -> Markup {
    html! {
        @if run.kind == Kind::Send {
            p class="lead" role="status" { (sentence(finished, shown.campaign, t)) }
        }
        @if finished.interrupted {
            // A pause, not a failure: nothing went wrong, and the rest goes out when she says so.
            p class="notice" role="status" { ((t.paused)(unsent(run, finished))) }
        }
        (counts(&finished.summary, t))
        (reasons(&finished.top_reasons, t))
        // A check that was sent is what was sent: its rows are no longer changed here.
        @if run.kind == Kind::Check && app.runs.latest_send_of(run_id).is_none() {
            (super::fixes::offer_box(run_id, shown.offers, t))
            (reason_actions(run_id, run, &finished.top_reasons, t))
        }
        (shown.rows)
        (downloads(run_id, run, t))
        @match run.kind {
            Kind::Check => { (send_form(app, run_id, finished, t)) }
            Kind::Send => {
                @if has_rest(run) && app.client.is_some() {
                    form method="post" action={ "/send/" (run_id) } {
                        button type="submit" { (t.send_rest) }
                    }
                }
                (for_it(run, finished, t))
            }
        }
        (back(run, t))
    }
}

/// What a finished page shows beside the run's own state.
struct Shown<'a> {
    rows: &'a Markup,
    /// The campaign every lead went into, by name, when one was chosen for all.
    campaign: Option<&'a str>,
    /// Fixes made on an earlier sheet that fit rows of this check.
    offers: &'a [crate::edits::Offer],
}

/// The results in one plain sentence: how many leads are now where, how many were skipped,
/// how many need fixing.
fn sentence(finished: &Finished, campaign: Option<&str>, t: &Text) -> String {
    let s = &finished.summary;
    // Counted as the HTML report counts them: a repeated row is one to fix.
    let skipped = s.skipped_existing + s.do_not_call + s.excluded + s.hidden;
    (t.results_sentence)(s.created, campaign, skipped, s.rejected + s.duplicates + s.failed)
}

/// The leads of a paused send not sent yet: of the ones its check found ready, those neither
/// created nor found on the service; at least the rows the send read and left.
fn unsent(run: &Run, finished: &Finished) -> u64 {
    let s = &finished.summary;
    let planned = run.check.as_ref().map_or(0, |(_, ready)| *ready);
    planned.saturating_sub(s.created + s.skipped_existing).max(s.not_sent + s.failed)
}

/// The command line's way to the same run, folded away: the journal and the edits file.
fn for_it(run: &Run, finished: &Finished, t: &Text) -> Markup {
    let Some(journal) = &finished.journal else { return html! {} };
    let journal = journal.display().to_string();
    let note = match run.edits().is_empty() {
        true => (t.journal_note)(&journal),
        false => {
            let edits = run.folder.join(EDITS).display().to_string();
            (t.journal_edits_note)(&journal, &edits)
        }
    };
    html! {
        details class="for-it" { summary { (t.for_it) } p { (note) } }
    }
}

/// The name of the campaign the run put every lead into, asked of the service.
async fn campaign_name(app: &App, run: &Run) -> Option<String> {
    let chosen = run.opts.campaign.as_deref()?;
    let book = app.client.as_ref()?.list_campaigns().await.ok()?;
    let book = crate::validate::CampaignBook::new(book.into_iter().map(|c| (c.id, c.name)));
    book.resolve(chosen).ok().map(|found| found.name)
}

fn counts(summary: &Summary, t: &Text) -> Markup {
    let figures = [
        ("rows", summary.rows),
        ("valid", summary.valid),
        ("created", summary.created),
        ("rejected", summary.rejected),
        ("duplicate", summary.duplicates),
        // Week after week: rows already on the service are no problem, and said apart from
        // the people not to be called.
        ("on_service", summary.skipped_existing),
        ("do_not_call", summary.do_not_call),
        ("failed", summary.failed),
        ("not_sent", summary.not_sent),
        ("excluded", summary.excluded),
        ("hidden", summary.hidden),
    ];
    html! {
        h2 { (t.counts) }
        dl class="counts" {
            @for (status, n) in figures.iter().filter(|(s, n)| *n > 0 || *s == "rows") {
                div data-status=(status) {
                    dt { ((t.status_name)(status)) }
                    dd { (count(t.lang, *n)) }
                }
            }
        }
    }
}

fn reasons(top: &[(IssueCode, u64)], t: &Text) -> Markup {
    if top.is_empty() {
        return html! {};
    }
    html! {
        h2 { (t.reasons_title) }
        div class="table-wrap" {
            table {
                (page::heads(&[t.reason, t.rows_count, t.what_to_do]))
                tbody {
                    @for (code, n) in top {
                        // The title in her words; the code, small, for people who script.
                        tr {
                            th scope="row" {
                                (code.title(t.lang)) " " small class="code" { (code.as_str()) }
                            }
                            td { (count(t.lang, *n)) }
                            td { (code.todo(t.lang)) }
                        }
                    }
                }
            }
        }
    }
}

fn downloads(run_id: &str, run: &Run, t: &Text) -> Markup {
    html! {
        h2 { (t.downloads) }
        ul class="downloads" {
            @for (name, label) in DOWNLOADS.iter().zip(t.download_names) {
                li {
                    // The HTML report is a page to read: it opens in a tab of its own.
                    @if name.ends_with(".html") {
                        a href={ "/run/" (run_id) "/files/" (name) } target="_blank"
                            rel="noopener" { (label) }
                    } @else {
                        a href={ "/run/" (run_id) "/files/" (name) } download { (label) }
                    }
                }
            }
            @if run.kind == Kind::Check && !run.edits().is_empty() {
                li {
                    a href={ "/run/" (run_id) "/corrected.xlsx" } download { (t.corrected_sheet) }
                }
            }
        }
    }
}

/// The changes so far and one action for every row of a reason, where one fits: exclude every
/// duplicate; set the country of every row whose country was not recognised (when the check
/// read countries from a column). Each checks the whole sheet again; so does "check again".
fn reason_actions(run_id: &str, run: &Run, top: &[(IssueCode, u64)], t: &Text) -> Markup {
    let forms: Vec<Markup> = top
        .iter()
        .filter_map(|(code, n)| match code {
            IssueCode::DuplicateInFile => {
                Some(reason_form(run_id, action("exclude"), &(t.exclude_all)(*n)))
            }
            IssueCode::UnknownCountry if super::edit::country_column(run).is_some() => {
                let fields = html! {
                    (action("country"))
                    label for="country" { (t.country_for_rows) }
                    " "
                    input id="country" name="country" size="4" required;
                    " "
                };
                Some(reason_form(run_id, fields, t.set_country))
            }
            _ => None,
        })
        .collect();
    let edits = run.edits();
    html! {
        @for form in &forms {
            (form)
        }
        @if !edits.is_empty() {
            p class="notice" { ((t.edits_so_far)(edits.cells.len(), edits.excluded.len())) }
            (reason_form(run_id, action("recheck"), t.recheck))
        }
    }
}

/// One action for every row of a reason: its fields and its button.
fn reason_form(run_id: &str, fields: Markup, button: &str) -> Markup {
    html! {
        form method="post" action={ "/run/" (run_id) "/reasons" } class="reason-action" {
            p { (fields) button type="submit" { (button) } }
        }
    }
}

/// The field that names a reason's action.
fn action(name: &str) -> Markup {
    html! { input type="hidden" name="action" value=(name); }
}

/// The confirmation: the service, how many leads, the rate and how long it takes.
fn send_form(app: &App, run_id: &str, finished: &Finished, t: &Text) -> Markup {
    html! {
        h2 { (t.send_legend) }
        (send_choice(app, run_id, finished, t))
    }
}

/// What a send will change of the leads sent before, and the box that asks before any of them
/// is stopped.
fn changes_part(plan: Option<&crate::sync::plan::Plan>, t: &Text) -> Markup {
    let Some(plan) = plan.filter(|p| p.changed + p.to_stop > 0) else { return html! {} };
    html! {
        p class="changes-plan" { ((t.changes_plan)(plan.changed, plan.to_stop, plan.unchanged)) }
        @if plan.to_stop > 0 {
            p {
                label {
                    input type="checkbox" name="stop_refused";
                    " " ((t.stop_refused)(plan.to_stop))
                }
            }
        }
    }
}

/// What the send part of a check's page offers: no service, the send made already, nothing
/// to send, or the button with how many leads, the rate and how long it takes.
fn send_choice(app: &App, run_id: &str, finished: &Finished, t: &Text) -> Markup {
    let summary = &finished.summary;
    let plan = finished.plan.as_ref();
    let changes = plan.map_or(0, |p| p.changed + p.to_stop);
    if app.client.is_none() {
        return html! { p { (t.no_service_to_send) } };
    }
    // Sent already (the way back after a send lands here): the send, or its rest.
    if let Some((send_id, send)) = app.runs.latest_send_of(run_id) {
        let said = match (send.state(), has_rest(&send)) {
            (RunState::Running, _) => t.send_under_way,
            (_, false) => t.sent_already,
            (_, true) => t.stopped,
        };
        return html! {
            p { (said) }
            p { a href={ "/run/" (send_id) } { (t.see_results) } }
            @if has_rest(&send) {
                form method="post" action={ "/send/" (send_id) } {
                    button type="submit" { (t.send_rest) }
                }
            }
        };
    }
    if summary.valid == 0 && changes == 0 {
        return html! { p { (t.nothing_to_send) } };
    }
    html! {
        form method="post" action={ "/send/" (run_id) } {
            @if summary.valid > 0 {
                p { ((t.send_plan)(summary.valid, app.service.label(t), app.push.rate)) }
            }
            (changes_part(plan, t))
            p {
                button type="submit" {
                    @if summary.valid > 0 { ((t.send_button)(summary.valid)) }
                    @else { ((t.update_button)(changes)) }
                }
            }
        }
    }
}

fn back(run: &Run, t: &Text) -> Markup {
    let href = match run.query.is_empty() {
        true => format!("/mapping/{}", run.source),
        false => format!("/mapping/{}?{}", run.source, run.query),
    };
    html! { p class="next" { a href=(href) { (t.back_mapping) } } }
}

fn failed_page(view: &View, label: &str, message: &str, status: StatusCode) -> Response {
    let t = view.text();
    let body = html! {
        h2 { (t.run_failed) }
        (page::error(t, message))
    };
    page::page(view, label, Step::Check, t.check_title, body, status)
}

/// The row table, read from the run's SQLite report on a blocking thread.
struct RowsRender {
    run_id: String,
    /// The reasons the run found, for the reason filter.
    codes: Vec<IssueCode>,
    t: &'static Text,
    /// Whether its rows may still be changed: a check not sent yet.
    editable: bool,
}

impl RowsRender {
    fn table(&self, run: &Run, query: &RowQuery) -> Markup {
        let t = self.t;
        let db = match RowsDb::open(&run.rows_db()) {
            Ok(db) => db,
            Err(error) => return page::error(t, &error.to_string()),
        };
        let page_rows = match db.page(&query.filter(), PAGE_ROWS) {
            Ok(rows) => rows,
            Err(error) => return page::error(t, &error.to_string()),
        };
        let edit = self.editable.then_some(self.run_id.as_str());
        let mut links = Vec::new();
        if query.after > 0 {
            links.push((query.query_after(0), t.first_rows_link));
        }
        if let Some(next) = page_rows.next_after() {
            links.push((query.query_after(next), t.next_rows));
        }
        html! {
            h2 id="rows" { (t.rows_title) }
            (self.filter_form(query))
            @if !page_rows.rows.is_empty() {
                (checked_rows(&page_rows.rows, t, edit))
            } @else if page_rows.searched_to.is_none() {
                p { (t.no_rows_match) }
            }
            @if let Some(row) = page_rows.searched_to {
                // A search the index cannot answer yet reads a share of the rows per page.
                p role="status" { ((t.searched_to)(row)) }
            }
            @for (q, label) in links {
                p { a href={ "/run/" (self.run_id) "?" (q) "#rows" } { (label) } }
            }
        }
    }

    fn filter_form(&self, query: &RowQuery) -> Markup {
        let t = self.t;
        let statuses =
            ["valid", "created", "rejected", "duplicate", "skipped", "failed", "not_sent"];
        html! {
            form method="get" action={ "/run/" (self.run_id) "#rows" } class="filter" {
                p {
                    label for="status" { (t.status) }
                    " "
                    select id="status" name="status" {
                        option value="" { (t.all_statuses) }
                        @for status in statuses {
                            option value=(status) selected[query.status == status] {
                                ((t.status_name)(status))
                            }
                        }
                    }
                    " "
                    label for="reason" { (t.reason) }
                    " "
                    select id="reason" name="reason" {
                        option value="" { (t.all_reasons) }
                        @for code in &self.codes {
                            option value=(code.as_str()) selected[query.reason == code.as_str()] {
                                (code.title(t.lang))
                            }
                        }
                    }
                    " "
                    label for="q" { (t.search) }
                    " "
                    input id="q" name="q" value=(query.q);
                    " "
                    button type="submit" { (t.show) }
                }
            }
        }
    }
}

/// The rows as a table; with `edit` (a finished check's id), each with a link to change it.
pub(super) fn checked_rows(rows: &[Value], t: &Text, edit: Option<&str>) -> Markup {
    html! {
        div class="table-wrap" role="region" aria-labelledby="rows" tabindex="0" {
            table {
                thead {
                    tr {
                        th scope="col" { (t.row) }
                        th scope="col" { (t.status) }
                        th scope="col" { (t.number) }
                        th scope="col" { (t.variables) }
                        th scope="col" { (t.problems) }
                        @if edit.is_some() {
                            th scope="col" { (t.edit_column) }
                        }
                    }
                }
                tbody {
                    @for row in rows {
                        (checked_row(row, t, edit))
                    }
                }
            }
        }
    }
}

/// One row of the table: its number, status, number called, variables and problems.
fn checked_row(row: &Value, t: &Text, edit: Option<&str>) -> Markup {
    let status = row["status"].as_str().unwrap_or_default();
    let variables: Vec<String> = row["variables"]
        .as_object()
        .map(|vars| {
            vars.iter().map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or_default())).collect()
        })
        .unwrap_or_default();
    let number = row["row"].as_u64().unwrap_or_default();
    html! {
        tr data-status=(status) {
            th scope="row" { (number) }
            td { ((t.status_name)(status)) }
            td { (numbers(row, t)) }
            td { (variables.join("; ")) }
            td { (problems(row, t)) }
            @if let Some(run_id) = edit {
                td { a href={ "/run/" (run_id) "/row/" (number) } { ((t.edit_link)(number)) } }
            }
        }
    }
}

/// The number called and, under it, the second numbers sent with the lead.
fn numbers(row: &Value, t: &Text) -> Markup {
    let contacts = row["secondary_contacts"].as_array().map(Vec::as_slice).unwrap_or_default();
    html! {
        (row["phone"].as_str().unwrap_or_default())
        @for contact in contacts {
            br;
            small { ((t.second_number)(contact["phone"].as_str().unwrap_or_default())) }
        }
    }
}

/// A row's problems in the page's language: each reason's title, the message with what was
/// read, and the code, small.
fn problems(row: &Value, t: &Text) -> Markup {
    let issues = ["errors", "warnings"].into_iter().flat_map(|list| stored_issues(row, list));
    html! {
        @for (i, issue) in issues.enumerate() {
            @if i > 0 {
                br;
            }
            strong { (issue.code.title(t.lang)) }
            ": " (issue.page_message(t.lang)) " "
            small class="code" { (issue.code.as_str()) }
        }
    }
}

/// The status a filter names, as the JSON report spells it.
fn status_of(name: &str) -> Option<RowStatus> {
    Some(match name {
        "valid" => RowStatus::Valid,
        "created" => RowStatus::Created,
        "rejected" => RowStatus::Rejected,
        "duplicate" => RowStatus::Duplicate,
        "skipped" => RowStatus::Skipped,
        "failed" => RowStatus::Failed,
        "not_sent" => RowStatus::NotSent,
        _ => return None,
    })
}
