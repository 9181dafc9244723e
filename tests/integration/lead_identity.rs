//! Who a lead is: a lead is its campaign and its number in E.164 (with
//! `--allow-duplicates`, and which occurrence of that number in the sheet it is), nothing
//! else. This module owns the twelve user actions of that table that each made more
//! leads than there are people, and the FIFO in the state folder that hung a run; each is
//! replayed through the real binary (and for the browser cases, the `leadsync ui` server over
//! HTTP) against the sandbox, and the service's own lead list is counted.
//!
//! Every run allows duplicates: the service would otherwise refuse a repeated number itself and
//! hide the second send that these tests exist to see. Whatever the file's name, path, link,
//! format, column order, other cells, mapping constants, flags or front, a sheet of ten people
//! must end up as ten leads, and none of them missing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

use leadsync::sandbox::Faults;

use crate::exactly_once::{Case, kill, leads};
use crate::identity::workbook;
use crate::support::{ALICE, Cli, TestSandbox, json, write};
use crate::ui::TestUi;
use crate::ui::edits::cell_holding;
use crate::ui::flow::{finished, redirected};

/// The campaign every sheet here goes to ("Spring Outreach").
const CAMPAIGN: u64 = 10;

/// A person of a sheet: customer name and number, already in E.164, so the number the service
/// stores is the one the test wrote.
type Person = (String, String);

/// `n` people from `first` on, each with a number of their own.
fn people(first: usize, n: usize) -> Vec<Person> {
    (first..first + n).map(|i| (format!("Person {i}"), format!("+49151200{i:05}"))).collect()
}

/// The people as a `Name,Telefon` CSV.
fn csv(rows: &[Person]) -> String {
    let mut text = String::from("Name,Telefon\n");
    for (name, phone) in rows {
        text.push_str(&format!("{name},{phone}\n"));
    }
    text
}

/// The numbers of `rows`, one per identity: a number repeated in the sheet stands for as many
/// leads as it has rows (duplicates are allowed throughout).
fn numbers(rows: &[Person]) -> Vec<String> {
    rows.iter().map(|(_, phone)| phone.clone()).collect()
}

/// What is wrong with the service's leads against the identities `expected` (numbers in
/// campaign 10): leads more than once or missing, with the count the table gives
/// ("46 for 30"). `None` when each is there exactly once and there is nothing else.
fn miscount(sb: &TestSandbox, expected: &[String], what: &str) -> Option<String> {
    let on_service = leads(sb, ALICE);
    let mut have: BTreeMap<(u64, String), usize> = BTreeMap::new();
    for lead in &on_service {
        *have.entry((lead.campaign_id, lead.phone_number.clone())).or_default() += 1;
    }
    let mut want: BTreeMap<(u64, String), usize> = BTreeMap::new();
    for phone in expected {
        *want.entry((CAMPAIGN, phone.clone())).or_default() += 1;
    }
    let extra: Vec<_> =
        have.iter().filter(|(id, n)| **n > want.get(*id).copied().unwrap_or(0)).collect();
    let lost: Vec<_> =
        want.iter().filter(|(id, n)| have.get(*id).copied().unwrap_or(0) < **n).collect();
    if extra.is_empty() && lost.is_empty() {
        return None;
    }
    Some(format!(
        "{} leads for {} identities {what}; {} more than once ({}), {} missing ({})",
        on_service.len(),
        expected.len(),
        extra.len(),
        some(&extra),
        lost.len(),
        some(&lost),
    ))
}

/// The first few of `identities` with their counts: enough to see which, not a screenful.
fn some(identities: &[(&(u64, String), &usize)]) -> String {
    let shown: Vec<String> =
        identities.iter().take(3).map(|((c, phone), n)| format!("{phone} in {c}: {n}")).collect();
    let more = if identities.len() > 3 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The service holds each identity of `expected` exactly once.
fn assert_once_each(sb: &TestSandbox, expected: &[String], what: &str) {
    if let Some(wrong) = miscount(sb, expected, what) {
        panic!("{wrong}");
    }
}

/// All the steps of a case were counted right; every wrong count is shown, not only the first,
/// so a failure says how far each step is off.
fn assert_no_miscounts(miscounts: &[Option<String>]) {
    let wrong: Vec<&String> = miscounts.iter().flatten().collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Runs `cli` to its end, whatever its exit code: the count of leads judges it, and its
/// stderr goes with a failure.
fn run(cli: Cli) -> (Option<i32>, String) {
    let mut cli = cli;
    let output = cli.cmd.output().unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stderr).to_string())
}

/// Waits (bounded) until the service holds at least `n` leads: a run stopped then is stopped
/// midway.
fn wait_for_leads(sb: &TestSandbox, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while leads(sb, ALICE).len() < n {
        assert!(Instant::now() < deadline, "no {n} leads on the service in 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits for `child` at most `limit`; one still running then is killed, and that is an error
/// (a run that hangs holds its lock and sends nothing).
fn finishes_within(mut child: Child, limit: Duration) -> Result<ExitStatus, String> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Ok(status);
        }
        if Instant::now() >= deadline {
            kill(child);
            return Err(format!("still running after {} s: hung", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Replaces the file at `path` with `text` as an export job does: a new file moved over the
/// old one.
fn replace(path: &Path, text: &str) {
    let fresh = path.with_extension("new");
    std::fs::write(&fresh, text).unwrap();
    std::fs::rename(&fresh, path).unwrap();
}

/// A `leadsync ui` server sending to `sb` as Alice at `rate` a second (0: no limit), one
/// request at a time, with its state in `state`: the folder the test's CLI runs use, as the
/// CLI and the UI share one on the same machine.
pub(crate) fn ui_on(sb: &TestSandbox, state: PathBuf, rate: f64) -> TestUi {
    TestUi::with(|config| {
        config.client = Some(sb.client(ALICE));
        config.push.rate = rate;
        config.push.concurrency = 1;
        config.state_dir = state;
    })
}

/// Reads `file` through the Source page's path field (the file where it is, the one the CLI
/// reads too); returns the reading's id.
pub(crate) fn ui_read(ui: &TestUi, cookie: &str, file: &Path) -> String {
    let form = [("location", file.to_str().unwrap())];
    let reading =
        redirected(&ui.send(ui.post("/source/location", cookie).form(&form)), "/reading/");
    reading.trim_start_matches("/reading/").split('?').next().unwrap().to_string()
}

/// Gives the page `file` as `picked`; returns the reading's id.
fn ui_pick(ui: &TestUi, cookie: &str, file: &Path, picked: Picked) -> String {
    match picked {
        Picked::ByPath => ui_read(ui, cookie, file),
        Picked::Uploaded => {
            let name = file.file_name().unwrap().to_str().unwrap();
            let reading = ui.upload_ok(cookie, name, &std::fs::read(file).unwrap());
            reading.trim_start_matches("/reading/").split('?').next().unwrap().to_string()
        }
    }
}

/// Checks the reading `id` into campaign 10 with duplicates allowed (the page's checkbox);
/// returns the finished check's address.
pub(crate) fn ui_check(ui: &TestUi, cookie: &str, id: &str) -> String {
    let form = [("campaign", "10"), ("allow_duplicates", "on")];
    let started = ui.send(ui.post(&format!("/check/{id}"), cookie).form(&form));
    let check = redirected(&started, "/run/");
    finished(ui, cookie, &check);
    check
}

/// Starts the send of a finished check; returns the send's address.
pub(crate) fn ui_send(ui: &TestUi, cookie: &str, check: &str) -> String {
    redirected(&ui.send(ui.post(&format!("/send{}", &check[4..]), cookie)), "/run/")
}

/// Changes the cell of `row` that holds `from` to `to` on the Check page, as a person fixing a
/// typo in a name does: the person, and so the lead, stays the same.
fn ui_fix(ui: &TestUi, cookie: &str, check: &str, row: u64, from: &str, to: &str) {
    let page = ui.get(&format!("{check}/row/{row}"), cookie);
    assert_eq!(page.status, 200, "{}", page.body);
    let cell = cell_holding(&page.body, from);
    let saved =
        ui.send(ui.post(&format!("{check}/row/{row}"), cookie).form(&[(cell.as_str(), to)]));
    redirected(&saved, &format!("{check}/row/{row}"));
}

/// How the page gets the file: uploaded from the browser (a copy in the state folder, the
/// usual way) or read where it is through the Source page's path field.
#[derive(Clone, Copy, Debug)]
enum Picked {
    Uploaded,
    ByPath,
}

/// Table row 1: an import stopped in the CLI, the same file then sent from `leadsync ui`; and
/// the other way round, a send stopped on the page, the rest sent by `import`; the file picked
/// on the page either way. The front is no part of who a lead is: 30 rows are 30 leads.
#[test]
fn a_sheet_stopped_on_one_front_and_finished_on_the_other_is_sent_once() {
    let rows = people(0, 30);
    let mut miscounts = Vec::new();
    for picked in [Picked::Uploaded, Picked::ByPath] {
        // The CLI first, killed midway; then the page sends the same file.
        let mut case = Case::new();
        let sb = case.service(Faults::default());
        let file = write(case.dir.path(), "export.csv", &csv(&rows));
        let file_arg = file.to_str().unwrap();
        let import = ["import", file_arg, "--campaign", "10", "--allow-duplicates", "--rate", "10"];
        let child = case.spawn(&sb, &import);
        wait_for_leads(&sb, 10);
        kill(child);
        let ui = ui_on(&sb, case.path("state"), 0.0);
        let cookie = ui.login();
        let check = ui_check(&ui, &cookie, &ui_pick(&ui, &cookie, &file, picked));
        finished(&ui, &cookie, &ui_send(&ui, &cookie, &check));
        let what = format!("after an import stopped, then the UI's send ({picked:?})");
        miscounts.push(miscount(&sb, &numbers(&rows), &what));
        drop(ui);

        // The page first, stopped midway; then `import` of the same file.
        let mut case = Case::new();
        let sb = case.service(Faults::default());
        let file = write(case.dir.path(), "export.csv", &csv(&rows));
        let ui = ui_on(&sb, case.path("state"), 10.0);
        let cookie = ui.login();
        let check = ui_check(&ui, &cookie, &ui_pick(&ui, &cookie, &file, picked));
        let send = ui_send(&ui, &cookie, &check);
        wait_for_leads(&sb, 10);
        assert_eq!(ui.send(ui.post(&format!("{send}/stop"), &cookie)).status, 303);
        finished(&ui, &cookie, &send);
        let import = ["import", file.to_str().unwrap(), "--campaign", "10", "--allow-duplicates"];
        let (_, err) = run(case.cli(&sb, ALICE, &import).args(["--rate", "0"]));
        let what = format!("after the UI's send ({picked:?}) stopped, then `import`:\n{err}");
        miscounts.push(miscount(&sb, &numbers(&rows), &what));
    }
    assert_no_miscounts(&miscounts);
}

/// Table row 2: a send from the page finished; then a typo in a name is fixed on a new check of
/// the same file and that check sent. The name is no part of who a lead is: still ten leads.
#[test]
fn a_cell_fixed_in_the_ui_after_a_finished_send_sends_no_lead_again() {
    let rows = people(0, 10);
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let file = write(case.dir.path(), "export.csv", &csv(&rows));
    let ui = ui_on(&sb, case.path("state"), 0.0);
    let cookie = ui.login();
    let reading = ui_read(&ui, &cookie, &file);
    let check = ui_check(&ui, &cookie, &reading);
    finished(&ui, &cookie, &ui_send(&ui, &cookie, &check));
    assert_once_each(&sb, &numbers(&rows), "after the first send");

    let again = ui_check(&ui, &cookie, &reading);
    ui_fix(&ui, &cookie, &again, 2, "Person 0", "Person Null");
    let results = finished(&ui, &cookie, &ui_send(&ui, &cookie, &again));
    assert_once_each(&sb, &numbers(&rows), "after the fixed cell was sent");
    assert!(results.status == 200, "{}", results.body);
}

/// Table row 3: a `sync` ran without `--allow-duplicates`; the sheet grew by two rows and the
/// next `sync` has the flag. A flag is no part of who a lead is: only the two new rows go.
#[test]
fn allow_duplicates_added_to_a_sync_sends_only_the_new_rows() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let file = write(case.dir.path(), "export.csv", &csv(&people(0, 10)));
    let sync = ["sync", file.to_str().unwrap(), "--campaign", "10", "--rate", "0"];
    case.cli(&sb, ALICE, &sync).ok();
    let grown = people(0, 12);
    replace(&file, &csv(&grown));
    case.cli(&sb, ALICE, &sync).args(["--allow-duplicates"]).ok();
    assert_once_each(
        &sb,
        &numbers(&grown),
        "after sync, then sync --allow-duplicates of the grown sheet",
    );
}

/// Table row 4: two columns of the sheet swapped between two imports of the same file (the
/// export's column order changed). Column order is no part of who a lead is.
#[test]
fn two_swapped_columns_are_the_same_leads() {
    let rows = people(0, 10);
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let sheet = |swapped: bool| {
        let mut text =
            String::from(if swapped { "Firma,Name,Telefon\n" } else { "Name,Firma,Telefon\n" });
        for (i, (name, phone)) in rows.iter().enumerate() {
            let firm = format!("Firma {i}");
            let (a, b) = if swapped { (&firm, name) } else { (name, &firm) };
            text.push_str(&format!("{a},{b},{phone}\n"));
        }
        text
    };
    let file = write(case.dir.path(), "export.csv", &sheet(false));
    let import = ["import", file.to_str().unwrap(), "--campaign", "10", "--allow-duplicates"];
    case.cli(&sb, ALICE, &import).args(["--rate", "0"]).ok();
    replace(&file, &sheet(true));
    let (_, err) = run(case.cli(&sb, ALICE, &import).args(["--rate", "0"]));
    assert_once_each(
        &sb,
        &numbers(&rows),
        &format!("after the swapped columns were imported; its stderr:\n{err}"),
    );
}

/// Table row 5: `import` killed midway, then `sync` of the same sheet, then `import` again;
/// and, on a fresh account, `import` and `sync` of one sheet at the same time. The command is
/// no part of who a lead is: 40 rows are 40 leads.
#[test]
fn import_and_sync_of_one_sheet_interleaved_or_at_once_send_each_row_once() {
    let rows = people(0, 40);
    let mut miscounts = Vec::new();

    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let file = write(case.dir.path(), "export.csv", &csv(&rows));
    let file_arg = file.to_str().unwrap();
    let import = ["import", file_arg, "--campaign", "10", "--allow-duplicates", "--rate", "20"];
    let sync = ["sync", file_arg, "--campaign", "10", "--allow-duplicates", "--rate", "20"];
    let child = case.spawn(&sb, &import);
    wait_for_leads(&sb, 10);
    kill(child);
    run(case.cli(&sb, ALICE, &sync));
    run(case.cli(&sb, ALICE, &import));
    miscounts.push(miscount(&sb, &numbers(&rows), "after import killed, then sync, then import"));

    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let file = write(case.dir.path(), "export.csv", &csv(&rows));
    let file_arg = file.to_str().unwrap();
    let import = ["import", file_arg, "--campaign", "10", "--allow-duplicates", "--rate", "20"];
    let sync = ["sync", file_arg, "--campaign", "10", "--allow-duplicates", "--rate", "20"];
    let (first, second) = (case.spawn(&sb, &import), case.spawn(&sb, &sync));
    for (name, child) in [("import", first), ("sync", second)] {
        if let Err(hung) = finishes_within(child, Duration::from_secs(30)) {
            miscounts.push(Some(format!("{name} at the same time as the other: {hung}")));
        }
    }
    miscounts.push(miscount(&sb, &numbers(&rows), "after import and sync at the same time"));
    assert_no_miscounts(&miscounts);
}

/// Table row 6: `sync` of a symbolic link that each day's export job re-points to that day's
/// file (which holds yesterday's people and some new ones). Where a row's file sits is no
/// part of who a lead is: 15 people are 15 leads.
#[test]
fn a_sync_through_a_link_repointed_to_each_days_export_sends_only_new_people() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let monday = write(case.dir.path(), "export-monday.csv", &csv(&people(0, 10)));
    let tuesday = write(case.dir.path(), "export-tuesday.csv", &csv(&people(0, 15)));
    let link = case.path("export.csv");
    std::os::unix::fs::symlink(&monday, &link).unwrap();
    let sync = ["sync", link.to_str().unwrap(), "--campaign", "10", "--allow-duplicates"];
    case.cli(&sb, ALICE, &sync).args(["--rate", "0"]).ok();
    // The job points the link at the new day's file, as `ln -sfn` does.
    let next = case.path("export.csv.next");
    std::os::unix::fs::symlink(&tuesday, &next).unwrap();
    std::fs::rename(&next, &link).unwrap();
    case.cli(&sb, ALICE, &sync).args(["--rate", "0"]).ok();
    assert_once_each(
        &sb,
        &numbers(&people(0, 15)),
        "after a sync of the link, re-pointed, synced again",
    );
}

/// Table row 7: a name fixed on the Check page and sent from there; then the cron `sync` of
/// the file, which still has the typo. The edit is no part of who a lead is: ten leads.
#[test]
fn a_ui_edit_sent_then_a_sync_of_the_unedited_file_sends_nothing_again() {
    let rows = people(0, 10);
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let file = write(case.dir.path(), "export.csv", &csv(&rows));
    let ui = ui_on(&sb, case.path("state"), 0.0);
    let cookie = ui.login();
    let check = ui_check(&ui, &cookie, &ui_read(&ui, &cookie, &file));
    ui_fix(&ui, &cookie, &check, 2, "Person 0", "Person Null");
    finished(&ui, &cookie, &ui_send(&ui, &cookie, &check));
    assert_once_each(&sb, &numbers(&rows), "after the send from the page");
    let sync = ["sync", file.to_str().unwrap(), "--campaign", "10", "--allow-duplicates"];
    let (_, err) = run(case.cli(&sb, ALICE, &sync).args(["--rate", "0"]));
    assert_once_each(
        &sb,
        &numbers(&rows),
        &format!("after a sync of the unedited file; its stderr:\n{err}"),
    );
}

/// Table row 8: next month's export saved under last month's path, imported against a service
/// with faults. Three of its 25 rows are people of last month (same name, same number): they
/// are already on the service, never "created" with last month's lead. Every row reported
/// created has a lead of its own (its own number, made by this run), and every new person is
/// on the service, once.
#[test]
fn next_months_export_under_the_same_path_never_takes_last_months_leads() {
    let mut case = Case::new();
    let last_month = people(0, 10);
    let file = write(case.dir.path(), "export.csv", &csv(&last_month));
    let report = case.path("report.json");
    let import = [
        "import",
        file.to_str().unwrap(),
        "--campaign",
        "10",
        "--allow-duplicates",
        "--rate",
        "0",
        "--timeout",
        "1",
        "--max-retries",
        "20",
        "--report",
        report.to_str().unwrap(),
    ];
    let sb = case.service(Faults::default());
    case.cli(&sb, ALICE, &import).ok();
    drop(sb);
    let last_ids: Vec<u64> = stored(&case).into_keys().collect();
    assert_eq!(last_ids.len(), 10, "last month's leads");

    // Next month: 22 new people, and three of last month's among them, elsewhere in the sheet.
    let new_people = people(100, 22);
    let next_month = [&new_people[..10], &last_month[..3], &new_people[10..]].concat();
    replace(&file, &csv(&next_month));
    let faults = Faults {
        fail_rate: 0.2,
        commit_fail_rate: 0.2,
        garble_rate: 0.5,
        seed: Some(34),
        ..Faults::default()
    };
    let sb = case.service(faults);
    let (_, err) = run(case.cli(&sb, ALICE, &import));
    drop(sb);
    let by_id = stored(&case);
    let report = json(&std::fs::read_to_string(&report).unwrap());
    let mut not_their_own = Vec::new();
    for row in report["rows"].as_array().unwrap().iter().filter(|r| r["status"] == "created") {
        let id = row["lead_id"].as_u64();
        let phone = id.and_then(|id| by_id.get(&id)).map(String::as_str);
        if phone != row["phone"].as_str() || id.is_some_and(|id| last_ids.contains(&id)) {
            not_their_own.push(format!(
                "row {} ({}) created as lead {} ({phone:?})",
                row["row"], row["phone"], row["lead_id"]
            ));
        }
    }
    let missing: Vec<String> = numbers(&new_people)
        .into_iter()
        .filter(|n| !by_id.values().any(|phone| phone == n))
        .collect();
    let sb = case.service(Faults::default());
    let all = [numbers(&last_month), numbers(&new_people)].concat();
    let counted = miscount(&sb, &all, "after last month's and next month's import");
    assert!(
        not_their_own.is_empty() && missing.is_empty() && counted.is_none(),
        "{} leads made for {} new people; reported created with a lead not made for them: \
         {not_their_own:#?}; never sent: {missing:?}; {counted:?}\n{err}",
        by_id.len() - last_ids.len(),
        new_people.len(),
    );
}

/// Alice's leads in the stopped service's database, by id: read from the file, so no restart
/// of the service (with its port to take again) is needed between the runs.
fn stored(case: &Case) -> BTreeMap<u64, String> {
    let db = rusqlite::Connection::open(case.path("service.db")).unwrap();
    let mut query = db
        .prepare("SELECT id, phone_number FROM leads WHERE user_id = 1 AND parent_id IS NULL")
        .unwrap();
    let rows = query.query_map([], |row| Ok((row.get::<_, i64>(0)? as u64, row.get(1)?))).unwrap();
    rows.map(Result::unwrap).collect()
}

/// A mapping without lead keys: identity by campaign and number through the lead list.
const NO_KEYS: &str =
    "phone = \"Telefon\"\ncampaign = 10\nlead_key = false\n[variables]\ncustomer_name = \"Name\"\n";

/// Table row 9: with `lead_key = false`, a `sync` killed while some writes were in doubt (the
/// rest settled), the sheet grown by two, `sync` again. Twelve people, twelve leads.
#[test]
fn without_lead_keys_a_killed_sync_of_a_grown_sheet_sends_only_the_new_rows() {
    let mut case = Case::new();
    let mapping = write(case.dir.path(), "mapping.toml", NO_KEYS);
    let file = write(case.dir.path(), "export.csv", &csv(&people(0, 10)));
    let sync = [
        "sync",
        file.to_str().unwrap(),
        "--mapping",
        mapping.to_str().unwrap(),
        "--allow-duplicates",
        "--rate",
        "0",
        "--timeout",
        "1",
        "--concurrency",
        "2",
        "--max-retries",
        "2",
    ];
    // A third of the writes commit 3 s late: some rows are settled, some in doubt at the kill.
    let slow = Faults {
        slow_commit_rate: 0.3,
        stall: Duration::from_secs(3),
        seed: Some(9),
        ..Faults::default()
    };
    let sb = case.service(slow);
    let child = case.spawn(&sb, &sync);
    case.wait_for_attempts(10);
    kill(child);
    drop(sb);
    let grown = people(0, 12);
    replace(&file, &csv(&grown));
    let sb = case.service(Faults::default());
    let (_, err) = run(case.cli(&sb, ALICE, &sync));
    assert_once_each(
        &sb,
        &numbers(&grown),
        &format!("after sync killed, sheet grown, sync; its stderr:\n{err}"),
    );
}

/// Table row 10: `lead_key = false` and a column of the sheet mapped to `leadsync_key`, the
/// variable leadsync keeps for itself. The run is refused before anything is sent, and the
/// error names the variable.
#[test]
fn a_column_mapped_to_leadsync_key_is_refused_before_anything_is_sent() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let mapping =
        write(case.dir.path(), "mapping.toml", &format!("{NO_KEYS}leadsync_key = \"Kunden-Nr\"\n"));
    let mut text = String::from("Name,Telefon,Kunden-Nr\n");
    for (i, (name, phone)) in people(0, 10).iter().enumerate() {
        text.push_str(&format!("{name},{phone},K-{i:04}\n"));
    }
    let file = write(case.dir.path(), "export.csv", &text);
    let import = ["import", file.to_str().unwrap(), "--mapping", mapping.to_str().unwrap()];
    let (code, err) =
        run(case.cli(&sb, ALICE, &import).args(["--allow-duplicates", "--rate", "0"]));
    let sent = leads(&sb, ALICE).len();
    assert!(
        code != Some(0) && err.contains("leadsync_key") && sent == 0,
        "not refused: exit code {code:?}, {sent} leads created\n{err}"
    );
}

/// Table row 11: the same five rows (one number twice, two people) imported as the file, as a
/// copy of it under another name, as an XLSX workbook, and with a constant added to the
/// mapping. None of these is part of who a lead is: five leads after each.
#[test]
fn the_same_rows_as_a_copy_another_format_or_with_a_constant_are_the_same_leads() {
    let mut rows = people(0, 4);
    // With duplicates allowed, a number shared by two rows is two leads (by its occurrence).
    rows.push(("Partner of Person 0".to_string(), rows[0].1.clone()));
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let dir = case.dir.path().to_path_buf();
    let original = write(&dir, "leads.csv", &csv(&rows));
    let copy = write(&dir, "leads (copy).csv", &csv(&rows));
    let book = dir.join("leads.xlsx");
    workbook(&book, &[("Leads", rows.clone())]);
    let constant = write(
        &dir,
        "mapping.toml",
        "phone = \"Telefon\"\ncampaign = 10\n[variables]\ncustomer_name = \"Name\"\n\
         [constants]\nquelle = \"Messe\"\n",
    );
    let steps: [(&str, Vec<&str>); 4] = [
        ("the file", vec![original.to_str().unwrap(), "--campaign", "10"]),
        ("a copy", vec![copy.to_str().unwrap(), "--campaign", "10"]),
        ("as XLSX", vec![book.to_str().unwrap(), "--campaign", "10"]),
        (
            "a constant added",
            vec![original.to_str().unwrap(), "--mapping", constant.to_str().unwrap()],
        ),
    ];
    let mut miscounts = Vec::new();
    for (what, args) in steps {
        let (_, err) = run(case.cli(&sb, ALICE, &["import"]).args(args).args([
            "--allow-duplicates",
            "--rate",
            "0",
        ]));
        miscounts.push(miscount(
            &sb,
            &numbers(&rows),
            &format!("after {what}; its stderr:\n{err}"),
        ));
    }
    assert_no_miscounts(&miscounts);
}

/// The FIFO: a named pipe called `something.jsonl` in the state folder, in each of the
/// folders where journals are looked for. Opening it blocks until a writer comes, so a run
/// that reads it hangs forever, holding its lock. Two imports, one with lead keys and one
/// without (`lead_key = false` is what makes a run read every journal of the account today),
/// each finish in bounded time and send their rows once.
#[test]
fn a_fifo_named_like_a_journal_in_the_state_folder_does_not_hang_a_run() {
    let (keyed, unkeyed) = (people(0, 3), people(10, 3));
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    for folder in [case.path("state"), case.path("state/journals"), case.path("state/sync")] {
        std::fs::create_dir_all(&folder).unwrap();
        let fifo = folder.join("something.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success(), "mkfifo {}", fifo.display());
    }
    let mapping = write(case.dir.path(), "mapping.toml", NO_KEYS);
    let first = write(case.dir.path(), "keyed.csv", &csv(&keyed));
    let second = write(case.dir.path(), "unkeyed.csv", &csv(&unkeyed));
    let runs = [
        ("with lead keys", vec![first.to_str().unwrap(), "--campaign", "10"]),
        (
            "with lead_key = false",
            vec![second.to_str().unwrap(), "--mapping", mapping.to_str().unwrap()],
        ),
    ];
    let mut hung = Vec::new();
    for (what, args) in runs {
        let args = [&["import"][..], &args, &["--allow-duplicates", "--rate", "0"]].concat();
        match finishes_within(case.spawn(&sb, &args), Duration::from_secs(20)) {
            Ok(status) if status.success() => {}
            other => hung.push(format!("the import {what}: {other:?}")),
        }
    }
    let all = [numbers(&keyed), numbers(&unkeyed)].concat();
    let counted = miscount(&sb, &all, "after imports beside a FIFO");
    assert!(hung.is_empty() && counted.is_none(), "{hung:?} {counted:?}");
}

/// A CRM's record id (`id = "Kunden-Nr"`) says who a lead is: two people sharing one number
/// are two leads, and a person whose number changed in next week's export is still one lead,
/// reported as already on the service with the lead of last week, never created again.
#[test]
fn a_record_id_column_names_the_lead_whatever_its_number() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let mapping = write(
        case.dir.path(),
        "mapping.toml",
        "phone = \"Telefon\"\ncampaign = 10\nid = \"Kunden-Nr\"\n[variables]\ncustomer_name = \"Name\"\n",
    );
    let export = |rows: &[(&str, &str, &str)]| {
        let mut text = String::from("Kunden-Nr,Name,Telefon\n");
        for (id, name, phone) in rows {
            text.push_str(&format!("{id},{name},{phone}\n"));
        }
        text
    };
    // Anna and Ben share the switchboard's number.
    let week1 = [
        ("K-1", "Anna", "+4915120000001"),
        ("K-2", "Ben", "+4915120000001"),
        ("K-3", "Cleo", "+4915120000003"),
    ];
    let file = write(case.dir.path(), "week1.csv", &export(&week1));
    let import = |file: &Path, report: &Path| -> Vec<String> {
        let mut args: Vec<String> = ["import", "--mapping", mapping.to_str().unwrap()]
            .into_iter()
            .map(String::from)
            .collect();
        args.extend([file.display().to_string(), "--allow-duplicates".into()]);
        args.extend(["--rate", "0", "--report"].map(String::from));
        args.push(report.display().to_string());
        args
    };
    let first = case.path("week1.json");
    let args = import(&file, &first);
    case.cli(&sb, ALICE, &args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    assert_eq!(leads(&sb, ALICE).len(), 3, "two people on one number are two leads");
    // Next week Anna has a number of her own; Dan is new.
    let week2 = [
        ("K-1", "Anna", "+4915120000009"),
        ("K-2", "Ben", "+4915120000001"),
        ("K-4", "Dan", "+4915120000004"),
    ];
    let file = write(case.dir.path(), "week2.csv", &export(&week2));
    let second = case.path("week2.json");
    let args = import(&file, &second);
    case.cli(&sb, ALICE, &args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    let on_service = leads(&sb, ALICE);
    assert_eq!(on_service.len(), 4, "only Dan is new: {on_service:?}");
    let report = json(&std::fs::read_to_string(&second).unwrap());
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows[0]["status"], "skipped", "Anna is last week's lead: {}", rows[0]);
    let week1_report = json(&std::fs::read_to_string(&first).unwrap());
    assert_eq!(rows[0]["lead_id"], week1_report["rows"][0]["lead_id"], "the same lead");
    assert_eq!(rows[2]["status"], "created", "{}", rows[2]);
}

/// A lead made by hand (or by another tool) with a row's campaign and number is that row's
/// lead, whatever its key: an import with `--allow-duplicates` on a machine whose ledger knows
/// the account already reports the row as already on the service and sends no second lead.
#[test]
fn a_lead_made_by_hand_is_the_rows_lead_whatever_its_key() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let first = write(case.dir.path(), "first.csv", &csv(&people(0, 2)));
    let import = |file: &Path| {
        let file = file.to_str().unwrap().to_string();
        ["import", &file, "--campaign", "10", "--rate", "0", "--allow-duplicates"].map(String::from)
    };
    let args = import(&first);
    case.cli(&sb, ALICE, &args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    // Someone adds Dora by hand, with a variable of their own and no key.
    let dora = leadsync::client::NewLead {
        phone_number: "+4915120099999".into(),
        campaign_id: CAMPAIGN,
        variables: [("customer_name".to_string(), "Dora (by hand)".to_string())]
            .into_iter()
            .collect(),
        allow_dupplicate: false,
        secondary_contacts: Vec::new(),
    };
    sb.block_on(sb.client(ALICE).create_lead(&dora)).unwrap();
    let mut rows = people(0, 2);
    rows.push(("Dora".into(), "+4915120099999".into()));
    let second = write(case.dir.path(), "second.csv", &csv(&rows));
    let args = import(&second);
    case.cli(&sb, ALICE, &args.iter().map(String::as_str).collect::<Vec<_>>()).ok();
    assert_once_each(&sb, &numbers(&rows), "after a lead made by hand, then an import");
}
