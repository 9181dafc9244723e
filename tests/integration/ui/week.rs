//! Week after week in the browser, against the sandbox over real HTTP: the check asks the
//! service what is there already and says so, the send covers only the rest, and a number
//! put on the account's own do-not-call list stays out of every later check, send and CLI
//! `import`. Duplicates are allowed where a row sent twice must be seen (the service would
//! otherwise refuse the repeat on its own).

use super::TestUi;
use super::flow::{finished, redirected};
use crate::support::{ALICE, TestSandbox};

/// A sheet of `n` people, each with a number of their own.
fn people(n: usize) -> String {
    let mut csv = String::from("Name,Telefon\n");
    for i in 0..n {
        csv.push_str(&format!("Person {i},+4915110000{i:03}\n"));
    }
    csv
}

/// A figure of the check's counts (`data-status` is the key), 0 when it is not shown.
fn figure(page: &str, status: &str) -> u64 {
    let start = format!("<div data-status=\"{status}\"><dt>");
    page.split(&start)
        .nth(1)
        .and_then(|d| d.split("<dd>").nth(1)?.split('<').next()?.parse().ok())
        .unwrap_or(0)
}

/// Uploads `csv`, checks it into campaign 10 with `extra` form fields, and returns the
/// finished check's address and page.
fn checked(ui: &TestUi, cookie: &str, csv: &str, extra: &[(&str, &str)]) -> (String, String) {
    let reading = ui.upload_ok(cookie, "export.csv", csv.as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let mut form = vec![("campaign", "10")];
    form.extend_from_slice(extra);
    let started = ui.send(ui.post(&format!("/check/{id}"), cookie).form(&form));
    let check = redirected(&started, "/run/");
    let page = finished(ui, cookie, &check).body;
    (check, page)
}

fn send(ui: &TestUi, cookie: &str, check: &str) -> String {
    let send = redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), cookie)), "/run/");
    finished(ui, cookie, &send).body
}

/// Week 1 sends ten people but one, whom the person put on the never-call list; week 2 the
/// same export with 20 more people: the check shows the nine as already on the service and
/// the one as not to be called, the send covers the 20 new ones, and the service holds 29
/// leads, each once, never the one. A CLI `import` of the same file afterwards sends nothing
/// and names the one as suppressed.
#[test]
fn week_two_sends_only_what_is_new_and_never_the_number_left_out_for_good() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 2);
    let cookie = ui.login();
    let leads = || sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();

    // Duplicates allowed: a row sent again would be a second lead, and counted.
    let allow = [("allow_duplicates", "on")];
    let (check, page) = checked(&ui, &cookie, &people(10), &allow);
    assert_eq!(figure(&page, "valid"), 10, "{page}");
    let row = ui.get(&format!("{check}/row/4"), &cookie);
    assert!(row.body.contains("Never call this number"), "{}", row.body);
    let never = ui.send(ui.post(&format!("{check}/row/4/never"), &cookie));
    redirected(&never, &format!("{check}/row/4?saved=1"));
    let list = ui.get("/never-call", &cookie);
    assert!(list.body.contains("+4915110000002") && list.body.contains("row 4"), "{}", list.body);
    let sent = send(&ui, &cookie, &check);
    assert_eq!(leads().len(), 9, "{sent}");

    let (check, page) = checked(&ui, &cookie, &people(30), &allow);
    assert_eq!(figure(&page, "on_service"), 9, "already on the service: {page}");
    assert_eq!(figure(&page, "do_not_call"), 1, "the one left out for good: {page}");
    assert_eq!(figure(&page, "valid"), 20, "only the new ones are ready: {page}");
    assert!(page.contains("already on the service"), "{page}");
    assert!(page.contains("Send 20 leads") || page.contains("20 leads"), "{page}");
    assert!(page.contains("Send 20 leads"), "the button counts only the new ones: {page}");
    send(&ui, &cookie, &check);
    let on_service: Vec<String> = leads().into_iter().map(|l| l.phone_number).collect();
    assert_eq!(on_service.len(), 29, "each once: {on_service:?}");
    assert!(!on_service.contains(&"+4915110000002".to_string()), "never the one");

    // The command line, with the same state folder, holds the row to the same list.
    let dir = tempfile::tempdir().unwrap();
    let file = crate::support::write(dir.path(), "export.csv", &people(30));
    let report = dir.path().join("r.json");
    let (_, _) = sandbox
        .cli(ALICE)
        .env("LEADSYNC_STATE_DIR", ui.dir.path().join("state"))
        .args(["import", file.to_str().unwrap(), "--campaign", "10", "--skip-existing"])
        .args(["--report", report.to_str().unwrap()])
        .expect_code(0);
    let report = crate::support::json(&std::fs::read_to_string(&report).unwrap());
    let row = report["rows"].as_array().unwrap().iter().find(|r| r["row"] == 4).unwrap();
    assert_eq!(row["errors"][0]["code"], "suppressed", "{row}");
    assert_eq!(leads().len(), 29, "nothing sent twice, the one never");
}

/// The list's page: a number typed in is read as a sheet's number is and added, shown, and
/// taken off again; what is not a number is refused in words.
#[test]
fn the_never_call_list_can_be_seen_and_changed() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 1);
    let cookie = ui.login();
    let page = ui.get("/never-call", &cookie);
    assert!(page.body.contains("No number is on the list yet."), "{}", page.body);
    let added = ui.send(ui.post("/never-call/add", &cookie).form(&[("number", "0151 2345 6789")]));
    redirected(&added, "/never-call");
    let page = ui.get("/never-call", &cookie);
    assert!(page.body.contains("+4915123456789"), "{}", page.body);
    let german = ui.get("/never-call?lang=de", &cookie).body;
    let today = german.split("<td>").nth(2).unwrap_or_default();
    assert!(today.as_bytes().get(2) == Some(&b'.'), "a date as German writes it: {german}");
    let refused = ui.send(ui.post("/never-call/add", &cookie).form(&[("number", "ja")]));
    assert_eq!(refused.status, 422);
    assert!(refused.body.contains("is not a phone number"), "{}", refused.body);
    let removed =
        ui.send(ui.post("/never-call/remove", &cookie).form(&[("number", "+4915123456789")]));
    redirected(&removed, "/never-call");
    let page = ui.get("/never-call", &cookie);
    assert!(!page.body.contains("+4915123456789"), "{}", page.body);
    ui.assert_token_never_sent();
}

/// What she did: on the Mapping page she changed a column's role to consent and pressed the
/// check at once. The form sends every choice with that button, so the check holds every row
/// to the consent column: nobody who said "nein" is ready to call.
#[test]
fn a_role_changed_and_checked_at_once_is_the_role_used() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 1);
    let cookie = ui.login();
    let csv = "Name,Telefon,Anruf erlaubt\nAnna,+4915110000001,ja\nBert,+4915110000002,nein\n\
               Cleo,+4915110000003,\nDirk,+4915110000004,ja\n";
    let reading = ui.upload_ok(&cookie, "export.csv", csv.as_bytes());
    let mapping = reading.replace("/reading/", "/mapping/");
    let page = ui.get(&mapping, &cookie);
    let form = super::steps::the_form(&page.body);
    let consent = super::steps::column_index(&page.body, "Anruf erlaubt");
    // Every field of the page's one form, as the browser sends it, with one select changed.
    let mut fields = form_fields(form);
    for (name, value) in fields.iter_mut() {
        if *name == format!("role{consent}") {
            *value = "consent".to_string();
        }
    }
    fields.retain(|(name, _)| name != "campaign");
    fields.push(("campaign".to_string(), "10".to_string()));
    let id = mapping.trim_start_matches("/mapping/");
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&fields));
    let check = redirected(&started, "/run/");
    let page = finished(&ui, &cookie, &check).body;
    assert_eq!(figure(&page, "valid"), 2, "Anna and Dirk only: {page}");
    assert_eq!(figure(&page, "do_not_call"), 2, "Bert's nein, Cleo's nothing: {page}");
}

/// The fields a browser sends for a form: each input's, select's (its selected option, else
/// its first) and checked box's name and value, in order. Enough of HTML for this page.
fn form_fields(form: &str) -> Vec<(String, String)> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let value = tag.split(&format!(" {name}=\"")).nth(1)?;
        Some(html_unescape(&value[..value.find('"')?]))
    };
    let mut out = Vec::new();
    let mut rest = form;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        if tag.starts_with("<input") {
            let kind = attr(tag, "type").unwrap_or_default();
            let keep = match kind.as_str() {
                "file" | "submit" => false,
                "checkbox" => tag.contains(" checked"),
                _ => true,
            };
            if let (true, Some(name)) = (keep, attr(tag, "name")) {
                let value = attr(tag, "value").unwrap_or_else(|| "on".to_string());
                out.push((name, value));
            }
        } else if tag.starts_with("<select")
            && let Some(name) = attr(tag, "name")
        {
            let body = &rest[..rest.find("</select>").unwrap()];
            let options: Vec<&str> = body.split("<option").skip(1).collect();
            let chosen = options.iter().find(|o| o.contains(" selected")).or(options.first());
            let value = chosen.and_then(|o| attr(o, "value")).unwrap_or_default();
            out.push((name, value));
        }
        rest = &rest[1..];
    }
    out
}

fn html_unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A second tab sends the same sheet while the first still sends it: the second is refused in
/// words (the sheet is being sent elsewhere, nothing twice), and the service holds each row
/// once. Duplicates are allowed, so a row sent by both would be counted twice.
#[test]
fn a_second_tab_sending_the_same_sheet_is_told_so_in_words() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 2.0, 1);
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "export.csv", people(8).as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let form = [("campaign", "10"), ("allow_duplicates", "on")];
    let check = |ui: &TestUi| {
        let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&form));
        let check = redirected(&started, "/run/");
        finished(ui, &cookie, &check);
        check
    };
    let (first, second) = (check(&ui), check(&ui));
    let sending = redirected(&ui.send(ui.post(&format!("/send{}", &first[4..]), &cookie)), "/run/");
    // The first holds the sheet once it has sent a lead: only then the second tab sends.
    let leads = || sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while leads().is_empty() {
        assert!(std::time::Instant::now() < deadline, "the first send never began");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let other = redirected(&ui.send(ui.post(&format!("/send{}", &second[4..]), &cookie)), "/run/");
    let refused = finished(&ui, &cookie, &other).body;
    assert!(refused.contains("is being sent right now from another tab"), "{refused}");
    assert!(!refused.contains("class=\"error\""), "no error, a fact: {refused}");
    finished(&ui, &cookie, &sending);
    assert_eq!(leads().len(), 8, "each row once");
}

/// A fix made in week 1 is offered again when the same wrong cell comes back in week 2 (in
/// another row): one press fixes it the same way, and the check takes the fixed number.
#[test]
fn a_fix_made_last_week_is_offered_for_the_same_wrong_cell() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 1);
    let cookie = ui.login();
    let week1 = "Name,Telefon\nAnna,+4915110000001\nSophie,0151 CALL ME\n";
    let (check, page) = checked(&ui, &cookie, week1, &[]);
    assert_eq!(figure(&page, "rejected"), 1, "{page}");
    assert!(!page.contains("wrong as before"), "nothing remembered yet: {page}");
    let fix = [("cell1", "0151 76543210")];
    redirected(&ui.send(ui.post(&format!("{check}/row/3"), &cookie).form(&fix)), &check);

    let week2 = "Name,Telefon\nBen,+4915110000002\nCarl,+4915110000003\nSophie,0151 CALL ME\n";
    let (check, page) = checked(&ui, &cookie, week2, &[]);
    assert!(page.contains("1 cell of this sheet is wrong as before"), "{page}");
    assert!(page.contains("“0151 CALL ME” in Telefon became “0151 76543210”"), "{page}");
    let form = [("action", "remembered")];
    let again =
        redirected(&ui.send(ui.post(&format!("{check}/reasons"), &cookie).form(&form)), "/run/");
    let page = finished(&ui, &cookie, &again).body;
    assert_eq!(figure(&page, "valid"), 3, "Sophie's number as fixed last week: {page}");
    assert!(page.contains("+4915176543210"), "{page}");
}

/// A check takes a sheet up to its row limit and refuses a bigger one in words before it stores
/// a row; runs and uploads past their age are deleted at start; the first page says how much
/// space the runs take, and a finished run can be deleted with its folder.
#[test]
fn runs_are_bounded_kept_for_a_while_and_deleted_on_request() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::with(|config| {
        config.client = Some(sandbox.client(ALICE));
        config.max_rows = 5;
        config.keep_runs = std::time::Duration::from_secs(30 * 24 * 3600);
        // A run left from 40 days ago, and one from today.
        for (name, days) in [("old", 40), ("recent", 0)] {
            let folder = config.state_dir.join("ui/runs").join(name);
            std::fs::create_dir_all(&folder).unwrap();
            let when =
                std::time::SystemTime::now() - std::time::Duration::from_secs(days * 24 * 3600);
            std::fs::File::open(&folder).unwrap().set_modified(when).unwrap();
        }
    });
    let runs = ui.dir.path().join("state/ui/runs");
    assert!(!runs.join("old").exists(), "past its age: deleted at start");
    assert!(runs.join("recent").exists(), "within its age: kept");

    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "big.csv", people(10).as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&[("campaign", "10")]));
    let check = redirected(&started, "/run/");
    let page = finished(&ui, &cookie, &check).body;
    assert!(page.contains("more than 5 rows, more than a check here takes"), "{page}");
    let folder = runs.join(check.trim_start_matches("/run/"));
    assert!(!folder.join("rows.sqlite").exists(), "refused before a row was stored");
    // Just past the limit, where a size estimate cannot tell: refused as it is read.
    let reading = ui.upload_ok(&cookie, "six.csv", people(6).as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&[("campaign", "10")]));
    let page = finished(&ui, &cookie, &redirected(&started, "/run/")).body;
    assert!(page.contains("more than 5 rows"), "{page}");

    let (small, _) = checked(&ui, &cookie, &people(4), &[]);
    let first = ui.get("/", &cookie).body;
    assert!(first.contains("Uploads, checks and sends take"), "{first}");
    assert!(first.contains(&format!("action=\"{small}/delete\"")), "{first}");
    let deleted = ui.send(ui.post(&format!("{small}/delete"), &cookie));
    redirected(&deleted, "/");
    assert!(!runs.join(small.trim_start_matches("/run/")).exists(), "its folder is gone");
    assert!(!ui.get("/", &cookie).body.contains(&small), "and it is no longer listed");
}

/// A check still running has nothing settled to send: its send is refused in words and
/// nothing starts.
#[test]
fn a_check_still_running_cannot_be_sent() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 1);
    let cookie = ui.login();
    let reading = ui.upload_ok(&cookie, "big.csv", people(999).repeat(60).as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let started = ui.send(ui.post(&format!("/check/{id}"), &cookie).form(&[("campaign", "10")]));
    let check = redirected(&started, "/run/");
    // Sixty thousand rows take far longer to check than one request takes to answer.
    let send = ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie));
    assert_eq!(send.status, 409, "{}", send.body);
    assert!(send.body.contains("This check is still running"), "{}", send.body);
    finished(&ui, &cookie, &check);
    let leads = sandbox.block_on(sandbox.client(ALICE).list_leads()).unwrap();
    assert!(leads.is_empty(), "nothing was sent");
}

/// A mapping saved on the page keeps everything chosen there, not only the roles: next week's
/// export with the same columns gets it proposed, and one click fills the page with the
/// assistant, the campaign, the country, the countries and the kinds of number again.
#[test]
fn a_saved_mapping_brings_back_every_choice() {
    let sandbox = TestSandbox::start();
    let ui = TestUi::sending_to(&sandbox, 0.0, 1);
    let cookie = ui.login();
    let upload = || {
        let reading = ui.upload_ok(&cookie, "export.csv", people(3).as_bytes());
        reading.trim_start_matches("/reading/").to_string()
    };
    let id = upload();
    let form = [
        ("role0", "variable"),
        ("name0", "customer_name"),
        ("role1", "phone"),
        ("assistant", "101"),
        ("campaign", "10"),
        ("region", "AT"),
        ("countries", "AT, DE"),
        ("block_shown", "1"),
        ("block", "toll_free"),
        ("header_row", "1"),
        ("encoding", "UTF-8"),
        ("save_name", "weekly export"),
    ];
    let saved = ui.send(ui.post(&format!("/mapping/{id}/save"), &cookie).form(&form));
    redirected(&saved, &format!("/mapping/{id}?"));

    let id = upload();
    let page = ui.get(&format!("/mapping/{id}"), &cookie).body;
    let link = page
        .split("<a href=\"")
        .find(|h| h.contains("campaign=10"))
        .unwrap_or_else(|| panic!("the saved mapping is proposed with its campaign: {page}"));
    let link = link.split('"').next().unwrap().replace("&amp;", "&");
    let page = ui.get(&link, &cookie).body;
    assert!(
        page.contains("<option value=\"101\" selected>Alice Outbound (101)</option>"),
        "{page}"
    );
    assert!(page.contains("<option value=\"10\" selected>Spring Outreach (10)</option>"), "{page}");
    assert!(page.contains("name=\"region\" value=\"AT\""), "{page}");
    assert!(page.contains("name=\"countries\" value=\"AT, DE\""), "{page}");
    assert!(page.contains("value=\"toll_free\" checked"), "{page}");
    assert!(!page.contains("value=\"premium_rate\" checked"), "as saved, not the default: {page}");
    assert!(page.contains("name=\"header_row\" value=\"1\""), "{page}");
    assert!(page.contains("name=\"encoding\" value=\"UTF-8\""), "{page}");
}

/// A mapping file that says on which row the column names are: its roles go to the columns of
/// that row, not to those of the row the page read before.
#[test]
fn a_loaded_mapping_gives_its_roles_to_the_header_row_it_names() {
    let ui = TestUi::start();
    let cookie = ui.login();
    let sheet = "Kunde,Nummer\nTelefon,Name\n+4915110000001,Anna\n+4915110000002,Ben\n";
    let reading = ui.upload_ok(&cookie, "export.csv", sheet.as_bytes());
    let id = reading.trim_start_matches("/reading/").to_string();
    let mapping = "header_row = 2\nphone = \"Telefon\"\n[variables]\ncustomer_name = \"Name\"\n";
    let (content_type, body) =
        super::multipart_form(&[("save_name", "")], "mapping_file", "m.toml", mapping.as_bytes());
    let loaded = ui.send(
        ui.post(&format!("/mapping/{id}/load"), &cookie)
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body),
    );
    let page = ui.get(&redirected(&loaded, &format!("/mapping/{id}?")), &cookie).body;
    assert_eq!(super::steps::role_of(&page, "Telefon"), "phone", "{page}");
    assert_eq!(super::steps::role_of(&page, "Name"), "variable customer_name", "{page}");
}

/// A suppression list a saved mapping names is kept however old: the cleanup at start would
/// otherwise drop it, and the mapping would call the people on it.
#[test]
fn a_list_a_saved_mapping_names_outlives_the_cleanup() {
    let mut list = std::path::PathBuf::new();
    let ui = TestUi::with(|config| {
        let old = config.state_dir.join("ui/uploads/0123456789abcdef");
        std::fs::create_dir_all(&old).unwrap();
        list = old.join("do-not-call.csv");
        std::fs::write(&list, "+4915110000001\n").unwrap();
        let saved = config.state_dir.join("ui/mappings");
        std::fs::create_dir_all(&saved).unwrap();
        let toml = format!("phone = \"Telefon\"\nsuppress = [{:?}]\n", list.display().to_string());
        std::fs::write(saved.join("weekly.toml"), toml).unwrap();
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(90 * 24 * 3600);
        std::fs::File::open(&old).unwrap().set_modified(when).unwrap();
        // Beside it, an upload as old that no mapping names.
        let stray = config.state_dir.join("ui/uploads/fedcba9876543210");
        std::fs::create_dir_all(&stray).unwrap();
        std::fs::File::open(&stray).unwrap().set_modified(when).unwrap();
    });
    assert!(list.exists(), "kept: a saved mapping names it");
    let stray = ui.dir.path().join("state/ui/uploads/fedcba9876543210");
    assert!(!stray.exists(), "the cleanup ran: an old upload no mapping names is gone");
    drop(ui);
}
