//! The changes a person makes on the Check page, over real HTTP against the sandbox: a cell
//! fixed and checked again by the library, a row excluded, one action for every row of a
//! reason; the send sends the rows as changed and the corrected sheet holds them, while the
//! uploaded file stays as it was.

use calamine::{Data, Reader, open_workbook_auto_from_rs};
use serde_json::Value;

use super::flow::{checked_leads, finished, redirected, rows_shown};
use super::{TestUi, leads_csv};
use crate::support::{ALICE, TestSandbox};

/// A count the page shows (`valid`, `rejected`, `excluded`, …), 0 when it shows none.
fn figure(body: &str, status: &str) -> u64 {
    let Some(dd) = body.split(&format!("<div data-status=\"{status}\"><dt>")).nth(1) else {
        return 0;
    };
    dd.split("<dd>").nth(1).unwrap().split('<').next().unwrap().parse().unwrap()
}

/// The one row a search finds.
fn row_found(ui: &TestUi, cookie: &str, check: &str, search: &str) -> u64 {
    let found = rows_shown(&ui.get(&format!("{check}?q={search}"), cookie).body);
    assert_eq!(found.len(), 1, "one row for {search}: {found:?}");
    found[0]
}

/// The form number of the cell that holds `value` on a row page.
pub(crate) fn cell_holding(body: &str, value: &str) -> String {
    let at = body.find(&format!("value=\"{value}\"")).unwrap_or_else(|| panic!("no {value}"));
    let before = &body[..at];
    let name = &before[before.rfind("name=\"cell").unwrap() + "name=\"".len()..];
    name[..name.find('"').unwrap()].to_string()
}

#[test]
fn a_fixed_cell_and_an_excluded_row_are_checked_again_and_sent_as_changed() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| {
        config.client = Some(sandbox.client(ALICE));
        config.push.rate = 0.0;
    });
    let cookie = ui.login();
    let check = checked_leads(&ui, &cookie, &[("campaign", ""), ("region", "DE")]);
    let before = ui.get(&check, &cookie);
    let (valid, rejected) = (figure(&before.body, "valid"), figure(&before.body, "rejected"));
    let thomas = row_found(&ui, &cookie, &check, "call%20me");
    let jan = row_found(&ui, &cookie, &check, "vries");
    assert!(before.body.contains(&format!("href=\"{check}/row/{thomas}\">Edit row {thomas}</a>")));

    // Thomas typed a word: his row page shows the cell as the file has it, to be changed.
    let row_page = ui.get(&format!("{check}/row/{thomas}"), &cookie);
    assert_eq!(row_page.status, 200, "{}", row_page.body);
    assert!(row_page.body.contains("need fixing"), "{}", row_page.body);
    let phone = cell_holding(&row_page.body, "0151 CALL ME");
    let saved = ui.send(
        ui.post(&format!("{check}/row/{thomas}"), &cookie)
            .form(&[(phone.as_str(), "0151 76543210")]),
    );
    let location = redirected(&saved, &format!("{check}/row/{thomas}"));
    let fixed = ui.get(&location, &cookie);
    assert!(fixed.body.contains("Saved and checked again."), "{}", fixed.body);
    assert!(fixed.body.contains("+4915176543210"), "the library's E.164: {}", fixed.body);
    assert!(fixed.body.contains("ready to send"), "{}", fixed.body);
    assert!(fixed.body.contains("<td>0151 CALL ME</td>"), "the file's cell is still shown");

    // Jan, ready to send, is left out.
    assert!(rows_shown(&ui.get(&format!("{check}?status=valid"), &cookie).body).contains(&jan));
    let excluded =
        ui.send(ui.post(&format!("{check}/row/{jan}/exclude"), &cookie).form(&[("exclude", "1")]));
    redirected(&excluded, &format!("{check}/row/{jan}"));
    let jan_page = ui.get(&format!("{check}/row/{jan}"), &cookie);
    assert!(jan_page.body.contains("This row is excluded"), "{}", jan_page.body);
    assert!(jan_page.body.contains("Include this row again"), "{}", jan_page.body);

    // The counts and the table are the library's verdicts on the changed rows.
    let after = ui.get(&check, &cookie);
    assert_eq!(figure(&after.body, "valid"), valid, "Thomas in, Jan out");
    assert_eq!(figure(&after.body, "rejected"), rejected - 1);
    assert_eq!(figure(&after.body, "excluded"), 1);
    assert!(after.body.contains("1 row edited, 1 excluded"), "{}", after.body);
    let valid_rows = rows_shown(&ui.get(&format!("{check}?status=valid"), &cookie).body);
    assert!(valid_rows.contains(&thomas) && !valid_rows.contains(&jan), "{valid_rows:?}");
    let excluded_rows = rows_shown(&ui.get(&format!("{check}?reason=excluded"), &cookie).body);
    assert_eq!(excluded_rows, [jan]);

    // The reports made now are made with the changes.
    let report: Value =
        serde_json::from_str(&ui.get(&format!("{check}/files/report.json"), &cookie).body).unwrap();
    assert_eq!(report["summary"]["excluded"], 1, "{}", report["summary"]);
    assert_eq!(report["summary"]["valid"].as_u64().unwrap(), valid);

    // The corrected sheet: Thomas's new number, no Jan; the uploaded file is untouched.
    let corrected = ui.get(&format!("{check}/corrected.xlsx"), &cookie);
    assert_eq!(corrected.status, 200);
    let bytes = ui
        .runtime
        .block_on(async {
            ui.http
                .get(ui.url(&format!("{check}/corrected.xlsx")))
                .header(reqwest::header::COOKIE, &cookie)
                .send()
                .await
                .unwrap()
                .bytes()
                .await
        })
        .unwrap();
    let mut book = open_workbook_auto_from_rs(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let sheet = book.worksheet_range_at(0).unwrap().unwrap();
    let cells: Vec<String> = sheet.rows().flatten().map(Data::to_string).collect();
    assert!(cells.contains(&"0151 76543210".to_string()), "{cells:?}");
    assert!(!cells.iter().any(|c| c.contains("de Vries")), "the excluded row is left out");
    assert!(!cells.contains(&"0151 CALL ME".to_string()));
    let uploads = super::files_under(&ui.uploads());
    let original = std::fs::read_to_string(&uploads[0]).unwrap();
    assert!(original.contains("0151 CALL ME") && original.contains("de Vries"), "the file stays");

    // The send sends the rows as changed.
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let results = finished(&ui, &cookie, &send);
    assert_eq!(figure(&results.body, "created"), valid, "{}", results.body);
    let leads = sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    let phones: Vec<&str> = leads.iter().map(|l| l.phone_number.as_str()).collect();
    assert_eq!(leads.len() as u64, valid);
    assert!(phones.contains(&"+4915176543210"), "{phones:?}");
    assert!(!phones.contains(&"+31612345678"), "Jan is not sent: {phones:?}");
    assert!(
        results.body.contains("--edits"),
        "the CLI resumes it with the edits: {}",
        results.body
    );
    ui.assert_token_never_sent();
}

#[test]
fn every_duplicate_is_excluded_with_one_action_and_the_sheet_checked_again() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| config.client = Some(sandbox.client(ALICE)));
    let cookie = ui.login();
    let check = checked_leads(&ui, &cookie, &[("campaign", ""), ("region", "DE")]);
    let page = ui.get(&check, &cookie);
    let duplicates = figure(&page.body, "duplicate");
    assert!(duplicates > 0, "{}", page.body);
    let action = match duplicates {
        1 => "Exclude the duplicate row".to_string(),
        n => format!("Exclude all {n} duplicate rows"),
    };
    assert!(page.body.contains(&action), "{}", page.body);
    let acted =
        ui.send(ui.post(&format!("{check}/reasons"), &cookie).form(&[("action", "exclude")]));
    let again = redirected(&acted, "/run/");
    assert_ne!(again, check, "a new check of the whole sheet");
    let page = finished(&ui, &cookie, &again);
    assert_eq!(figure(&page.body, "duplicate"), 0, "{}", page.body);
    assert_eq!(figure(&page.body, "excluded"), duplicates);
    assert!(page.body.contains("Check the whole sheet again with my changes"), "{}", page.body);
}

#[test]
fn the_country_of_every_row_whose_country_was_not_recognised_is_set_at_once() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| config.client = Some(sandbox.client(ALICE)));
    let cookie = ui.login();
    let sheet = "Name,Telefon,Land\nAnna,030 1234567,Atlantis\nBen,0151 23456789,Deutschland\n\
                 Cem,0171 2345678,Atlantis\n";
    let reading = ui.upload_ok(&cookie, "laender.csv", sheet.as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let mapping = ui.get(&format!("/mapping/{id}"), &cookie);
    let land = super::steps::column_index(&mapping.body, "Land");
    let role = format!("role{land}");
    let form = [("campaign", "10"), (role.as_str(), "country")];
    let check =
        redirected(&ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form)), "/run/");
    let page = finished(&ui, &cookie, &check);
    assert!(page.body.contains("<small class=\"code\">unknown_country</small>"), "{}", page.body);
    assert_eq!(figure(&page.body, "rejected"), 2, "{}", page.body);
    assert!(page.body.contains("Set the country of these rows"), "{}", page.body);
    // What is typed must be a country: no text of any length goes into every row.
    for typed in ["Atlantis", &"x".repeat(5_000)] {
        let form = [("action", "country"), ("country", typed)];
        let refused = ui.send(ui.post(&format!("{check}/reasons"), &cookie).form(&form));
        assert_eq!(refused.status, 422, "{}", refused.body);
        assert!(refused.body.contains("is no country"), "{}", refused.body);
        assert!(refused.body.len() < 20_000, "the refusal does not repeat the text");
    }
    let form = [("action", "country"), ("country", "DE")];
    let again =
        redirected(&ui.send(ui.post(&format!("{check}/reasons"), &cookie).form(&form)), "/run/");
    let page = finished(&ui, &cookie, &again);
    assert_eq!(figure(&page.body, "rejected"), 0, "{}", page.body);
    assert_eq!(figure(&page.body, "valid"), 3, "{}", page.body);
}

#[test]
fn rows_of_a_send_or_of_an_unknown_run_cannot_be_changed() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 4);
    let cookie = ui.login();
    assert_eq!(ui.get("/run/nope/row/2", &cookie).status, 404);
    let refused = ui.send(ui.post("/run/nope/row/2/exclude", &cookie).form(&[("exclude", "1")]));
    assert_eq!(refused.status, 404);
    let check = checked_leads(&ui, &cookie, &[("campaign", "10"), ("region", "DE")]);
    assert_eq!(ui.get(&format!("{check}/row/99999"), &cookie).status, 404, "past the end");
    assert_eq!(ui.get(&format!("{check}/row/2"), &cookie).status, 200, "a check's row is");

    // A send's rows are what was sent: they are not changed afterwards.
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    finished(&ui, &cookie, &send);
    assert_eq!(ui.get(&format!("{send}/row/2"), &cookie).status, 409);
    let excluded =
        ui.send(ui.post(&format!("{send}/row/2/exclude"), &cookie).form(&[("exclude", "1")]));
    assert_eq!(excluded.status, 409, "{}", excluded.body);
    let acted =
        ui.send(ui.post(&format!("{send}/reasons"), &cookie).form(&[("action", "exclude")]));
    assert_eq!(acted.status, 409, "{}", acted.body);
}

/// Who may be called, chosen on the Mapping page: a suppression list uploaded there, the
/// countries numbers may belong to, the kinds of number never called. The check holds every
/// row to them through the library's guards.
#[test]
fn a_suppression_list_countries_and_blocked_kinds_chosen_on_the_mapping_page_hold() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| config.client = Some(sandbox.client(ALICE)));
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let id = reading.trim_start_matches("/reading/").to_string();
    let mapping = ui.get(&format!("/mapping/{id}"), &cookie);
    assert!(
        mapping.body.contains("value=\"premium_rate\" checked>"),
        "the default: {}",
        mapping.body
    );
    assert!(mapping.body.contains("<label for=\"suppress-file\">"), "{}", mapping.body);

    // The page's one form, sent by the list's button: the choices beside the file come back.
    let (content_type, body) = super::multipart_form(
        &[("region", "DE"), ("save_name", "")],
        "file",
        "do-not-call.csv",
        b"+4915123456789\n",
    );
    let added = ui.send(
        ui.post(&format!("/mapping/{id}/suppress"), &cookie)
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body),
    );
    let back = redirected(&added, &format!("/mapping/{id}?region=DE&suppress="));
    let list = back.rsplit("suppress=").next().unwrap().to_string();
    let mapping = ui.get(&back, &cookie);
    assert!(mapping.body.contains("Suppression list in use: do-not-call.csv"), "{}", mapping.body);

    let form = [
        ("campaign", "10"),
        ("region", "DE"),
        ("countries", "DE"),
        ("block_shown", "1"),
        ("block", "fixed_line"),
        ("suppress", list.as_str()),
    ];
    let check =
        redirected(&ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form)), "/run/");
    let page = finished(&ui, &cookie, &check);
    for reason in ["suppressed", "foreign_number", "blocked_number_type"] {
        assert!(
            page.body.contains(&format!("<small class=\"code\">{reason}</small>")),
            "{reason}: {}",
            page.body
        );
    }
    let anna = rows_shown(&ui.get(&format!("{check}?reason=suppressed"), &cookie).body);
    assert_eq!(anna, [2, 14], "Anna's number, which Paul shares, is on the list");
    let blocked = ui.get(&format!("{check}?reason=blocked_number_type"), &cookie);
    assert!(blocked.body.contains("+49301234567"), "Jürgen's Berlin line: {}", blocked.body);

    // A list this server does not know is refused, not ignored.
    let form = [("campaign", "10"), ("suppress", "0000000000000000")];
    let refused = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
    assert_eq!(refused.status, 422, "{}", refused.body);
}

/// A mapping file loaded on the Mapping page: the library parses it and the page shows its
/// roles, country, countries in scope and blocked kinds, each still changeable; a file that is
/// not a mapping is refused with the library's reason.
#[test]
fn a_mapping_file_loaded_on_the_mapping_page_sets_its_roles() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "leads.csv", &leads_csv());
    let id = reading.trim_start_matches("/reading/").to_string();
    let mapping = "phone = \"Telefon\"\nregion = \"AT\"\ncountries = [\"AT\", \"DE\"]\n\
                   block_number_types = [\"premium_rate\", \"toll_free\"]\n\
                   [variables]\nfirma = \"Company\"\n";
    let load = |bytes: &[u8]| {
        let form = [("region", "CH"), ("campaign", "10")];
        let (content_type, body) = super::multipart_form(&form, "mapping_file", "m.toml", bytes);
        ui.send(
            ui.post(&format!("/mapping/{id}/load"), &cookie)
                .header(reqwest::header::CONTENT_TYPE, content_type)
                .body(body),
        )
    };
    let loaded = redirected(&load(mapping.as_bytes()), &format!("/mapping/{id}?"));
    let page = ui.get(&loaded, &cookie);
    assert_eq!(super::steps::role_of(&page.body, "Company"), "variable firma", "{}", page.body);
    assert_eq!(super::steps::role_of(&page.body, "Telefon"), "phone");
    assert!(page.body.contains("name=\"region\" value=\"AT\""), "the file's: {}", page.body);
    assert!(loaded.contains("campaign=10"), "the form's, which the file leaves open: {loaded}");
    assert!(page.body.contains("name=\"countries\" value=\"AT, DE\""), "{}", page.body);
    assert!(page.body.contains("value=\"toll_free\" checked>"), "{}", page.body);

    let refused = load(b"phone = [\"Telefon\"\n");
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert!(refused.body.contains("not a mapping file leadsync can use"), "{}", refused.body);
}

/// Edits are part of the run: a send with a fixed cell, stopped midway, sends the rest with
/// the same edits exactly once (duplicates allowed, so a row sent twice would be counted); a
/// change to the check's rows after its send is refused, so the rest cannot go without it.
#[test]
fn a_send_with_edits_resumes_only_with_the_same_edits() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 4.0, 1);
    let cookie = ui.login();
    let check = checked_leads(
        &ui,
        &cookie,
        &[("campaign", "10"), ("region", "DE"), ("allow_duplicates", "on")],
    );
    let thomas = row_found(&ui, &cookie, &check, "call%20me");
    let row_page = ui.get(&format!("{check}/row/{thomas}"), &cookie);
    let phone = cell_holding(&row_page.body, "0151 CALL ME");
    let fix = [(phone.as_str(), "0151 76543210")];
    ui.send(ui.post(&format!("{check}/row/{thomas}"), &cookie).form(&fix));
    let valid = figure(&ui.get(&check, &cookie).body, "valid");

    let leads = || sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while leads().is_empty() {
        assert!(std::time::Instant::now() < deadline, "nothing was sent");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    ui.send(ui.post(&format!("{send}/stop"), &cookie));
    let stopped = finished(&ui, &cookie, &send);
    assert!(stopped.body.contains("Paused. "), "{}", stopped.body);
    let first = leads().len() as u64;
    assert!(first < valid, "stopped midway: {first} of {valid}");

    // Once sent, the check's rows are what was sent: a change now is refused in words (the rest
    // goes with the changes the send started with), and nothing is sent by asking.
    let jan = row_found(&ui, &cookie, &check, "vries");
    let exclude = ui.post(&format!("{check}/row/{jan}/exclude"), &cookie).form(&[("exclude", "1")]);
    let refused = ui.send(exclude);
    assert_eq!(refused.status, 409, "{}", refused.body);
    assert!(refused.body.contains("This check was sent"), "{}", refused.body);
    assert_eq!(leads().len() as u64, first, "nothing sent by a refused change");

    // The rest, from the check's own button, with the same edits: once.
    let rest = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie)), "/run/");
    let done = finished(&ui, &cookie, &rest);
    assert!(!done.body.contains("Paused. "), "{}", done.body);
    let on_service = leads();
    assert_eq!(on_service.len() as u64, valid, "every row once, none twice");
    assert!(on_service.iter().any(|l| l.phone_number == "+4915176543210"), "as edited");
}
