//! Check, Send and Results over real HTTP against the sandbox: the page's figures must be the
//! library's (the run's own JSON report says what they are), the row table pages, filters and
//! searches on the server, and a send puts exactly the valid rows on the service.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Reply, TestUi, leads_csv};
use crate::support::{ALICE, TestSandbox};

/// Follows a run's page until it no longer refreshes itself (bounded), returning the last one.
pub(crate) fn finished(ui: &TestUi, cookie: &str, run: &str) -> Reply {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let page = ui.get(run, cookie);
        assert_eq!(page.status, 200, "{}", page.body);
        if !page.body.contains("data-refresh") {
            return page;
        }
        assert!(Instant::now() < deadline, "the run did not finish:\n{}", page.body);
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Uploads leads.csv, checks it with the Mapping page's `form`, and returns the finished
/// check's address.
pub(super) fn checked_leads(ui: &TestUi, cookie: &str, form: &[(&str, &str)]) -> String {
    let reading = ui.upload_ok(cookie, "leads.csv", &leads_csv());
    let id = reading.trim_start_matches("/reading/").to_string();
    let started = ui.send(ui.post(&format!("/check/{id}"), cookie).form(form));
    let check = redirected(&started, "/run/");
    finished(ui, cookie, &check);
    check
}

pub(crate) fn redirected(reply: &Reply, to: &str) -> String {
    assert_eq!(reply.status, 303, "{}", reply.body);
    let location = reply.header("location").to_string();
    assert!(location.starts_with(to), "{location}");
    location
}

/// The rows a page's table shows, by row number.
pub(super) fn rows_shown(body: &str) -> Vec<u64> {
    body.split("<tr data-status=")
        .skip(1)
        .filter_map(|tr| tr.split("<th scope=\"row\">").nth(1)?.split('<').next()?.parse().ok())
        .collect()
}

#[test]
fn a_sheet_is_checked_then_sent_to_the_sandbox_from_the_page() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| {
        config.client = Some(sandbox.client(ALICE));
        config.push.rate = 0.0;
    });
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let id = reading.trim_start_matches("/reading/").to_string();
    let mapping = ui.get(&format!("/mapping/{id}"), &cookie);
    assert!(mapping.body.contains(&format!("action=\"/check/{id}\"")), "{}", mapping.body);
    assert!(mapping.body.contains("From the column “Kampagne”"), "{}", mapping.body);
    assert!(mapping.body.contains(">Spring Outreach (10)</option>"), "the account's campaigns");

    let form = [("campaign", ""), ("region", "DE"), ("sheet", ""), ("header_row", "")];
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    let check = redirected(&started, "/run/");
    let page = finished(&ui, &cookie, &check);

    // The page says what the library's own report says.
    let report: Value =
        serde_json::from_str(&ui.get(&format!("{check}/files/report.json"), &cookie).body).unwrap();
    let summary = &report["summary"];
    let valid = summary["valid"].as_u64().unwrap();
    assert!(valid > 0 && summary["rejected"].as_u64().unwrap() > 0, "{summary}");
    for (status, key) in [("rows", "rows"), ("valid", "valid"), ("rejected", "rejected")] {
        let shown = format!("<div data-status=\"{status}\"><dt>");
        let at = page.body.find(&shown).unwrap_or_else(|| panic!("no {status} in {}", page.body));
        let dd = &page.body[at..];
        let figure = dd.split("<dd>").nth(1).unwrap().split('<').next().unwrap();
        assert_eq!(figure, summary[key].to_string(), "{status}");
    }
    assert!(
        page.body.contains("<small class=\"code\">invalid_phone</small>"),
        "reasons grouped: {}",
        page.body
    );
    // The English page says no command line either: no backticks, no flag.
    assert!(!page.body.contains('`') && !page.body.contains("--campaign"), "{}", page.body);
    let all: Vec<u64> =
        report["rows"].as_array().unwrap().iter().map(|r| r["row"].as_u64().unwrap()).collect();
    assert_eq!(rows_shown(&page.body), all, "every row, in sheet order, on the first page");

    // Filtered and searched on the server.
    let rejected = ui.get(&format!("{check}?status=rejected"), &cookie);
    let expected: Vec<u64> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "rejected")
        .map(|r| r["row"].as_u64().unwrap())
        .collect();
    assert_eq!(rows_shown(&rejected.body), expected);
    let reason = ui.get(&format!("{check}?reason=invalid_phone"), &cookie);
    assert!(rows_shown(&reason.body).iter().all(|row| expected.contains(row)));
    assert!(!rows_shown(&reason.body).is_empty());
    let found = ui.get(&format!("{check}?q=m%C3%BCller"), &cookie);
    assert_eq!(rows_shown(&found.body), [3], "a search in any case: {}", found.body);
    // Named after her file; the HTML report opens in a tab, the fix file downloads.
    for (name, how) in [
        ("report.html", "inline; filename=\"leads _ check report.html\""),
        ("fix.xlsx", "attachment; filename=\"leads _ fixes.xlsx\""),
    ] {
        let file = ui.get(&format!("{check}/files/{name}"), &cookie);
        assert_eq!(file.status, 200);
        assert!(file.header("content-disposition").starts_with(how), "{:?}", file.headers);
    }
    assert_eq!(ui.get(&format!("{check}/files/..%2Frows.sqlite"), &cookie).status, 404);

    // Nothing was sent by the check; the send sends exactly the valid rows.
    let leads = || sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    assert!(leads().is_empty(), "a check sends nothing");
    assert!(page.body.contains(&format!("Send {valid} leads")), "{}", page.body);
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let results = finished(&ui, &cookie, &send);
    assert!(results.body.contains("<title>Results"), "{}", results.body);
    let created = format!("<div data-status=\"created\"><dt>sent</dt><dd>{valid}</dd>");
    assert!(results.body.contains(&created), "{}", results.body);
    let on_service = leads();
    assert_eq!(on_service.len() as u64, valid);
    assert!(results.body.contains("journal"), "where the CLI resumes it: {}", results.body);
    // The campaign column named each row's: no one campaign to name.
    let said = format!("{valid} leads are now in their campaigns;");
    assert!(results.body.contains(&said), "one plain sentence first: {}", results.body);

    // Back on the check: it says the rows are sent, and sending again is the same send.
    let again = ui.get(&check, &cookie);
    assert!(again.body.contains("These rows are sent."), "{}", again.body);
    assert!(!again.body.contains(&format!("Send {valid} leads")), "{}", again.body);
    let twice = ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie));
    assert_eq!(redirected(&twice, "/run/"), send, "no second send of one check");
    assert_eq!(leads().len() as u64, valid);
    let listed = ui.get("/", &cookie).body;
    assert_eq!(listed.matches(">Sending · ").count(), 1, "one send listed: {listed}");
    ui.assert_token_never_sent();
}

/// A send stopped from the page midway, as Ctrl-C stops the CLI's, says so and offers to send
/// the rest; sending the rest puts every valid row on the service exactly once. Duplicates are
/// allowed (the page's checkbox), so the service would take a row sent twice and the count
/// would show it. While it sends, the page shows how far it is.
#[test]
fn a_send_stopped_from_the_page_sends_the_rest_exactly_once() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 4.0, 1);
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let id = reading.trim_start_matches("/reading/").to_string();
    let form = [("campaign", "10"), ("allow_duplicates", "on")];
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    let check = redirected(&started, "/run/");
    let page = finished(&ui, &cookie, &check);
    let valid: u64 = page
        .body
        .split("<div data-status=\"valid\"><dt>")
        .nth(1)
        .unwrap()
        .split("<dd>")
        .nth(1)
        .unwrap()
        .split('<')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(valid >= 8, "enough rows to stop midway: {valid}");

    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let deadline = Instant::now() + Duration::from_secs(30);
    let progress = loop {
        let page = ui.get(&send, &cookie);
        if page.body.contains("<div data-status=\"created\">") {
            break page;
        }
        assert!(Instant::now() < deadline, "{}", page.body);
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(progress.body.contains("<progress max="), "{}", progress.body);
    assert!(progress.body.contains("Stop sending"), "{}", progress.body);
    let stopped = ui.send(ui.post(&format!("{send}/stop"), &cookie));
    assert_eq!(stopped.status, 303);
    let results = finished(&ui, &cookie, &send);
    assert!(results.body.contains("Paused. "), "{}", results.body);
    assert!(!results.body.contains("class=\"error\""), "a pause is no error: {}", results.body);
    let leads = || sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    let first = leads().len() as u64;
    assert!(first > 0 && first < valid, "stopped midway: {first} of {valid}");
    let left = match valid - first {
        1 => "1 lead is not sent yet".to_string(),
        n => format!("{n} leads are not sent yet"),
    };
    assert!(results.body.contains(&left), "the true number left: {}", results.body);
    assert!(results.body.contains("Send the rest"), "{}", results.body);

    let rest = redirected(&ui.send(ui.post(&format!("/send{}", &send[4..]), &cookie)), "/run/");
    let again = finished(&ui, &cookie, &rest);
    assert!(!again.body.contains("Paused. "), "{}", again.body);
    let on_service = leads();
    assert_eq!(on_service.len() as u64, valid, "every valid row, once");
}

/// The assistant chosen on the Mapping page: its variables are offered as names for the
/// columns, the preview says its first message as the first rows would have it, and the check
/// holds every row to what it says (the library's missing_variable, and its refusal of a
/// variable nothing fills).
#[test]
fn the_assistant_chosen_on_the_mapping_page_checks_what_it_will_say() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| config.client = Some(sandbox.client(ALICE)));
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let id = reading.trim_start_matches("/reading/").to_string();
    let page = ui.get(&format!("/mapping/{id}?assistant=101"), &cookie);
    assert!(page.body.contains("<option value=\"101\" selected>Alice Outbound (101)</option>"));
    for offered in ["customer_name", "firma", "vertragsende"] {
        assert!(page.body.contains(&format!("<option value=\"{offered}\">")), "{offered}");
    }
    assert!(
        page.body.contains("Hallo Anna Schmidt, hier ist Lisa von Muster GmbH."),
        "the first message as Anna would hear it: {}",
        page.body
    );
    let form = super::steps::the_form(&page.body);
    assert!(form.contains("<select id=\"assistant\" name=\"assistant\">"), "sent with the check");
    assert!(
        form.contains("<option value=\"101\" selected>"),
        "the one chosen, sent with the check"
    );

    // Nothing fills `vertragsende`: the library refuses the run before any row.
    let check = |extra: &[(&str, &str)]| {
        let mut form = vec![("campaign", "10"), ("assistant", "101")];
        form.extend_from_slice(extra);
        let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
        finished(&ui, &cookie, &redirected(&started, "/run/"))
    };
    let refused = check(&[]);
    assert!(refused.body.contains("vertragsende"), "{}", refused.body);
    assert!(refused.body.contains("The run stopped with an error"), "{}", refused.body);
    // A failed check has nothing settled to send: its send is refused, and nothing starts.
    let form = [("campaign", "10"), ("assistant", "101")];
    let failed = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    let failed = redirected(&failed, "/run/");
    finished(&ui, &cookie, &failed);
    let send = ui.send(ui.post(&format!("/send{}", &failed[4..]), &cookie));
    assert_eq!(send.status, 409, "{}", send.body);
    assert!(send.body.contains("Only a check that finished can be sent"), "{}", send.body);

    // Notes sent as `vertragsende`: rows whose Notes are empty would open with a gap.
    let notes = super::steps::column_index(&page.body, "Notes");
    let (role, name) = (format!("role{notes}"), format!("name{notes}"));
    let checked = check(&[(&role, "variable"), (&name, "vertragsende")]);
    assert!(
        checked.body.contains("<small class=\"code\">missing_variable</small>"),
        "{}",
        checked.body
    );
}

/// A send's progress is pushed to its page as it goes: the live stream carries the status the
/// page renders (the progress bar, the rows so far by status) until it says `done`.
#[test]
fn a_sends_progress_is_pushed_until_it_is_done() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 6.0, 1);
    let cookie = ui.login();
    let check = checked_leads(&ui, &cookie, &[("campaign", "10")]);
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let page = ui.get(&send, &cookie);
    assert!(page.body.contains(&format!("data-live=\"{send}/live\"")), "{}", page.body);
    let live = ui.get(&format!("{send}/live"), &cookie);
    assert_eq!(live.header("content-type"), "text/event-stream");
    assert!(live.body.contains("data: <p role=\"status\">"), "{}", live.body);
    assert!(live.body.contains("<progress max="), "{}", live.body);
    assert!(live.body.contains("<div data-status=\"created\">"), "rows as they are sent");
    assert!(live.body.contains(" sent ("), "the send's own status line: {}", live.body);
    assert!(live.body.trim_end().ends_with("event: done\ndata: done"), "{}", live.body);
    ui.assert_token_never_sent();
    let after = ui.get(&format!("{check}/live"), &cookie);
    assert_eq!(after.body.trim_end(), "event: done\ndata: done", "a finished run is done at once");
}

/// What a send waits for, on its page: a service that answers 429 above 3 requests a second
/// slows it, and the pushed status says the limit it now keeps, in the terminal's words.
#[test]
fn a_throttled_send_says_on_its_page_what_it_waits_for() {
    let sandbox = TestSandbox::with_faults(leadsync::sandbox::Faults {
        rate_limit: Some(3),
        seed: Some(7),
        ..Default::default()
    });
    let ui = TestUi::sending_to(&sandbox, 0.0, 4);
    let cookie = ui.login();
    let check = checked_leads(&ui, &cookie, &[("campaign", "10"), ("allow_duplicates", "on")]);
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let live = ui.get(&format!("{send}/live"), &cookie);
    assert!(
        live.body.contains("limit ") || live.body.contains("retries waiting"),
        "the service's limit or the retries it waits for: {}",
        live.body
    );
    let results = finished(&ui, &cookie, &send);
    assert!(!results.body.contains("Paused. "), "{}", results.body);
}
