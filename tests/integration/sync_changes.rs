//! A real sync: the sheet stays the truth. Each test runs the real binary against the sandbox
//! twice or more over one state folder, changes the sheet between runs as a CRM export
//! changes, and reads the service's own lead list to see what became of each lead: updated
//! in place (never a second lead), stopped, deleted, or left alone.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use leadsync::client::{Lead, NewLead};
use leadsync::sandbox::Faults;

use crate::exactly_once::{Case, kill, leads};
use crate::support::{ALICE, json, write};

/// A person of a sheet: customer number, name, city, number (E.164).
type Person = (String, String, String, String);

fn people(n: usize) -> Vec<Person> {
    (0..n)
        .map(|i| {
            let city = if i % 2 == 0 { "Köln" } else { "Bonn" };
            (format!("K-{i}"), format!("Person {i}"), city.to_string(), format!("+49151300{i:05}"))
        })
        .collect()
}

fn csv(rows: &[Person]) -> String {
    let mut text = String::from("Kunden-Nr,Name,Stadt,Telefon\n");
    for (id, name, city, phone) in rows {
        text.push_str(&format!("{id},{name},{city},{phone}\n"));
    }
    text
}

/// The mapping of these sheets, with `extra` lines (`on_removed = "stop"`).
fn mapping(case: &Case, extra: &str) -> PathBuf {
    let text = format!(
        "phone = \"Telefon\"\ncampaign = 10\n{extra}\n[variables]\ncustomer_name = \"Name\"\ncity = \"Stadt\"\n"
    );
    write(case.dir.path(), "mapping.toml", &text)
}

/// `leadsync sync` of the case's sheet with `mapping`, at no rate limit; its exit code,
/// stderr and summary.
fn sync(
    case: &Case,
    sb: &crate::support::TestSandbox,
    mapping: &std::path::Path,
    more: &[&str],
) -> (Option<i32>, String, serde_json::Value) {
    let summary = case.path("summary.json");
    let _ = std::fs::remove_file(&summary);
    let (sheet, mapping, summary_arg) = (
        case.path("export.csv").display().to_string(),
        mapping.display().to_string(),
        summary.display().to_string(),
    );
    let mut args = vec!["sync", &sheet, "--mapping", &mapping, "--rate", "0"];
    args.extend(["--summary-json", &summary_arg]);
    args.extend(more);
    let mut cli = case.cli(sb, ALICE, &args);
    let output = cli.cmd.output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr).to_string();
    let summary = std::fs::read_to_string(&summary).map(|t| json(&t)).unwrap_or_default();
    (output.status.code(), err, summary)
}

fn export(case: &Case, rows: &[Person]) {
    write(case.dir.path(), "export.csv", &csv(rows));
}

/// The service's leads by number.
fn by_number(sb: &crate::support::TestSandbox) -> BTreeMap<String, Vec<Lead>> {
    let mut found: BTreeMap<String, Vec<Lead>> = BTreeMap::new();
    for lead in leads(sb, ALICE) {
        found.entry(lead.phone_number.clone()).or_default().push(lead);
    }
    found
}

fn only<'a>(found: &'a BTreeMap<String, Vec<Lead>>, phone: &str) -> &'a Lead {
    let all = found.get(phone).map(Vec::as_slice).unwrap_or_default();
    assert_eq!(all.len(), 1, "{phone}: {} leads", all.len());
    &all[0]
}

fn var<'a>(lead: &'a Lead, name: &str) -> Option<&'a str> {
    lead.variables.get(name).map(String::as_str)
}

/// A plan's `(new, changed, to_stop, to_delete, unchanged)`.
type Planned = (u64, u64, u64, u64, u64);
/// What was done: `(updated, stopped, deleted, failed)`.
type Done = (u64, u64, u64, u64);

/// The summary's plan and what was done.
fn counts(summary: &serde_json::Value) -> (Planned, Done) {
    let plan = &summary["sync"]["plan"];
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or(u64::MAX);
    let applied = &summary["sync"]["applied"];
    (
        (
            n(plan, "new"),
            n(plan, "changed"),
            n(plan, "to_stop"),
            n(plan, "to_delete"),
            n(plan, "unchanged"),
        ),
        (n(applied, "updated"), n(applied, "stopped"), n(applied, "deleted"), n(applied, "failed")),
    )
}

#[test]
fn a_corrected_name_updates_its_lead_an_emptied_cell_empties_it_and_nothing_is_created() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "");
    let mut rows = people(10);
    export(&case, &rows);
    let (code, err, _) = sync(&case, &sb, &map, &["--allow-duplicates"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("plan: 10 new, 0 unchanged"), "{err}");

    rows[3].1 = "Persona Drei".into();
    rows[5].2 = String::new();
    export(&case, &rows);
    // Duplicates allowed: an update sent as a create would show up as a second lead.
    let report = case.path("report.json").display().to_string();
    let (code, err, summary) = sync(&case, &sb, &map, &["--allow-duplicates", "--report", &report]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("plan: 0 new, 2 changed, 8 unchanged"), "{err}");
    assert_eq!(counts(&summary), ((0, 2, 0, 0, 8), (2, 0, 0, 0)), "{summary}");
    let found = by_number(&sb);
    assert_eq!(found.values().map(Vec::len).sum::<usize>(), 10, "no lead made twice");
    assert_eq!(var(only(&found, &rows[3].3), "customer_name"), Some("Persona Drei"));
    assert_eq!(var(only(&found, &rows[3].3), "city"), Some("Bonn"), "the rest kept");
    assert_eq!(var(only(&found, &rows[5].3), "city"), Some(""), "an emptied cell empties it");
    assert_eq!(var(only(&found, &rows[4].3), "customer_name"), Some("Person 4"));
    // Only what changed is sent, with the value before.
    let entries = summary["sync"]["applied"]["entries"].as_array().unwrap();
    let name = entries.iter().find(|e| e["row"] == 5).expect("row 5 (Person 3) updated");
    assert_eq!(name["values"].as_array().unwrap().len(), 1, "{name}");
    assert_eq!(name["values"][0]["before"], "Person 3");
    assert_eq!(name["values"][0]["after"], "Persona Drei");
    // The row's report says it too, with the value before and after.
    let note = row_note(&case.path("report.json"), 5, "lead_updated");
    assert!(note.contains("`customer_name` `Person 3` → `Persona Drei`"), "{note}");

    let (_, err, summary) = sync(&case, &sb, &map, &["--allow-duplicates"]);
    assert!(err.contains("nothing new"), "a third run changes nothing: {err}");
    assert_eq!(counts(&summary).0, (0, 0, 0, 0, 10));
}

#[test]
fn with_an_id_column_a_changed_number_updates_the_leads_number() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "id = \"Kunden-Nr\"");
    let mut rows = people(6);
    export(&case, &rows);
    sync(&case, &sb, &map, &[]);
    let before = only(&by_number(&sb), &rows[2].3).id;
    rows[2].3 = "+4915139999999".into();
    export(&case, &rows);
    let (code, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(counts(&summary), ((0, 1, 0, 0, 5), (1, 0, 0, 0)), "{summary}");
    let found = by_number(&sb);
    assert_eq!(only(&found, "+4915139999999").id, before, "the same lead, its new number");
    assert!(!found.contains_key("+491513000002"), "the old number is gone: {found:?}");
    assert_eq!(found.values().map(Vec::len).sum::<usize>(), 6);
}

#[test]
fn a_removed_row_is_stopped_deleted_or_kept_as_the_mapping_says() {
    for (rule, expected) in [("stop", "completed"), ("delete", "gone"), ("keep", "created")] {
        let mut case = Case::new();
        let sb = case.service(Faults::default());
        let map = mapping(&case, &format!("on_removed = \"{rule}\""));
        let mut rows = people(10);
        export(&case, &rows);
        sync(&case, &sb, &map, &[]);
        let gone = rows.remove(4);
        export(&case, &rows);
        let (code, err, summary) = sync(&case, &sb, &map, &[]);
        assert_eq!(code, Some(0), "{rule}: {err}");
        let found = by_number(&sb);
        let status = found.get(&gone.3).map(|l| l[0].status.clone());
        assert_eq!(status.as_deref().unwrap_or("gone"), expected, "on_removed = {rule}");
        let ((_, _, to_stop, to_delete, _), (_, stopped, deleted, _)) = counts(&summary);
        assert_eq!((to_stop, to_delete), (stopped, deleted), "{rule}: the plan's counts were done");
        assert_eq!(stopped + deleted, u64::from(rule != "keep"), "{rule}: {summary}");
        for (_, _, _, phone) in &rows {
            assert_eq!(only(&found, phone).status, "created", "{rule}: the others untouched");
        }
    }
}

#[test]
fn a_number_added_to_the_suppression_list_stops_its_lead() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "");
    let rows = people(8);
    export(&case, &rows);
    sync(&case, &sb, &map, &[]);
    let list = write(case.dir.path(), "dnc.csv", &format!("phone\n{}\n", rows[6].3));
    let report = case.path("report.json").display().to_string();
    let more = ["--suppress", list.to_str().unwrap(), "--report", &report];
    let (code, err, summary) = sync(&case, &sb, &map, &more);
    let note = row_note(&case.path("report.json"), 8, "lead_stopped");
    assert!(note.contains("stopped"), "{note}");
    assert!(matches!(code, Some(0) | Some(5)), "{err}");
    assert_eq!(counts(&summary).1, (0, 1, 0, 0), "{summary}");
    let found = by_number(&sb);
    assert_eq!(only(&found, &rows[6].3).status, "completed");
    assert_eq!(only(&found, &rows[5].3).status, "created");
    let entries = &summary["sync"]["applied"]["entries"];
    assert_eq!(entries[0]["reason"], "suppressed", "{entries}");
}

/// The message of the warning `code` on `row` of the JSON report at `path`.
fn row_note(path: &std::path::Path, row: u64, code: &str) -> String {
    let report = json(&std::fs::read_to_string(path).unwrap());
    let rows = report["rows"].as_array().unwrap();
    let found = rows.iter().find(|r| r["row"] == row).unwrap_or_else(|| panic!("no row {row}"));
    let warnings = found["warnings"].as_array().unwrap();
    let note = warnings.iter().find(|w| w["code"] == code);
    note.unwrap_or_else(|| panic!("row {row} has no {code}: {found}"))["message"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_sync_that_would_stop_30_of_100_is_refused_and_changes_nothing_unless_allowed() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "on_removed = \"stop\"");
    let mut rows = people(100);
    export(&case, &rows);
    sync(&case, &sb, &map, &[]);
    rows.truncate(70);
    rows[0].1 = "Changed".into();
    rows.push(("K-new".into(), "New".into(), "Köln".into(), "+4915139000001".into()));
    export(&case, &rows);
    let (code, err, _) = sync(&case, &sb, &map, &[]);
    assert_ne!(code, Some(0), "{err}");
    assert!(err.contains("would stop 30 of the 100 leads"), "{err}");
    assert!(err.contains("--allow-mass-removal"), "{err}");
    let found = by_number(&sb);
    assert_eq!(found.len(), 100, "nothing created");
    assert!(found.values().all(|l| l[0].status == "created"), "nothing stopped");
    assert_eq!(var(&found[&rows[0].3][0], "customer_name"), Some("Person 0"), "nothing updated");

    let (code, err, summary) = sync(&case, &sb, &map, &["--allow-mass-removal"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(counts(&summary), ((1, 1, 30, 0, 69), (1, 30, 0, 0)), "{summary}");
    let stopped = by_number(&sb).values().filter(|l| l[0].status == "completed").count();
    assert_eq!(stopped, 30);
}

#[test]
fn an_empty_or_unreadable_source_removes_nothing() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "on_removed = \"delete\"\nmax_removed = 1000");
    export(&case, &people(10));
    sync(&case, &sb, &map, &[]);
    write(case.dir.path(), "export.csv", "Kunden-Nr,Name,Stadt,Telefon\n");
    let (code, err, _) = sync(&case, &sb, &map, &[]);
    assert_ne!(code, Some(0), "{err}");
    write(case.dir.path(), "export.csv", "Kunden-Nr,Name,Stadt,Telefon\nK-1,,,\n");
    let (_, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(counts(&summary).0.3, 0, "no valid row: nothing to delete: {err}");
    std::fs::remove_file(case.path("export.csv")).unwrap();
    let (code, err, _) = sync(&case, &sb, &map, &[]);
    assert_ne!(code, Some(0), "{err}");
    assert_eq!(leads(&sb, ALICE).len(), 10, "every lead still there");
}

#[test]
fn a_lead_created_by_hand_is_never_touched() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "on_removed = \"delete\"");
    let by_hand = NewLead {
        phone_number: "+4915137777777".into(),
        campaign_id: 10,
        variables: [("customer_name".to_string(), "By Hand".to_string())].into_iter().collect(),
        ..Default::default()
    };
    sb.block_on(sb.client(ALICE).create_lead(&by_hand)).unwrap();
    let mut rows = people(10);
    export(&case, &rows);
    sync(&case, &sb, &map, &[]);
    rows.remove(0);
    export(&case, &rows);
    let (code, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(counts(&summary).1, (0, 0, 1, 0), "only the removed row's lead: {summary}");
    let found = by_number(&sb);
    assert_eq!(var(only(&found, "+4915137777777"), "customer_name"), Some("By Hand"));
    assert_eq!(found.len(), 10);
}

/// Updates under dropped answers, 5xx after the commit and a kill end as without them: every
/// lead says what its row says, none twice.
#[test]
fn updates_under_faults_and_a_kill_end_in_the_same_state() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "on_removed = \"stop\"\nmax_removed = 100");
    let mut rows = people(40);
    export(&case, &rows);
    sync(&case, &sb, &map, &["--allow-duplicates"]);
    for row in rows.iter_mut() {
        row.1 = format!("{} (neu)", row.1);
    }
    let gone = rows.split_off(36);
    export(&case, &rows);
    drop(sb);

    // Killed midway through the changes: a slow service, a run at 10 requests a second.
    let sb = case.service(Faults { latency: Duration::from_millis(30), ..Faults::default() });
    let sheet = case.path("export.csv").display().to_string();
    let map_arg = map.display().to_string();
    let args = ["sync", &sheet, "--mapping", &map_arg, "--rate", "10", "--allow-duplicates"];
    let child = case.spawn(&sb, &args);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let updated = leads(&sb, ALICE)
            .iter()
            .filter(|l| var(l, "customer_name").is_some_and(|n| n.ends_with("(neu)")))
            .count();
        if updated >= 5 {
            break;
        }
        assert!(Instant::now() < deadline, "no update in 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    kill(child);
    drop(sb);

    // Then answers lost and 5xx after the commit, on a third of the writes.
    let faults =
        Faults { drop_rate: 0.15, commit_fail_rate: 0.15, seed: Some(35), ..Faults::default() };
    let sb = case.service(faults);
    for _ in 0..4 {
        sync(&case, &sb, &map, &["--allow-duplicates"]);
    }
    drop(sb);
    // What the faults left in doubt is done by the next run; the one after finds all done.
    let sb = case.service(Faults::default());
    sync(&case, &sb, &map, &["--allow-duplicates"]);
    let (code, err, summary) = sync(&case, &sb, &map, &["--allow-duplicates"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(counts(&summary).0, (0, 0, 0, 0, 36), "all done: {summary}");
    let found = by_number(&sb);
    assert_eq!(found.values().map(Vec::len).sum::<usize>(), 40, "no lead twice: {found:?}");
    for (_, name, _, phone) in &rows {
        let lead = only(&found, phone);
        assert_eq!(
            (var(lead, "customer_name"), lead.status.as_str()),
            (Some(name.as_str()), "created")
        );
    }
    for (_, _, _, phone) in &gone {
        assert_eq!(only(&found, phone).status, "completed", "{phone} stopped");
    }
}

#[test]
fn a_dry_run_with_update_says_the_plan_and_changes_nothing() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "on_removed = \"stop\"");
    let mut rows = people(10);
    export(&case, &rows);
    sync(&case, &sb, &map, &[]);
    rows[1].1 = "Renamed".into();
    rows.remove(7);
    rows.push(("K-new".into(), "New".into(), "Bonn".into(), "+4915139000002".into()));
    export(&case, &rows);
    let (sheet, map_arg) = (case.path("export.csv"), map.display().to_string());
    let summary = case.path("dry.json");
    let args = ["import", sheet.to_str().unwrap(), "--mapping", &map_arg, "--dry-run", "--update"];
    let mut cli = case.cli(&sb, ALICE, &args).args(["--summary-json", summary.to_str().unwrap()]);
    let output = cli.cmd.output().unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("plan: 1 new, 1 changed, 1 to stop, 8 unchanged"), "{err}");
    let summary = json(&std::fs::read_to_string(&summary).unwrap());
    assert_eq!(counts(&summary).0, (1, 1, 1, 0, 8), "{summary}");
    assert!(summary["sync"]["applied"].is_null(), "a dry run applies nothing: {summary}");
    let found = by_number(&sb);
    assert_eq!(found.len(), 10, "nothing created");
    assert!(found.values().all(|l| l[0].status == "created"), "nothing stopped");
    assert_eq!(var(only(&found, &rows[1].3), "customer_name"), Some("Person 1"));
}

/// Week 2 in the browser: the same export with a name corrected and a person who now said no
/// (on the account's do-not-call list). The check says what the send will change; the send
/// updates the lead in place, and stops the other only when the box is ticked.
#[test]
fn the_browser_shows_the_plan_updates_changed_rows_and_asks_before_stopping() {
    use crate::lead_identity::{ui_check, ui_on, ui_read, ui_send};
    use crate::ui::flow::{finished, redirected};

    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let mut text = String::from("Name,Telefon\n");
    for i in 0..6 {
        text.push_str(&format!("Person {i},+4915160000{i:03}\n"));
    }
    let file = write(case.dir.path(), "export.csv", &text);
    let ui = ui_on(&sb, case.path("state"), 0.0);
    let cookie = ui.login();
    let check = ui_check(&ui, &cookie, &ui_read(&ui, &cookie, &file));
    finished(&ui, &cookie, &ui_send(&ui, &cookie, &check));
    assert_eq!(leads(&sb, ALICE).len(), 6);

    // Week 2's export: a name corrected, and Person 5 no longer in it (the browser never
    // removes a lead for a missing row).
    let week2 = text.replace("Person 2,", "Persona Zwei,").replace("Person 5,+4915160000005\n", "");
    write(case.dir.path(), "export.csv", &week2);
    let added = ui.send(ui.post("/never-call/add", &cookie).form(&[("number", "+4915160000004")]));
    assert!(added.status < 400, "{}", added.body);
    for stop in [false, true] {
        let check = ui_check(&ui, &cookie, &ui_read(&ui, &cookie, &file));
        let page = ui.get(&check, &cookie);
        let plan = if stop { 0 } else { 1 };
        let said = format!(
            "{plan} changed in the sheet and will be updated, 1 person now may not be called"
        );
        assert!(page.body.contains(&said), "the plan on the check page: {}", page.body);
        assert!(page.body.contains("name=\"stop_refused\""), "asks before stopping");
        let form: &[(&str, &str)] = if stop { &[("stop_refused", "on")] } else { &[] };
        let sent = ui.send(ui.post(&format!("/send{}", &check[4..]), &cookie).form(form));
        finished(&ui, &cookie, &redirected(&sent, "/run/"));
        let found = by_number(&sb);
        assert_eq!(found.values().map(Vec::len).sum::<usize>(), 6, "no second lead");
        assert_eq!(var(only(&found, "+4915160000002"), "customer_name"), Some("Persona Zwei"));
        let status = &only(&found, "+4915160000004").status;
        assert_eq!(status, if stop { "completed" } else { "created" }, "stopped only if asked");
        assert_eq!(
            only(&found, "+4915160000005").status,
            "created",
            "a missing row removes nothing"
        );
    }
}

/// The service cannot change a lead's secondary contacts: a changed secondary number is said
/// on its row (once), never sent, never a second lead.
#[test]
fn a_changed_secondary_number_is_a_warning_on_its_row_never_a_second_lead() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let text = "phone = \"Telefon\"\ncampaign = 10\nsecondary_contacts = [\"Zweitnummer\"]\n[variables]\ncustomer_name = \"Name\"\n";
    let map = write(case.dir.path(), "mapping.toml", text);
    let sheet = |second: &str| {
        let text = format!(
            "Name,Telefon,Zweitnummer\nAda,+4915170000001,+4915170000091\nBen,+4915170000002,{second}\n"
        );
        write(case.dir.path(), "export.csv", &text);
    };
    sheet("+4915170000092");
    sync(&case, &sb, &map, &["--allow-duplicates"]);
    sheet("+4915170000099");
    let report = case.path("report.json");
    let report_arg = report.display().to_string();
    let args = ["--allow-duplicates", "--report", &report_arg];
    let (code, err, _) = sync(&case, &sb, &map, &args);
    assert_eq!(code, Some(0), "a warning, not a problem: {err}");
    assert!(err.contains("1 rows changed a secondary number"), "{err}");
    let rows = json(&std::fs::read_to_string(&report).unwrap())["rows"].clone();
    let ben = rows.as_array().unwrap().iter().find(|r| r["row"] == 3).unwrap().clone();
    let codes: Vec<_> =
        ben["warnings"].as_array().unwrap().iter().map(|w| w["code"].clone()).collect();
    assert!(codes.contains(&json("\"secondary_not_updated\"")), "{ben}");
    assert_eq!(leads(&sb, ALICE).len(), 2, "never a second lead");
    let (_, err, _) = sync(&case, &sb, &map, &args);
    assert!(!err.contains("secondary number"), "said once: {err}");
}

/// Under an id column, a record whose row now names another campaign moves its lead there:
/// the same lead, its campaign updated, never a second lead, never a stop.
#[test]
fn with_an_id_column_a_changed_campaign_moves_the_lead() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let text = "phone = \"Telefon\"\ncampaign_column = \"Kampagne\"\nid = \"Kunden-Nr\"\non_removed = \"stop\"\n[variables]\ncustomer_name = \"Name\"\n";
    let map = write(case.dir.path(), "mapping.toml", text);
    let sheet = |second: &str| {
        let text = format!(
            "Kunden-Nr,Name,Telefon,Kampagne\nK-1,Ada,+4915180000001,10\nK-2,Ben,+4915180000002,{second}\n"
        );
        write(case.dir.path(), "export.csv", &text);
    };
    sheet("10");
    sync(&case, &sb, &map, &[]);
    let before = only(&by_number(&sb), "+4915180000002").id;
    sheet("11");
    let (code, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(counts(&summary), ((0, 1, 0, 0, 1), (1, 0, 0, 0)), "{summary}");
    let found = by_number(&sb);
    let ben = only(&found, "+4915180000002");
    assert_eq!((ben.id, ben.campaign_id, ben.status.as_str()), (before, 11, "created"));
    assert_eq!(found.values().map(Vec::len).sum::<usize>(), 2, "never a second lead");
    let (_, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(counts(&summary).0, (0, 0, 0, 0, 2), "moved once: {err}");
}

/// Every update is stored and then answered 500: in doubt after every send. Read back from the
/// lead list, each shows done, so the run reports it done and the next finds nothing to do.
#[test]
fn an_update_in_doubt_is_settled_by_reading_the_lead_back() {
    let mut case = Case::new();
    let sb = case.service(Faults::default());
    let map = mapping(&case, "");
    let mut rows = people(4);
    export(&case, &rows);
    sync(&case, &sb, &map, &[]);
    drop(sb);
    rows[1].1 = "Changed".into();
    export(&case, &rows);
    let sb = case.service(Faults { commit_fail_rate: 1.0, ..Faults::default() });
    let (code, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(counts(&summary).1, (1, 0, 0, 0), "read back, done: {summary}");
    assert_eq!(var(only(&by_number(&sb), &rows[1].3), "customer_name"), Some("Changed"));
    let (_, err, summary) = sync(&case, &sb, &map, &[]);
    assert_eq!(counts(&summary).0, (0, 0, 0, 0, 4), "{err}");
    assert!(!err.contains("in doubt"), "nothing left in doubt: {err}");
}
