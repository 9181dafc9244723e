//! Which run is this: two sheets of one workbook are two runs, `--sandbox` runs resume across
//! invocations, and a journal that is damaged or disagrees with the rows stops the run before
//! anything is sent.

use std::path::{Path, PathBuf};

use crate::support::{ALICE, CAROL, Cli, TestSandbox, json};

/// A workbook whose sheets share one header; each sheet's rows have numbers of their own.
pub fn workbook(path: &Path, sheets: &[(&str, Vec<(String, String)>)]) {
    let mut book = rust_xlsxwriter::Workbook::new();
    for (name, rows) in sheets {
        let sheet = book.add_worksheet();
        sheet.set_name(*name).unwrap();
        for (col, header) in ["Name", "Telefon", "Kampagne"].iter().enumerate() {
            sheet.write_string(0, col as u16, *header).unwrap();
        }
        for (i, (name, phone)) in rows.iter().enumerate() {
            let row = i as u32 + 1;
            sheet.write_string(row, 0, name).unwrap();
            sheet.write_string(row, 1, phone).unwrap();
            sheet.write_string(row, 2, "Spring Outreach").unwrap();
        }
    }
    book.save(path).unwrap();
}

fn month(name: &str, first: usize) -> Vec<(String, String)> {
    (first..first + 5).map(|i| (format!("{name} {i}"), format!("0151 40{i:06}"))).collect()
}

/// The service's leads as (phone, customer name), sorted.
fn leads(sb: &TestSandbox) -> Vec<(String, String)> {
    let leads = sb.block_on(sb.client(ALICE).list_leads()).unwrap();
    let mut pairs: Vec<_> = leads
        .into_iter()
        .map(|l| (l.phone_number, l.variables.get("customer_name").cloned().unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs
}

fn import(sb: &TestSandbox, book: &Path, sheet: &str, report: &Path) -> Cli {
    sb.cli(ALICE)
        .env("LEADSYNC_STATE_DIR", sb.path("state"))
        .args(["import", book.to_str().unwrap(), "--sheet", sheet, "--rate", "0"])
        .args(["--report", report.to_str().unwrap()])
}

#[test]
fn two_sheets_of_one_workbook_are_two_runs() {
    let sb = TestSandbox::start();
    let book = sb.path("book.xlsx");
    workbook(&book, &[("Jan", month("Jan", 0)), ("Feb", month("Feb", 100))]);
    // With duplicates allowed, so that a second copy of a Jan row would show on the service.
    import(&sb, &book, "Jan", &sb.path("jan.json")).args(["--allow-duplicates"]).ok();
    let (_, err) = import(&sb, &book, "Feb", &sb.path("feb.json")).ok();
    assert!(err.contains("5 rows: 5 created"), "{err}");
    let report = json(&std::fs::read_to_string(sb.path("feb.json")).unwrap());
    let on_service = leads(&sb);
    assert_eq!(on_service.len(), 10, "{on_service:?}");
    for row in report["rows"].as_array().unwrap() {
        let lead_id = row["lead_id"].as_u64().expect("created rows carry their lead");
        let name = row["variables"]["customer_name"].as_str().unwrap();
        assert!(name.starts_with("Feb "), "Feb's report names Feb's rows: {row}");
        let lead = sb
            .block_on(sb.client(ALICE).list_leads())
            .unwrap()
            .into_iter()
            .find(|l| l.id == lead_id)
            .expect("the lead the report names exists");
        assert_eq!(lead.variables["customer_name"], name, "and is that row's lead");
    }
    // Running a sheet again sends nothing more.
    import(&sb, &book, "Jan", &sb.path("jan2.json")).args(["--allow-duplicates"]).ok();
    assert_eq!(leads(&sb), on_service);
}

#[test]
fn the_same_journal_for_another_sheet_is_refused() {
    let sb = TestSandbox::start();
    let book = sb.path("book.xlsx");
    workbook(&book, &[("Jan", month("Jan", 0)), ("Feb", month("Feb", 100))]);
    let journal = sb.path("one.jsonl");
    let with_journal = |sheet: &str| {
        import(&sb, &book, sheet, &sb.path("r.json")).args(["--journal", journal.to_str().unwrap()])
    };
    // An unfinished Jan run: its journal is cut after the attempts, as a crash would leave it.
    with_journal("Jan").ok();
    let text = std::fs::read_to_string(&journal).unwrap();
    let unfinished: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&journal, unfinished).unwrap();
    let (_, err) = with_journal("Feb").expect_code(1);
    assert!(err.contains("the sheet changed"), "{err}");
    assert_eq!(leads(&sb).len(), 5, "nothing of Feb was sent");
}

#[test]
fn sandbox_runs_resume_across_invocations() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("leads.csv");
    let rows: String =
        (0..6).map(|i| format!("Kunde {i},0151 55{i:06},Spring Outreach\n")).collect();
    std::fs::write(&csv, format!("Name,Telefon,Kampagne\n{rows}")).unwrap();
    let state = dir.path().join("state");
    let sync =
        || Cli::new().env("LEADSYNC_STATE_DIR", &state).args(["--sandbox", "sync"]).args([&csv]);
    let (_, first) = sync().ok();
    assert!(first.contains("6 created"), "{first}");
    let (_, second) = sync().ok();
    // A sync with nothing new says so in one line (cron logs).
    assert!(second.contains("nothing new (6 rows, none to send)"), "{second}");
    let (out, _) = Cli::new()
        .env("LEADSYNC_STATE_DIR", &state)
        .args(["--sandbox", "leads", "list", "--output", "json"])
        .ok();
    let listed = json(&out);
    let ours = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["phone_number"].as_str().unwrap().starts_with("+4915155"))
        .count();
    assert_eq!(ours, 6, "the embedded sandbox kept the leads: {out}");
}

/// A finished run of `rows` CSV rows, and its journal.
fn finished_run(sb: &TestSandbox, rows: usize) -> (PathBuf, PathBuf) {
    let csv = sb.path("leads.csv");
    let body: String =
        (0..rows).map(|i| format!("Kunde {i},0151 66{i:06},Spring Outreach\n")).collect();
    std::fs::write(&csv, format!("Name,Telefon,Kampagne\n{body}")).unwrap();
    let journal = sb.path("j.jsonl");
    rerun(sb, &csv, &journal).ok();
    (csv, journal)
}

fn rerun(sb: &TestSandbox, csv: &Path, journal: &Path) -> Cli {
    sb.cli(ALICE).env("LEADSYNC_STATE_DIR", sb.path("state")).args([
        "import",
        csv.to_str().unwrap(),
        "--rate",
        "0",
        "--journal",
        journal.to_str().unwrap(),
    ])
}

#[test]
fn a_damaged_journal_stops_the_run_and_names_the_line() {
    let sb = TestSandbox::start();
    let (csv, journal) = finished_run(&sb, 4);
    let mut lines: Vec<String> =
        std::fs::read_to_string(&journal).unwrap().lines().map(String::from).collect();
    lines.insert(3, "{\"event\":\"outcome\",\"row\":\"x\"".into());
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let (_, err) = rerun(&sb, &csv, &journal).expect_code(1);
    assert!(err.contains("damaged at line 4") && err.contains("j.jsonl"), "{err}");
    assert_eq!(leads(&sb).len(), 4);
}

#[test]
fn a_settled_row_whose_content_changed_is_not_reported_as_sent() {
    let sb = TestSandbox::start();
    let (csv, journal) = finished_run(&sb, 4);
    // The journal says row 3 was settled with other content than the sheet now gives it.
    let text = std::fs::read_to_string(&journal).unwrap();
    let tampered: Vec<String> = text
        .lines()
        .filter(|l| !l.contains("\"event\":\"finished\""))
        .map(|l| {
            if l.contains("\"event\":\"outcome\"") && l.contains("\"row\":3,") {
                let value: serde_json::Value = serde_json::from_str(l).unwrap();
                let fp = value["fp"].as_str().unwrap().to_string();
                l.replace(&fp, "00000000000000ff")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&journal, tampered.join("\n") + "\n").unwrap();
    let (_, err) = rerun(&sb, &csv, &journal).expect_code(1);
    assert!(err.contains("row 3 of") && err.contains("--restart"), "{err}");
    assert_eq!(leads(&sb).len(), 4, "nothing sent again");
}

/// An account without assistants shows no user id: its journals name it by its campaigns,
/// never by the token or anything made from it, and the same run resumes. (After a token
/// rotation too: `exactly_once.rs`.)
#[test]
fn an_account_without_assistants_is_named_by_its_campaigns() {
    let sb = TestSandbox::start();
    let csv = sb.path("carol.csv");
    std::fs::write(&csv, "Name,Telefon,Kampagne\nA,0151 99000001,Carol Campaign\n").unwrap();
    let run = || {
        sb.cli(CAROL).env("LEADSYNC_STATE_DIR", sb.path("state")).args([
            "import",
            csv.to_str().unwrap(),
            "--rate",
            "0",
        ])
    };
    run().ok();
    let journals: Vec<_> = std::fs::read_dir(sb.path("state/journals"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    assert_eq!(journals.len(), 1);
    let header = std::fs::read_to_string(&journals[0]).unwrap().lines().next().unwrap().to_string();
    assert_eq!(json(&header)["account"], "campaign:30", "{header}");
    let plain = blake3::hash(CAROL.as_bytes()).to_hex().to_string();
    assert!(!header.contains(CAROL) && !header.contains(&plain[..16]), "{header}");
    assert!(!sb.path("state/account.key").exists(), "nothing is made from the token");
    let (_, err) = run().ok();
    assert!(err.contains("settled by an earlier run"), "the same run resumed: {err}");
}

/// A journal an older version kept under the account's one old name (`user:<id>` in its file
/// name) is found and resumed after an upgrade, not replaced by a new run that sends again.
#[test]
fn a_journal_named_by_an_older_version_is_resumed() {
    let sb = TestSandbox::start();
    let csv = sb.path("leads.csv");
    std::fs::write(&csv, "Name,Telefon,Kampagne\nA,0151 99000001,Spring Outreach\n").unwrap();
    let run = || {
        sb.cli(ALICE).env("LEADSYNC_STATE_DIR", sb.path("state")).args([
            "import",
            csv.to_str().unwrap(),
            "--rate",
            "0",
            "--allow-duplicates",
        ])
    };
    run().ok();
    let dir = sb.path("state/journals");
    let journal = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let canonical = std::fs::canonicalize(&csv).unwrap().display().to_string();
    let service = sb.client(ALICE).service_name();
    let legacy = leadsync::journal::default_path(&dir, &canonical, None, &[&service, "user:1", ""]);
    assert_ne!(legacy, journal);
    std::fs::rename(&journal, &legacy).unwrap();
    let (_, err) = run().ok();
    assert!(err.contains("settled by an earlier run"), "the old run resumed: {err}");
    assert_eq!(leads(&sb).len(), 1, "nothing sent again");
}
